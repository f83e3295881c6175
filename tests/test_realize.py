"""The BAM! sentence realizer: red card + grey cards → the grammatical sentence to read aloud."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import run_voicehost
from voicehost.speak.realize import (
    BadHint,
    BadTemplate,
    EmptyCard,
    Filler,
    MissingBlank,
    RealizeError,
    Realizer,
    WrongCardCount,
    count_blanks,
)

ROOT = Path(__file__).resolve().parents[1]
TABLE = tomllib.loads((ROOT / "tests" / "data" / "realize_cases.toml").read_text("utf-8"))
CASES: list[dict[str, Any]] = TABLE["case"]
ERROR_CASES: list[dict[str, Any]] = TABLE["error"]
BASE_DECK = tomllib.loads((ROOT / "voicehost" / "decks" / "base.toml").read_text("utf-8"))
RULES = {
    "rulebook",
    "agreement",
    "agreement-adverb",
    "agreement-question",
    "article",
    "article-double",
    "capitals",
    "punctuation",
    "possessive",
    "two-blanks",
    "hints",
    "template",
    "countability",
    "proper",
    "postmodifier",
    "coordination",
}
ERRORS = {
    "MissingBlank": MissingBlank,
    "EmptyCard": EmptyCard,
    "WrongCardCount": WrongCardCount,
    "BadTemplate": BadTemplate,
    "BadHint": BadHint,
}
HINT_KEYS = ("number", "mass", "proper", "article")


@pytest.fixture(scope="module")
def realizer() -> Realizer:
    """One realizer (its lexicon takes seconds to load) for the whole module."""
    return Realizer()


def filler(entry: str | dict[str, Any]) -> Filler:
    """A table entry (plain text or a table with hints) as a Filler."""
    if isinstance(entry, str):
        return Filler(entry)
    return Filler(**entry)


def case_id(case: dict[str, Any]) -> str:
    greys = " + ".join(g if isinstance(g, str) else g["text"] for g in case["grey"])
    return f"{case['rule']}: {case['red'][:40]} + {greys[:30]}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_table_case_reads_as_a_careful_speaker_would(case: dict[str, Any], realizer: Realizer) -> None:
    """Every red/grey combination in tests/data/realize_cases.toml gives its expected sentence."""
    greys = [filler(g) for g in case["grey"]]
    assert realizer.realize(case["red"], greys, case.get("template")) == case["expect"]


def test_rulebook_example_comes_out_exactly(realizer: Realizer) -> None:
    """The rulebook's own example, word for word, with a full stop and no stray '!'."""
    sentence = realizer.realize("BAM! has influenced my family planning", ["Short-statured circus artists"])
    assert sentence == "Short-statured circus artists have influenced my family planning."


def test_table_is_large_and_covers_every_rule() -> None:
    """At least 150 cases, every rule of the issue with several cases, 40 from the shipped deck."""
    assert len(CASES) >= 150
    rules = Counter(c["rule"] for c in CASES)
    assert set(rules) == RULES, set(rules) ^ RULES
    assert all(n >= 5 for rule, n in rules.items() if rule != "rulebook"), rules
    assert sum(c["source"] == "base" for c in CASES) >= 40
    assert all(c["source"] in ("base", "invented") for c in CASES)


def test_every_table_case_is_distinct() -> None:
    """No combination is listed twice (a copy would inflate the count and prove nothing)."""
    keys = [(c["red"], repr(c["grey"]), c.get("template")) for c in CASES]
    assert len(keys) == len(set(keys))


