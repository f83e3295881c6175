"""The event log keeps every game resumable: torn last lines, a full disk, other games' logs, recordings, signals."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_voicehost
from voicehost.eventlog import read_events

PLAY = ("play", "bimbamm", "--players", "Anna,Ben", "--seed", "2", "--first", "Anna", "--cards", "dealt")
FIRST = "22.00 Anna: flip nine\n25.28 Ben: flip twelve\n28.23 Anna: dog\n"


def played(tmp_path: Path, name: str = "game.jsonl") -> Path:
    """A log of a short Bim Bamm! game that has not ended."""
    script = tmp_path / "first.txt"
    script.write_text(FIRST)
    log = tmp_path / name
    result = run_voicehost(*PLAY, "--input", f"script:{script}", "--log", str(log))
    assert result.returncode == 0, result.stderr
    return log


def test_a_torn_last_line_is_cut_off_with_a_backup_and_resume_works_again_and_again(tmp_path: Path) -> None:
    """A half-written last line is cut (kept in LOG.torn-1, the user told) before appending: the
    third resume still works."""
    log = played(tmp_path)
    whole = log.read_bytes()
    torn = b'{"seq":8,"t":30.1,"ty'
    log.write_bytes(whole + torn)
    more = tmp_path / "more.txt"
    more.write_text("1.0 Anna: flip two\n")
    first = run_voicehost("resume", str(log), "--input", f"script:{more}")
    assert first.returncode == 0, first.stderr
    assert "incomplete" in first.stderr and "game.jsonl.torn-1" in first.stderr
    assert (tmp_path / "game.jsonl.torn-1").read_bytes() == torn
    assert log.read_bytes().startswith(whole) and log.read_bytes().endswith(b"\n")
    for _ in range(2):
        again = run_voicehost("resume", str(log), "--input", f"script:{more}")
        assert again.returncode == 0, again.stderr
        assert "incomplete" not in again.stderr
    events = read_events(log)
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert sum(e["type"] == "resumed" for e in events) == 3


class DiskFull:
    """os.write in the event log fails with ENOSPC after ``room`` more bytes (part of the write lands first)."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.full = True
        self.real = os.write

    def __call__(self, fd: int, data: bytes | memoryview) -> int:
        if not self.full:
            return self.real(fd, data)
        if self.room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        wrote = self.real(fd, bytes(data[: self.room]))
        self.room -= wrote
        return wrote


def test_a_full_disk_pauses_the_game_keeps_whole_lines_and_resume_picks_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC mid-game: the host says so and pauses, the log keeps only whole lines; with room
    again, 'resume' saves what waited."""
    import io

    from voicehost.host.build import PlaySettings, build_offline
    from voicehost.host.session import Session

    script = tmp_path / "script.txt"
    script.write_text(FIRST + "30 Anna: resume\n31 Anna: resume\n")
    settings = PlaySettings(
        "bimbamm",
        ("Anna", "Ben"),
        f"script:{script}",
        2,
        tmp_path / "game.jsonl",
        None,
        True,
        {"first_player": "Anna", "cards": "dealt"},
    )
    disk = DiskFull(room=1500)
    monkeypatch.setattr("voicehost.eventlog.os.write", disk)
    out = io.StringIO()
    built = build_offline(settings, stdout=out)
    session = Session(built.flow, built.input, built.host)

    heard_resume = 0
    original = session.dispatch

    def dispatch(heard):  # type: ignore[no-untyped-def]
        nonlocal heard_resume
        if heard.phrase == "resume":
            heard_resume += 1
            disk.full = heard_resume < 2  # the second "resume" finds room again
        original(heard)

    session.dispatch = dispatch  # type: ignore[method-assign]
    session.run()
    built.close()
    transcript = out.getvalue()
    assert "I cannot save the game: the disk is full. The game is paused" in transcript
    assert "I still cannot save the game" in transcript and "The game is saved again." in transcript
    data = (tmp_path / "game.jsonl").read_bytes()
    assert data.endswith(b"\n")
    events = read_events(tmp_path / "game.jsonl")
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert [e.seq for e in built.host.events] == [e["seq"] for e in events]


def test_a_disk_that_stays_full_ends_with_one_line_and_a_resumable_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the disk never frees up: one line saying what is not saved and how to resume; the log resumes."""
    from voicehost.eventlog import LogWriteError
    from voicehost.host.build import PlaySettings, run_session

    script = tmp_path / "script.txt"
    script.write_text(FIRST)
    settings = PlaySettings(
        "bimbamm",
        ("Anna", "Ben"),
        f"script:{script}",
        2,
        tmp_path / "game.jsonl",
        None,
        True,
        {"first_player": "Anna", "cards": "dealt"},
    )
    monkeypatch.setattr("voicehost.eventlog.os.write", DiskFull(room=1500))
    with pytest.raises(LogWriteError) as caught:
        run_session(settings, stdout=open(os.devnull, "w"))
    message = str(caught.value)
    assert "the disk is full" in message and f"voicehost resume {tmp_path / 'game.jsonl'}" in message
    monkeypatch.undo()
    saved = read_events(tmp_path / "game.jsonl")
    assert saved[0]["type"] == "setup"
    more = tmp_path / "more.txt"
    more.write_text("1 Anna: score\n")
    resumed = run_voicehost("resume", str(tmp_path / "game.jsonl"), "--input", f"script:{more}")
    assert resumed.returncode == 0, resumed.stderr


