"""A progress line for long byte-counting work (downloads, checksums, unpacking), on stderr.

On a terminal the line is redrawn in place a few times a second; in a log or pipe a new line is
printed at every tenth of the work, so CI logs stay short. Rate and ETA use an injected clock.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


def megabytes(count: float) -> str:
    """``count`` bytes as a short decimal-megabyte text."""
    return f"{count / 1e6:.1f} MB"


def duration(seconds: float) -> str:
    """A short ``m:ss`` (or ``h:mm:ss``) text."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Shows ``label: done of total (pct), rate, ETA`` while work advances."""

    def __init__(self, label: str, total: int | None, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, interval: float = 0.2) -> None:
        self.label, self.total = label, total
        self.stream = stream if stream is not None else sys.stderr
        self.clock, self.interval = clock, interval
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start_done = 0
        self.started = clock()
        self._last_draw = float("-inf")
        self._next_step = 1
        self.done = 0

    def begin(self, already: int = 0) -> "Progress":
        """Start timing; ``already`` bytes were done before (a resumed download)."""
        self.start_done = self.done = already
        self.started = self.clock()
        if already:
            self._next_step = int(10 * already / self.total) + 1 if self.total else 1
        return self

    def rate(self) -> float:
        """Bytes per second since :meth:`begin` (not counting resumed bytes)."""
        elapsed = self.clock() - self.started
        return (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0

    def text(self) -> str:
        """The current progress line."""
        rate = self.rate()
        parts = [f"{self.label}: {megabytes(self.done)}"]
        if self.total:
            parts[0] += f" of {megabytes(self.total)} ({100 * self.done // self.total}%)"
        parts.append(f"{megabytes(rate)}/s")
        if self.total and rate > 0:
            parts.append(f"ETA {duration(max(0, self.total - self.done) / rate)}")
        return ", ".join(parts)

    def update(self, done: int, total: int | None = None) -> None:
        """Record ``done`` bytes (and a newly learnt total) and redraw if it is time."""
        self.done = done
        if total is not None:
            self.total = total
        now = self.clock()
        if self.tty:
            if now - self._last_draw >= self.interval:
                self._last_draw = now
                self.stream.write("\r" + self.text().ljust(78) + "\r")
                self.stream.flush()
        elif self.total and done * 10 >= self._next_step * self.total:
            self._next_step = int(10 * done / self.total) + 1
            self.stream.write(self.text() + "\n")
            self.stream.flush()

    def finish(self, message: str = "") -> None:
        """End the line (with an optional closing message)."""
        if self.tty:
            self.stream.write("\r" + " " * 78 + "\r")
        if message:
            self.stream.write(message + "\n")
        self.stream.flush()


class ProgressBars:
    """Makes one :class:`Progress` line per step, closing the previous step's line first.

    Calling it as ``bars(label, total, already)`` returns the ``(done, total)`` callback the
    downloader, hasher and unpacker report to.
    """

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 min_total: int = 5_000_000) -> None:
        self.stream, self.clock, self.min_total = stream, clock, min_total
        self.current: Progress | None = None

    def __call__(self, label: str, total: int, already: int = 0) -> Callable[[int, int], None]:
        """A callback drawing a line for this step (silent for steps under ``min_total`` bytes: they are quick)."""
        self.close()
        if total < self.min_total:
            return lambda done, total: None
        self.current = Progress(label, total, self.stream, self.clock).begin(already)
        return self.current.update

    def close(self) -> None:
        """Finish the line being drawn, if any."""
        if self.current is not None:
            self.current.finish()
            self.current = None
