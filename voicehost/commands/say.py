"""``voicehost say``: speak a sentence with the host's voice, through the speech service."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.status import ExitStatus

if TYPE_CHECKING:
    from voicehost.speak.cache import RenderCache
    from voicehost.speak.earcons import Earcon
    from voicehost.speak.service import SpeechService, Spoken
    from voicehost.speak.voice import EspeakVoice

NAME = "say"
HELP = "speak a sentence with the host's voice (and/or write it to a WAV file)"
DESCRIPTION = """\
Speak TEXT with the host's voice (espeak-ng through pyttsx3).

The speech is rendered to audio first, then played on the output device (the default one unless
--device is given) and/or written to --out. On a machine without any output device it says so and
still writes the WAV file when --out is given. --channel sends it to one channel only, the way the
host whispers to one player's earphone: the other channels stay silent. --sound plays one of the
host's short signal sounds first.

examples:
  voicehost say "Welcome to Bim Bamm!"
  voicehost say "Bonjour" --voice fr --rate 150 --out hello.wav
  voicehost say "Only for you" --device 3 --channel 2
  voicehost say --sound "race open"
  voicehost say --list-voices
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``say``."""
    parser.add_argument("text", nargs="?", help="what to say (quote it)")
    parser.add_argument("--out", type=Path, metavar="FILE.wav", help="also write the speech to this WAV file")
    parser.add_argument(
        "--voice", metavar="V", help="espeak-ng voice: id (gmw/en-us), name or language code (default: gmw/en-us)"
    )
    parser.add_argument(
        "--rate", type=int, metavar="WPM", help="speaking rate in words per minute, 80 to 450 (default: 175)"
    )
    parser.add_argument(
        "--device", metavar="DEV", help="output device: index or (part of) its name, see 'voicehost devices'"
    )
    parser.add_argument(
        "--channel", type=int, metavar="N", help="play only on this output channel (1 = first): one player's earphone"
    )
    parser.add_argument(
        "--sound",
        metavar="NAME",
        help="play a signal sound first: 'your turn', 'point', 'mistake', 'race open' or 'time running out'",
    )
    parser.add_argument("--no-play", action="store_true", help="do not play, only write --out")
    parser.add_argument("--list-voices", action="store_true", help="list the installed voices and exit")


def run(args: argparse.Namespace) -> int:
    """Validate, then speak through the speech service to a WAV file and/or a device."""
    from voicehost.audio.buffer import check_writable
    from voicehost.speak.cache import RenderCache
    from voicehost.speak.earcons import earcon_named
    from voicehost.speak.voice import DEFAULT_RATE, EspeakVoice, check_rate

    if args.rate is not None:
        check_rate(args.rate)
    if args.out is not None:
        check_writable(args.out)
    if args.channel is not None and args.channel < 1:
        print("voicehost say: --channel counts from 1", file=sys.stderr)
        return ExitStatus.USAGE
    sound = earcon_named(args.sound) if args.sound else None
    voice = EspeakVoice(voice=args.voice, rate=args.rate or DEFAULT_RATE)
    if args.list_voices:
        for v in voice.voices():
            print(f"{v.id:28} {', '.join(v.languages):16} {v.name}")
        return ExitStatus.OK
    if not args.text and sound is None:
        print("voicehost say: nothing to say: give TEXT (try: voicehost say --help)", file=sys.stderr)
        return ExitStatus.USAGE
    if args.text is not None and not args.text.strip():
        voice.render(args.text)  # raises the one-line "nothing to say" error
    if args.no_play and args.out is None:
        print("voicehost say: --no-play needs --out FILE.wav (else nothing would be played or kept)", file=sys.stderr)
        return ExitStatus.USAGE
    cache = RenderCache()
    if args.out is not None:
        duration = _write(voice, cache, args.text, sound, args.out)
        print(f"wrote {args.out} ({duration:.2f} s of speech)")
    if not args.no_play:
        channel = None if args.channel is None else args.channel - 1
        if not _play(voice, cache, args.text, sound, args.device, channel) and args.out is None:
            print("(no speech was kept: add --out FILE.wav to save it)")
    return ExitStatus.OK


def _speak_all(service: SpeechService, text: str | None, sound: Earcon | None) -> list[Spoken]:
    spoken = []
    if sound is not None:
        spoken.append(service.earcon(sound))
    if text:
        spoken.append(service.say(text))
    return spoken


def _write(voice: EspeakVoice, cache: RenderCache, text: str | None, sound: Earcon | None, path: Path) -> float:
    """Render onto a WAV timeline on a simulated clock: no waiting; returns seconds written."""
    from voicehost.clock import SimClock
    from voicehost.speak.output import TABLE, WavSink
    from voicehost.speak.service import SpeechService

    sink = WavSink(path)
    with SpeechService(voice, {TABLE: sink}, SimClock(), cache=cache, gap=0.0) as service:
        _speak_all(service, text, sound)
    assert sink.written is not None
    return sink.written.duration


def _play(
    voice: EspeakVoice,
    cache: RenderCache,
    text: str | None,
    sound: Earcon | None,
    device: str | None,
    channel: int | None,
) -> bool:
    """Play on the device; explain (and return False) when there is nothing to play on."""
    from voicehost.clock import WallClock
    from voicehost.speak.output import TABLE, device_sink
    from voicehost.speak.service import SpeechService

    clock = WallClock()
    sink = device_sink(device, channel, clock)
    if sink is None:
        print("no sound output device found: nothing was played", file=sys.stderr)
        return False
    with SpeechService(voice, {TABLE: sink}, clock, cache=cache) as service:
        spoken = _speak_all(service, text, sound)
        service.wait_idle(timeout=600)
    failed = [s.error for s in spoken if s.error is not None]
    if failed:
        if device is not None:
            raise failed[0]
        print(f"could not play on the default output ({failed[0]})", file=sys.stderr)
        return False
    seconds = sum(s.span.duration for s in spoken if s.span is not None)
    print(f"played {seconds:.2f} s on {sink.name}")
    return True
