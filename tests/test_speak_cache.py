"""The render cache: least recently used entries go first; limits by count and by audio seconds."""

from __future__ import annotations

import numpy as np
import pytest

from voicehost.audio.buffer import Audio
from voicehost.speak.cache import RenderCache, RenderKey


def audio(seconds: float) -> Audio:
    """A silent buffer of the given length at 1 kHz."""
    return Audio(np.zeros(int(seconds * 1000), np.float32), 1000)


def key(text: str, rate: int = 175, voice: str = "gmw/en-us") -> RenderKey:
    return RenderKey(voice, rate, text)


def test_hit_and_miss_are_counted() -> None:
    """get() returns what put() stored and counts hits and misses."""
    cache = RenderCache()
    assert cache.get(key("a")) is None
    buffer = audio(1)
    cache.put(key("a"), buffer)
    assert cache.get(key("a")) is buffer
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.entries, stats.seconds) == (1, 1, 1, 1.0)


def test_voice_rate_and_text_are_all_part_of_the_key() -> None:
    """The same text at another rate or voice is a different entry."""
    cache = RenderCache()
    cache.put(key("a"), audio(1))
    assert cache.get(key("a", rate=200)) is None
    assert cache.get(key("a", voice="fr")) is None
    assert cache.get(key("A")) is None


def test_least_recently_used_is_evicted_first() -> None:
    """Past the entry limit, the entry used longest ago goes; a get() refreshes an entry."""
    cache = RenderCache(max_entries=2)
    cache.put(key("a"), audio(1))
    cache.put(key("b"), audio(1))
    cache.get(key("a"))
    cache.put(key("c"), audio(1))
    assert key("a") in cache and key("c") in cache and key("b") not in cache


def test_total_audio_duration_is_bounded() -> None:
    """Past the seconds limit, old entries go until the total fits; a buffer longer than the budget is not kept."""
    cache = RenderCache(max_seconds=5)
    for name in "abc":
        cache.put(key(name), audio(2))
    assert len(cache) == 2 and key("a") not in cache
    assert cache.stats().seconds == pytest.approx(4)
    cache.put(key("huge"), audio(6))
    assert key("huge") not in cache and len(cache) == 2


def test_replacing_an_entry_keeps_the_total_right() -> None:
    """Putting the same key twice counts its seconds once."""
    cache = RenderCache()
    cache.put(key("a"), audio(2))
    cache.put(key("a"), audio(3))
    assert cache.stats().seconds == pytest.approx(3) and len(cache) == 1


def test_limits_must_be_positive() -> None:
    """A cache that can hold nothing is a configuration mistake."""
    with pytest.raises(ValueError):
        RenderCache(max_entries=0)
