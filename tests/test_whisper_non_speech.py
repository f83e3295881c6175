"""A sound Whisper names rather than transcribes ("(beep)", "[click]") and no allowed phrase comes
near is rejected on Whisper's word alone: PocketSphinx and Moonshine are not asked (README,
"Hearing the shouts", item 49). Real decoding of generated sounds and the committed word clips."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.test_recognize import clips
from tests.test_whisper_pruning import Counted
from voicehost.commands.rank import game_phrases
from voicehost.listen.messages import Segment
from voicehost.listen.onset import AcousticEvent, EventKind
from voicehost.listen.recognize.whisper.recognizer import Candidate, WhisperRecognizer, non_speech

PHRASES = tuple(dict.fromkeys(game_phrases("bimbamm", "en") + game_phrases("bimbambum", "en")))
RATE = 16000


def sound(kind: str) -> Segment:
    """One second of a quiet room with a 1 kHz beep (0.25 s) or a hand clap's click at 0.25 s."""
    rng = np.random.default_rng(3)
    x = 0.001 * rng.standard_normal(RATE)
    if kind == "beep":
        t = np.arange(4000) / RATE
        x[4000:8000] += 0.3 * np.sin(2 * np.pi * 1000 * t)
        end = 0.5
    else:
        x[4000:4800] += 0.2 * rng.standard_normal(800) * np.exp(-np.arange(800) / 150)
        end = 0.3
    event = AcousticEvent("seat", EventKind.VOICE, 0.25, end, -6.0)
    return Segment(event, x.astype(np.float32), RATE, 0.0)


def counted(whisper: WhisperRecognizer, shortcut: bool) -> tuple[WhisperRecognizer, Counted]:
    """The same recogniser with its PocketSphinx counted (test_whisper_pruning's wrapper);
    ``shortcut`` False: every opinion asked, as before item 49."""
    assert whisper.second is not None
    fusion = dict(whisper.tuning.fusion)
    if not shortcut:
        fusion["nonspeech_ratio"] = -math.inf
    second = Counted(whisper.second)
    tuning = replace(whisper.tuning, fusion=fusion)
    return WhisperRecognizer(whisper.pack, whisper.engine, tuning, second=second, third=whisper.third), second


@pytest.mark.parametrize("kind", ["beep", "click"])
@pytest.mark.parametrize("likely", [(), ("cat",)])
def test_a_named_sound_is_rejected_without_the_other_opinions(
    whisper: WhisperRecognizer, kind: str, likely: tuple[str, ...]
) -> None:
    """Whisper writes "(beep)" / "[click]" and its best allowed phrase lies over 6 nats under that
    (here 7.4-8.1 nats, more than another CPU's arithmetic moves it: README, "Across CPUs"):
    rejected as non-speech, no PocketSphinx ratio and no Moonshine transcription. With the shortcut
    off the same sound is rejected too, after PocketSphinx was asked for its opinion."""
    quick, sphinx = counted(whisper, shortcut=True)
    shortcut = quick.evidence(sound(kind), PHRASES, likely)
    assert shortcut.analysis is not None and non_speech(shortcut.analysis.free_text)
    assert shortcut.recognition.phrase is None and shortcut.recognition.rejected_as == "non_speech"
    assert sphinx.opinions == 0 and shortcut.moonshine_text is None
    assert all(c.sphinx is None and c.moonshine is None for c in shortcut.candidates)
    slow, sphinx = counted(whisper, shortcut=False)
    asked = slow.evidence(sound(kind), PHRASES, likely)
    assert asked.recognition.phrase is None and asked.recognition.rejected_as == "low_confidence"
    assert sphinx.opinions == 1


def test_no_committed_shout_or_word_is_taken_for_a_sound(whisper: WhisperRecognizer) -> None:
    """Every committed English clip (the game's words and everyday chatter) is decided as before:
    Whisper writes words for all of them, so the shortcut never applies."""
    for segment, _, text in clips("en"):
        evidence = whisper.evidence(segment, PHRASES)
        assert evidence.recognition.rejected_as != "non_speech", text


@pytest.mark.parametrize(
    "text, named",
    [
        ("", True),
        (" [BLANK_AUDIO]", True),
        (" (beep)", True),
        (" *Music*", True),
        (" \u266a", True),
        (" Cat.", False),
        (" Bim, bam, bum!", False),
        (" 10", False),
    ],
)
def test_whisper_names_a_sound_in_brackets_stars_or_a_note(text: str, named: bool) -> None:
    assert non_speech(text) is named


@pytest.mark.parametrize(
    ("score", "sounded", "taken", "asked"),
    [
        (3.0, True, False, True),  # a sound, under nonspeech_take: asked back
        (6.0, True, True, False),  # a sound, clearly the phrase ("(DOG)"): taken
        (3.0, False, True, False),  # words: taken from 0 on, as before
        (-1.0, True, False, True),  # the uncertain band as before
        (-5.0, True, False, False),  # rejected as before
    ],
)
def test_a_phrase_heard_in_a_named_sound_is_taken_only_well_over_the_line(
    whisper: WhisperRecognizer, score: float, sounded: bool, taken: bool, asked: bool
) -> None:
    """README item 62: of the phrases taken from segments Whisper wrote as a sound ("(BAM)",
    "[BEEP]") on the tuning split, 13 of 36 were false, 10 of them under 5.5 nats; such a phrase is
    asked back under ``nonspeech_take``. With the setting at 0 it is taken as before."""
    assert whisper.setting("fusion", "nonspeech_take") == 5.5
    best = Candidate("cat", 0.0, score=score)
    other = Candidate("dog", -14.0, score=-20.0)
    decided = whisper._decide(best, [best, other], sounded=sounded)
    assert (decided.phrase == "cat") is taken
    assert (decided.rejected_as == "uncertain" and decided.candidate == "cat") is asked
    fusion = {**whisper.tuning.fusion, "nonspeech_take": 0.0}
    plain = WhisperRecognizer(whisper.pack, whisper.engine, replace(whisper.tuning, fusion=fusion))
    assert (plain._decide(best, [best, other], sounded=sounded).phrase == "cat") is (score >= 0.0)
