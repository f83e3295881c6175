"""A least-recently-used cache of rendered speech.

The host says the same short phrases again and again ("your turn", scores, player names);
espeak-ng renders them in ~15 ms, but a cached buffer starts playing at once and costs no CPU
while the listener is busy. The key holds everything that changes the sound — voice, rate and
text — so "slower" never replays a buffer made at the old rate.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from voicehost.audio.buffer import Audio

DEFAULT_MAX_ENTRIES = 512
DEFAULT_MAX_SECONDS = 900.0
"""Seconds of audio kept at most: about 80 MB of float32 at 22050 Hz."""


@dataclass(frozen=True)
class RenderKey:
    """What identifies one rendering."""

    voice: str
    """espeak-ng voice id, e.g. 'gmw/en-us'."""
    rate: int
    """Words per minute."""
    text: str


@dataclass(frozen=True)
class CacheStats:
    """Counters, for tests and the benchmark."""

    hits: int
    misses: int
    entries: int
    seconds: float
    """Seconds of audio held."""


class RenderCache:
    """Thread-safe LRU map RenderKey → Audio, bounded by entry count and by audio duration."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, max_seconds: float = DEFAULT_MAX_SECONDS) -> None:
        if max_entries < 1 or max_seconds <= 0:
            raise ValueError(f"cache limits must be positive, not {max_entries} entries / {max_seconds} s")
        self.max_entries = max_entries
        self.max_seconds = max_seconds
        self._items: OrderedDict[RenderKey, Audio] = OrderedDict()
        self._seconds = 0.0
        self._hits = 0
        self._misses = 0
        self._lock = threading.Lock()

    def get(self, key: RenderKey) -> Audio | None:
        """The cached audio (now most recently used), or None (counted as a miss)."""
        with self._lock:
            audio = self._items.get(key)
            if audio is None:
                self._misses += 1
                return None
            self._items.move_to_end(key)
            self._hits += 1
            return audio

    def put(self, key: RenderKey, audio: Audio) -> None:
        """Keep ``audio``; evict the least recently used entries beyond the limits.

        A single rendering longer than the whole budget is not kept.
        """
        if audio.duration > self.max_seconds:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._seconds -= old.duration
            self._items[key] = audio
            self._seconds += audio.duration
            while len(self._items) > self.max_entries or self._seconds > self.max_seconds:
                _, evicted = self._items.popitem(last=False)
                self._seconds -= evicted.duration

    def clear(self) -> None:
        """Forget every rendering (counters stay)."""
        with self._lock:
            self._items.clear()
            self._seconds = 0.0

    def stats(self) -> CacheStats:
        """Current counters."""
        with self._lock:
            return CacheStats(self._hits, self._misses, len(self._items), self._seconds)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
