"""BAM! decks: the shipped base deck, deck file validation, combining and filtering, and `voicehost deck`."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_voicehost
from voicehost.decks import Deck, DeckError, load_deck, load_decks
from voicehost.decks.load import filter_tags

DATA = Path(__file__).parent / "data" / "decks"
BAD = sorted((DATA / "bad").glob("*.toml"))
MY_CARDS = DATA / "good" / "my_cards.toml"


@pytest.fixture(scope="module")
def base() -> Deck:
    return load_deck("base")


# ------------------------------------------------------------------------------ the base deck


def test_base_deck_loads_and_meets_the_counts(base: Deck) -> None:
    """The shipped deck: at least 45 red cards (8+ with two blanks) and 180 grey cards."""
    assert base.name == "base" and base.language == "en"
    assert len(base.red) >= 45 and len(base.grey) >= 180
    assert sum(c.blanks == 2 for c in base.red) >= 8
    assert all(c.blanks == c.text.count("BAM!") for c in base.red)


def test_base_deck_has_a_family_subset_of_at_least_half(base: Deck) -> None:
    """At least half of each colour is tagged family; every card is either family or spicy."""
    for cards in (base.red, base.grey):
        family = [c for c in cards if "family" in c.tags]
        assert 2 * len(family) >= len(cards)
        assert all(set(c.tags) in ({"family"}, {"spicy"}) for c in cards)
    family_deck = filter_tags(base, ["family"])
    assert sum(c.blanks == 2 for c in family_deck.red) >= 4


def test_base_deck_ids_and_texts_are_unique(base: Deck) -> None:
    """No id or text appears twice."""
    ids = [c.id for c in base.red] + [c.id for c in base.grey]
    texts = [c.text for c in base.red] + [c.text for c in base.grey]
    assert len(ids) == len(set(ids)) and len(texts) == len(set(texts))


@pytest.mark.parametrize(
    "pattern",
    [
        r"^BAM! has\b",
        r"^BAM! is\b",
        r"^BAM! was\b",
        r"^BAM! does\b",
        r"^BAM! brings\b",
        r"^BAM! (always|never|secretly|really|usually) \w+",
        r"\b[Aa] BAM!",
        r"\b[Tt]he BAM!",
        r"BAM!'s",
        r"^BAM!",
        r"BAM!\.$",
        r"\?$",
        r"BAM!\?$",
    ],
)
def test_base_red_cards_exercise_the_grammar(base: Deck, pattern: str) -> None:
    """Red cards cover a blank as subject before has/is/was/does/brings (also with an adverb), 'a BAM!',
    'the BAM!', "BAM!'s", blanks at start and end, and questions."""
    assert any(re.search(pattern, c.text) for c in base.red), pattern


def test_base_grey_cards_carry_grammar_hints(base: Deck) -> None:
    """Every grey card says its number or that it is a mass noun; plurals, mass nouns and names occur."""
    assert all(c.number is not None or c.mass for c in base.grey)
    assert sum(c.number == "plural" for c in base.grey) >= 30
    assert sum(c.mass for c in base.grey) >= 15
    proper = [c for c in base.grey if c.proper]
    assert len(proper) >= 10 and all(c.text[0].isupper() for c in proper)
    assert {"Paris", "Santa Claus"} <= {c.text for c in proper}


def test_base_deck_does_not_reuse_the_published_examples(base: Deck) -> None:
    """None of the rulebook's printed example texts are on our cards."""
    published = [
        "blood sausage",
        "hotel pool",
        "circus artists",
        "family planning",
        "variety to every relationship",
        "propeller",
    ]
    texts = " ".join(c.text.lower() for c in (*base.red, *base.grey))
    assert not [p for p in published if p in texts]


# ------------------------------------------------------------------------- malformed deck files


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_malformed_deck_gives_its_specific_error(path: Path) -> None:
    """Each bad deck in tests/data/decks/bad is refused with the message on its first line ('# expect: ...')."""
    expected = path.read_bytes().splitlines()[0].decode("ascii").removeprefix("# expect: ")
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert expected in str(caught.value)
    assert str(caught.value).startswith(str(path))


def test_the_malformed_cases_cover_every_required_problem() -> None:
    """Missing text, no BAM!, more than two blanks, duplicate ids, unknown fields and non-UTF-8 all have a case."""
    stems = {p.stem for p in BAD}
    assert {"missing_text", "red_without_bam", "three_blanks", "duplicate_ids", "unknown_field", "not_utf8"} <= stems


