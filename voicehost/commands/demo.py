"""``voicehost demo``: the main job with no microphone and no download — a recorded game replayed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from voicehost.status import ExitStatus

NAME = "demo"
HELP = "check the machine, then replay a complete short game from recorded audio (no microphone, no download)"
DESCRIPTION = """\
Run 'voicehost doctor', then replay a complete short game of Bim Bam Bum! recorded with three
players (shipped with voicehost): the players' recorded microphones go through the real listening
pipeline (onsets, crosstalk, speech recognition) and the real game host, faster than real time. The
transcript is printed as it goes, with what the host heard; the host's voice and the players are
written to a WAV file (--out) and played on the default output device if there is one.

examples:
  voicehost demo                       # Bim Bam Bum!, three players
  voicehost demo --no-play --session audio_fixtures/sessions/bimbamm_two_players
"""

DEMO_SESSION = "bimbambum_quick"
"""The recorded game shipped as package data (``voicehost/data/demo/``), rendered from
``audio_fixtures/sessions/bimbambum_quick.toml`` by ``python -m tools.session_fixtures --demo``."""
DEFAULT_OUT = Path("demo-out") / "demo.wav"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``demo``."""
    parser.add_argument(
        "--session",
        type=Path,
        metavar="DIR",
        help="replay this recorded game instead (a folder written by 'play --record' or the fixture tools)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="FILE.wav",
        help="where to write the game's sound: host and players (default: demo-out/demo.wav)",
    )
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
    if args.session is not None:
        return replay_demo(args.session, args.out, args.device, play=not args.no_play)
    from importlib.resources import as_file, files

    with as_file(files("voicehost") / "data" / "demo" / DEMO_SESSION) as folder:
        return replay_demo(Path(folder), args.out, args.device, play=not args.no_play)


def replay_demo(folder: Path, out: Path, device: str | None, *, play: bool) -> int:
    """Replay a recorded game, print what happens, write and play its sound."""
    import json
    import tempfile

    from voicehost.audio.buffer import check_writable
    from voicehost.errors import InputError
    from voicehost.eventlog import read_events
    from voicehost.host.live import build_replay, compare_events
    from voicehost.host.session import Session

    if out == DEFAULT_OUT:
        out.parent.mkdir(parents=True, exist_ok=True)
    check_writable(out)
    try:
        game = json.loads((folder / "session.json").read_text(encoding="utf-8"))["game"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(f"{folder}: not a recorded game (session.json: {error})") from None
    print(f"Replaying a recorded game of {game} from {folder}")
    print("(host: … is what the host says; 'heard' is what it understood from each microphone)\n")
    with tempfile.TemporaryDirectory(prefix="voicehost-demo-") as tmp:
        host_wav = Path(tmp) / "host.wav"
        log = out.with_suffix(".events.jsonl")
        log.unlink(missing_ok=True)
        built, _ = build_replay(folder, log=log, speech_wav=host_wav, stdout=sys.stdout)

        def show(heard: object) -> None:
            print(f'    heard {heard.player}: "{heard.phrase}" at {heard.onset:.2f} s', flush=True)  # type: ignore[attr-defined]

        try:
            outcome = Session(built.flow, built.input, built.host, on_heard=show).run()
        finally:
            built.close()
        problems = compare_events(read_events(folder / "events.jsonl"), read_events(log))
        audio = mix_for_listening(folder, host_wav)
    from voicehost.audio.buffer import write_wav
    from voicehost.speak.output import play_or_explain

    write_wav(out, audio)
    print()
    print(f"game {'finished' if outcome.finished else 'stopped'}; events in {log}")
    print(
        "the replay reproduced the recorded game exactly"
        if not problems
        else "the replay differs from the recorded game: " + "; ".join(problems)
    )
    print(f"wrote {out} ({audio.duration:.1f} s: the host and the players)")
    if play:
        play_or_explain(audio, device)
    return ExitStatus.OK if not problems else ExitStatus.ERROR


def mix_for_listening(folder: Path, host_wav: Path, rate: int = 22050) -> Any:
    """What a person at the table would hear: the host's voice plus the players (all microphones mixed)."""
    import numpy as np
    import soundfile

    from voicehost.audio.buffer import Audio
    from voicehost.audio.resample import resample

    mics_file = folder / "mics.flac" if (folder / "mics.flac").exists() else folder / "mics.wav"
    mics, mics_rate = soundfile.read(str(mics_file), dtype="float32", always_2d=True)
    room = resample(mics.mean(axis=1), mics_rate, rate)
    host, host_rate = (
        soundfile.read(str(host_wav), dtype="float32") if host_wav.exists() else (np.zeros(0, np.float32), rate)
    )
    host = resample(host, host_rate, rate) if len(host) else host
    n = max(len(room), len(host))
    mix = np.zeros(n, dtype=np.float32)
    mix[: len(room)] += room * 1.5
    mix[: len(host)] += host * 0.8
    peak = float(np.max(np.abs(mix))) if n else 0.0
    if peak > 0.99:
        mix *= 0.99 / peak
    return Audio(mix, rate)
