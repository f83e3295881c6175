"""``voicehost say``: speak a sentence with the host's voice."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voicehost.status import ExitStatus

NAME = "say"
HELP = "speak a sentence with the host's voice (and/or write it to a WAV file)"
DESCRIPTION = """\
Speak TEXT with the host's voice (espeak-ng through pyttsx3).

The speech is rendered to audio first, then played on the output device (the default one unless
--device is given) and/or written to --out. On a machine without any output device it says so and
still writes the WAV file when --out is given.

examples:
  voicehost say "Welcome to Bim Bamm!"
  voicehost say "Bonjour" --voice fr --rate 150 --out hello.wav
  voicehost say "Only for you" --device 3 --channel 2
  voicehost say --list-voices
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``say``."""
    parser.add_argument("text", nargs="?", help="what to say (quote it)")
    parser.add_argument("--out", type=Path, metavar="FILE.wav", help="also write the speech to this WAV file")
    parser.add_argument("--voice", metavar="V", help="espeak-ng voice: id (gmw/en-us), name or language code (default: gmw/en-us)")
    parser.add_argument("--rate", type=int, metavar="WPM", help="speaking rate in words per minute, 80 to 450 (default: 175)")
    parser.add_argument("--device", metavar="DEV", help="output device: index or (part of) its name, see 'voicehost devices'")
    parser.add_argument("--channel", type=int, metavar="N", help="play only on this output channel (1 = first): one player's earphone")
    parser.add_argument("--no-play", action="store_true", help="do not play, only write --out")
    parser.add_argument("--list-voices", action="store_true", help="list the installed voices and exit")


def run(args: argparse.Namespace) -> int:
    """Render, then write and/or play."""
    from voicehost.audio.buffer import check_writable, write_wav
    from voicehost.speak.voice import DEFAULT_RATE, EspeakVoice, check_rate
    from voicehost.speak.output import play_or_explain

    if args.rate is not None:
        check_rate(args.rate)
    if args.out is not None:
        check_writable(args.out)
    if args.channel is not None and args.channel < 1:
        print("voicehost say: --channel counts from 1", file=sys.stderr)
        return ExitStatus.USAGE
    voice = EspeakVoice(voice=args.voice, rate=args.rate or DEFAULT_RATE)
    if args.list_voices:
        for v in voice.voices():
            print(f"{v.id:28} {', '.join(v.languages):16} {v.name}")
        return ExitStatus.OK
    if not args.text:
        print("voicehost say: nothing to say: give TEXT (try: voicehost say --help)", file=sys.stderr)
        return ExitStatus.USAGE
    audio = voice.render(args.text)
    if args.out is not None:
        write_wav(args.out, audio)
        print(f"wrote {args.out} ({audio.duration:.2f} s of speech)")
    if not args.no_play:
        channel = None if args.channel is None else args.channel - 1
        if not play_or_explain(audio, args.device, channel) and args.out is None:
            print("(no speech was kept: add --out FILE.wav to save it)")
    return ExitStatus.OK
