"""Whisper's phrase search: the phrases the game expects are scored even where the beam would drop
them (real decoding of a committed word clip), and the trie walk that finds their paths."""

from __future__ import annotations

import pytest

from tests.test_recognize import clips, host_grammar
from tests.test_whisper_second_look import PHRASES, clip
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer
from voicehost.listen.recognize.whisper.search import SearchConfig, _leading_to, _period
from voicehost.listen.recognize.whisper.tokens import PhraseTrie, written_forms


def test_an_expected_phrase_gets_its_own_score_not_the_floor(whisper: WhisperRecognizer) -> None:
    """The committed "hen" clip: "cat" falls out of the beam (the phrases that sound more like
    "hen" fill it), so without the game's expectation it would get the fusion's floor (-14 nats).
    Expected, it is kept and scored: about 8 nats under Whisper's own transcription, which the
    context bonus and PocketSphinx can then weigh. The other phrases' scores do not change."""
    spoken = {p: whisper.pack.spoken_forms(p) for p in PHRASES if p != "slap"}
    segment = clip("hen")
    samples = whisper._isolated(segment.samples, segment)
    plain = whisper.engine.analyse(samples, spoken)
    assert "cat" not in plain.scores.phrases and "hen" in plain.scores.phrases
    kept = whisper.engine.analyse(samples, spoken, keep=["cat"])
    scores = kept.scores.phrases
    ratio = scores["cat"] - max(kept.scores.free_score, max(scores.values()))
    assert -12.0 < ratio < -4.0
    # the same up to the arithmetic of a batch one phrase larger (0.06 nats on an AMD EPYC machine;
    # a phrase the kept one pushed out of the beam would lose nats or fall to the floor)
    assert {p: v for p, v in scores.items() if p != "cat"} == pytest.approx(plain.scores.phrases, abs=0.1)


def test_an_expected_phrase_far_under_the_floor_is_still_dropped(whisper: WhisperRecognizer) -> None:
    """Everyday talk ("table"): nothing of the game is within the floor under Whisper's own
    transcription, expected or not, and the search stops as early as without expectation."""
    spoken = {p: whisper.pack.spoken_forms(p) for p in PHRASES if p != "slap"}
    segment = clip("table")
    samples = whisper._isolated(segment.samples, segment)
    plain = whisper.engine.analyse(samples, spoken)
    kept = whisper.engine.analyse(samples, spoken, keep=["donkey", "bim bam bum"])
    assert "donkey" not in kept.scores.phrases and "bim bam bum" not in kept.scores.phrases
    assert kept.scores.steps == plain.scores.steps


