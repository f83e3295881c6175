"""Big inputs stay linear and bounded: decks, scripts, long games, recordings, and bam render starts fast."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.conftest import ROOT, run_voicehost

AUDIO = ROOT / "audio_fixtures"


def deck_file(path: Path, cards: int, text_length: int = 30) -> Path:
    """A deck of ``cards`` red cards whose texts have ``text_length`` characters."""
    body = "x" * max(0, text_length - 5)  # "BAM! " + body is text_length characters
    lines = ["[deck]", 'name = "big"']
    for i in range(cards):
        lines += ["[[red]]", f'id = "r{i}"', f'text = "BAM! {body}"']
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(function, *args):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def test_checking_a_deck_is_linear_and_ten_thousand_cards_take_seconds(tmp_path: Path) -> None:
    """Loading 10,000 cards takes about 4 times as long as 2,500 (100,000 took 233 s: quadratic); 10,000 within 10 s."""
    from voicehost.decks.load import load_deck

    small = deck_file(tmp_path / "small.toml", 2_500)
    big = deck_file(tmp_path / "big.toml", 10_000)
    load_deck(small)
    _, t_small = timed(load_deck, small)
    deck, t_big = timed(load_deck, big)
    assert len(deck.red) == 10_000
    assert t_big < 10.0 and t_big / t_small < 8, (t_small, t_big)


def test_decks_above_the_limits_are_one_line(tmp_path: Path) -> None:
    """A deck file of 10,001 cards, or a card of 501 characters: one line saying the limit, status 2."""
    many = run_voicehost("deck", "check", str(deck_file(tmp_path / "many.toml", 10_001)), timeout=120)
    assert many.returncode == 2 and "at most 10000" in many.stderr
    long = run_voicehost("deck", "check", str(deck_file(tmp_path / "long.toml", 1, text_length=501)))
    assert long.returncode == 2 and "at most 500" in long.stderr
    fits = run_voicehost("deck", "check", str(deck_file(tmp_path / "fits.toml", 1, text_length=500)))
    assert fits.returncode == 0, fits.stderr


def script_file(path: Path, lines: int) -> Path:
    """A script of ``lines`` lines of 'help' every half second."""
    path.write_text("".join(f"{1 + i * 0.5:.2f} Anna: help\n" for i in range(lines)))
    return path


def test_a_long_script_plays_in_linear_time(tmp_path: Path) -> None:
    """A 16,000-line script takes about 4 times a 4,000-line one (15 s against 2 s before: quadratic).
    Each is timed best of three: once, a 0.8 s pause of the busy machine (the other test worker
    decoding) put a single timing at 8.4 times (0.17 s against 1.38 s; alone 0.15 against 0.57)."""
    from voicehost.host.build import PlaySettings, run_session

    def play(lines: int) -> float:
        script = script_file(tmp_path / f"s{lines}.txt", lines)
        settings = PlaySettings("bimbamm", ("Anna", "Ben"), f"script:{script}", 1, tmp_path / f"g{lines}.jsonl")
        with open(os.devnull, "w") as out:
            _, seconds = timed(lambda: run_session(settings, stdout=out))
        return seconds

    play(500)
    small, big = (min(play(lines) for _ in range(3)) for lines in (4_000, 16_000))
    assert big < 20 and big / small < 8, (small, big)


def test_bam_render_compiles_its_word_tables_once_and_then_reads_them(tmp_path: Path) -> None:
    """'voicehost bam render' compiles lemminflect's word tables into its cache on the first call only;
    later calls read that cache (same sentence, file untouched). Its start-up time (0.75 s here,
    3 s before) is measured by bench/bench_startup.py, not asserted here."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "voicehost", "bam", "render", "BAM! has lost its charm", "Cats"]
    first = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert first.returncode == 0, first.stderr
    cached = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert cached, "no word-table cache was written"
    stamps = {p: p.stat().st_mtime_ns for p in cached}
    again = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert again.stdout == first.stdout and again.returncode == 0
    assert {p: p.stat().st_mtime_ns for p in cached} == stamps, "the cache was compiled again"


def test_the_compiled_word_tables_answer_exactly_what_lemminflect_loads(tmp_path: Path) -> None:
    """Every word of lemminflect's lemma and inflection tables reads back identically from the SQLite cache."""
    import sqlite3

    from voicehost.speak.lexicons import TableLookup, _tables, compile_tables

    path = tmp_path / "tables.sqlite"
    compile_tables(path)
    connection = sqlite3.connect(path)
    for name, load in _tables().items():
        table = load()
        lookup = TableLookup(connection, name)
        assert all(lookup.get(word) == forms for word, forms in table.items()), name
        assert lookup.get("no-such-word-xyz", {}) == {}


