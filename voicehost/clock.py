"""The injected clock. Live play uses :class:`WallClock`; scripts and replays a :class:`SimClock`,
which runs as fast as the machine allows and gives identical results on every run.

Times are seconds on the session clock: 0 is the start of the session.
"""

from __future__ import annotations

import heapq
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol


class Clock(Protocol):
    """What timers and the session need from time."""

    def now(self) -> float:
        """Seconds since the session started."""

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (a simulated clock just advances)."""


class WallClock:
    """Real time, monotonic, starting at ``start`` seconds when created (0 for a new session;
    a resumed game continues its log's clock)."""

    def __init__(self, start: float = 0.0) -> None:
        self._origin = time.monotonic() - start

    def now(self) -> float:
        """Seconds since this clock was created."""
        return time.monotonic() - self._origin

    def sleep(self, seconds: float) -> None:
        """Really wait."""
        if seconds > 0:
            time.sleep(seconds)

    def to_session(self, monotonic_seconds: float) -> float:
        """Convert a ``time.monotonic()`` reading to session time."""
        return monotonic_seconds - self._origin


@dataclass
class SimClock:
    """Simulated time: ``sleep`` and ``advance`` move it forward instantly."""

    t: float = 0.0
    """Current simulated time, seconds."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def now(self) -> float:
        """Current simulated time."""
        with self._lock:
            return self.t

    def sleep(self, seconds: float) -> None:
        """Advance by ``seconds`` without waiting."""
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        """Move forward (never backwards)."""
        with self._lock:
            self.t += max(0.0, seconds)

    def advance_to(self, t: float) -> None:
        """Move forward to ``t`` if it lies ahead."""
        with self._lock:
            self.t = max(self.t, t)


@dataclass(order=True)
class Timer:
    """A deadline on the session clock."""

    due: float
    """Seconds on the session clock."""
    name: str = field(compare=False)


class Timers:
    """Named deadlines (race window, Bim Bam Bum! time window, reminders) on any clock."""

    def __init__(self) -> None:
        self._heap: list[Timer] = []

    def start(self, name: str, due: float) -> None:
        """Start (or restart) timer ``name`` to fire at ``due``."""
        self.cancel(name)
        heapq.heappush(self._heap, Timer(due, name))

    def cancel(self, name: str) -> None:
        """Forget timer ``name`` if it is running."""
        self._heap = [t for t in self._heap if t.name != name]
        heapq.heapify(self._heap)

    def running(self, name: str) -> bool:
        """True if timer ``name`` is set."""
        return any(t.name == name for t in self._heap)

    def due(self, name: str) -> float | None:
        """When timer ``name`` fires, or None if it is not set."""
        return next((t.due for t in self._heap if t.name == name), None)

    def next_due(self) -> float | None:
        """When the earliest timer fires, or None."""
        return self._heap[0].due if self._heap else None

    def pop_due(self, now: float) -> list[str]:
        """Names of every timer due at ``now`` (removed), earliest first."""
        fired = []
        while self._heap and self._heap[0].due <= now:
            fired.append(heapq.heappop(self._heap).name)
        return fired
