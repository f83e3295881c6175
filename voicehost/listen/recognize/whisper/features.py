"""Whisper's input features: 80 log-mel bands every 10 ms, scaled as the model was trained.

The recipe is Whisper's own (25 ms Hann window, 400-point FFT, power spectrum, Slaney-style mel
filters from 0 to 8 kHz, log10, a floor 8 decades under the loudest bin, then (x + 4) / 4). The
audio is padded with digital silence to the chosen context length, as Whisper pads to 30 s.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

RATE = 16000
"""Hz: Whisper's sample rate."""
N_FFT = 400
"""Samples per analysis window (25 ms)."""
HOP = 160
"""Samples between frames (10 ms)."""
N_MELS = 80
"""Mel bands of the tiny model."""


@lru_cache(maxsize=1)
def mel_filters() -> np.ndarray:
    """(80, 201) Slaney-style mel filterbank (librosa's default, as Whisper uses)."""
    fft_freqs = np.fft.rfftfreq(N_FFT, 1.0 / RATE)
    step = 200.0 / 3  # Hz per mel below 1 kHz
    mels = np.linspace(0.0, 45.245640471924965, N_MELS + 2)  # 0 Hz to 8 kHz on the Slaney scale
    freqs = step * mels
    log_start = 1000.0 / step
    upper = mels >= log_start
    freqs[upper] = 1000.0 * np.exp(np.log(6.4) / 27.0 * (mels[upper] - log_start))
    widths = np.diff(freqs)
    ramps = freqs[:, None] - fft_freqs[None, :]
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(rising, falling))
    weights *= (2.0 / (freqs[2:] - freqs[:-2]))[:, None]
    return weights.astype(np.float32)


@lru_cache(maxsize=1)
def _window() -> np.ndarray:
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def log_mel(samples: np.ndarray, frames: int) -> np.ndarray:
    """(80, frames) float32 features of ``samples`` (mono, 16 kHz), padded or cut to ``frames``."""
    length = frames * HOP
    audio = np.zeros(length, dtype=np.float32)
    audio[: min(len(samples), length)] = samples[:length]
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    starts = HOP * np.arange(frames)
    windows = padded[starts[:, None] + np.arange(N_FFT)[None, :]] * _window()
    power = np.abs(np.fft.rfft(windows, axis=1)) ** 2
    mel = power.astype(np.float32) @ mel_filters().T
    logs = np.log10(np.maximum(mel, 1e-10))
    logs = np.maximum(logs, logs.max() - 8.0)
    out: np.ndarray = ((logs + 4.0) / 4.0).T.astype(np.float32)
    return out
