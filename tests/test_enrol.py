"""Enrolment: players say the game's words into the virtual table (`voicehost enrol`), and the same
voices' shouts are then recognised with their takes (`voicehost rank --enroll`), with real decoding.

The players are synthetic voices (flite, espeak-ng) played into their own channel of the 8-channel
virtual microphone while the command listens, as a person would answer the host's prompts."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.conftest import ROOT, run_voicehost
from tests.test_setup_table import CROSSTALK, Lines
import tools.listen_fixtures as fx
from tools.clips import vary
from voicehost.listen.recognize.enrol import Templates, dtw_distance, frames_between, match_phrases, take_files
from tools.synth import ENGLISH_VOICES, render_speech

VOICES = {"Anna": ENGLISH_VOICES[1], "Ben": ENGLISH_VOICES[6]}
"""flite awb and espeak-ng en-us+f4."""
SEATS = {"Anna": 1, "Ben": 4}
"""0-based channels of vh_mics."""


def _heard_word(line: str) -> tuple[str, str] | None:
    """(player, word) from a "listening for Anna saying 'cat' (take 1 of 2) ..." line."""
    if "listening for " not in line or " saying " not in line:
        return None
    rest = line.split("listening for ", 1)[1]
    name, _, said = rest.partition(" saying ")
    return name.strip(), said.split("'")[1]


def test_dtw_distance_is_zero_for_identical_frames_and_grows_with_difference() -> None:
    """The template distance: 0 for a take against itself, larger for another sound."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((20, 8))
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b = rng.standard_normal((25, 8))
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    assert dtw_distance(a, a) == pytest.approx(0.0, abs=1e-9)
    assert dtw_distance(a, b) > 0.3
    stretched = np.repeat(a, 2, axis=0)
    assert dtw_distance(a, stretched) == pytest.approx(0.0, abs=1e-9)


def test_take_files_read_word_n_names_and_refuse_an_empty_folder(tmp_path: Path) -> None:
    """WORD-N.wav files are grouped by word and ordered by N; a folder without takes is one clear error."""
    for name in ("cat-2.wav", "cat-1.wav", "bim-1.wav", "notes.txt", "dog.wav"):
        (tmp_path / name).write_bytes(b"")
    found = take_files(tmp_path)
    assert list(found) == ["bim", "cat"] and [p.name for p in found["cat"]] == ["cat-1.wav", "cat-2.wav"]
    from voicehost.errors import InputError

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no takes"):
        take_files(empty)


