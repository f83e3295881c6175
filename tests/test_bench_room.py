"""bench/bench_listen.py's real mixes: a clip's own room noise is heard all along at its seat
(``Room``), not only in the 0.16 s the gate keeps before the word, where it began with a step the
onset detector took for the start of the shout."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.conftest import bench_listen

RATE = 16000


def _db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(x.astype(np.float64) ** 2) + 1e-30))


def _clip(rng: np.random.Generator, breath: bool = False) -> np.ndarray:
    """A clip recorded in a room 25 dB under its word: room noise throughout, a tone from 0.6 s to
    0.9 s (the word); ``breath``: a sound 8 dB over the room at 0.1-0.15 s."""
    t = np.arange(RATE) / RATE
    room = rng.standard_normal(RATE) * 10 ** (-33 / 20)
    word = np.where((t >= 0.6) & (t < 0.9), np.sin(2 * np.pi * 220 * t) * np.sqrt(2) * 10 ** (-8 / 20), 0.0)
    clip = room + word
    if breath:
        clip[int(0.1 * RATE) : int(0.15 * RATE)] += rng.standard_normal(int(0.05 * RATE)) * 10 ** (-25 / 20)
    return clip.astype(np.float32)


def _mix(bench: Any, clip: np.ndarray, start: float, frames: int) -> np.ndarray:
    """Two seats: the clip pasted gated and levelled on the first at ``start`` (its word 0.6 s
    later), leaked 20 dB down to the second; the rooms added as the mixes add them."""
    import tools.listen_fixtures as fx

    tracks = np.zeros((frames, 2))
    pasted = fx.set_active_level(bench.gated(clip), fx.SHOUT_DB)
    room = bench.Room(frames, 2, (1,))
    for j, gain in enumerate((1.0, 0.1)):
        fx.add_at(tracks[:, j], fx.shift(pasted * gain, start))
    room.paste(clip, pasted, start, 0, [1.0, 0.1])
    room.add_to(tracks)
    return tracks


def test_the_room_is_heard_before_the_gate_as_in_its_lead() -> None:
    bench = bench_listen()
    rng = np.random.default_rng(1)
    clip = _clip(rng)
    tracks = _mix(bench, clip, 1.0, 3 * RATE)
    word = 1.6  # the word's start in the mix
    before = _db(tracks[int(0.3 * RATE) : int(1.2 * RATE), 0])  # the gate opens at 1.44 s
    lead = _db(tracks[int((word - 0.09) * RATE) : int((word - 0.01) * RATE), 0])
    through = _db(tracks[int((word - 0.2) * RATE) : int((word - 0.12) * RATE), 0])  # within the gate's ramp
    after = _db(tracks[int(2.2 * RATE) : int(2.9 * RATE), 0])
    for level in (before, through, after):
        assert abs(level - lead) <= 1.5, (before, through, lead, after)
    leaked = _db(tracks[int(0.3 * RATE) : int(1.2 * RATE), 1])
    assert abs(before - leaked - 20.0) <= 0.5


def test_without_it_the_room_starts_with_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = bench_listen()
    monkeypatch.setattr(bench, "ROOM_ALL_ALONG", False)
    tracks = _mix(bench, _clip(np.random.default_rng(1)), 1.0, 3 * RATE)
    assert np.all(tracks[: int(1.4 * RATE), 0] == 0.0)


def test_a_sound_before_the_word_is_not_the_room() -> None:
    """The room's level comes from the quieter half of the frames outside the gate: a breath there
    does not raise it."""
    bench = bench_listen()
    quiet = bench.room_noise_of(_clip(np.random.default_rng(2)))[1]  # type: ignore[attr-defined]
    breathing = bench.room_noise_of(_clip(np.random.default_rng(2), breath=True))[1]  # type: ignore[attr-defined]
    assert abs(20 * np.log10(breathing / quiet)) <= 0.5
    assert abs(20 * np.log10(quiet) + 33.0) <= 1.5  # the room's own level (under its quieter frames' mean)
