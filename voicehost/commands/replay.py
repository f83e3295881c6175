"""``voicehost replay DIR``: re-run a recorded session from its audio and check it reproduces."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from voicehost.errors import InputError
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
    from voicehost.host.options import Seconds, seconds_type

    parser.add_argument("folder", type=Path, metavar="DIR", help="the recorded session folder")
    parser.add_argument(
        "--log",
        type=Path,
        metavar="FILE.jsonl",
        help="write the replayed events to this new file (default: logs/replay-NAME-N.jsonl; never into the recording)",
    )
    parser.add_argument(
        "--speech-wav", type=Path, metavar="FILE.wav", help="write the host's speech during the replay to a WAV file"
    )
    parser.add_argument(
        "--tolerance",
        type=seconds_type(Seconds(0.0, 10.0, low_allowed=True)),
        default=0.05,
        metavar="S",
        help="seconds two onsets may differ and still match, 0 to 10 (default 0.05)",
    )
    parser.add_argument(
        "--engine", choices=["auto", "vosk", "whisper", "sphinx"], help="override the recorded recogniser choice"
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the host's lines")


def _inside(path: Path, folder: Path) -> bool:
    """True if ``path`` would be written inside ``folder`` (links and '..' resolved)."""
    return path.resolve().is_relative_to(folder.resolve())


def fresh_log(logs: Path, folder: Path) -> Path:
    """A new file logs/replay-NAME-N.jsonl for the replay of the recording ``folder``."""
    logs.mkdir(parents=True, exist_ok=True)
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in folder.resolve().name) or "session"
    n = 1
    while (path := logs / f"replay-{name}-{n}.jsonl").exists():
        n += 1
    return path


def run(args: argparse.Namespace) -> int:
    """Replay, compare, report."""
    import io
    import time

    from voicehost.eventlog import read_events
    from voicehost.host.live import ListenSettings, build_replay, compare_events, load_session, replay_settings_note
    from voicehost.host.session import Session

    from voicehost.commands.play import check_new_log, check_speech_wav

    data = load_session(args.folder)
    listen = None
    if args.engine:
        listen = ListenSettings(str(data.get("lang", "en")), args.engine, None)
    log = args.log or fresh_log(Path("logs"), args.folder)
    for path, option in ((log, "--log"), (args.speech_wav, "--speech-wav")):
        if path is not None and _inside(path, args.folder):
            raise InputError(
                f"{option} {path}: is inside the recording {args.folder}; a replay never writes into "
                "the recording it checks (give a file elsewhere)"
            )
    check_new_log(log)
    check_speech_wav(args.speech_wav)
    out = io.StringIO() if args.quiet else sys.stdout
    print(f"replaying {replay_settings_note(data)} from {args.folder}", flush=True)
    started = time.perf_counter()
    built, _ = build_replay(args.folder, listen=listen, log=log, speech_wav=args.speech_wav, stdout=out)
    try:
        Session(built.flow, built.input, built.host).run()
    finally:
        built.close()
    elapsed = time.perf_counter() - started
    audio_seconds = built.host.clock.now()
    print(
        f"replayed {audio_seconds:.1f} s of session in {elapsed:.1f} s "
        f"({audio_seconds / max(elapsed, 1e-9):.1f}x real time); events: {log}"
    )
    expected_path = recorded_events(args.folder, data)
    if not expected_path.is_file():
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


def recorded_events(folder: Path, data: dict[str, Any]) -> Path:
    """The event log a recording is compared with: its events.jsonl, or the file ``play --record
    DIR --log FILE`` wrote the events to (session.json keeps that path as "events")."""
    from voicehost.host.listening import EVENTS_FILE

    inside = folder / EVENTS_FILE
    elsewhere = data.get("events")
    if not inside.exists() and isinstance(elsewhere, str) and elsewhere:
        return Path(elsewhere)
    return inside
