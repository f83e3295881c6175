"""The ``voicehost`` command line: parse, call one command, map errors to exit statuses.

Each subcommand lives in its own module under :mod:`voicehost.commands` and is discovered there,
so features add commands without editing this file. A command module defines:

- ``NAME`` (the subcommand), ``HELP`` (one line for ``voicehost --help``),
  optionally ``DESCRIPTION`` (longer text for ``voicehost NAME --help``);
- ``add_arguments(parser)`` to declare its options;
- ``run(args) -> int`` doing the work and returning an :class:`~voicehost.status.ExitStatus`.

Heavy libraries (sounddevice, vosk, pyttsx3, …) are imported inside ``run``, never at import time.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys
import threading
from contextlib import contextmanager
from types import FrameType, ModuleType
from typing import Iterator, NoReturn, Sequence

from voicehost import __version__
from voicehost.errors import VoicehostError
from voicehost.status import ExitStatus


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitStatus.USAGE, f"{self.prog}: error: {message} (try: {self.prog} --help)\n")


def command_modules() -> list[ModuleType]:
    """All modules in :mod:`voicehost.commands` that define a subcommand, sorted by name."""
    import voicehost.commands as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found.append(module)
    return sorted(found, key=lambda m: m.NAME)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser with every discovered subcommand.

    With ``only`` (the command about to run) the other commands are listed but their options
    are not declared: declaring ``play``'s imports every game flow, half a second that
    ``voicehost bam render`` should not wait for."""
    parser = OneLineParser(
        prog="voicehost",
        description=(
            "voicehost hosts the party games Bim Bamm!, Bim Bam Bum! and BAM! by voice, offline: "
            "it speaks every announcement, listens to each player's microphone and referees. "
            "Run 'voicehost doctor' first to see what works on this machine."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks instead of one-line errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for module in command_modules():
        sub = subparsers.add_parser(
            module.NAME,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,
            help="show full tracebacks instead of one-line errors",
        )
        if only is None or module.NAME == only:
            module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option), if any."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: stop the way Ctrl-C stops (logs closed, where to resume said), status 143."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


@contextmanager
def _sigterm_stops() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` while a command runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``voicehost`` console script; returns the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(only=_command_in(words))
    args = parser.parse_args(words)
    if not getattr(args, "command", None):
        parser.print_help()
        return ExitStatus.USAGE
    debug = bool(getattr(args, "debug", False))
    try:
        with _sigterm_stops():
            return int(args._run(args))
    except Terminated:
        print("voicehost: stopped (SIGTERM)", file=sys.stderr)
        return ExitStatus.TERMINATED
    except KeyboardInterrupt:
        print("voicehost: interrupted", file=sys.stderr)
        return ExitStatus.INTERRUPTED
    except VoicehostError as error:
        if debug:
            raise
        print(f"voicehost {args.command}: {error}", file=sys.stderr)
        return error.exit_status
    except BrokenPipeError:
        return ExitStatus.OK
    except (Exception, MemoryError, RecursionError) as error:  # a bug: still one line, unless --debug
        if debug:
            raise
        print(
            f"voicehost {args.command}: internal error ({type(error).__name__}: {error}); "
            "run it again with --debug for the details and report them",
            file=sys.stderr,
        )
        return ExitStatus.ERROR


if __name__ == "__main__":
    sys.exit(main())