def test_a_looping_free_transcription_is_cut_after_its_first_copy(
    whisper: WhisperRecognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed "repeat" clip (a host command): Whisper, given a short shout and silence,
    writes "Repeat" again and again up to the length limit, so the free text scored far more than
    "Repeat" and its end, and the allowed phrase "repeat" lost 1 nat it had not earned. Cut after
    its first copy and scored as ended there, the free text is "Repeat" and the phrase's ratio is
    0; the phrase search itself is unchanged."""
    segment, _, said = next(c for c in clips("en", host=True) if c[2] == "repeat")
    spoken = whisper._spoken(host_grammar(said))
    samples = whisper._isolated(segment.samples, segment)
    monkeypatch.setattr(whisper.engine, "search", SearchConfig(loop_cut=False))
    looping = whisper.engine.analyse(samples, spoken)
    monkeypatch.setattr(whisper.engine, "search", SearchConfig())
    cut = whisper.engine.analyse(samples, spoken)
    assert looping.free_text.split().count("Repeat") >= 3
    assert cut.free_text.strip() == "Repeat"
    assert looping.scores.best()[:1] == cut.scores.best()[:1] == ("repeat",)
    assert looping.scores.best()[1] < -0.5 and cut.scores.best()[1] == 0.0
    assert cut.scores.phrases == looping.scores.phrases


@pytest.mark.parametrize("text", ["bim bim", "hello", "my turn"])
def test_a_transcription_that_ends_by_itself_is_not_cut(
    whisper: WhisperRecognizer, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A yell said twice ("BIM BIM") ends with Whisper's end token before the length limit: a
    repetition that is said is kept whole, as is everyday talk."""
    segment = clip(text)
    spoken = {p: whisper.pack.spoken_forms(p) for p in PHRASES if p != "slap"}
    samples = whisper._isolated(segment.samples, segment)
    cut = whisper.engine.analyse(samples, spoken)
    monkeypatch.setattr(whisper.engine, "search", SearchConfig(loop_cut=False))
    whole = whisper.engine.analyse(samples, spoken, encoded=cut.encoded)
    assert cut.free_text == whole.free_text and cut.scores.free_score == whole.scores.free_score
    if text == "bim bim":
        assert cut.free_text.split() == ["BIM", "BIM"]


def test_whisper_writes_i_capitalised_and_a_question_with_a_question_mark() -> None:
    """Whisper writes the live command "what can i say" as "What can I say?" (synthetic voices): neither the
    lower-case "i" nor the missing "?" was among the forms, so the phrase lost the nats of the
    form Whisper itself chose."""
    forms = set(written_forms("what can i say"))
    assert {" What can I say?", " what can I say", " What Can I Say!"} <= forms
    assert not any(" i " in f for f in forms)
    assert " Flip 12?" not in written_forms("flip twelve") and " Flip 12." in written_forms("flip twelve")


def test_period_finds_the_first_copy_of_a_repeated_text() -> None:
    assert _period([5, 6, 7, 5, 6, 7, 5]) == 3
    assert _period([5, 5, 5, 5]) == 1
    assert _period([5, 6, 5, 6]) == 2
    assert _period([5, 6, 7, 5]) is None  # the copy must be whole at least once
    assert _period([5, 6, 7]) is None
    assert _period([]) is None


def test_leading_to_marks_the_paths_of_the_kept_phrases_only() -> None:
    """Two forms share a first token; only the kept phrase's nodes (and their shared prefix) count."""
    trie = PhraseTrie()
    trie.add([1, 2], "cat")
    trie.add([1, 3], "dog")
    trie.add([4], "pig")
    nodes = _leading_to(trie, frozenset({"cat"}))
    first = trie.children[0][1]
    assert nodes == {first, trie.children[first][2]}
    assert _leading_to(trie, frozenset()) == set()


def test_rows_that_extend_the_last_calls_rows_compute_only_their_new_token(
    whisper: WhisperRecognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search's rows grow by one token a step: with the stored keys and values of the last
    call's rows (``Prefixes``), each new row runs the decoder on its last token only, and the
    distributions are the full recomputation's (within float rounding)."""
    import numpy as np

    from voicehost.listen.recognize.whisper.decoder import Prefixes

    engine = whisper.engine
    decoder = engine.decoder
    segment = clip("cat")
    cross = decoder.cross(engine.encode(whisper._isolated(segment.samples, segment)))
    prefix = list(engine.prefix)
    cat, dog = engine.tokenizer.encode(" Cat"), engine.tokenizer.encode(" Dog")
    shapes: list[tuple[int, ...]] = []
    forward = decoder._forward

    def spy(tokens, cross, past=None):  # type: ignore[no-untyped-def]
        shapes.append(tokens.shape)
        return forward(tokens, cross, past)

    monkeypatch.setattr(decoder, "_forward", spy)
    known = Prefixes()
    steps = [
        [prefix, prefix],
        [prefix + cat[:1], prefix + dog[:1]],
        [prefix + cat[:1] + [engine.tokenizer.specials.end]],
    ]
    for rows in steps:
        shapes.clear()
        fast = decoder.next_log_probs(rows, cross, known)
        assert set(known.rows) == {tuple(r) for r in rows}
        new_rows = shapes[:]
        full = decoder.next_log_probs(rows, cross)
        np.testing.assert_allclose(fast, full, atol=1e-4)
        if rows is not steps[0]:
            assert new_rows == [(len(rows), 1)]  # one decoder run, on the new tokens only
