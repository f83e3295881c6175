"""`voicehost setup-table` end to end through the PulseAudio virtual devices: players' names are
played into chosen microphone channels while the command listens, and latency is measured in a
virtual room whose microphones hear the table speaker with known delays.

What this proves: the whole path (speech service → virtual speaker; virtual microphones →
LiveSource → loudest channel; clicks → two separate capture streams → offsets → TOML) works
in real time on real streams. What it cannot prove: real USB devices run on separate clocks
(they drift apart; here every device shares the PulseAudio daemon's clock), real rooms filter
and echo the click, and the players sit at different distances from the speaker (3 ms/m).
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import pytest
import soundfile

from tests.conftest import ROOT, run_voicehost
from voicehost.audio.pulse import RoomMic, VirtualTable
from voicehost.host.table import PHONE, Channel, load_table
from voicehost.speak.voice import EspeakVoice

REACTION = 0.4
"""Seconds a simulated player waits after the host's prompt before saying their name."""
CROSSTALK = 10 ** (-14 / 20)
"""A player's voice in the neighbouring microphones: -14 dB."""


class Lines:
    """The stdout of a running command, line by line, with timeouts (read by a thread)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until_done(self, on_line: Callable[[str], None], timeout: float) -> None:
        """Hand every line to ``on_line`` until the output ends; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.process.kill()
                pytest.fail("setup-table did not finish in time; output so far:\n" + "\n".join(self.seen))
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                return
            self.seen.append(line)
            on_line(line)


def listening_for(line: str) -> str | None:
    """The player the host is listening for, from a 'listening for Anna (take 1 of 3)' line."""
    if "listening for " not in line:
        return None
    return line.split("listening for ", 1)[1].split()[0]


@pytest.fixture(scope="module")
def names() -> dict[str, tuple[np.ndarray, int]]:
    """The players saying their names (espeak-ng, one voice each): samples and rate."""
    voice = EspeakVoice()
    spoken = {}
    for name, variant in (("Anna", "gmw/en-us"), ("Ben", "gmw/en"), ("Cem", "gmw/en-us"), ("Dora", "gmw/en")):
        audio = voice.render(name, voice=voice.resolve(variant))
        spoken[name] = (audio.samples, audio.rate)
    return spoken


def record(device: str, channels: int, rate: int) -> tuple[Callable[[], np.ndarray], Callable[[], None]]:
    """Start recording ``device``; returns (get recording, stop)."""
    import sounddevice as sd

    blocks: list[np.ndarray] = []
    stream = sd.InputStream(
        device=device,
        channels=channels,
        samplerate=rate,
        dtype="float32",
        callback=lambda data, frames, when, status: blocks.append(data.copy()),
    )
    stream.start()

    def stop() -> None:
        stream.stop()
        stream.close()

    return (lambda: np.concatenate(blocks) if blocks else np.zeros((0, channels), np.float32)), stop


def test_setup_table_seats_players_by_voice_on_the_virtual_microphones(
    virtual_table: VirtualTable,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    names: dict[str, tuple[np.ndarray, int]],
) -> None:
    """Names played into channels 3, 1 and 6 of the 8-channel virtual microphone (neighbours -14 dB)
    seat Anna, Ben and Cem there; the host's voice reaches the table speaker, each earphone gets its
    line, and the TOML loads."""
    import sounddevice as sd

    seats = {"Anna": 2, "Ben": 0, "Cem": 5}
    out = tmp_path / "table.toml"
    get_table, stop_table = record("vh_table_monitor", 1, 16000)
    get_phones, stop_phones = record("vh_phones_monitor", 4, 16000)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voicehost",
            "setup-table",
            "--rate",
            "320",
            "--players",
            "Anna,Ben,Cem",
            "--inputs",
            "vh_mics",
            "--speaker",
            "vh_table",
            "--phones",
            "vh_phones",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def answer(line: str) -> None:
        who = listening_for(line)
        if who is None:
            return
        samples, rate = names[who]
        frame = np.zeros((samples.shape[0], 8), np.float32)
        own = seats[who]
        frame[:, own] = samples
        for neighbour in (own - 1, own + 1):
            if 0 <= neighbour < 8:
                frame[:, neighbour] = CROSSTALK * samples
        time.sleep(REACTION)
        sd.play(frame, rate, device="vh_mics_play", blocking=True, latency=0.2)

    try:
        Lines(process).until_done(answer, timeout=150)
        process.wait(timeout=10)
    finally:
        stop_table()
        stop_phones()
    stderr = process.stderr.read() if process.stderr else ""
    assert process.returncode == 0, stderr
    table = load_table(out)
    assert [(s.name, s.input, s.output, s.latency) for s in table.seats] == [
        ("Anna", Channel("vh_mics", 3), Channel("vh_phones", 1), 0.0),
        ("Ben", Channel("vh_mics", 1), Channel("vh_phones", 2), 0.0),
        ("Cem", Channel("vh_mics", 6), Channel("vh_phones", 3), 0.0),
    ]
    assert table.speaker == "vh_table" and table.private_outputs
    spoken = get_table()[:, 0]
    assert np.sqrt(np.mean(spoken**2)) > 0.01, "the host's voice did not reach the table speaker"
    phones = get_phones()
    loud = np.sqrt(np.mean(phones**2, axis=0))
    assert loud[0] > 0.001 and loud[1] > 0.001 and loud[2] > 0.001 and loud[3] < 1e-5, loud


