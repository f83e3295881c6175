"""``voicehost devices``: list sound input and output devices."""

from __future__ import annotations

import argparse

from voicehost.status import ExitStatus

NAME = "devices"
HELP = "list microphones and speakers (PortAudio devices) with their channel counts"
DESCRIPTION = """\
List every sound device PortAudio sees: its index (use it with --device), name, host API and the
number of input (microphone) and output (speaker/earphone) channels. '>' marks the default input,
'<' the default output. A multi-channel interface can serve several players, one channel each.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``devices`` has no options of its own."""


def run(args: argparse.Namespace) -> int:
    """Print the device table."""
    from voicehost.audio.devices import list_devices

    devices = list_devices()
    if not devices:
        print("no sound devices found")
        return ExitStatus.OK
    print(f"{'':2}{'#':>3}  {'in':>3} {'out':>3}  {'rate':>6}  name (host API)")
    for d in devices:
        mark = (">" if d.is_default_input else " ") + ("<" if d.is_default_output else " ")
        print(
            f"{mark}{d.index:>3}  {d.max_input_channels:>3} {d.max_output_channels:>3}  "
            f"{d.default_samplerate:>6.0f}  {d.name} ({d.hostapi})"
        )
    return ExitStatus.OK