def test_enrolment_round_trip_through_the_virtual_table(virtual_table, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`voicehost enrol` records two takes of every Bim Bamm! word from Anna and Ben on their own
    channels; `voicehost rank --enroll` then hears a race of the same voices right, and every take
    matches its own word best among the player's takes."""
    import sounddevice as sd

    table = tmp_path / "table.toml"
    table.write_text(
        '[table]\nspeaker = "vh_table"\n\n'
        + "".join(
            f'[[seat]]\nname = "{n}"\ninput = {{ device = "vh_mics", channel = {c + 1} }}\n\n' for n, c in SEATS.items()
        ),
        encoding="utf-8",
    )
    rng = np.random.default_rng(3)
    spoken: dict[tuple[str, str], np.ndarray] = {}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voicehost",
            "enrol",
            "--config",
            str(table),
            "--game",
            "bimbamm",
            "--takes",
            "2",
            "--rate",
            "320",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def answer(line: str) -> None:
        heard = _heard_word(line)
        if heard is None:
            return
        name, word = heard
        samples = render_speech(word, vary(VOICES[name], rng), 48000) * 0.5
        spoken[(name, word)] = samples
        frame = np.zeros((len(samples), 8), np.float32)
        own = SEATS[name]
        frame[:, own] = samples
        frame[:, own + 1] = CROSSTALK * samples
        time.sleep(0.4)
        sd.play(frame, 48000, device="vh_mics_play", blocking=True, latency=0.2)

    started = time.monotonic()
    Lines(process).until_done(answer, timeout=400)
    process.wait(timeout=10)
    seconds = time.monotonic() - started
    stderr = process.stderr.read() if process.stderr else ""
    assert process.returncode == 0, stderr
    folder = tmp_path / "enrolment"
    words = ["cat", "dog", "pig", "donkey", "hen"]
    for name in SEATS:
        takes = take_files(folder / name)
        assert sorted(takes) == sorted(words) and all(len(v) == 2 for v in takes.values()), takes
        for paths in takes.values():
            audio, rate = soundfile.read(str(paths[0]))
            assert rate == 16000 and 0.3 < len(audio) / rate < 2.5
    assert seconds < 400

    # The same voices shout in a race (other renditions, pink noise at 25 dB, crosstalk).
    sounds = (
        fx.Sound("Ben", "shout", 0.8, "pig", VOICES["Ben"]),
        fx.Sound("Anna", "shout", 1.25, "donkey", VOICES["Anna"]),
    )
    scenario = fx.Scenario("enrolled_race", "bimbamm", ("Anna", "Ben"), sounds, 3.0, "pink", 25.0, 11)
    path = fx.write(fx.Renderer().render(scenario), tmp_path / "race")
    fixture = fx.read_fixture(path)
    tracks = [f"--track={seat}={tmp_path / 'race' / fixture.manifest['tracks'][seat]}" for seat in fixture.seats]  # type: ignore[index]
    enroll = [f"--enroll={seat}={folder / seat}" for seat in fixture.seats if seat in SEATS]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "voicehost",
            "rank",
            "--game",
            "bimbamm",
            "--engine",
            "whisper",
            "--json",
            *tracks,
            *enroll,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "enrolled" in done.stderr
    found = json.loads(done.stdout)["shouts"]
    assert [(s["player"], s["phrase"]) for s in found] == [(e["player"], e["phrase"]) for e in fixture.expected]


@pytest.mark.parametrize(
    ("command", "takes"),
    [
        (("enrol", "--config", "table.toml", "--game", "bimbamm"), "6"),
        (("setup-table", "--players", "Anna", "--enrol", "bimbamm"), "0"),
    ],
)
def test_takes_out_of_range_get_one_line(command: tuple[str, ...], takes: str, tmp_path: Path) -> None:
    """One to five takes of each word (one heard as many synthetic shouts as three, README): any
    other count is refused in one line before anything is recorded."""
    result = run_voicehost(
        *command, "--takes", takes, *(("--out", str(tmp_path / "t.toml")) if "setup-table" in command else ())
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"voicehost {command[0]}: --takes {takes}: give 1 to 5 takes of each word"
    assert result.stdout == "" and not (tmp_path / "t.toml").exists()


def test_takes_match_their_own_word_best(tmp_path: Path) -> None:
    """Three rendered takes per word of one voice: a fourth rendition of each word matches its own word's takes best."""
    from voicehost.listen.recognize.whisper.engine import WhisperEngine

    engine = WhisperEngine()
    rng = np.random.default_rng(5)
    voice = ENGLISH_VOICES[4]
    templates = Templates()
    words = ["cat", "dog", "pig", "donkey", "hen", "bim", "bam", "bum"]
    for word in words:
        for _ in range(3):
            samples = render_speech(word, vary(voice, rng), 16000)
            padded = np.concatenate([np.zeros(4000, np.float32), samples, np.zeros(4000, np.float32)])
            templates.add("Anna", word, frames_between(engine.encode(padded), 0.25, 0.25 + len(samples) / 16000))
    for word in words:
        samples = render_speech(word, vary(voice, rng), 16000)
        noisy = np.concatenate([np.zeros(4000, np.float32), samples, np.zeros(4000, np.float32)])
        noisy = noisy + 0.01 * rng.standard_normal(len(noisy)).astype(np.float32)
        encoded = engine.encode(noisy)
        match = match_phrases(templates, "Anna", encoded, 0.25, 0.25 + len(samples) / 16000, [], words)
        assert match.phrase == word, (word, match)


def test_setup_table_enrols_right_after_seating(virtual_table, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`setup-table --enrol bimbamm`: Ben is seated by his name on channel 5, then says every Bim
    Bamm! word twice there; the table file is written and the takes lie next to it."""
    import sounddevice as sd

    from voicehost.host.table import load_table
    from voicehost.speak.voice import EspeakVoice

    out = tmp_path / "table.toml"
    own = 4
    rng = np.random.default_rng(8)
    espeak = EspeakVoice()
    name_audio = espeak.render("Ben", voice=espeak.resolve("gmw/en"))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voicehost",
            "setup-table",
            "--rate",
            "320",
            "--players",
            "Ben",
            "--inputs",
            "vh_mics",
            "--speaker",
            "vh_table",
            "--out",
            str(out),
            "--enrol",
            "bimbamm",
            "--takes",
            "2",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def answer(line: str) -> None:
        heard = _heard_word(line)
        if heard is not None:
            samples, rate = render_speech(heard[1], vary(VOICES["Ben"], rng), 48000) * 0.5, 48000
        elif "listening for Ben" in line:
            samples, rate = name_audio.samples, name_audio.rate
        else:
            return
        frame = np.zeros((len(samples), 8), np.float32)
        frame[:, own] = samples
        frame[:, own + 1] = CROSSTALK * samples
        time.sleep(0.4)
        sd.play(frame, rate, device="vh_mics_play", blocking=True, latency=0.2)

    Lines(process).until_done(answer, timeout=300)
    process.wait(timeout=10)
    stderr = process.stderr.read() if process.stderr else ""
    assert process.returncode == 0, stderr
    table = load_table(out)
    assert [(s.name, s.input.channel) for s in table.seats] == [("Ben", own + 1)]
    takes = take_files(tmp_path / "enrolment" / "Ben")
    assert sorted(takes) == ["cat", "dog", "donkey", "hen", "pig"] and all(len(v) == 2 for v in takes.values())