def test_deck_cases_still_match_the_shipped_deck() -> None:
    """Cases marked 'base' carry the shipped deck's card texts and hints unchanged."""
    red = {card["id"]: card for card in BASE_DECK["red"]}
    grey = {card["id"]: card for card in BASE_DECK["grey"]}
    for case in (c for c in CASES if c["source"] == "base"):
        assert red[case["red_id"]]["text"] == case["red"], case["red_id"]
        assert red[case["red_id"]].get("template") == case.get("template"), case["red_id"]
        assert len(case["grey_ids"]) == len(case["grey"])
        for gid, entry in zip(case["grey_ids"], case["grey"]):
            card = grey[gid]
            entry = {"text": entry} if isinstance(entry, str) else entry
            assert entry["text"] == card["text"], gid
            assert {k: entry.get(k) for k in HINT_KEYS} == {k: card.get(k) for k in HINT_KEYS}, gid


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c["error"] + ": " + c["why"] for c in ERROR_CASES])
def test_bad_input_is_refused_with_its_named_error(case: dict[str, Any], realizer: Realizer) -> None:
    """A red card without BAM!, an empty card, a wrong card count or a bad template is refused."""
    greys = [filler(g) for g in case["grey"]]
    with pytest.raises(ERRORS[case["error"]]) as caught:
        realizer.realize(case["red"], greys, case.get("template"))
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300
    assert case["says"] in message


def test_errors_are_input_errors_with_exit_status_2() -> None:
    """Every realizer error is an InputError: the command line exits with status 2."""
    for error in (*ERRORS.values(), RealizeError):
        assert issubclass(error, RealizeError)
        assert int(error.exit_status) == 2


def test_hint_with_unknown_value_is_refused() -> None:
    """A hint outside its closed set is refused when the Filler is made, naming the card."""
    with pytest.raises(BadHint, match="Goats"):
        Filler("Goats", number="many")  # type: ignore[arg-type]
    with pytest.raises(BadHint, match="Goats"):
        Filler("Goats", article="some")  # type: ignore[arg-type]


def test_count_blanks_counts_markers() -> None:
    """A red card takes as many grey cards as it has BAM! markers."""
    assert count_blanks("BAM! and BAM!: the buddy-cop film") == 2
    assert count_blanks("Nothing beats BAM!") == 1
    assert count_blanks("bam! is not a marker") == 0


def test_every_shipped_red_card_renders_with_shipped_grey_cards(realizer: Realizer) -> None:
    """All 64 red cards of the base deck combine with grey cards into a tidy sentence."""
    greys = [_deck_filler(g) for g in BASE_DECK["grey"]]
    for n, red in enumerate(BASE_DECK["red"]):
        blanks = count_blanks(red["text"])
        for k in range(6):
            chosen = [greys[(n * 7 + k * 31 + b * 13) % len(greys)] for b in range(blanks)]
            sentence = realizer.realize(red["text"], chosen, red.get("template"))
            _assert_tidy(sentence)
            for card in chosen:
                assert _content_word(card.text).lower() in sentence.lower(), (red["text"], card)


WORDS = ["cat", "goat", "umbrella", "hour", "unicorn", "pirate", "sock", "toaster", "owl", "egg"]
ADJECTIVES = ["angry", "old", "tiny", "honest", "useful", "one-legged", "wet", "enormous"]


@st.composite
def grey_cards(draw: st.DrawFn) -> str:
    """A plausible grey card: optional adjective, a noun, singular or plural, capitalised."""
    noun = draw(st.sampled_from(WORDS))
    if draw(st.booleans()):
        noun = {"goat": "goats", "sock": "socks", "egg": "eggs", "cat": "cats"}.get(noun, noun)
    words = [draw(st.sampled_from(ADJECTIVES))] if draw(st.booleans()) else []
    text = " ".join([*words, noun])
    return text[:1].upper() + text[1:]


@settings(max_examples=150, derandomize=True, deadline=None)
@given(case=st.sampled_from(CASES), card=grey_cards())
def test_any_grey_card_gives_a_tidy_sentence(case: dict[str, Any], card: str) -> None:
    """Whatever noun fills a table card: no marker left, single spaces, closing punctuation."""
    realizer = _shared_realizer()
    greys = [card] * len(case["grey"])
    sentence = realizer.realize(case["red"], greys, case.get("template"))
    _assert_tidy(sentence)
    assert card.split()[-1].lower() in sentence.lower()


