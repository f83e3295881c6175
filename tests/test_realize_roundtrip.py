"""Round trip: a realized BAM! sentence, spoken by espeak-ng, is heard back as that sentence.

Each red card is filled with several grey cards from the shipped deck. Every sentence is spoken
with the host's voice (pyttsx3 → espeak-ng), resampled to 16 kHz and decoded by PocketSphinx's
bundled US-English model against a grammar of all the candidates for that red card: every
realized sentence, the same sentence with the verb's number flipped ("has" ↔ "have"), and the
naive text with the grey card pasted in unchanged. A sentence passes only if it comes back as
itself — not as another grey card, not without its fixes — so what is spoken is what was meant.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import numpy as np
import pytest

from voicehost.speak.realize import Filler, Realizer

SPEECH_RATE = 120
"""Words per minute: a slow, clear reading pace, as a host reads a card to the table.

espeak-ng carries state from one utterance to the next (the same text comes out a few samples
longer or shorter, whatever the process said before), so a sentence must be heard as itself
whatever was rendered before it. At 140 wpm "promised twelve tiny horses" was heard as
"promised a twelve ..." in 10 of 16 consecutive renders (CI failed on it, 2026-12-07); at 120
wpm every sentence here was heard as itself in 20 of 20 consecutive renders (280 of 280)."""
RECOGNISER_RATE = 16000
"""Hz: PocketSphinx's US-English model."""
DITHER_SEED = 20240601
"""PocketSphinx adds seeded dither: espeak-ng's pauses are exact digital silence, whose log
energy would otherwise derail the feature extraction."""
EXTRA_PRONUNCIATIONS = {"statured": "S T AE CH ER D", "walkers's": "W AO K ER Z IH Z"}
"""Words of the cards missing from PocketSphinx's dictionary, in its ARPAbet phones."""

ROUNDS: list[tuple[str, list[Filler]]] = [
    (
        "BAM! has influenced my family planning",
        [
            Filler("Short-statured circus artists"),
            Filler("Rubber chicken", number="singular"),
            Filler("Overly competitive grandparents", number="plural"),
            Filler("Woolly mammoth", number="singular"),
        ],
    ),
    (
        "BAM! was not mentioned anywhere in the holiday brochure.",
        [
            Filler("Wet socks", number="plural"),
            Filler("Eiffel Tower", number="singular", proper=True, article="the"),
            Filler("Lukewarm porridge", mass=True),
            Filler("Inflatable flamingo", number="singular"),
        ],
    ),
    (
        "For my birthday I was promised a BAM!, but I got socks again.",
        [
            Filler("Existential crisis", number="singular"),
            Filler("Twelve tiny horses", number="plural", article="none"),
            Filler("Easter Bunny", number="singular", proper=True, article="the"),
        ],
    ),
    (
        "Scientists are still baffled by BAM!'s mysterious smell.",
        [
            Filler("Paris", number="singular", proper=True),
            Filler("Pet rock", number="singular"),
            Filler("Slow walkers", number="plural"),
        ],
    ),
]
ROUND_IDS = [red[:30] for red, _ in ROUNDS]


@pytest.fixture(scope="module")
def voice() -> Iterator[Any]:
    """The host's voice (espeak-ng through pyttsx3) at a clear reading pace."""
    from voicehost.speak.voice import EspeakVoice

    speaker = EspeakVoice(rate=SPEECH_RATE)
    yield speaker
    speaker.close()


@pytest.fixture(scope="module")
def realizer() -> Realizer:
    """One realizer for the module (its lexicon takes seconds to load)."""
    return Realizer()


def spoken_words(text: str) -> list[str]:
    """The words a listener hears, in the recogniser's spelling: lowercase, no punctuation."""
    text = text.lower().replace("-", " ").replace("’", "'")
    text = re.sub(r"s' ", "s ", text + " ")  # "walkers'" sounds like "walkers"
    return re.sub(r"[^a-z' ]", " ", text).split()


