"""The stock takes (tried, off as shipped): a player who did not enrol matched against the game's
words said by the eight synthetic tuning voices, with real Whisper encoding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tools.clips import render_clip
from tools.synth import ENGLISH_VOICES, HELDOUT_ENGLISH_VOICES
from voicehost.commands.enrol import enrol_words
from voicehost.errors import ModelError
from voicehost.listen.recognize.enrol import (
    STOCK_PLAYER,
    StockTakes,
    TakeStack,
    dtw_distances,
    load_stock,
    match_phrases,
    save_stock,
    take_frames,
)


def _plain_dtw(a: np.ndarray, b: np.ndarray) -> float:
    """The textbook recurrence, cell by cell (the reference the vectorised one must equal)."""
    cost = 1.0 - a @ b.T
    n, m = cost.shape
    table = np.full((n + 1, m + 1), np.inf)
    table[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            table[i, j] = cost[i - 1, j - 1] + min(table[i - 1, j - 1], table[i - 1, j], table[i, j - 1])
    return float(table[n, m] / (n + m))


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, 6))
    out: np.ndarray = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def test_dtw_distances_equal_the_plain_recurrence_for_takes_of_any_length() -> None:
    """Takes of different lengths, padded into one stack, each get the textbook distance."""
    rng = np.random.default_rng(3)
    shout = _unit(rng, 17)
    takes = [_unit(rng, n) for n in (1, 5, 17, 30, 9)]
    got = dtw_distances(shout, takes)
    want = [_plain_dtw(shout, t) for t in takes]
    assert got == pytest.approx(want, abs=1e-12)
    assert dtw_distances(shout, TakeStack.of(takes)) == pytest.approx(want, abs=1e-12)


def test_stock_file_round_trips_and_a_damaged_one_names_file_and_field(tmp_path: Path) -> None:
    """save_stock/load_stock keep every take; a truncated file, a missing field or another layout
    version is one ModelError naming the file (and the field)."""
    rng = np.random.default_rng(4)
    takes = {"v1": {"cat": [_unit(rng, 4), _unit(rng, 7)], "dog": [_unit(rng, 3)]}, "v2": {"cat": [_unit(rng, 5)]}}
    path = tmp_path / "stock.npz"
    save_stock(path, takes, 1234)
    stock = load_stock(path)
    assert stock.voices == ("v1", "v2") and stock.model_bytes == 1234 and stock.width == 6
    words = stock.templates.words[STOCK_PLAYER]
    assert [len(t) for t in words["cat"]] == [4, 7, 5] and [len(t) for t in words["dog"]] == [3]
    assert np.allclose(words["cat"][1], takes["v1"]["cat"][1], atol=1e-3)  # float16 on disk

    broken = tmp_path / "broken.npz"
    broken.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ModelError, match="broken.npz"):
        load_stock(broken)
    data = dict(np.load(path, allow_pickle=False))
    del data["lengths"]
    np.savez(tmp_path / "nolengths.npz", **data)
    with pytest.raises(ModelError, match=r"nolengths\.npz: field 'lengths' is missing"):
        load_stock(tmp_path / "nolengths.npz")
    data = dict(np.load(path, allow_pickle=False))
    data["version"] = np.array(99)
    np.savez(tmp_path / "future.npz", **data)
    with pytest.raises(ModelError, match=r"future\.npz: field 'version' is 99"):
        load_stock(tmp_path / "future.npz")


@pytest.fixture(scope="module")
def stock(tmp_path_factory: pytest.TempPathFactory) -> StockTakes:
    """The stock takes as ``python -m tools.stock_takes`` makes them (seed 1; about 15 s)."""
    out = tmp_path_factory.mktemp("stock") / "stock_takes_en.npz"
    from tools.stock_takes import main

    assert main(["--out", str(out)]) == 0
    return load_stock(out)


def test_stock_takes_are_the_tuning_voices_saying_every_enrolment_word(stock: StockTakes) -> None:
    """The 8 tuning voices (never a held-out one), 3 takes of every word `voicehost enrol` asks for."""
    assert stock.voices == tuple(v.label for v in ENGLISH_VOICES)
    assert not set(stock.voices) & {v.label for v in HELDOUT_ENGLISH_VOICES}
    words = stock.templates.words[STOCK_PLAYER]
    assert sorted(words) == sorted(enrol_words("all", "en"))
    assert all(len(t) == 3 * len(ENGLISH_VOICES) for t in words.values())


def test_a_voice_the_stock_never_heard_is_named_from_the_stock_takes(stock: StockTakes) -> None:
    """Every shouted word said by two held-out espeak-ng voices in pink noise: the stock takes name
    most of them right (measured: 16 of 16 when written, at DTW distances 0.02-0.07: espeak-ng voices
    sound alike; the test asks for 12)."""
    from voicehost.listen.recognize.whisper.engine import WhisperEngine

    engine = WhisperEngine()
    words = ["cat", "dog", "pig", "donkey", "hen", "bim", "bam", "bum"]
    rng = np.random.default_rng(11)
    right = []
    for voice in HELDOUT_ENGLISH_VOICES[4:6]:
        for word in words:
            clip = render_clip(word, word, voice, rng, 25.0)
            match = match_phrases(
                stock.templates, STOCK_PLAYER, engine.encode(clip.samples), clip.onset, clip.end, [], words
            )
            right.append(match.phrase == word)
    assert sum(right) >= 12, right


def test_a_player_who_did_not_enrol_gets_the_stock_bonus_and_an_enrolled_one_their_own(stock: StockTakes) -> None:
    """The fused recogniser given stock takes matches an unenrolled seat against them (the evidence
    says so, and the endorsed phrase carries the stock bonus); without them there is no match; an
    enrolled seat is matched against its own takes only; takes of another model are refused."""
    from dataclasses import replace

    from voicehost.listen.recognize import build_recognizer
    from voicehost.listen.recognize.enrol import Templates
    from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer

    shipped = build_recognizer("en", "whisper", None)
    assert isinstance(shipped, WhisperRecognizer) and shipped.stock is None
    recognizer = WhisperRecognizer(shipped.pack, shipped.engine, shipped.tuning, second=shipped.second, stock=stock)
    with pytest.raises(ModelError, match="another Whisper model"):
        WhisperRecognizer(shipped.pack, shipped.engine, stock=replace(stock, model_bytes=stock.model_bytes + 1))
    rng = np.random.default_rng(12)
    clip = render_clip("donkey", "donkey", HELDOUT_ENGLISH_VOICES[6], rng, 30.0)
    animals = ["cat", "dog", "pig", "donkey", "hen"]
    evidence = recognizer.evidence(clip.segment("Anna"), animals)
    assert evidence.template is not None and evidence.template.stock
    assert evidence.template.phrase == "donkey"
    bonus = {c.phrase: c.bonus for c in evidence.candidates}
    assert bonus.get("donkey") == 2.0

    own = Templates()
    for _ in range(2):
        take = render_clip("cat", "cat", HELDOUT_ENGLISH_VOICES[6], rng, 40.0)
        own.add("Anna", "cat", take_frames(take.samples, recognizer.engine.encode))
    recognizer.templates = own
    enrolled = recognizer.evidence(clip.segment("Anna"), animals)
    assert enrolled.template is not None and not enrolled.template.stock
    assert enrolled.template.phrase == "cat"  # only "cat" is covered by Anna's own takes

    assert shipped.evidence(clip.segment("Anna"), animals).template is None
