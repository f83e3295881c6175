"""Acoustic verification: is a decoded phrase really what was said, or only the nearest target?

A decoder restricted to the allowed phrases always finds *some* target ("pick" → "pig", "bed" →
"cat"). The second pass asks how much worse the target explains the same audio than the best
unconstrained sequence of phones does. Both passes run on one PocketSphinx decoder that scores
every senone in every frame (``compallsen``), so each frame's scores are measured against the
same reference (the frame's best senone) and the two paths' totals are directly comparable:

    LLR = (acoustic score of the target path − score of the free phone loop) / frames of the phrase

in nats per 10 ms frame. A true target scores close to the phone loop (LLR near 0, the target's
triphones can even beat the loop's context-free phones); out-of-grammar speech fits the free loop
much better than any target (LLR far below 0). The *acoustic* score of the target path is its path
score minus the grammar's and the filler words' transition scores, so the size of the grammar (5
animals or 400 number pairs) does not move the ratio.

Thresholds per phrase and the map from LLR to a confidence are data learnt on synthetic fixtures
(``tuning.toml``, written by ``bench/bench_recognize.py --learn``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from voicehost.listen.messages import Recognition, WordTiming

SCORE_SHIFT = 10
"""PocketSphinx keeps path scores in log units shifted right by this many bits."""
LOG_BASE = 1.0001
"""PocketSphinx's default log base (its ``logbase`` setting)."""
NATS_PER_UNIT = (1 << SCORE_SHIFT) * math.log(LOG_BASE)
"""Nats (natural-log units) in one unit of a PocketSphinx path score."""


@dataclass(frozen=True)
class DecodedPass:
    """One decoding of a segment, with the scores the verification needs."""

    words: tuple[WordTiming, ...]
    """Spoken words found (fillers and silences removed); times in seconds from the segment start."""
    score: float
    """Nats: total log score of the best path over the whole segment."""
    transitions: float
    """Nats: the part of ``score`` that comes from grammar and filler transitions (not acoustics)."""
    frames: int
    """10 ms frames covered by ``words``."""

    @property
    def acoustic(self) -> float:
        """Nats: the path's acoustic log likelihood (its score without the transition scores)."""
        return self.score - self.transitions


def likelihood_ratio(target: DecodedPass, loop: DecodedPass) -> float:
    """Nats per frame by which the target path explains the segment worse than the free phone loop
    (negative: the loop fits better). Both passes must cover the same audio on one decoder."""
    return (target.acoustic - loop.acoustic) / max(1, target.frames)


def logistic(x: float) -> float:
    """1 / (1 + e^-x), without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@dataclass(frozen=True)
class Verdict:
    """A recognition together with the evidence behind it (for benchmarks and tuning)."""

    recognition: Recognition
    hypothesis: str | None
    """The phrase the target grammar found before verification, None when nothing was decoded."""
    llr: float | None
    """Nats per frame (see :func:`likelihood_ratio`), None when there was no hypothesis."""
