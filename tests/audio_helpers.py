"""Small measurement helpers shared by audio tests."""

from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np


def active_span(
    samples: np.ndarray, rate: int, frame: float = 0.02, floor_db: float = -45.0
) -> tuple[float, float] | None:
    """(start, end) in seconds of the audio louder than ``floor_db`` dBFS (frame RMS), or None."""
    mono = samples if samples.ndim == 1 else samples.mean(axis=1)
    n = int(rate * frame)
    frames = len(mono) // n
    if frames == 0:
        return None
    rms = np.sqrt(np.mean(mono[: frames * n].reshape(frames, n) ** 2, axis=1) + 1e-12)
    active = np.flatnonzero(20 * np.log10(rms) > floor_db)
    if active.size == 0:
        return None
    return active[0] * frame, (active[-1] + 1) * frame


def record_while(
    device: str, channels: int, rate: int, action: Callable[[], object], lead: float = 0.3, tail: float = 0.5
) -> np.ndarray:
    """Record ``device`` while ``action()`` runs (plus a lead-in and a tail); float32 (frames, channels)."""
    import sounddevice as sd

    blocks: list[np.ndarray] = []
    lock = threading.Lock()

    def callback(indata, frames, time_info, status):  # type: ignore[no-untyped-def]
        with lock:
            blocks.append(indata.copy())

    with sd.InputStream(device=device, channels=channels, samplerate=rate, dtype="float32", callback=callback):
        time.sleep(lead)
        action()
        time.sleep(tail)
    with lock:
        return np.concatenate(blocks) if blocks else np.zeros((0, channels), np.float32)
