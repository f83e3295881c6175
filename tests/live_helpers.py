"""Helpers for tests that run live sessions on the virtual sound devices: a monotonic clock, and
a recorder of the virtual table speaker that knows when the host was talking."""

from __future__ import annotations

import threading
import time

import numpy as np

from voicehost.listen.sources import LiveInput, LiveSource

AUDIBLE_DB = -50.0
"""dBFS: the virtual speaker's monitor is exactly 0 in silence; anything above this is the host."""


class MonotonicClock:
    """Session time = the system's monotonic clock (so captures here line up with any session)."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


class SpeakerMonitor:
    """Records what the virtual table speaker played, on the monotonic clock (a primed LiveSource).

    Its blocks are 0.1 s long: a 20 ms record stream on the speaker's monitor made the host's own
    playback stream underrun (dozens of times a minute, with gaps in the host's voice)."""

    def __init__(self) -> None:
        self.source = LiveSource([LiveInput("vh_table_monitor", ("table",))], MonotonicClock(), block_seconds=0.1)
        self.blocks: list[tuple[int, np.ndarray]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        while not self._stop.is_set():
            for block in self.source.read(0.1):
                with self._lock:
                    self.blocks.append((block.start_frame, block.samples[:, 0]))

    def __enter__(self) -> "SpeakerMonitor":
        self.source.start()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.source.stop()

    def audio(self, origin: float = 0.0) -> tuple[float, np.ndarray]:
        """(session time of the first sample, samples at 16 kHz) for a session whose t = 0 is the
        monotonic time ``origin``."""
        with self._lock:
            blocks = list(self.blocks)
        first = blocks[0][0]
        end = blocks[-1][0] + len(blocks[-1][1])
        out = np.zeros(end - first, dtype=np.float32)
        for start, samples in blocks:
            out[start - first : start - first + len(samples)] = samples
        return first / self.source.rate - origin, out

    def wait_until_silent(self, quiet: float, timeout: float) -> bool:
        """Wait until the speaker has been silent for the last ``quiet`` seconds (True), or ``timeout`` passed."""
        deadline = time.monotonic() + timeout
        level = 10 ** (AUDIBLE_DB / 20)
        while time.monotonic() < deadline:
            time.sleep(0.1)
            _, audio = self.audio()
            tail = audio[-int(quiet * self.source.rate) :]
            if len(tail) >= int(quiet * self.source.rate) and not np.any(np.abs(tail) > level):
                return True
        return False
