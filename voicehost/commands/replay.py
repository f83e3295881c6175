"""``voicehost replay DIR``: re-run a recorded session from its audio and check it reproduces."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voicehost.status import ExitStatus

NAME = "replay"
HELP = "re-run a recorded game from its audio (faster than real time) and check the events match"
DESCRIPTION = """\
Re-run a session saved with 'voicehost play ... --record DIR' (or a session fixture in
audio_fixtures/sessions/): the recorded microphones go through the same listening pipeline and
game flow on a simulated clock, faster than real time, and the resulting events are compared with
the recorded event log. The host's voice is not played; --speech-wav writes it to a file.

Exit status 0 when every event is reproduced (times may differ; onsets within --tolerance),
1 when they differ — a recorded game night becomes a regression test.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``replay``."""
    parser.add_argument("folder", type=Path, metavar="DIR", help="the recorded session folder")
    parser.add_argument("--log", type=Path, metavar="FILE.jsonl", help="write the replayed events here (default: DIR/replay-events.jsonl)")
    parser.add_argument("--speech-wav", type=Path, metavar="FILE.wav", help="write the host's speech during the replay to a WAV file")
    parser.add_argument("--tolerance", type=float, default=0.05, metavar="S", help="seconds two onsets may differ and still match (default 0.05)")
    parser.add_argument("--engine", choices=["auto", "vosk", "whisper", "sphinx"], help="override the recorded recogniser choice")
    parser.add_argument("--quiet", action="store_true", help="do not print the host's lines")


def run(args: argparse.Namespace) -> int:
    """Replay, compare, report."""
    import io
    import time

    from voicehost.eventlog import read_events
    from voicehost.host.listening import EVENTS_FILE
    from voicehost.host.live import ListenSettings, build_replay, compare_events, load_session, replay_settings_note
    from voicehost.host.session import Session

    data = load_session(args.folder)
    listen = None
    if args.engine:
        listen = ListenSettings(str(data.get("lang", "en")), args.engine, None)
    log = args.log or args.folder / "replay-events.jsonl"
    log.unlink(missing_ok=True)
    out = io.StringIO() if args.quiet else sys.stdout
    print(f"replaying {replay_settings_note(data)} from {args.folder}", flush=True)
    started = time.perf_counter()
    built, _ = build_replay(args.folder, listen=listen, log=log, speech_wav=args.speech_wav, stdout=out)
    try:
        outcome = Session(built.flow, built.input, built.host).run()
    finally:
        built.close()
    elapsed = time.perf_counter() - started
    audio_seconds = built.host.clock.now()
    print(f"replayed {audio_seconds:.1f} s of session in {elapsed:.1f} s ({audio_seconds / max(elapsed, 1e-9):.1f}x real time); events: {log}")
    expected_path = args.folder / EVENTS_FILE
    if not expected_path.exists():
        print(f"no recorded event log ({expected_path}) to compare with")
        return ExitStatus.OK
    problems = compare_events(read_events(expected_path), read_events(log), tolerance=args.tolerance)
    if problems:
        print("the replay differs from the recording:")
        for line in problems:
            print(f"  {line}")
        return ExitStatus.ERROR
    print(f"reproduced: all {len(read_events(expected_path))} events match")
    return ExitStatus.OK
