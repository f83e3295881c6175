"""Where the host's speech goes: the table speaker, one seat's earphone, or a WAV file."""

from __future__ import annotations

import sys

from voicehost.audio.buffer import Audio
from voicehost.audio.devices import find_device, play
from voicehost.errors import AudioDeviceError


def play_or_explain(audio: Audio, device: str | int | None, channel: int | None = None) -> bool:
    """Play on ``device`` (default output when None); say plainly why not if impossible.

    A machine without any output device is normal (a server, CI): that is reported, not raised.
    An explicitly requested device that fails is an error.
    """
    try:
        target = find_device(device, output=True)
    except AudioDeviceError:
        if device is not None:
            raise
        target = None
    if target is None:
        print("no sound output device found: nothing was played", file=sys.stderr)
        return False
    try:
        play(audio, target, channel)
    except AudioDeviceError as error:
        if device is not None:
            raise
        print(f"could not play on the default output ({error})", file=sys.stderr)
        return False
    print(f"played {audio.duration:.2f} s on {target.name!r}" + (f", channel {channel + 1}" if channel is not None else ""))
    return True
