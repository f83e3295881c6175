"""Whole recorded games: the session fixtures are generated from their specs, every player's
line is heard on its own seat at its time (the host's voice cancelled), and a replay through the
real PocketSphinx engine is deterministic and faster than real time."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.conftest import ROOT, run_voicehost
from voicehost.eventlog import read_events
from tools.session_fixtures import generate_fresh, load_spec
from voicehost.host.live import build_replay
from voicehost.host.session import Session
from voicehost.listen.echo import Reference
from voicehost.listen.messages import AudioBlock
from voicehost.listen.pipeline import Listener
from voicehost.listen.sources import load_multichannel, read_audio

SPECS = ROOT / "audio_fixtures" / "sessions"
NAMES = sorted(p.stem for p in SPECS.glob("*.toml"))


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session fixtures, rendered from their specs into a temporary folder."""
    out = tmp_path_factory.mktemp("sessions")
    for name in NAMES:
        generate_fresh(SPECS / f"{name}.toml", out)
    return out


def _replay(folder: Path, log: Path) -> tuple[list[dict[str, object]], float, float]:
    log.unlink(missing_ok=True)
    started = time.perf_counter()
    built, _ = build_replay(folder, log=log, stdout=io.StringIO())
    try:
        Session(built.flow, built.input, built.host).run()
    finally:
        built.close()
    return read_events(log), built.host.clock.now(), time.perf_counter() - started


def test_there_is_a_session_spec_for_every_game() -> None:
    """audio_fixtures/sessions/ holds a complete scripted game of each of the three games."""
    assert {load_spec(SPECS / f"{n}.toml").game for n in NAMES} == {"bimbamm", "bimbambum", "bam"}


@pytest.mark.parametrize("name", NAMES)
def test_every_players_line_is_heard_on_their_seat_at_its_time(sessions: Path, name: str) -> None:
    """Through the echo canceller with the recorded host track, every scripted line is an event
    on its speaker's seat within 60 ms of its script time, and nothing is heard while only the host talks."""
    spec = load_spec(SPECS / f"{name}.toml")
    folder = sessions / name
    recording = load_multichannel(folder / "mics.flac", spec.players)
    host, _ = read_audio(folder / "host.flac")
    listener = Listener(spec.players, None, ["cat"], reference=Reference.from_samples(host[:, 0], recording.rate))
    for start in range(0, recording.samples.shape[0], 1600):
        listener.feed(AudioBlock(recording.samples[start : start + 1600], start, recording.rate, seats=spec.players))
    listener.flush()
    events = [d.event for d in listener.decisions]
    for line in spec.lines:
        near = [e for e in events if e.seat == line.player and abs(e.onset - line.t) <= 0.06]
        assert near, (
            f"{name}: {line} not heard; "
            f"events near it: {[(e.seat, round(e.onset, 3)) for e in events if abs(e.onset - line.t) < 1]}"
        )
    spans = [json.loads(s) for s in (folder / "spans.jsonl").read_text().splitlines()]
    lone = [
        e
        for e in events
        if not any(line.t - 0.1 <= e.onset <= line.t + 3.0 for line in spec.lines)
        and any(s["start"] <= e.onset <= s["end"] for s in spans)
    ]
    assert lone == [], [(e.seat, e.onset, e.level_db) for e in lone]


@pytest.fixture(scope="module")
def replayed(sessions: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Any, Path]]:
    """`voicehost replay NAME`, run once per session in this module: (the finished process, its log)."""
    runs: dict[str, tuple[Any, Path]] = {}

    def replay(name: str) -> tuple[Any, Path]:
        if name not in runs:
            log = tmp_path_factory.mktemp("replayed") / f"{name}.jsonl"
            result = run_voicehost("replay", str(sessions / name), "--quiet", "--log", str(log), timeout=600)
            runs[name] = (result, log)
        return runs[name]

    return replay


def test_a_replay_of_a_replay_gives_identical_events(
    sessions: Path, tmp_path: Path, replayed: Callable[[str], tuple[Any, Path]]
) -> None:
    """`voicehost replay` run twice on the same recording (PocketSphinx) writes the very same event
    log, and says how fast it ran (the speed itself is bench/bench_host.py's). (Each run is its own
    process: espeak-ng, which renders the host's words, keeps state across renders within one
    process.)"""
    first, first_log = replayed("bimbambum_quick")
    log = tmp_path / "again.jsonl"
    again = run_voicehost("replay", str(sessions / "bimbambum_quick"), "--quiet", "--log", str(log), timeout=300)
    for result in (first, again):
        assert "replayed" in result.stdout, result.stdout + result.stderr
        speed = re.search(r"\(([0-9.]+)x real time\)", result.stdout)
        assert speed is not None and float(speed.group(1)) > 0, result.stdout
    assert first_log.read_text() == log.read_text() and len(log.read_text().splitlines()) > 5


@pytest.mark.parametrize("name", NAMES)
def test_every_session_replays_to_its_recorded_events(
    sessions: Path, replayed: Callable[[str], tuple[Any, Path]], name: str
) -> None:
    """`voicehost replay` on each rendered session (real PocketSphinx on the recorded microphones,
    the host's voice cancelled) reproduces every recorded event — the whole game, to its end — and
    exits 0; the demo stands on this."""
    result, log = replayed(name)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "reproduced: all" in result.stdout, result.stdout
    replayed_events = read_events(log)
    assert len(replayed_events) == len(read_events(sessions / name / "events.jsonl"))
    assert replayed_events[-1]["type"] == "game_over", replayed_events[-1]


def test_a_recording_whose_events_went_to_a_log_elsewhere_is_compared_with_that_log(tmp_path: Path) -> None:
    """`play --record DIR --log FILE` writes the events to FILE: the recording's session.json keeps
    FILE's path, and replay compares with it (before, it said "no recorded event log"); a folder's
    own events.jsonl comes first."""
    from voicehost.commands.replay import recorded_events
    from voicehost.host.build import PlaySettings
    from voicehost.host.live import ListenSettings, session_settings

    log = tmp_path / "elsewhere" / "game.jsonl"
    settings = PlaySettings("bimbamm", ("Anna", "Ben"), "mic", 3, log, None, True, {})
    data = json.loads(json.dumps(session_settings(settings, ListenSettings("en", None, None))))
    folder = tmp_path / "recording"
    folder.mkdir()
    assert data["events"] == str(log.resolve()) and recorded_events(folder, data) == log.resolve()
    (folder / "events.jsonl").write_text("")
    assert recorded_events(folder, data) == folder / "events.jsonl"
    assert recorded_events(tmp_path, {"events": None}) == tmp_path / "events.jsonl"
