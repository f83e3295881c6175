"""A phrase's ratio is measured against the words Whisper hears, not a sound it names: when its
greedy transcription opens as a sound ("(Bert)", "[BEEP]") or is empty, a second greedy
transcription starts from the likeliest first token that opens words, and the better of the two
is the reference (``SearchConfig.speech_reference``; README, "Hearing the shouts", item 63).
Real decoding of generated sounds and a committed word clip."""

from __future__ import annotations

import pytest

from tests.test_whisper_non_speech import PHRASES, sound
from tests.test_whisper_second_look import clip
from voicehost.listen.messages import Segment
from voicehost.listen.recognize.whisper.engine import Analysis
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer, non_speech
from voicehost.listen.recognize.whisper.search import SearchConfig


def analyses(
    whisper: WhisperRecognizer, segment: Segment, monkeypatch: pytest.MonkeyPatch
) -> tuple[Analysis, Analysis]:
    """The segment analysed with the speech reference (as shipped) and without it."""
    spoken = {p: whisper.pack.spoken_forms(p) for p in PHRASES if p != "slap"}
    samples = whisper._isolated(segment.samples, segment)
    assert whisper.engine.search.speech_reference, "shipped with the speech reference"
    on = whisper.engine.analyse(samples, spoken)
    monkeypatch.setattr(whisper.engine, "search", SearchConfig(speech_reference=False))
    off = whisper.engine.analyse(samples, spoken, encoded=on.encoded)
    return on, off


@pytest.mark.parametrize("kind", ["beep", "click"])
def test_a_named_sound_is_measured_against_the_words_whisper_hears(
    whisper: WhisperRecognizer, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whisper writes "(beep)" / "[click]": the second transcription opens with a word, it is
    scored (a finite log probability, a text that does not open as a sound), and every ratio is
    measured against the better of the two. Without the reference there is no second text."""
    on, off = analyses(whisper, sound(kind), monkeypatch)
    assert non_speech(on.free_text) and on.free_text == off.free_text
    said = whisper.engine.tokenizer.decode(on.scores.speech_tokens)
    assert said.strip() and not non_speech(said), said
    assert on.scores.speech_score > float("-inf")
    assert on.scores.reference == max(on.scores.free_score, on.scores.speech_score)
    phrase, ratio, _ = on.scores.best()
    assert phrase is not None
    best = on.scores.phrases[phrase]
    assert ratio == best - max(on.scores.reference, best)
    assert off.scores.speech_tokens == () and off.scores.speech_score == float("-inf")
    assert off.scores.reference == off.scores.free_score


def test_words_whisper_writes_itself_are_the_reference_as_before(
    whisper: WhisperRecognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed "cat" clip: Whisper opens with a word, so no second transcription is searched
    and every score is the same, bit for bit, as without the speech reference."""
    on, off = analyses(whisper, clip("cat"), monkeypatch)
    assert not non_speech(on.free_text)
    assert on.scores.speech_tokens == () and on.scores.steps == off.scores.steps
    assert on.scores.phrases == off.scores.phrases and on.scores.free_score == off.scores.free_score
    assert on.scores.best() == off.scores.best()