def test_play_never_appends_to_an_existing_log(tmp_path: Path) -> None:
    """'play --log FILE' naming another game's log (or any non-empty file) is refused and the file is untouched."""
    log = played(tmp_path)
    before = log.read_bytes()
    script = tmp_path / "first.txt"
    again = run_voicehost(*PLAY, "--input", f"script:{script}", "--log", str(log))
    assert again.returncode == 2 and "already exists" in again.stderr and "voicehost resume" in again.stderr
    assert log.read_bytes() == before
    folder = run_voicehost(*PLAY, "--input", f"script:{script}", "--log", str(tmp_path))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    piped = run_voicehost(*PLAY, "--input", f"script:{script}", "--log", str(fifo), timeout=30)
    for result in (folder, piped):
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_resume_refuses_a_session_file_of_another_game(tmp_path: Path) -> None:
    """The options kept next to a log must belong to its game: another game's session file is an error, not options."""
    log = played(tmp_path)
    session = tmp_path / "game.session.json"
    data = json.loads(session.read_text())
    data["seed"] = 99
    session.write_text(json.dumps(data))
    result = run_voicehost("resume", str(log), "--input", "script:/dev/null")
    assert result.returncode == 2 and "another game" in result.stderr


def _recording(tmp_path: Path) -> Path:
    """A small recorded session folder (session.json, mics.wav, events.jsonl) from a played game."""
    import numpy as np
    import soundfile

    folder = tmp_path / "recording"
    folder.mkdir()
    log = played(tmp_path)
    (folder / "events.jsonl").write_bytes(log.read_bytes())
    session = {
        "game": "bimbamm",
        "players": ["Anna", "Ben"],
        "seed": 2,
        "options": {"first_player": "Anna", "cards": "dealt"},
        "lang": "en",
        "engine": "sphinx",
        "rate": 16000,
    }
    (folder / "session.json").write_text(json.dumps(session))
    soundfile.write(str(folder / "mics.wav"), np.zeros((16000, 2), dtype=np.float32), 16000, subtype="PCM_16")
    return folder


def test_replay_never_writes_into_the_recording_it_checks(tmp_path: Path) -> None:
    """'replay DIR --log DIR/events.jsonl' (the recording's own truth) and --speech-wav into DIR are
    refused; the default log is elsewhere."""
    folder = _recording(tmp_path)
    truth = (folder / "events.jsonl").read_bytes()
    over = run_voicehost("replay", str(folder), "--quiet", "--log", str(folder / "events.jsonl"), timeout=300)
    assert over.returncode == 2 and "inside the recording" in over.stderr
    wav = run_voicehost(
        "replay",
        str(folder),
        "--quiet",
        "--log",
        str(tmp_path / "r.jsonl"),
        "--speech-wav",
        str(folder / "host.wav"),
        timeout=300,
    )
    assert wav.returncode == 2 and "inside the recording" in wav.stderr
    assert (folder / "events.jsonl").read_bytes() == truth and not (folder / "host.wav").exists()
    default = subprocess.run(
        [sys.executable, "-m", "voicehost", "replay", str(folder), "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "logs/replay-recording-1.jsonl" in default.stdout, default.stdout + default.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["events.jsonl", "mics.wav", "session.json"]


@pytest.mark.parametrize("how, status, words", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "SIGTERM")])
def test_ctrl_c_and_sigterm_say_where_the_game_is_saved(
    tmp_path: Path, how: signal.Signals, status: int, words: str
) -> None:
    """Stopped by Ctrl-C (130) or SIGTERM (143, it exited silently before): the log is intact and
    the way to resume is told."""
    log = tmp_path / "game.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "voicehost", *PLAY, "--input", "text", "--log", str(log)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (log.exists() and log.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    process.send_signal(how)
    out, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert words in err and f"voicehost resume {log}" in err
    assert read_events(log)[0]["type"] == "setup"


def test_kill_9_at_random_moments_loses_no_announced_event_and_every_resume_works() -> None:
    """A short run of bench/bench_crash.py (the 50-kill soak is run by hand; README has its
    numbers): 6 kills, all checks pass."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_crash.py"), "--runs", "6", "--seed", "7"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 kills during a game" in result.stdout and "announced events lost: 0" in result.stdout


def test_play_never_records_over_an_earlier_recording(tmp_path: Path) -> None:
    """'play --record DIR' where DIR already holds a recorded session is refused before anything is written."""
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "session.json").write_text("{}")
    (folder / "mics.wav").write_bytes(b"RIFF")
    result = run_voicehost(*PLAY, "--input", "mic", "--record", str(folder))
    assert result.returncode == 2 and "already holds a recorded session" in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["mics.wav", "session.json"]


def test_a_log_that_cannot_be_opened_is_a_usage_error(tmp_path: Path) -> None:
    """The writer itself refuses a folder or a FIFO in one line with status 2 (the library path, not
    only the command)."""
    from voicehost.eventlog import EventLogWriter, LogPathError
    from voicehost.status import ExitStatus

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (tmp_path, fifo):
        with pytest.raises(LogPathError) as caught:
            EventLogWriter(path)
        assert caught.value.exit_status is ExitStatus.USAGE