def test_bam_render_prints_the_sentence() -> None:
    """`voicehost bam render RED GREY` prints the rulebook sentence and exits 0."""
    result = run_voicehost("bam", "render", "BAM! has influenced my family planning", "Short-statured circus artists")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Short-statured circus artists have influenced my family planning.\n"


def test_bam_render_refuses_a_card_without_blank_in_its_own_process() -> None:
    """A red card without BAM!: one line naming the problem, exit code 2, no traceback."""
    result = run_voicehost("bam", "render", "I love cats.", "Dogs")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "voicehost bam: the red card 'I love cats.' has no blank: mark each blank with BAM! "
        "(in capitals, with the exclamation mark)"
    ]


@pytest.mark.parametrize(
    "argv, expected",
    [
        (
            ["BAM! makes BAM! taste better.", "Ketchup", "Broccoli", "--mass", "1", "--mass", "2"],
            "Ketchup makes broccoli taste better.",
        ),
        (
            ["BAM! has lost its charm", "Cats", "--template", "{1} {1:has|have} lost {1:its|their} charm"],
            "Cats have lost their charm.",
        ),
        (["I climbed a BAM!", "Eiffel Tower", "--proper", "1", "--article", "1=the"], "I climbed the Eiffel Tower!"),
        (["BAM! has eaten my homework.", "Sheep", "--plural", "1"], "Sheep have eaten my homework."),
        (["BAM! are my favourite.", "Fish and chips", "--singular", "1"], "Fish and chips is my favourite."),
    ],
)
def test_bam_render_options_carry_the_deck_hints(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--plural/--singular/--mass/--proper/--article and --template reach the realizer."""
    status, out, err = _cli(capsys, "bam", "render", *argv)
    assert (status, out, err) == (0, expected + "\n", "")


@pytest.mark.parametrize(
    "argv, words",
    [
        (["bam", "render", "I love cats.", "Dogs"], "no blank"),
        (["bam", "render", "I love BAM!", "Dogs", "--article", "1=some"], "--article 1=some"),
        (["bam", "render", "BAM! and BAM!", "Dogs"], "2 blanks but 1 grey card"),
        (["bam", "render", "I love BAM!", "Dogs", "Cats"], "1 blank but 2 grey cards"),
        (["bam", "render", "I love BAM!", "   "], "empty"),
        (["bam", "render", "I love BAM!", "Dogs", "--template", "I love {2}"], "template"),
        (["bam", "render", "I love BAM!", "Dogs", "--plural", "3"], "--plural 3"),
        (["bam", "render"], "RED"),
        (["bam", "juggle"], "invalid choice"),
    ],
)
def test_bam_render_bad_input_is_one_line_and_status_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad cards or options: one clear line on stderr, exit code 2, no traceback."""
    status, out, err = _cli(capsys, *argv)
    assert status == 2, (out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert words in err
    assert "Traceback" not in err


def test_bam_without_subcommand_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    """Plain `voicehost bam` lists its subcommands and exits 2."""
    status, out, err = _cli(capsys, "bam")
    assert status == 2
    assert "render" in out


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in this process (the realizer's lexicon loads once per process)."""
    from voicehost.cli import main

    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _deck_filler(card: dict[str, Any]) -> Filler:
    return Filler(card["text"], **{k: card[k] for k in HINT_KEYS if k in card})


def _content_word(text: str) -> str:
    """The grey card's last word (its head noun or name), which must survive realisation."""
    return re.sub(r"[^\w'-]", "", text.split()[-1].rstrip("."))


def _assert_tidy(sentence: str) -> None:
    assert "BAM!" not in sentence
    assert "  " not in sentence
    assert not re.search(r" [,.;:!?]", sentence), sentence
    assert sentence[-1] in ".!?…", sentence
    assert sentence == sentence.strip()
    assert not re.search(r"\b(a|an|the) (a|an|the)\b", sentence, re.IGNORECASE), sentence


_REALIZER: list[Realizer] = []


def _shared_realizer() -> Realizer:
    """Hypothesis tests cannot take function-scoped fixtures: share one realizer by hand."""
    if not _REALIZER:
        _REALIZER.append(Realizer())
    return _REALIZER[0]
