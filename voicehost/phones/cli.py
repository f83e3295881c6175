"""The phones' options of ``voicehost play`` / ``resume`` (kept here so the commands change little)."""

from __future__ import annotations

import argparse

from voicehost.phones.live import DEFAULT_PORT


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{value} s is out of range (more than 0, at most 3600)")
    return value


def add_phone_arguments(parser: argparse.ArgumentParser) -> None:
    """Options for ``--input phones``."""
    group = parser.add_argument_group("with --input phones (each player's phone is their microphone and earphone)")
    group.add_argument(
        "--phones-port",
        type=_port,
        default=DEFAULT_PORT,
        metavar="PORT",
        help=f"port of the phones' page (default {DEFAULT_PORT})",
    )
    group.add_argument(
        "--phones-host",
        default="0.0.0.0",
        metavar="ADDR",
        help="address to serve the page on (default: every network of this machine)",
    )
    group.add_argument(
        "--phones-http",
        action="store_true",
        help="serve plain HTTP (browsers then allow the microphone only on this machine, at localhost)",
    )
    group.add_argument(
        "--phones-no-clicks",
        action="store_true",
        help="do not measure each phone's delay with clicks on the table speaker",
    )
    group.add_argument(
        "--phones-search",
        type=_seconds,
        default=1.0,
        metavar="S",
        help="seconds after the clicks left the speaker within which a phone may hear them (default 1)",
    )
    group.add_argument(
        "--phones-wait",
        type=_seconds,
        default=None,
        metavar="S",
        help="give up when not every player has joined after S seconds (default: wait)",
    )