def test_all_problems_of_a_deck_are_reported(tmp_path: Path) -> None:
    """A deck with several problems lists each one (the message shows the first and how many more)."""
    path = tmp_path / "many.toml"
    path.write_text(
        '[[red]]\nid = "a"\ntext = "no blank"\n\n[[grey]]\nid = "b"\n\n[[grey]]\nid = "c"\ntext = "x"\nwat = 1\n',
        encoding="utf-8",
    )
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert len(caught.value.problems) == 3
    assert f"{path}:3: red card a" in caught.value.problems[0]
    assert f"{path}:5: grey card b: missing text" == caught.value.problems[1]
    assert f"{path}:11: grey card c: unknown field 'wat'" in caught.value.problems[2]
    assert "and 2 more problems" in str(caught.value)


def test_missing_deck_file_is_named() -> None:
    """An unknown --deck value names the file and the built-in decks."""
    with pytest.raises(DeckError, match=r"nope\.toml: no such deck file \(built-in decks: base\)"):
        load_decks(["nope.toml"])


# ------------------------------------------------------------------------- combining and tags


def test_decks_combine_in_order(base: Deck) -> None:
    """--deck base --deck my_cards.toml: all cards, base first, hints and templates kept."""
    combined = load_decks(["base", MY_CARDS])
    assert combined.name == "base+my_cards"
    assert len(combined.red) == len(base.red) + 3 and len(combined.grey) == len(base.grey) + 4
    assert combined.red[-1].template and combined.grey[-4].proper and combined.grey[-2].mass
    assert combined.grey[-1].article == "the" and combined.red[-2].blanks == 2


def test_duplicate_ids_across_decks_are_refused() -> None:
    """An id used in two combined decks names both files and lines."""
    with pytest.raises(DeckError) as caught:
        load_decks(["base", DATA / "good" / "clash_with_base.toml"])
    assert re.search(
        r"clash_with_base\.toml:2: card r001: duplicate id, already used in .*base\.toml:\d+", str(caught.value)
    )


def test_decks_in_different_languages_do_not_combine() -> None:
    """A German deck cannot be mixed into the English base deck."""
    with pytest.raises(DeckError, match="language 'de' differs from 'en'"):
        load_decks(["base", DATA / "good" / "german.toml"])


def test_tag_filter_keeps_cards_with_any_given_tag() -> None:
    """--tag family keeps family cards; repeating --tag allows several; untagged cards drop out."""
    family = load_decks([MY_CARDS], ["family"])
    assert [c.id for c in family.red] == ["my-r1", "my-r2"] and [c.id for c in family.grey] == ["my-g1", "my-g2"]
    both = load_decks([MY_CARDS], ["family", "spicy"])
    assert len(both.red) == 3 and [c.id for c in both.grey] == ["my-g1", "my-g2", "my-g4"]


def test_printed_numbers_follow_deck_order() -> None:
    """Cards are numbered 1.. within their colour in deck order (the number players say with paper cards)."""
    deck = load_decks([MY_CARDS])
    assert [(n, c.id) for n, c in deck.numbered_grey()] == [(1, "my-g1"), (2, "my-g2"), (3, "my-g3"), (4, "my-g4")]


# -------------------------------------------------------------------------------- the command


def test_deck_check_prints_counts() -> None:
    """`voicehost deck check FILE` validates and prints red/grey counts and tags."""
    result = run_voicehost("deck", "check", str(MY_CARDS))
    assert result.returncode == 0, result.stderr
    assert "ok: deck 'my_cards' (en): 3 red cards (1 with two blanks), 4 grey cards" in result.stdout
    assert "red tags: family 2, spicy 1" in result.stdout


def test_deck_check_lists_every_problem_and_exits_2() -> None:
    """A bad deck: each problem on its own line (file:line: card: problem), exit status 2, no traceback."""
    result = run_voicehost("deck", "check", str(DATA / "bad" / "red_without_bam.toml"), str(MY_CARDS))
    assert result.returncode == 2
    assert "red_without_bam.toml:9: red card r2" in result.stderr and "Traceback" not in result.stderr
    assert "my_cards.toml: ok" in result.stdout


def test_deck_check_notes_ids_shared_with_the_base_deck() -> None:
    """A user deck reusing base ids is valid alone; check says to rename them to play with the base deck."""
    result = run_voicehost("deck", "check", str(DATA / "good" / "clash_with_base.toml"))
    assert result.returncode == 0 and "also used by the base deck (r001)" in result.stdout


