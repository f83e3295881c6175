"""``voicehost demo``: the main job with no microphone and no download — a recorded game replayed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voicehost.games import GAMES as GAMES_BY_NAME
from voicehost.status import ExitStatus

NAME = "demo"
HELP = "check the machine, then replay a complete short game from recorded audio (no microphone, no download)"
DESCRIPTION = """\
Run 'voicehost doctor', then replay a complete short game from the session fixtures in
audio_fixtures/sessions/: the players' recorded microphones go through the real listening pipeline
(onsets, crosstalk, speech recognition) and the real game host, faster than real time. The
transcript is printed as it goes, with what the host heard; the host's voice and the players are
written to a WAV file (--out) and played on the default output device if there is one.

examples:
  voicehost demo                       # Bim Bam Bum!, three players
  voicehost demo --game bimbamm --no-play
"""

GAMES = {name: info.demo for name, info in GAMES_BY_NAME.items()}
"""Game → its session fixture (from the game registry)."""
DEFAULT_OUT = Path("demo-out") / "demo.wav"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``demo``."""
    parser.add_argument("--game", choices=sorted(GAMES), default="bimbambum", help="which game to replay (default bimbambum)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="FILE.wav",
                        help="where to write the game's sound: host and players (default: demo-out/demo.wav)")
    parser.add_argument("--device", metavar="DEV", help="output device (index or name), see 'voicehost devices'")
    parser.add_argument("--no-play", action="store_true", help="only write the WAV file")


def run(args: argparse.Namespace) -> int:
    """Doctor report, then the replayed game."""
    from voicehost.audio.buffer import check_writable
    from voicehost.doctor import print_report, run_checks

    if args.out == DEFAULT_OUT:
        args.out.parent.mkdir(parents=True, exist_ok=True)
    check_writable(args.out)  # before the machine check: a typo in --out is told at once
    if print_report(run_checks()):
        return ExitStatus.ERROR
    print()
    return replay_demo(args.game, args.out, args.device, play=not args.no_play)


def replay_demo(game: str, out: Path, device: str | None, *, play: bool) -> int:
    """Replay the game's session fixture, print what happens, write and play its sound."""
    import tempfile

    from voicehost.audio.buffer import check_writable
    from voicehost.eventlog import read_events
    from voicehost.host import fixtures
    from voicehost.host.live import build_replay, compare_events
    from voicehost.host.session import Session

    if out == DEFAULT_OUT:
        out.parent.mkdir(parents=True, exist_ok=True)
    check_writable(out)
    folder = fixtures.ensure_session(GAMES[game])
    print(f"Replaying a recorded game of {game} from {folder}")
    print("(host: … is what the host says; 'heard' is what it understood from each microphone)\n")
    with tempfile.TemporaryDirectory(prefix="voicehost-demo-") as tmp:
        host_wav = Path(tmp) / "host.wav"
        log = out.with_suffix(".events.jsonl")
        log.unlink(missing_ok=True)
        built, _ = build_replay(folder, log=log, speech_wav=host_wav, stdout=sys.stdout)

        def show(heard: object) -> None:
            print(f"    heard {heard.player}: \"{heard.phrase}\" at {heard.onset:.2f} s", flush=True)  # type: ignore[attr-defined]

        try:
            outcome = Session(built.flow, built.input, built.host, on_heard=show).run()
        finally:
            built.close()
        problems = compare_events(read_events(folder / "events.jsonl"), read_events(log))
        audio = fixtures.mix_for_listening(folder, host_wav)
    from voicehost.audio.buffer import write_wav
    from voicehost.speak.output import play_or_explain

    write_wav(out, audio)
    print()
    print(f"game {'finished' if outcome.finished else 'stopped'}; events in {log}")
    print("the replay reproduced the recorded game exactly" if not problems else
          "the replay differs from the recorded game: " + "; ".join(problems))
    print(f"wrote {out} ({audio.duration:.1f} s: the host and the players)")
    if play:
        play_or_explain(audio, device)
    return ExitStatus.OK if not problems else ExitStatus.ERROR