ROOM_TRIES = 3
"""Virtual rooms built before the test gives up on getting one whose delays are as configured."""


@pytest.fixture
def room(tmp_path: Path) -> Iterator[VirtualTable]:
    """A private PulseAudio daemon with a virtual room: 'near' hears the table speaker 10 ms after
    it plays, 'far' 35 ms.

    PulseAudio's loopbacks settle where they like under load: in full runs the two were once 2.3 ms
    and once 10 ms apart instead of 25. So the room is measured first (clicks into the speaker,
    recorded on one stream of both microphones) and built again until the difference is 15 to 35 ms."""
    measured = []
    for _ in range(ROOM_TRIES):
        folder = Path(tempfile.mkdtemp(prefix="voicehost-room-"))  # short: the socket path is limited to 108 bytes
        try:
            with VirtualTable(folder, seats=2, room=(RoomMic("near", 0.010), RoomMic("far", 0.035))) as table:
                differences = room_differences(table, tmp_path / "room-check.wav")
                measured.append(differences)
                if (
                    len(differences) == 3
                    and 0.015 <= float(np.median(differences)) <= 0.035
                    and max(differences) - min(differences) <= 0.002
                ):
                    yield table
                    return
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    pytest.fail(f"no virtual room came out 15 to 35 ms apart in {ROOM_TRIES} tries; measured: {measured}")