def test_deck_list_shows_numbers_ids_tags_and_hints() -> None:
    """`voicehost deck list --tag family` shows only family cards, with numbers and grammar hints."""
    result = run_voicehost("deck", "list", "--deck", str(MY_CARDS), "--tag", "family")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    assert re.match(r"grey +1 +my-g1 +family +Uncle Tim +\(singular, proper\)", lines[2])
    base = run_voicehost("deck", "list", "--color", "red")
    assert base.returncode == 0 and len(base.stdout.splitlines()) == len(load_deck("base").red)


def test_deck_list_with_a_bad_deck_is_one_line() -> None:
    """A bad --deck gives one error line and exit status 2."""
    result = run_voicehost("deck", "list", "--deck", str(DATA / "bad" / "three_blanks.toml"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "three_blanks.toml:4: red card r1" in result.stderr


def test_deck_print_writes_printable_cards(tmp_path: Path) -> None:
    """`voicehost deck print` writes a PDF: 9 cards a page, red then grey, numbers large, and it renders."""
    out = tmp_path / "cards.pdf"
    result = run_voicehost(
        "deck", "print", "--deck", "base", "--deck", str(MY_CARDS), "--tag", "family", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    deck = load_decks(["base", MY_CARDS], ["family"])
    pages = -(-len(deck.red) // 9) + -(-len(deck.grey) // 9)
    assert f"on {pages} pages" in result.stdout
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, timeout=60).stdout
    assert re.search(rf"Pages:\s+{pages}\b", info)
    first = _pdf_text(out, 1)
    assert re.match(r"\s*1\s+BAM!\s+2\s+BAM!\s+3\s+BAM!", first)
    assert "BAM! has ruined" in first and "r001 · family" in first
    last = _pdf_text(out, pages)
    assert "my-g2" in last and "Garden peas" in last
    _assert_renders_with_colour(out, tmp_path)


def _pdf_text(pdf: Path, page: int) -> str:
    return subprocess.run(
        ["pdftotext", "-f", str(page), "-l", str(page), "-layout", str(pdf), "-"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


def _assert_renders_with_colour(pdf: Path, tmp_path: Path) -> None:
    """Page 1 rendered at 60 dpi shows the red card bands and the black cut marks."""
    from matplotlib.image import imread

    subprocess.run(
        ["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "page")], check=True, timeout=60
    )
    image = imread(next(tmp_path.glob("page*.png")))
    red = (image[..., 0] > 0.6) & (image[..., 1] < 0.2) & (image[..., 2] < 0.3)
    assert red.mean() > 0.05
    margin = image[: int(image.shape[0] * 16 / 297), :, :3]  # the top 16 mm: only cut marks and nothing else
    dark = margin.sum(axis=2) < 1.8
    assert 4 <= len(set(dark.nonzero()[1])) <= 4 * 3  # four vertical marks, a few pixels wide each


@pytest.mark.parametrize(
    "argv, words",
    [
        (["deck", "print", "--out", "/nonexistent-dir/cards.pdf"], "cannot write"),
        (["deck", "print", "--tag", "no-such-tag", "--out", "x.pdf"], "no cards to print"),
        (["deck", "print", "--paper", "a3", "--out", "x.pdf"], "invalid choice"),
        (["deck", "check"], "required"),
    ],
)
def test_deck_print_and_check_errors_are_one_line(argv: list[str], words: str) -> None:
    """Unwritable output, an empty selection, bad options: one line, exit status 2."""
    result = run_voicehost(*argv)
    assert result.returncode == 2 and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_every_base_card_reads_as_a_sentence(base: Deck) -> None:
    """The real sentence realizer fills every red card and takes every grey card with its hints, no blank left."""
    from voicehost.speak.realize import Filler, Realizer

    realizer = Realizer()

    def filler(index: int) -> Filler:
        card = base.grey[index % len(base.grey)]
        return Filler(card.text, number=card.number, mass=card.mass, proper=card.proper, article=card.article)

    for i, red in enumerate(base.red):
        for shift in (0, 101):
            sentence = realizer.realize(
                red.text, [filler(i + shift), filler(i + shift + 7)][: red.blanks], red.template
            )
            assert "BAM" not in sentence and sentence[0].isupper() and sentence[-1] in ".?!", sentence
    single = next(red for red in base.red if red.blanks == 1)
    for i in range(len(base.grey)):
        assert base.grey[i].text.split()[-1].lower() in realizer.realize(single.text, [filler(i)]).lower()
