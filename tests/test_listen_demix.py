"""Demixing a cluster's voices for the recogniser: each microphone's owner keeps its voice and loses
most of its neighbours' leaks (committed word clips, shouted at once); one seat is left as it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile

from tests.test_listen_crosstalk import Table, _word
from voicehost.listen.demix import demix

RATE = 16000
WORDS = Path(__file__).resolve().parents[1] / "audio_fixtures" / "words" / "en"


def clip(name: str) -> np.ndarray:
    """A committed word clip at 16 kHz, mono float64."""
    samples, rate = soundfile.read(WORDS / name, dtype="float64")
    assert rate == RATE
    return samples if samples.ndim == 1 else samples[:, 0]


def race(words: list[str], onsets: list[float], gains_db: list[list[float]]) -> tuple[np.ndarray, np.ndarray]:
    """(microphones, owners' voices alone at their microphones), (seats, samples): seat k says
    ``words[k]`` at ``onsets[k]``; seat j hears it ``gains_db[k][j]`` dB down, 2 + k ms late, with a
    reflection 5 ms on (the crosstalk tests' table, the same room noise both ways)."""
    seats = tuple(f"seat{k}" for k in range(len(words)))
    table, alone = Table(seats, 2.0, seed=7, noise_db=-55.0), Table(seats, 2.0, seed=7, noise_db=-55.0)
    for k, word in enumerate(words):
        voice = clip(word).astype(np.float32)
        leaks = {seats[j]: (gains_db[k][j], 0.002 + k / 1000) for j in range(len(words)) if j != k}
        table.shout(seats[k], voice, onsets[k], leaks, reflection=0.005)
        alone.shout(seats[k], voice, onsets[k], {})
    return (
        np.stack([table.audio[s] for s in seats]).astype(np.float64),
        np.stack([alone.audio[s] for s in seats]).astype(np.float64),
    )


def leak_db(heard: np.ndarray, own: np.ndarray) -> float:
    """What is left of the others in ``heard``, relative to the owner's voice, dB."""
    return float(10 * np.log10(np.sum((heard - own) ** 2) / np.sum(own**2)))


def test_two_voices_at_once_lose_most_of_each_others_leak() -> None:
    """Two players shouting different words 40 ms apart, leaks 10 and 14 dB down: each demixed
    channel keeps at least 6 dB less of the other than its microphone did."""
    mics, own = race(["00_cat.wav", "03_donkey.wav"], [0.40, 0.44], [[0, -10], [-14, 0]])
    out = demix(mics, RATE)
    for k in range(2):
        before, after = leak_db(mics[k], own[k]), leak_db(out[k], own[k])
        assert after <= before - 6.0, (k, before, after)


def test_four_voices_at_once() -> None:
    """A race of four (different words, 0-90 ms apart, leaks 8-20 dB down): every channel loses
    at least 5 dB of the others."""
    gains = [[0, -8, -15, -20], [-12, 0, -9, -18], [-20, -11, 0, -10], [-16, -19, -9, 0]]
    mics, own = race(["01_dog.wav", "02_pig.wav", "04_hen.wav", "00_cat.wav"], [0.40, 0.43, 0.47, 0.49], gains)
    out = demix(mics, RATE)
    for k in range(4):
        before, after = leak_db(mics[k], own[k]), leak_db(out[k], own[k])
        assert after <= before - 5.0, (k, before, after)


def test_one_seat_or_a_short_cluster_is_left_as_it_is() -> None:
    """Nothing to separate: one channel, or too few blocks to learn from, come back unchanged."""
    mics, _ = race(["00_cat.wav", "03_donkey.wav"], [0.40, 0.44], [[0, -10], [-14, 0]])
    assert np.array_equal(demix(mics[:1], RATE), mics[:1])
    assert np.array_equal(demix(mics[:, :1500], RATE), mics[:, :1500])


def test_deterministic() -> None:
    """The same channels give the same voices."""
    mics, _ = race(["00_cat.wav", "03_donkey.wav"], [0.40, 0.44], [[0, -10], [-14, 0]])
    assert np.array_equal(demix(mics, RATE), demix(mics, RATE))


def test_the_recogniser_hears_a_racer_without_the_other_and_nothing_else_changes() -> None:
    """Through the crosstalk stage: Anna and Ben shout 30 ms apart, each leaking into the other
    (10 and 12 dB down, with a reflection 6 ms later, past the leak filters' 4 ms). With demixing
    the audio each is recognised on holds at least 4 dB less of the other than the leak filters'
    remainder did and than the microphone itself; owners, onsets and kinds are the same."""
    from voicehost.listen.crosstalk import CrosstalkConfig, _band_pass, resolve
    from voicehost.listen.onset import OnsetConfig

    words = {
        "Anna": (_word("cat", 4), 1.0, {"Ben": (-10.0, 0.003)}),
        "Ben": (_word("donkey", 5), 1.03, {"Anna": (-12.0, 0.004)}),
    }
    table, alone = Table(("Anna", "Ben"), 2.5, seed=2), Table(("Anna", "Ben"), 2.5, seed=2)
    for seat, (sound, at, leaks) in words.items():
        table.shout(seat, sound, at, leaks, reflection=0.006)
        alone.shout(seat, sound, at, {})
    offsets = {s: 0.0 for s in table.seats}
    events = table.events(offsets)
    plain = resolve(events, table, offsets, OnsetConfig(), CrosstalkConfig(demix=False))
    demixed = resolve(events, table, offsets, OnsetConfig(), CrosstalkConfig(demix=True))
    assert [(o.event.seat, o.event.onset, o.event.kind) for o in demixed] == [
        (o.event.seat, o.event.onset, o.event.kind) for o in plain
    ]
    assert [o.event.seat for o in demixed] == ["Anna", "Ben"]
    for before, after in zip(plain, demixed):
        first = int(round(after.start * RATE))
        own = _band_pass(alone.audio[after.event.seat].astype(np.float64), RATE, OnsetConfig())[
            first : first + len(after.samples)
        ]
        mic = _band_pass(table.audio[after.event.seat].astype(np.float64), RATE, OnsetConfig())[
            first : first + len(after.samples)
        ]
        left = leak_db(after.samples, own)
        assert left <= leak_db(before.samples, own) - 4.0 and left <= leak_db(mic, own) - 4.0, after.event.seat
