"""Vocabulary packs: data files validated on load, phrases per game, canonical phrase form."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.listen.vocab import (
    VocabError,
    available_languages,
    load_pack,
    normalize,
    parse_pack,
    phrases_for,
)

CONTRACT = {
    "bimbamm": ["cat", "dog", "pig", "donkey", "hen"],
    "bimbambum": [
        "bim",
        "bim bim",
        "bim bim bim",
        "bam",
        "bam bam",
        "bam bam bam",
        "bum",
        "bum bum",
        "bum bum bum",
        "bim bam bum",
        "ship",
    ],
}

MINIMAL = """lang = "xx"
name = "Test"

[games.bimbamm]
phrases = ["cat"]

[games.bimbambum]
phrases = ["bam", "bam bam"]
"""


@pytest.mark.parametrize("lang", ["en", "ko", "de"])
def test_shipped_packs_load_with_both_games(lang: str) -> None:
    """English, Korean and German packs load and define Bim Bamm! and Bim Bam Bum!."""
    pack = load_pack(lang)
    assert pack.lang == lang
    assert set(CONTRACT) <= set(pack.games)
    assert pack.decoys, "every pack carries decoy words for rejection"


@pytest.mark.parametrize("lang", ["en", "ko", "de"])
@pytest.mark.parametrize("game", sorted(CONTRACT))
def test_phrases_for_gives_the_contract_ids_in_every_language(lang: str, game: str) -> None:
    """phrases_for returns the canonical ids of the rank contract, whatever the language."""
    assert list(phrases_for(game, lang)) == CONTRACT[game]


def test_languages_listed() -> None:
    """The pack folder holds en, ko and de."""
    assert {"en", "ko", "de"} <= set(available_languages())


@pytest.mark.parametrize(
    "raw,canonical",
    [
        ("Bam-bam!", "bam bam"),
        ("  BIM  Bam   BUM! ", "bim bam bum"),
        ("Cat.", "cat"),
        ("ship", "ship"),
    ],
)
def test_normalize_gives_canonical_form(raw: str, canonical: str) -> None:
    """Case, punctuation and spacing do not matter: 'Bam-bam!' is 'bam bam'."""
    assert normalize(raw) == canonical


def test_korean_spoken_forms_map_back_to_ids() -> None:
    """Korean shouts map to the canonical ids the rules use (고양이 → cat, 밤 밤 밤 → bam bam bam)."""
    pack = load_pack("ko")
    assert pack.spoken_forms("cat") == ("고양이",)
    assert pack.spoken_forms("bam bam bam") == ("밤 밤 밤",)
    assert pack.canonical("밤 밤 밤") == "bam bam bam"
    assert pack.canonical("고양이!") == "cat"
    assert pack.canonical("안녕하세요") is None


def test_player_placeholders_expand_and_keep_word_order() -> None:
    """{player} phrases expand with the table's names, in each language's own word order."""
    en = phrases_for("commands", "en", players=["Anna", "Ben"])
    assert "exchange with anna" in en and "ben" in en
    assert "exchange with {player}" not in en
    ko = load_pack("ko")
    assert ko.spoken_forms("exchange with anna") == ("anna 와 교환",)
    assert "exchange with anna" not in phrases_for("commands", "en")


def test_command_words_present() -> None:
    """The hosting track's command words are in the English pack."""
    commands = set(phrases_for("commands", "en", players=["x"], numbers=[3]))
    for word in [
        "one",
        "twenty",
        "flip",
        "swap",
        "exchange",
        "with",
        "repeat",
        "score",
        "help",
        "slower",
        "faster",
        "pause",
        "resume",
        "quit",
        "tiles",
        "my card",
        "my hand",
        "best",
        "worst",
        "then",
        "flip 3",
    ]:
        assert word in commands


def test_sphinx_pronunciations_cover_words_missing_from_cmudict() -> None:
    """'bim' is not in CMUdict, so the English pack gives its ARPAbet pronunciation."""
    assert load_pack("en").pronunciations["sphinx"]["bim"][0] == "B IH M"


def _write(tmp_path: Path, text: str, name: str = "xx.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_minimal_pack_is_valid(tmp_path: Path) -> None:
    """A pack with just the two games parses."""
    pack = parse_pack(MINIMAL, _write(tmp_path, MINIMAL))
    assert pack.games["bimbambum"] == ("bam", "bam bam")


@pytest.mark.parametrize(
    "edit,needle",
    [
        (
            lambda t: t.replace('["bam", "bam bam"]', '["bam", "Bam-Bam"]'),
            ":8: games.bimbambum.phrases: 'Bam-Bam' is not in canonical form",
        ),
        (
            lambda t: t.replace('["bam", "bam bam"]', '["bam", "bam"]'),
            ":8: games.bimbambum.phrases: 'bam' is listed twice",
        ),
        (
            lambda t: t + '\n[pronunciations.sphinx]\nbam = ["B AE Q"]\n',
            ":11: pronunciations.sphinx.bam: 'B AE Q': unknown phone(s) Q",
        ),
        (lambda t: "colour = 1\n" + t, ":1: colour: unknown field"),
        (lambda t: t + "\ncolour = 1\n", ":10: games.bimbambum.colour: unknown field"),
        (lambda t: t.replace('lang = "xx"', 'lang = "yy"'), ":1: lang: 'yy' does not match the file name"),
        (lambda t: t.replace('[games.bimbamm]\nphrases = ["cat"]\n', ""), "games.bimbamm: missing"),
        (lambda t: t + '\n[say]\nfish = "poisson"\n', ":11: say.fish: 'fish' is not a phrase or word"),
        (lambda t: t.replace('phrases = ["cat"]', 'phrases = ["cat", "give {thing}"]'), "unknown placeholder {thing}"),
        (lambda t: t.replace('name = "Test"', 'name = "Test'), ":2: not valid TOML"),
    ],
)
def test_bad_pack_errors_name_file_line_and_field(tmp_path: Path, edit, needle: str) -> None:  # type: ignore[no-untyped-def]
    """A broken pack raises VocabError naming the file, the line and the field at fault."""
    text = edit(MINIMAL)
    path = _write(tmp_path, text)
    with pytest.raises(VocabError) as caught:
        parse_pack(text, path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    assert needle in message, message
    assert "\n" not in message


def test_missing_pack_is_a_one_line_error(tmp_path: Path) -> None:
    """Asking for a language without a pack names the missing file and the packs there are."""
    _write(tmp_path, MINIMAL)
    with pytest.raises(VocabError, match=r"no vocabulary pack for language 'fr' .*packs: xx"):
        load_pack("fr", tmp_path)


def test_unknown_game_is_an_error() -> None:
    """phrases_for refuses a game the pack does not have."""
    with pytest.raises(VocabError, match="game 'chess'"):
        phrases_for("chess", "en")
