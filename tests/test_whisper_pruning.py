"""PocketSphinx's second opinion decodes only the candidates that could still win (real decoding of
the committed word clips): a Bim Bam Bum! call expects twelve yells, and decoding each was most of
a call's time. Pruned and unpruned decisions must be the same."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

import pytest

from tests.test_recognize import clips
from tools.clips import command_sets
from voicehost.listen.messages import Recognition, Segment
from voicehost.listen.recognize.whisper.recognizer import Opinion, SecondOpinion, WhisperRecognizer

PHRASES = command_sets()["Bim Bam Bum! turn"]
"""What the host listens for in a Bim Bam Bum! turn."""
TEXTS = ("bam bam", "bim bam bum", "bomb", "hello", "nice one")
"""A clear shout (PocketSphinx not asked), a close one, a confusable word and talk."""


def call_of(word: str) -> tuple[str, ...]:
    """What the host expects after naming a card of ``word`` (as bench/bench_listen.py --context)."""
    yells = [" ".join([word] * n) for n in (1, 2, 3)]
    return (*yells, *(f"{pile} {y}" for pile in ("one", "two", "three") for y in yells))


@dataclass
class Counted:
    """The real second opinion, counting the opinions and the ratios asked for."""

    inner: SecondOpinion
    asked: list[str] = field(default_factory=list)
    opinions: int = 0

    def opinion(self, segment: Segment, phrases: Sequence[str], known: object = None) -> Opinion:
        self.opinions += 1
        real = self.inner.opinion(segment, phrases, known)
        outer = self

        class Counting:
            hypothesis = real.hypothesis

            def ratio(self, phrase: str) -> float | None:
                outer.asked.append(phrase)
                return real.ratio(phrase)

        return Counting()

    def parts(self, segment: Segment, phrases: Sequence[str]) -> object:
        return self.inner.parts(segment, phrases)


def with_ceiling(whisper: WhisperRecognizer, ceiling: float, floored: float) -> tuple[WhisperRecognizer, Counted]:
    assert whisper.second is not None
    fusion = {**whisper.tuning.fusion, "sphinx_ceiling": ceiling, "sphinx_ceiling_floored": floored}
    tuning = replace(whisper.tuning, fusion=fusion)
    counted = Counted(whisper.second)
    return WhisperRecognizer(whisper.pack, whisper.engine, tuning, second=counted), counted


@pytest.fixture(scope="module")
def compared(whisper: WhisperRecognizer) -> dict[str, tuple[object, object, int, int]]:
    """Per clip: (pruned decision, unpruned decision, ratios asked pruned, unpruned). A decision is
    the recognition and, unless it was rejected outright, the winning fused score."""
    shipped = (whisper.setting("fusion", "sphinx_ceiling"), whisper.setting("fusion", "sphinx_ceiling_floored"))
    pruned, pruned_count = with_ceiling(whisper, *shipped)
    full, full_count = with_ceiling(whisper, 1e9, 1e9)
    band = whisper.setting("fusion", "uncertain_band")
    out = {}
    for segment, _, text in clips("en"):
        if text not in TEXTS:
            continue
        likely = call_of("bum" if "bum" in text else "bam")
        before = len(pruned_count.asked), len(full_count.asked)
        a = pruned.evidence(segment, PHRASES, likely)
        b = full.evidence(segment, PHRASES, likely)
        # the guess, score and lead of a rejection (and the lead over a candidate PocketSphinx was
        # not asked about, at its floor) are the evidence as pruned, not the decision
        decision_a = (_decided(a.recognition), round(a.ratio, 6) if a.ratio >= -band else "rejected")
        decision_b = (_decided(b.recognition), round(b.ratio, 6) if b.ratio >= -band else "rejected")
        out[text] = (
            decision_a,
            decision_b,
            len(pruned_count.asked) - before[0],
            len(full_count.asked) - before[1],
        )
    return out


def _decided(recognition: Recognition) -> Recognition:
    """The decision without the evidence a rejection carries (its guess, score, lead and, below
    the uncertain band, the guess's confidence: PocketSphinx's floor stands in for the phrases
    pruning did not ask it about)."""
    low = recognition.rejected_as == "low_confidence"
    confidence = 0.0 if low else recognition.candidate_confidence
    return replace(recognition, guess=None, score=None, lead=None, candidate_confidence=confidence)


def test_pruning_changes_no_decision(compared: dict[str, tuple[object, object, int, int]]) -> None:
    assert set(compared) == set(TEXTS)
    for text, (pruned, full, _, _) in compared.items():
        assert pruned == full, text


def test_pruning_spares_most_of_a_calls_decodes(compared: dict[str, tuple[object, object, int, int]]) -> None:
    """Unpruned, every one of the 12 expected yells is decoded whenever PocketSphinx is asked."""
    pruned = sum(c[2] for c in compared.values())
    full = sum(c[3] for c in compared.values())
    assert full >= 12 * 3
    assert pruned <= full / 4, (pruned, full)


def test_the_shipped_ceiling_is_above_every_ratio_seen(
    whisper: WhisperRecognizer, compared: dict[str, tuple[object, object, int, int]]
) -> None:
    """The pruning is exact only while no ratio exceeds the ceiling (a phrase Whisper put at its
    floor: the lower one)."""
    assert whisper.second is not None
    ceiling = whisper.setting("fusion", "sphinx_ceiling")
    floored = whisper.setting("fusion", "sphinx_ceiling_floored")
    floor = whisper.setting("fusion", "ratio_floor")
    for segment, _, text in clips("en"):
        if text in TEXTS:
            likely = call_of("bum" if "bum" in text else "bam")
            whispered = {c.phrase: c.ratio for c in whisper.evidence(segment, PHRASES, likely).candidates}
            opinion = whisper.second.opinion(segment, PHRASES)
            for phrase in likely:
                ratio = opinion.ratio(phrase)
                limit = floored if whispered.get(phrase, floor) <= floor else ceiling
                assert ratio is None or ratio < limit, (text, phrase, ratio, limit)


def test_passes_decoded_elsewhere_give_the_same_opinion_with_fewer_decodes(whisper: WhisperRecognizer) -> None:
    """The helper process decodes PocketSphinx's hypothesis and phone loop (``parts``) while the
    listener's Whisper works; the opinion built on them has the same hypothesis and ratios as one
    decoded here, and decodes only the remaining phrases' own passes."""
    from voicehost.listen.recognize.sphinx import SphinxRecognizer

    sphinx = whisper.second
    assert isinstance(sphinx, SphinxRecognizer)
    decodes: list[str] = []
    decode = sphinx._decode

    def counted(decoder, search, pcm):  # type: ignore[no-untyped-def]
        decodes.append(search)
        return decode(decoder, search, pcm)

    checked = 0
    for segment, _, text in clips("en"):
        if text not in TEXTS:
            continue
        asked = call_of("bum" if "bum" in text else "bam")
        plain = sphinx.opinion(segment, PHRASES)
        here = {p: plain.ratio(p) for p in (*asked, plain.hypothesis or asked[0])}
        parts = sphinx.parts(segment, PHRASES)
        sphinx._decode = counted  # type: ignore[method-assign]
        try:
            shared = sphinx.opinion(segment, PHRASES, parts)
            assert shared.hypothesis == plain.hypothesis, text
            assert {p: shared.ratio(p) for p in here} == here, text
        finally:
            del sphinx._decode
        assert "voicehost-phone-loop" not in decodes, text
        assert len(decodes) == len(set(here) - set(parts.targets)), (text, decodes)
        decodes.clear()
        checked += 1
    assert checked == len(TEXTS)