def test_realised_sentences_are_the_same_with_the_compiled_tables(tmp_path: Path) -> None:
    """The realiser says the same with lemminflect's own tables (in-process) and with the compiled
    ones (a fresh process)."""
    from voicehost.speak.realize import Filler, Realizer

    cases = [
        ("BAM! has lost its charm", ["Cats"]),
        ("BAM! makes BAM! taste better.", ["Ketchup", "Broccoli"]),
        ("I never leave home without BAM!", ["an umbrella"]),
        ("BAM! was the best day of my life", ["Weddings"]),
    ]
    realizer = Realizer()
    expected = [realizer.realize(red, [Filler(g) for g in grey]) for red, grey in cases]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    got = []
    for red, grey in cases:
        result = subprocess.run(
            [sys.executable, "-m", "voicehost", "bam", "render", red, *grey],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
        got.append(result.stdout.strip())
    assert got == expected


# ---- rank: streamed recordings ----------------------------------------------------------------


def test_streamed_tracks_equal_the_whole_file_path_at_any_block_size(tmp_path: Path) -> None:
    """Reading in blocks (48 kHz stereo mixed down, a 16 kHz track, shorter ones padded) gives the
    samples the whole-file loader gave."""
    from voicehost.audio.stream import StreamedTracks
    from voicehost.listen.sources import FileSource, load_tracks

    rng = np.random.default_rng(3)
    a = tmp_path / "a.wav"
    soundfile.write(str(a), (rng.standard_normal((48000 * 3, 2)) * 0.1).astype(np.float32), 48000, subtype="PCM_16")
    b = AUDIO / "race2_close.Ben.wav"
    c = tmp_path / "c.flac"
    soundfile.write(str(c), (rng.standard_normal(22050) * 0.1).astype(np.float32), 22050)
    tracks = [("Anna", a), ("Ben", b), ("Cem", c)]
    whole = np.concatenate([blk.samples for blk in FileSource(load_tracks(tracks), 4096).blocks()])
    for size in (1000, 4096, 10007):
        with StreamedTracks.per_seat(tracks, 16000) as stream:
            streamed = np.concatenate([blk.samples for blk in stream.blocks(size)])
        assert streamed.shape == whole.shape
        assert np.allclose(streamed, whole, atol=1e-6), size


def test_streaming_a_long_recording_holds_a_few_megabytes(tmp_path: Path) -> None:
    """Ten minutes of 48 kHz stereo (230 MB as float32) is read with a peak of a few MB allocated,
    not the whole file."""
    from voicehost.audio.stream import StreamedTracks

    path = tmp_path / "long.wav"
    with soundfile.SoundFile(str(path), "w", samplerate=48000, channels=2, subtype="PCM_16") as out:
        block = (np.random.default_rng(1).standard_normal((48000, 2)) * 0.01).astype(np.float32)
        for _ in range(600):
            out.write(block)
    tracemalloc.start()
    frames = 0
    with StreamedTracks.multichannel(path, ("Anna", "Ben"), 16000) as stream:
        for blk in stream.blocks(4096):
            frames += blk.samples.shape[0]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert abs(frames - 600 * 16000) < 100
    assert peak < 20_000_000, peak


def test_a_float_track_far_outside_unit_range_no_longer_silences_the_others(tmp_path: Path) -> None:
    """Ben's track as unscaled 16-bit floats: rank reported no shouts for anyone (exit 0); now both
    shouts and a note."""
    samples, rate = soundfile.read(str(AUDIO / "race2_close.Ben.wav"), dtype="float32")
    loud = tmp_path / "ben-float.wav"
    soundfile.write(str(loud), samples * 32767, rate, subtype="FLOAT")
    result = run_voicehost(
        "rank",
        "--game",
        "bimbamm",
        "--json",
        "--track",
        f"Anna={AUDIO / 'race2_close.Anna.wav'}",
        "--track",
        f"Ben={loud}",
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    shouts = json.loads(result.stdout)["shouts"]
    assert sorted(s["player"] for s in shouts) == ["Anna", "Ben"]
    assert "far outside ±1" in result.stderr


def test_rank_refuses_seat_names_differing_only_in_capitals() -> None:
    """'--track anna=… --track ANNA=…' were two seats; play refuses such names, and so does rank now."""
    wav = AUDIO / "race2_close.Anna.wav"
    result = run_voicehost("rank", "--game", "bimbamm", "--track", f"anna={wav}", "--track", f"ANNA={wav}")
    assert result.returncode == 2 and "capitals" in result.stderr


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_a_track_with_invalid_samples_is_one_line(tmp_path: Path, value: float) -> None:
    """NaN or infinite samples anywhere in a float track: one line naming the file and the time."""
    samples = np.zeros(16000 * 3, dtype=np.float32)
    samples[16000 * 2] = value
    path = tmp_path / "bad.wav"
    soundfile.write(str(path), samples, 16000, subtype="FLOAT")
    result = run_voicehost("rank", "--game", "bimbamm", "--track", f"Anna={path}")
    assert result.returncode == 2 and "invalid" in result.stderr and len(result.stderr.strip().splitlines()) <= 2