def room_differences(table: VirtualTable, path: Path) -> list[float]:
    """Three clicks played into the table speaker: how much later each reached 'far' than 'near' (s)."""
    env = {**os.environ, **table.env()}
    rate = 48000
    clicks = np.zeros(int(1.5 * rate), dtype=np.float32)
    for k in range(3):
        start = int((0.2 + 0.4 * k) * rate)
        clicks[start : start + rate // 200] = 0.9
    soundfile.write(path.with_name("clicks.wav"), clicks, rate)
    record = subprocess.Popen(
        ["parecord", "--device=room.monitor", "--channels=2", f"--rate={rate}", "--format=float32le"]
        + ["--file-format=wav", str(path)],
        env=env,
    )
    try:
        time.sleep(0.5)
        subprocess.run(["paplay", "--device=table", str(path.with_name("clicks.wav"))], env=env, timeout=20, check=True)
        time.sleep(0.3)
    finally:
        record.terminate()
        record.wait(timeout=10)
    recording, got = soundfile.read(path, dtype="float32")
    near, far = first_crossings(recording[:, 0], got), first_crossings(recording[:, 1], got)
    return [b - a for a, b in zip(near, far)]


def paired(near: list[float], far: list[float], within: float = 0.1) -> list[tuple[float, float]]:
    """Each sound's start on 'near' with the nearest start on 'far' within ``within`` seconds (sounds
    one microphone alone heard are left out). Pairing the last six of each list instead once matched
    click k on one microphone with click k+1 on the other (differences of -0.4 to -3.5 s, the same
    in three sessions of one full run): one microphone had crossed the threshold once more."""
    pairs = []
    for a in near:
        b = min(far, key=lambda t: abs(t - a), default=None)
        if b is not None and abs(b - a) <= within:
            pairs.append((a, b))
    return pairs


def first_crossings(x: np.ndarray, rate: int, threshold: float = 0.2) -> list[float]:
    """Seconds where the signal first exceeds ``threshold`` after at least 0.2 s below it (click starts)."""
    above = np.flatnonzero(np.abs(x) > threshold)
    if above.size == 0:
        return []
    starts = above[np.r_[True, np.diff(above) > int(0.2 * rate)]]
    return [s / rate for s in starts]


def test_setup_table_measures_the_latency_difference_of_two_devices_in_a_virtual_room(
    room: VirtualTable, tmp_path: Path, names: dict[str, tuple[np.ndarray, int]]
) -> None:
    """Anna on microphone 'near' and Ben on 'far' (separate devices, 25 ms apart): the stored
    latencies differ by the true delay difference, measured on one reference stream, within 5 ms.
    The virtual room itself (PulseAudio loopbacks) sometimes moves its delays during a session
    under load (once 2.5 -> 25 ms between two clicks in a clean-clone run, 2026-12-04): such a
    session says nothing about setup-table, so it is run again, up to three sessions; the check
    of setup-table's measurement is never relaxed."""
    problems = []
    for attempt in range(3):
        folder = tmp_path / f"session-{attempt}"
        folder.mkdir()
        result, problem = _calibrate_in_room(room, folder, names)
        if result is not None:
            measured, true_difference = result
            assert measured == pytest.approx(true_difference, abs=0.005), (measured, true_difference, problems)
            return
        problems.append(problem)
    pytest.fail("the virtual room never held still: " + "; ".join(problems))


def _calibrate_in_room(
    room: VirtualTable, tmp_path: Path, names: dict[str, tuple[np.ndarray, int]]
) -> tuple[tuple[float, float] | None, str]:
    """One setup-table session in the virtual room: (setup-table's measured difference, the
    reference stream's), or None and why the room was not fit to judge it."""
    env = {**os.environ, **room.env()}
    out = tmp_path / "table.toml"
    wavs = {}
    for name in ("Anna", "Ben"):
        samples, rate = names[name]
        wavs[name] = tmp_path / f"{name}.wav"
        soundfile.write(wavs[name], samples, rate)
    reference = tmp_path / "room.wav"
    truth = subprocess.Popen(
        [
            "parecord",
            "--device=room.monitor",
            "--channels=2",
            "--rate=48000",
            "--format=float32le",
            "--file-format=wav",
            str(reference),
        ],
        env=env,
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voicehost",
            "setup-table",
            "--rate",
            "320",
            "--players",
            "Anna,Ben",
            "--inputs",
            "vh_near:1,vh_far:1",
            "--speaker",
            "vh_table",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    mic = {"Anna": "near", "Ben": "far"}

    def answer(line: str) -> None:
        who = listening_for(line)
        if who is None:
            return
        time.sleep(REACTION)
        other = "far" if mic[who] == "near" else "near"
        quiet = subprocess.Popen(
            ["paplay", f"--device=room_{other}_in", f"--volume={int(65536 * CROSSTALK)}", str(wavs[who])], env=env
        )
        subprocess.run(["paplay", f"--device=room_{mic[who]}_in", str(wavs[who])], env=env, timeout=20, check=True)
        quiet.wait(timeout=20)

    try:
        Lines(process).until_done(answer, timeout=150)
        process.wait(timeout=10)
    finally:
        truth.terminate()
        truth.wait(timeout=10)
    stderr = process.stderr.read() if process.stderr else ""
    assert process.returncode == 0, stderr
    table = load_table(out)
    assert [(s.name, s.input) for s in table.seats] == [("Anna", Channel("vh_near", 1)), ("Ben", Channel("vh_far", 1))]
    measured = table.seat("Ben").latency - table.seat("Anna").latency

    recording, rate = soundfile.read(reference, dtype="float32")
    near, far = first_crossings(recording[:, 0], rate), first_crossings(recording[:, 1], rate)
    clicks = paired(near, far)[-6:]  # the calibration clicks are the last sounds of the session
    if len(clicks) < 6:
        return None, f"the reference stream holds {len(clicks)} clicks heard on both microphones: {near} / {far}"
    differences = [b - a for a, b in clicks]
    true_difference = float(np.median(differences))
    # The room's loopbacks are set 25 ms apart; PulseAudio adapts a loopback's latency, so under load
    # the room may settle a few ms off (20 ms seen once). The truth is what the reference stream shows,
    # as long as the two devices clearly differ and the room held still during the clicks (one click
    # of six once came 1.06 ms off the others under CI load: the median is the truth, a few ms of
    # wander would still be far inside setup-table's 5 ms tolerance checked below). Once, on an idle
    # machine, the room settled 10 ms apart: still twice the tolerance, so a setup-table that
    # measured no difference would fail below.
    if not 0.0095 <= true_difference <= 0.035:
        return None, f"the virtual room's delays are far from the configured 25 ms: {differences}"
    if max(differences) - min(differences) > 0.003:
        return None, f"the virtual room's delays moved during calibration: {differences}"
    return (measured, true_difference), ""


def test_setup_table_gives_up_in_one_line_when_nobody_answers(tmp_path: Path, virtual_table: VirtualTable) -> None:  # type: ignore[no-untyped-def]
    """A player who never answers: three takes, a spoken explanation, exit status 1, one line on
    stderr, no file written."""
    out = tmp_path / "table.toml"
    result = run_voicehost(
        "setup-table",
        "--rate",
        "320",
        "--players",
        "Dora",
        "--inputs",
        "vh_mics:2",
        "--speaker",
        "vh_table",
        "--out",
        str(out),
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.count("listening for Dora") == 3
    assert "I could not find Dora's microphone" in result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("voicehost")]
    assert errors == [errors[0]] and "could not tell which microphone is Dora's after 3 tries" in errors[0]
    assert "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "args, status, words",
    [
        (["--players", "Anna,,Ben"], 2, "has an empty name"),
        (["--players", "Anna,anna"], 2, "names 'anna' twice"),
        (["--players", "Anna", "--inputs", "vh_mics:0"], 2, "at least 1 channel"),
        (["--players", "Anna", "--inputs", "no-such-mic"], 1, "no input device matches 'no-such-mic'"),
        (["--players", "Anna", "--inputs", "vh_mics,vh_mics"], 2, "names 'vh_mics' twice"),
        (["--players", "Anna", "--out", "/nonexistent-folder/t.toml"], 2, "does not exist"),
        (
            ["--players", "Anna", "--speaker", "no-such-speaker", "--inputs", "vh_mics"],
            1,
            "no output device matches 'no-such-speaker'",
        ),
        (["--out", "t.toml"], 2, "--players"),
        (["--players", "Anna,Ben", "--by-phone", "Dora"], 2, "--by-phone: 'Dora' not in --players (Anna, Ben)"),
        (["--players", "Anna,Ben", "--by-phone", " , "], 2, "--by-phone ' , ' names nobody"),
        (
            ["--players", "Anna,Ben", "--by-phone", "anna,BEN", "--phones", "vh_phones"],
            2,
            "every player joins by phone",
        ),
        (
            ["--players", "Anna", "--by-phone", "Anna", "--enrol", "bimbamm"],
            2,
            "--enrol records this machine's microphones",
        ),
        (["--players", "Anna", "--by-phone", "Anna", "--inputs", "vh_mics"], 2, "no microphone is listened to"),
    ],
)
def test_setup_table_refuses_bad_options_in_one_line(args: list[str], status: int, words: str) -> None:
    """Bad names, channel counts, devices and paths: one line on stderr naming the problem, exit 1
    or 2, before any sound."""
    result = run_voicehost("setup-table", *args, timeout=60)
    assert result.returncode == status, result.stderr
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("ALSA lib")]
    assert len(lines) == 1 and words in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_setup_table_with_everyone_on_phones_writes_the_config_at_once(tmp_path: Path) -> None:
    """--by-phone naming every player (any case): no sound, no microphone; the config seats them on
    phones, in --players order."""
    out = tmp_path / "table.toml"
    result = run_voicehost(
        "setup-table", "--players", "Anna,Ben", "--by-phone", "ben,anna", "--out", str(out), timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "Anna, Ben join by phone" in result.stdout
    table = load_table(out)
    assert [(s.name, s.by_phone) for s in table.seats] == [("Anna", True), ("Ben", True)]
    assert table.speaker is None


def test_setup_table_seats_a_microphone_player_beside_a_phone_player(
    virtual_table: VirtualTable,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    names: dict[str, tuple[np.ndarray, int]],
) -> None:
    """Anna says her name into microphone 2, Ben joins by phone: only Anna is listened for; the
    config seats Anna on vh_mics channel 2 and Ben on a phone, in --players order, and the host says
    Ben will join with his phone."""
    import sounddevice as sd

    out = tmp_path / "table.toml"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voicehost",
            "setup-table",
            "--rate",
            "320",
            "--players",
            "Ben,Anna",
            "--by-phone",
            "Ben",
            "--inputs",
            "vh_mics:2",
            "--speaker",
            "vh_table",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    listened: list[str] = []

    def answer(line: str) -> None:
        who = listening_for(line)
        if who is None:
            return
        listened.append(who)
        samples, rate = names[who]
        frame = np.zeros((samples.shape[0], 8), np.float32)
        frame[:, 1] = samples
        frame[:, 0] = CROSSTALK * samples
        time.sleep(REACTION)
        sd.play(frame, rate, device="vh_mics_play", blocking=True, latency=0.2)

    lines = Lines(process)
    lines.until_done(answer, timeout=120)
    process.wait(timeout=10)
    stderr = process.stderr.read() if process.stderr else ""
    assert process.returncode == 0, stderr
    assert set(listened) == {"Anna"}, listened
    table = load_table(out)
    assert [(s.name, s.input) for s in table.seats] == [("Ben", PHONE), ("Anna", Channel("vh_mics", 2))]
    assert any("Ben will join with their phone" in line for line in lines.seen), lines.seen
    assert any("Ben" in line and "joins by phone" in line for line in lines.seen), lines.seen