def candidates(red: str, fillers: list[Filler], realized: list[str]) -> list[str]:
    """Everything the grammar allows: the realized sentences and their plausible misreadings."""
    found = set()
    for filler, sentence in zip(fillers, realized):
        found.add(" ".join(spoken_words(sentence)))
        found.add(" ".join(spoken_words(_flip_number(sentence))))
        found.add(" ".join(spoken_words(red.replace("BAM!", filler.text))))
    return sorted(found)


def _flip_number(sentence: str) -> str:
    swaps = {"has": "have", "have": "has", "was": "were", "were": "was", "is": "are", "are": "is"}
    return re.sub(r"\b(has|have|was|were|is|are)\b", lambda m: swaps[m.group(1)], sentence, count=1)


def decoder_for(sentences: list[str]) -> Any:
    """A PocketSphinx decoder (bundled en-us model) restricted to ``sentences``."""
    from pocketsphinx import Decoder

    decoder = Decoder(dither=True, seed=DITHER_SEED)
    for word, phones in EXTRA_PRONUNCIATIONS.items():
        decoder.add_word(word, phones, True)
    missing = sorted({w for s in sentences for w in s.split() if decoder.lookup_word(w) is None})
    assert not missing, f"add pronunciations for {missing} to EXTRA_PRONUNCIATIONS"
    alternatives = " | ".join(f"( {s} )" for s in sentences)
    decoder.add_jsgf_string("cards", f"#JSGF V1.0;\ngrammar cards;\npublic <card> = {alternatives} ;\n")
    decoder.activate_search("cards")
    return decoder


def hear(decoder: Any, voice: Any, sentence: str) -> str:
    """Speak ``sentence`` with the host's voice and return what the recogniser heard."""
    import soxr

    audio = voice.render(sentence)
    samples = soxr.resample(audio.samples, audio.rate, RECOGNISER_RATE)
    pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype(np.int16).tobytes()
    decoder.start_utt()
    decoder.process_raw(pcm, full_utt=True)
    decoder.end_utt()
    hypothesis = decoder.hyp()
    return str(hypothesis.hypstr) if hypothesis is not None else ""


@pytest.mark.parametrize("red, fillers", ROUNDS, ids=ROUND_IDS)
def test_realized_sentence_is_heard_back_as_itself(
    red: str, fillers: list[Filler], voice: Any, realizer: Realizer
) -> None:
    """Each spoken sentence is recognised as itself: its own grey card, with the grammar fixed."""
    realized = [realizer.realize(red, [filler]) for filler in fillers]
    decoder = decoder_for(candidates(red, fillers, realized))
    for filler, sentence in zip(fillers, realized):
        heard = hear(decoder, voice, sentence)
        assert heard == " ".join(spoken_words(sentence)), (sentence, heard)
        heard_words = {word.removesuffix("'s") for word in heard.split()}
        for word in spoken_words(filler.text):
            assert word in heard_words, (filler.text, heard)


def test_the_recogniser_tells_the_fix_from_the_raw_card(voice: Any, realizer: Realizer) -> None:
    """The unfixed card ("… circus artists has …") is heard as unfixed: the check can fail."""
    red, fillers = ROUNDS[0]
    realized = [realizer.realize(red, [filler]) for filler in fillers]
    decoder = decoder_for(candidates(red, fillers, realized))
    raw = "Short-statured circus artists has influenced my family planning."
    heard = hear(decoder, voice, raw)
    assert heard == " ".join(spoken_words(raw))
    assert heard != " ".join(spoken_words(realized[0]))


def test_a_wrong_grey_card_is_not_heard_as_the_right_one(voice: Any, realizer: Realizer) -> None:
    """Speaking another grey card's sentence never yields the expected sentence."""
    red, fillers = ROUNDS[1]
    realized = [realizer.realize(red, [filler]) for filler in fillers]
    decoder = decoder_for(candidates(red, fillers, realized))
    expected = " ".join(spoken_words(realized[0]))
    for other in realized[1:]:
        assert hear(decoder, voice, other) != expected
