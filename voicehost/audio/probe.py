"""Is a lost input device back? Asked in a child process, never in the game's own.

Opening a stream on a device whose PulseAudio source has vanished fails, as it should, but now
and then it crashes the process instead: measured on 2026-12-02 through PortAudio's ALSA host
API and the ALSA pulse plugin, a segmentation fault in ``Pa_OpenStream`` on the 11th failed
reopen while another device's stream was running (and once a hang). A game host retries a
pulled-out microphone every second, so over a long pause that crash was a matter of time; it
ended whole games without a word (``tests/test_live_mics.py`` caught it in 2 of 3 full runs).

So :class:`~voicehost.listen.sources.LiveSource` asks this module, run as
``python -m voicehost.audio.probe``, whether the device opens and delivers sound. The probe
tries every ``--every`` seconds, alone in its process; as soon as a block of sound arrived it
prints ``flowing`` and holds its stream open while the game opens the device itself, until the
game closes the probe's stdin; then it exits 0. If the probe crashes,
only the probe is lost, and the game starts another one. Exit status 3: no such device in the
probe's device list (PortAudio lists devices once per process, so the next probe looks afresh);
4: its stdin closed before the device came back (the game ended or died).
"""

from __future__ import annotations

import argparse
import select
import sys
import threading

EXIT_BACK = 0
EXIT_NO_DEVICE = 3
EXIT_PARENT_GONE = 4
FLOWING = "flowing"
"""The line the probe prints when sound flows; it then holds its stream until stdin closes."""
HOLD_SECONDS = 10.0
"""Seconds the probe holds its flowing stream at most."""


def probe(device: str, channels: int, rate: int, every: float, wait: float) -> int:
    """Try ``device`` until it delivers a block of sound (EXIT_BACK), is not listed (EXIT_NO_DEVICE)
    or stdin closes first (EXIT_PARENT_GONE)."""
    from voicehost.audio.devices import find_device, sounddevice_module
    from voicehost.errors import AudioDeviceError

    sd = sounddevice_module()
    try:
        info = find_device(device, output=False)
    except AudioDeviceError:
        return EXIT_NO_DEVICE
    if info is None:  # only without a device, which main() refuses
        return EXIT_NO_DEVICE
    while True:
        flowing = threading.Event()

        def callback(indata: object, frames: int, time_info: object, status: object) -> None:
            flowing.set()

        try:
            stream = sd.InputStream(
                device=info.index, channels=channels, samplerate=rate, dtype="float32", callback=callback
            )
            stream.start()
        except sd.PortAudioError:
            if _parent_gone(every):
                return EXIT_PARENT_GONE
            continue
        back = flowing.wait(wait)
        if back:
            # Hold the stream until the game's priming stream flows (it closes our stdin, or dies):
            # a new stream on an idle PulseAudio source takes up to 2 s to deliver, one beside a
            # running stream does not.
            print(FLOWING, flush=True)
            select.select([sys.stdin], [], [], HOLD_SECONDS)
        try:
            stream.abort()
            stream.close()
        except sd.PortAudioError:
            pass
        if back:
            return EXIT_BACK
        if _parent_gone(every):
            return EXIT_PARENT_GONE


def _parent_gone(seconds: float) -> bool:
    """Wait ``seconds``; True if stdin closed meanwhile (the game ended, or died: no orphan probe)."""
    return bool(select.select([sys.stdin], [], [], seconds)[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m voicehost.audio.probe", description=__doc__)
    parser.add_argument("--device", required=True, help="index or (part of the) name, as in the table config")
    parser.add_argument("--channels", type=int, required=True)
    parser.add_argument("--rate", type=int, required=True)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between tries")
    parser.add_argument("--wait", type=float, default=3.0, help="seconds an opened stream may take to deliver")
    args = parser.parse_args(argv)
    return probe(args.device, args.channels, args.rate, args.every, args.wait)


if __name__ == "__main__":
    sys.exit(main())
