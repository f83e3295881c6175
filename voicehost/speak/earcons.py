"""Earcons: short generated sounds that tell players what happened before any sentence could.

Each sound differs from the others in more than one way — pitch, direction and rhythm — so it
is recognisable across a noisy table and by players who do not know which is which yet:

==================  =========================================================  ========
earcon              sound                                                      length
==================  =========================================================  ========
your turn           two soft rising notes (G5 → C6), like a doorbell           0.36 s
point               quick bright arpeggio up to C7, bell-like                  0.42 s
mistake             low buzzy falling pair (E4 → A3), square-ish               0.42 s
race open           fast upward sweep 500 → 2000 Hz ending in a ring           0.26 s
time running out    three short high beeps, getting faster                     0.35 s
==================  =========================================================  ========

Everything is computed (no sample files, no randomness): the same call always gives the same
samples, at any sample rate. Levels stay below the host's voice so a sound never startles.
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from voicehost.audio.buffer import Audio
from voicehost.errors import InputError

DEFAULT_RATE = 22050
"""Hz: the rate espeak-ng speaks at, so earcons and speech share one stream without resampling."""
PEAK = 0.6
"""Peak level of every earcon (speech from espeak-ng peaks near 0.75)."""


class Earcon(Enum):
    """The events that have a sound."""

    YOUR_TURN = "your turn"
    POINT = "point"
    MISTAKE = "mistake"
    RACE_OPEN = "race open"
    TIME_RUNNING_OUT = "time running out"


class UnknownEarcon(InputError):
    """A sound name that is not one of the earcons."""


def earcon_named(name: str) -> Earcon:
    """Look an earcon up by its name ('race open', 'race_open' or 'RACE_OPEN')."""
    wanted = name.strip().lower().replace("_", " ").replace("-", " ")
    for earcon in Earcon:
        if earcon.value == wanted:
            return earcon
    names = ", ".join(e.value for e in Earcon)
    raise UnknownEarcon(f"unknown sound {name!r}; the sounds are: {names}")


def render_earcon(earcon: Earcon, rate: int = DEFAULT_RATE) -> Audio:
    """The samples of ``earcon`` at ``rate`` Hz, mono float32, peaking at :data:`PEAK`."""
    if rate < 8000:
        raise InputError(f"earcons need a sample rate of at least 8000 Hz, not {rate}")
    samples = _DESIGNS[earcon](rate)
    peak = float(np.max(np.abs(samples)))
    return Audio((samples * (PEAK / peak)).astype(np.float32), rate)


def _glide(f0: float, f1: float, seconds: float, rate: int, harmonics: tuple[float, ...] = (1.0,)) -> np.ndarray:
    """A tone gliding exponentially from ``f0`` to ``f1`` Hz, with the given harmonic weights."""
    n = int(round(seconds * rate))
    freq = f0 * (f1 / f0) ** (np.arange(n) / max(n - 1, 1))
    phase = 2 * np.pi * np.cumsum(freq) / rate
    out = np.zeros(n)
    for k, weight in enumerate(harmonics, start=1):
        if k * max(f0, f1) < 0.45 * rate:  # harmonics above Nyquist would fold back as noise
            out += weight * np.sin(k * phase)
    return out


def _envelope(
    n: int, rate: int, attack: float = 0.005, release: float = 0.02, decay: float | None = None
) -> np.ndarray:
    """Raised-cosine attack and release (no clicks), optionally an exponential decay (time constant, s)."""
    env = np.ones(n)
    a, r = max(1, int(attack * rate)), max(1, int(release * rate))
    env[:a] *= 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, a))
    env[-r:] *= 0.5 + 0.5 * np.cos(np.linspace(0, np.pi, r))
    if decay is not None:
        env *= np.exp(-np.arange(n) / (decay * rate))
    return env


def _note(
    freq: float, seconds: float, rate: int, harmonics: tuple[float, ...] = (1.0,), decay: float | None = None
) -> np.ndarray:
    tone = _glide(freq, freq, seconds, rate, harmonics)
    shaped: np.ndarray = tone * _envelope(tone.size, rate, decay=decay)
    return shaped


def _sequence(parts: list[tuple[np.ndarray, float]], rate: int) -> np.ndarray:
    """Concatenate (sound, pause after it in seconds) pairs."""
    chunks: list[np.ndarray] = []
    for sound, pause in parts:
        chunks.append(sound)
        chunks.append(np.zeros(int(round(pause * rate))))
    return np.concatenate(chunks)


def _your_turn(rate: int) -> np.ndarray:
    soft = (1.0, 0.25)
    return _sequence([(_note(784.0, 0.13, rate, soft), 0.03), (_note(1046.5, 0.20, rate, soft, decay=0.12), 0.0)], rate)


def _point(rate: int) -> np.ndarray:
    bell = (1.0, 0.4, 0.15)
    notes = [1046.5, 1318.5, 1568.0, 2093.0]
    parts = [(_note(f, 0.075, rate, bell, decay=0.05), 0.01) for f in notes[:-1]]
    parts.append((_note(notes[-1], 0.16, rate, bell, decay=0.06), 0.0))
    return _sequence(parts, rate)


def _mistake(rate: int) -> np.ndarray:
    square = (1.0, 0.0, 1 / 3, 0.0, 1 / 5, 0.0, 1 / 7)
    return _sequence(
        [(_note(329.6, 0.17, rate, square), 0.04), (_note(220.0, 0.21, rate, square, decay=0.25), 0.0)], rate
    )


def _race_open(rate: int) -> np.ndarray:
    sweep = _glide(500.0, 2000.0, 0.12, rate, (1.0, 0.3))
    sweep *= _envelope(sweep.size, rate, attack=0.003, release=0.005)
    ring = _note(2000.0, 0.14, rate, (1.0, 0.3), decay=0.04)
    return np.concatenate([sweep, ring])


def _time_running_out(rate: int) -> np.ndarray:
    beep = _note(1760.0, 0.05, rate, (1.0, 0.2))
    return _sequence([(beep, 0.12), (beep, 0.08), (beep, 0.0)], rate)


_DESIGNS = {
    Earcon.YOUR_TURN: _your_turn,
    Earcon.POINT: _point,
    Earcon.MISTAKE: _mistake,
    Earcon.RACE_OPEN: _race_open,
    Earcon.TIME_RUNNING_OUT: _time_running_out,
}
