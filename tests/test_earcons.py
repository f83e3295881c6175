"""Earcons: short generated sounds, distinct from each other, recognisable after a real speaker."""

from __future__ import annotations

import time

import numpy as np
import pytest

from voicehost.speak.earcons import PEAK, Earcon, UnknownEarcon, earcon_named, render_earcon


def bands(samples: np.ndarray, rate: int, n: int = 512, hop: int = 128) -> np.ndarray:
    """Log energy in 48 log-spaced bands from 100 Hz to 8 kHz, per frame (frames, 48)."""
    frames = (len(samples) - n) // hop + 1
    window = np.hanning(n)
    spectrum = np.abs(np.fft.rfft(np.stack([samples[i * hop : i * hop + n] * window for i in range(frames)]), axis=1))
    freqs = np.fft.rfftfreq(n, 1 / rate)
    edges = np.geomspace(100, 8000, 49)
    energy = np.stack(
        [spectrum[:, (freqs >= lo) & (freqs < hi)].sum(axis=1) for lo, hi in zip(edges[:-1], edges[1:])], axis=1
    )
    return np.log10(energy + 1e-4)


def similarity(a: np.ndarray, b: np.ndarray, rate: int = 22050) -> float:
    """Best normalised correlation of two sounds' band spectrograms over all time shifts (1 = same sound)."""
    x_all, y_all = bands(a, rate), bands(b, rate)
    if len(x_all) < len(y_all):
        x_all, y_all = y_all, x_all
    best = -1.0
    for lag in range(-len(y_all) + 1, len(x_all)):
        lo, hi = max(0, lag), min(len(x_all), lag + len(y_all))
        if hi - lo < len(y_all) // 2:
            continue
        x = x_all[lo:hi].ravel() - x_all[lo:hi].mean()
        y = y_all[lo - lag : hi - lag].ravel() - y_all[lo - lag : hi - lag].mean()
        best = max(best, float(x @ y / np.sqrt((x @ x) * (y @ y) + 1e-12)))
    return best


@pytest.mark.parametrize("earcon", list(Earcon))
def test_earcons_are_short_clean_and_level(earcon: Earcon) -> None:
    """Each earcon lasts 0.15–0.6 s, peaks at the set level, and fades in and out from silence (no clicks)."""
    audio = render_earcon(earcon)
    assert 0.15 <= audio.duration <= 0.6
    assert np.abs(audio.samples).max() == pytest.approx(PEAK, abs=1e-6)
    ms = audio.rate // 1000
    assert abs(audio.samples[0]) < 0.005 and abs(audio.samples[-1]) < 0.005
    assert np.abs(audio.samples[:ms]).max() < 0.25 * PEAK and np.abs(audio.samples[-ms:]).max() < 0.25 * PEAK


def test_earcons_differ_from_each_other() -> None:
    """No two earcons are alike: every pair's spectrogram similarity stays at or below 0.8 (a sound with itself: 1)."""
    sounds = {e: render_earcon(e).samples for e in Earcon}
    for a in Earcon:
        for b in Earcon:
            if a != b:
                assert similarity(sounds[a], sounds[b]) <= 0.8, (a, b)


@pytest.mark.parametrize("rate", [8000, 16000, 44100, 48000])
def test_earcons_at_any_rate_and_deterministic(rate: int) -> None:
    """Earcons render at any rate with the same length, and identically every time (no randomness)."""
    for earcon in Earcon:
        a, b = render_earcon(earcon, rate), render_earcon(earcon, rate)
        assert a.rate == rate and np.array_equal(a.samples, b.samples)
        assert a.duration == pytest.approx(render_earcon(earcon).duration, abs=0.002)


def test_earcons_are_found_by_name() -> None:
    """'race open', 'race_open' and 'RACE-OPEN' all name the same earcon; an unknown name lists the sounds."""
    assert earcon_named("race open") is earcon_named("race_open") is earcon_named("RACE-OPEN") is Earcon.RACE_OPEN
    with pytest.raises(UnknownEarcon, match="time running out"):
        earcon_named("fanfare")


def test_earcons_are_told_apart_after_the_speaker(virtual_table: object) -> None:
    """Played through the virtual table speaker and recorded from its monitor, each earcon is still
    closest to itself."""
    import sounddevice as sd
    import soxr

    from voicehost.audio.devices import ChannelPlayer, find_device

    device = find_device("vh_table", output=True)
    assert device is not None
    templates = {e: render_earcon(e).samples for e in Earcon}
    blocks: list[np.ndarray] = []
    monitor = sd.InputStream(
        device="vh_table_monitor",
        channels=1,
        samplerate=48000,
        dtype="float32",
        callback=lambda data, frames, t, status: blocks.append(data[:, 0].copy()),
    )
    with ChannelPlayer(device, rate=48000) as player, monitor:
        for earcon in Earcon:
            sound = render_earcon(earcon, 48000).samples
            time.sleep(0.3)
            blocks.clear()
            assert player.play(sound).wait(5)
            time.sleep(0.3)
            heard = np.concatenate(blocks)
            loud = np.flatnonzero(np.abs(heard) > 0.01)
            assert loud.size, f"{earcon.value} was not heard"
            clip = soxr.resample(heard[max(0, loud[0] - 480) : loud[-1] + 480], 48000, 22050).astype(np.float32)
            scores = {e: similarity(clip, t) for e, t in templates.items()}
            best = max(scores, key=lambda e: scores[e])
            others = max(v for e, v in scores.items() if e != earcon)
            assert best is earcon and scores[earcon] - others >= 0.15, (earcon, scores)
