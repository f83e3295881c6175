"""A stand-in recogniser for unit tests of the code above the recogniser (pipeline, ranking).

It is never used by the product or by feature tests, which run the real engines. It answers from a
function of the segment (e.g. the truth of a fixture) and records every call, so a test can check
what the pipeline asked for (like python-chess's ``MockTransport``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from voicehost.listen.messages import Recognition, Segment, WordTiming


@dataclass
class FakeRecognizer:
    """Answers ``answer(segment)`` when that phrase is allowed, rejects otherwise."""

    answer: Callable[[Segment], str | None]
    name: str = "fake"
    calls: list[tuple[Segment, tuple[str, ...]]] = field(default_factory=list)
    likely: list[tuple[str, ...]] = field(default_factory=list)
    """The ``likely`` phrases of each call, in order."""

    def recognize(self, segment: Segment, phrases: Sequence[str], likely: Sequence[str] = ()) -> Recognition:
        """The scripted phrase (with one word spanning the event), or a rejection."""
        self.calls.append((segment, tuple(phrases)))
        self.likely.append(tuple(likely))
        phrase = self.answer(segment)
        if phrase is None or phrase not in phrases:
            return Recognition(None, 0.0, engine=self.name, rejected_as="out_of_grammar")
        start = segment.event.onset - segment.start
        words = tuple(WordTiming(word, start, segment.event.end - segment.start, 0.9) for word in phrase.split())
        return Recognition(phrase, 0.9, words, engine=self.name)

    def assert_asked(self, count: int) -> None:
        """Fail unless exactly ``count`` segments were sent for recognition."""
        assert len(self.calls) == count, f"expected {count} recognitions, got {len(self.calls)}"
