"""Repeated words told from different words by the sound of their syllables (committed clips, real
audio): Whisper's language model pulls "bim bam bum" to "bam bam bam", and the syllables' cepstra
say whether the same word was said again."""

from __future__ import annotations

import pytest

from tests.test_recognize import clips
from voicehost.listen.messages import Segment
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer, burst_spread

REPEATED = {"en": ("bim bim", "bim bim bim", "bam bam", "bam bam bam", "bum bum", "bum bum bum")}
REPEATED["ko"] = ("빔 빔", "빔 빔 빔", "밤 밤", "밤 밤 밤", "붐 붐", "붐 붐 붐")
DISTINCT = {"en": "bim bam bum", "ko": "빔 밤 붐"}


def clip(lang: str, text: str) -> Segment:
    return next(segment for segment, _, said in clips(lang) if said == text)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_repeated_words_sound_alike_and_the_three_words_do_not(whisper: WhisperRecognizer, lang: str) -> None:
    """Every committed repeated yell stays under the shipped line, the three words far above it
    (English and Korean alike: the measure knows no language)."""
    line = whisper.setting("fusion", "distinct_spread")
    for text in REPEATED[lang]:
        segment = clip(lang, text)
        spread = burst_spread(segment.samples, segment, len(text.split()))
        assert spread is not None and spread < line * 0.8, (text, spread)
    segment = clip(lang, DISTINCT[lang])
    spread = burst_spread(segment.samples, segment, 3)
    assert spread is not None and spread > line * 1.5


def test_too_few_syllables_give_no_spread() -> None:
    segment = clip("en", "bam")
    assert burst_spread(segment.samples, segment, 3) is None


def test_a_repetition_of_the_three_words_loses_nats(whisper: WhisperRecognizer) -> None:
    """On "bim bam bum" every repeated-word candidate carries the penalty, the three words none;
    on "bam bam bam" nothing carries it, and both are heard right. (Whisper and PocketSphinx only:
    Moonshine, the third opinion, writes nothing for this espeak-ng "bim bam bum" and makes it a
    question: tests/test_moonshine.py.)"""
    whisper = WhisperRecognizer(whisper.pack, whisper.engine, whisper.tuning, second=whisper.second)
    phrases = ("bim bim bim", "bam bam bam", "bum bum bum", "bim bam bum")
    penalty = -whisper.setting("fusion", "distinct_penalty")
    three = whisper.evidence(clip("en", "bim bam bum"), phrases, likely=phrases)
    assert three.recognition.phrase == "bim bam bum"
    assert {c.phrase: c.shape for c in three.candidates} == {
        "bim bim bim": penalty,
        "bam bam bam": penalty,
        "bum bum bum": penalty,
        "bim bam bum": 0.0,
    }
    same = whisper.evidence(clip("en", "bam bam bam"), phrases, likely=phrases)
    assert same.recognition.phrase == "bam bam bam"
    assert all(c.shape == 0.0 for c in same.candidates)
