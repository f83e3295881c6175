"""bench/bench_listen.py's truth for a real clip's start (``onset_of``): where the word begins, not
where the clip begins or ends."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.conftest import bench_listen

RATE = 16000


def onset_of(clip: np.ndarray) -> float:
    return float(bench_listen().onset_of(clip))  # type: ignore[attr-defined]


def _noise(seconds: float, db: float, rng: np.random.Generator) -> np.ndarray:
    """White noise at ``db`` dB RMS re full scale."""
    return (rng.standard_normal(int(seconds * RATE)) * 10 ** (db / 20)).astype(np.float32)


def _word(seconds: float, db: float) -> np.ndarray:
    """A vowel-like tone at ``db`` dB RMS re full scale, with 5 ms ramps."""
    t = np.arange(int(seconds * RATE)) / RATE
    tone = np.sin(2 * np.pi * 220 * t) * np.sqrt(2) * 10 ** (db / 20)
    ramp = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.005)
    return (tone * ramp).astype(np.float32)


def test_a_word_after_quiet_room_starts_where_it_starts() -> None:
    rng = np.random.default_rng(1)
    clip = np.concatenate([_noise(0.4, -60, rng), _word(0.3, -10), _noise(0.3, -60, rng)])
    clip[400:] += _noise(len(clip[400:]) / RATE, -60, rng)
    assert abs(onset_of(clip) - 0.4) <= 0.006


def test_a_clip_cut_inside_a_background_sound() -> None:
    """8d4cdc60_nohash_1's shape: 0.18 s of a sound 25 dB under the word from the first sample, then
    the word. The walk back within 30 dB of the peak reached the clip's start (its truth was 0 s)."""
    rng = np.random.default_rng(2)
    clip = np.concatenate([_noise(0.18, -33, rng), _word(0.3, -8), _noise(0.5, -50, rng)])
    assert abs(onset_of(clip) - 0.18) <= 0.006


def test_a_word_that_starts_with_the_clip_still_starts_there() -> None:
    rng = np.random.default_rng(3)
    clip = np.concatenate([_word(0.3, -8), _noise(0.7, -50, rng)])
    assert onset_of(clip) <= 0.003


def test_the_clip_end_is_never_taken_for_the_word() -> None:
    """A quiet clip (its word at -30 dB) that ends with a sound 12 dB under it: the envelope's
    smoothing padded the last millisecond with 0 dB (the log of nothing read as full scale), so the
    clip's end was its loudest millisecond (wow fac74f6a_nohash_1: 0.995 s for a word at 0.27 s)."""
    rng = np.random.default_rng(4)
    clip = np.concatenate([_noise(0.27, -60, rng), _word(0.2, -30), _noise(0.51, -60, rng), _noise(0.02, -42, rng)])
    assert abs(onset_of(clip) - 0.27) <= 0.006


def _room_clip(rng: np.random.Generator) -> np.ndarray:
    """62581901_nohash_0's shape: the clip's own room noise 27 dB under its word throughout, the
    word at 0.6 s."""
    clip = np.concatenate([_noise(0.6, -37, rng), _word(0.3, -8), _noise(0.1, -37, rng)])
    clip[int(0.6 * RATE) : int(0.9 * RATE)] += _noise(0.3, -37, rng)
    return clip


def test_the_mixes_take_the_truth_from_the_clip_as_recorded(tmp_path: Path) -> None:
    """A mix pastes each clip gated (silent until 0.16 s before its word). Its truth was the gated
    clip's onset_of, whose floor was then the gated silence, so the walk back ran into the clip's
    room noise in the lead: 124-149 ms early for four of the twenty real cat/dog clips. The
    truth is the clip's own; here the clip's word is placed where the manifest says it starts."""
    import json

    import soundfile

    bench = bench_listen()
    rng = np.random.default_rng(5)
    clip = _room_clip(rng)
    assert abs(onset_of(clip) - 0.6) <= 0.006
    assert onset_of(bench.gated(clip)) < 0.55  # type: ignore[attr-defined]  # what went wrong
    folder = tmp_path / "speech_commands"
    for word in ("cat", "dog", "bed"):
        (folder / "words" / word).mkdir(parents=True)
        soundfile.write(str(folder / "words" / word / f"a{word}_nohash_0.wav"), clip, RATE)
    (folder / "noise").mkdir()
    soundfile.write(str(folder / "noise" / "pink.wav"), _noise(5.0, -40, rng), RATE)
    work = tmp_path / "work"
    work.mkdir()
    fixtures = bench.real_solo_and_chatter(folder, 3, work, 2)  # type: ignore[attr-defined]
    solos = [f for f in fixtures if "solo" in f.name]
    assert solos
    for fixture in solos:
        manifest = json.loads(fixture.path.read_text())
        (shout,) = manifest["expected"]
        track, _ = soundfile.read(str(work / manifest["multichannel"]))
        seat = manifest["seats"].index(shout["player"])
        pasted = bench.gated(clip)  # type: ignore[attr-defined]
        lag = int(np.argmax(np.correlate(track[:, seat], pasted, mode="valid")))
        assert abs(lag / RATE + 0.6 - shout["onset"]) <= 0.005, (lag / RATE, shout)
