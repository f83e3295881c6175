"""Demixing the voices of a cluster for the recogniser: each owner's voice without its neighbours'.

When several players shout at once (a Bim Bamm! race), every microphone holds its owner's voice
and the others' leaks, 8 to 25 dB weaker, a few milliseconds late, with the room's reflections.
The crosstalk stage's leak filters (:mod:`.crosstalk`) are fitted where a channel holds a leak
alone and reach 4 ms past the leak's delay; while everyone shouts such moments are few, and a
reflection later than the filter's reach is left in, or even added: on the tuning split the
recogniser's audio held about as much of the neighbours' voices as the microphone itself
(README, item 50).

Here the whole cluster is used instead. In the short-time Fourier domain, with frames longer than
a leak's delay and its early reflections, each frequency bin of the microphones is an
instantaneous mixture ``X = A S`` of the voices ``S``, each microphone dominated by its owner.
Speech is sparse in time and frequency (most of a bin's frames hold little of any one voice), so
the voices are recovered per bin by independent component analysis: natural-gradient steps of
complex ICA under a Laplacian prior, started from no demixing at all, which keeps every output on
its own microphone's voice (no permutation to sort out when each microphone's owner dominates
it). Each output is then scaled back to how its owner's microphone hears it (the minimal
distortion principle), so the recogniser hears the owner as before, without the others.

Only the recogniser's audio comes from here: onsets, ownership and the kind of each sound stay the
crosstalk stage's. Pure NumPy, deterministic, no state between calls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DemixConfig:
    """Tuning of the demixing (set once, not searched; the method was chosen on the tuning split:
    README, item 50)."""

    frame: float = 0.064
    """Seconds per STFT frame (rounded to a power of two in samples; the hop is a quarter of it):
    longer than a leak's delay and early reflections, so each bin's mixing is one complex gain."""
    iterations: int = 20
    """Natural-gradient steps per bin."""
    step: float = 0.1
    """Step size."""
    min_frames: int = 12
    """Fewer STFT frames than this (a cluster shorter than about 0.2 s): too little to learn the
    mixing from; the channels are returned as they are."""


def demix(channels: np.ndarray, rate: int, cfg: DemixConfig | None = None) -> np.ndarray:
    """``channels`` (seats, samples), each microphone dominated by its owner → the same shape and
    type, each row that owner's voice with the other rows' voices removed (see the module doc)."""
    cfg = cfg or DemixConfig()
    if len(channels) < 2:
        return channels.copy()
    n = 1 << int(round(np.log2(cfg.frame * rate)))
    hop = n // 4
    window = np.sqrt(np.hanning(n + 1)[:-1])
    spectra = np.stack([_stft(c.astype(np.float64), n, hop, window) for c in channels])  # (seats, frames, bins)
    if spectra.shape[1] < cfg.min_frames:
        return channels.copy()
    unmixed = _ica(spectra, cfg)
    return np.stack([_istft(voice, n, hop, window, channels.shape[1]) for voice in unmixed]).astype(channels.dtype)


def _ica(spectra: np.ndarray, cfg: DemixConfig) -> np.ndarray:
    """(seats, frames, bins) → the same, demixed per bin and scaled back to each owner's microphone."""
    seats = spectra.shape[0]
    data = np.transpose(spectra, (2, 0, 1))  # (bins, seats, frames)
    scale = np.sqrt(np.mean(np.abs(data) ** 2, axis=(1, 2), keepdims=True)) + 1e-12
    x = (data / scale).astype(np.complex64)  # every bin learns at the same pace; single precision: half the time
    unmixing = np.tile(np.eye(seats, dtype=np.complex64), (len(x), 1, 1))
    eye = np.eye(seats, dtype=np.complex64)[None]
    for _ in range(cfg.iterations):
        y = unmixing @ x
        score = y / (np.abs(y) + 1e-6)  # the Laplacian prior's score function
        unmixing = unmixing + cfg.step * (eye - score @ np.conj(np.swapaxes(y, 1, 2)) / x.shape[2]) @ unmixing
    unmixing = unmixing.astype(np.complex128)
    unmixing = np.einsum("fii->fi", np.linalg.inv(unmixing))[:, :, None] * unmixing
    out: np.ndarray = np.transpose(unmixing @ data, (1, 2, 0))
    return out


def _stft(x: np.ndarray, n: int, hop: int, window: np.ndarray) -> np.ndarray:
    padded = np.concatenate([np.zeros(n), x, np.zeros(n)])
    count = 1 + (len(padded) - n) // hop
    index = np.arange(n)[None, :] + hop * np.arange(count)[:, None]
    out: np.ndarray = np.fft.rfft(padded[index] * window, axis=1)
    return out


def _istft(spectra: np.ndarray, n: int, hop: int, window: np.ndarray, length: int) -> np.ndarray:
    frames = np.fft.irfft(spectra, n, axis=1) * window
    size = n + hop * (len(spectra) - 1)
    out, norm = np.zeros(size), np.zeros(size)
    for k, frame in enumerate(frames):
        out[k * hop : k * hop + n] += frame
        norm[k * hop : k * hop + n] += window**2
    result: np.ndarray = (out / np.maximum(norm, 1e-9))[n : n + length]
    return result


__all__ = ["DemixConfig", "demix"]
