"""``voicehost demo``: the main job with no microphone and no download."""

from __future__ import annotations

import argparse
from pathlib import Path

from voicehost.status import ExitStatus

NAME = "demo"
HELP = "check the machine and play a short spoken demo (no microphone, no download needed)"
DESCRIPTION = """\
Run 'voicehost doctor', then let the host speak a short introduction. The speech is written to
a WAV file (--out) and played on the default output device if there is one.
"""

DEMO_TEXT = (
    "Hello, I am voicehost. I can host Bim Bamm, Bim Bam Bum, and BAM, entirely by voice. "
    "Shout when five animals show!"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``demo``."""
    parser.add_argument("--out", type=Path, default=Path("demo-out") / "demo.wav", metavar="FILE.wav",
                        help="where to write the spoken demo (default: demo-out/demo.wav)")
    parser.add_argument("--device", metavar="DEV", help="output device (index or name), see 'voicehost devices'")
    parser.add_argument("--no-play", action="store_true", help="only write the WAV file")


def run(args: argparse.Namespace) -> int:
    """Doctor report, then the spoken demo."""
    from voicehost.audio.buffer import write_wav
    from voicehost.doctor import print_report, run_checks
    from voicehost.speak.output import play_or_explain
    from voicehost.speak.voice import EspeakVoice

    failed = print_report(run_checks())
    if failed:
        return ExitStatus.ERROR
    print()
    print(f"host: {DEMO_TEXT}")
    audio = EspeakVoice().render(DEMO_TEXT)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_wav(args.out, audio)
    print(f"wrote {args.out} ({audio.duration:.2f} s of speech)")
    if not args.no_play:
        play_or_explain(audio, args.device)
    return ExitStatus.OK
