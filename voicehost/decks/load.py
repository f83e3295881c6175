"""Reading, validating, combining and filtering BAM! deck files (TOML).

A deck file has an optional ``[deck]`` table (name, language, description) and any number of
``[[red]]`` and ``[[grey]]`` cards; see ``voicehost/decks/base.toml`` for the shipped deck and
docs/rules.md for the format. Everything is checked on load, so a bad deck is rejected before a
game starts. Every problem names the file, the line and the card id.
"""

from __future__ import annotations

import bisect
import re
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, cast

from voicehost.decks.cards import BLANK, Article, CardId, Deck, GreyCard, Number, RedCard
from voicehost.errors import InputError
from voicehost.files import DECK_LIMIT, FileFormatError, FileReadError, parse_toml, read_text
from voicehost.text import describe_unsafe, shown, unsafe_characters

BUILTIN_DECKS = ("base",)
"""Deck names that resolve to files shipped inside voicehost."""

RED_FIELDS = ("id", "text", "tags", "template")
GREY_FIELDS = ("id", "text", "tags", "number", "mass", "proper", "article")
DECK_FIELDS = ("name", "language", "description")
NUMBERS = ("singular", "plural")
ARTICLES = ("a", "an", "the", "none")
MAX_BLANKS = 2
MAX_CARDS = 10_000
"""Cards (red and grey together) in one deck file: far more than a game needs, few enough to check
and print in seconds."""
MAX_TEXT = 500
"""Characters of one card's text (the longest printed BAM! card has about 120)."""
MAX_ID = 64
"""Characters of a card id."""
MAX_TAGS = 20
"""Tags on one card."""


class DeckError(InputError):
    """A deck file is missing, unreadable or invalid.

    ``problems`` lists every problem found, one line each ("file:line: card id: what is wrong");
    the message is the first of them.
    """

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        more = len(self.problems) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''}: run 'voicehost deck check')" if more else ""
        super().__init__(self.problems[0] + suffix)


def resolve(spec: str | Path) -> Path:
    """The file behind a ``--deck`` value: a built-in deck name or a path."""
    if str(spec) in BUILTIN_DECKS:
        return Path(str(resources.files("voicehost.decks").joinpath(f"{spec}.toml")))
    path = Path(spec)
    if not path.exists():
        known = ", ".join(BUILTIN_DECKS)
        raise DeckError([f"{path}: no such deck file (built-in decks: {known})"])
    return path


def load_deck(spec: str | Path) -> Deck:
    """Load and validate one deck (built-in name or path)."""
    return _load(resolve(spec)).deck


def load_decks(specs: Sequence[str | Path], tags: Sequence[str] = ()) -> Deck:
    """Load several decks, combine them (ids must stay unique) and keep only cards with one of ``tags``.

    No specs means the base deck; no tags means every card.
    """
    loaded = [_load(resolve(spec)) for spec in (specs or ["base"])]
    return filter_tags(_combine(loaded), tags)


def combine(decks: Sequence[Deck]) -> Deck:
    """One deck holding all cards of ``decks`` in order; ids must be unique and languages equal."""
    return _combine([_Loaded(deck, {}) for deck in decks])


def filter_tags(deck: Deck, tags: Sequence[str]) -> Deck:
    """Only the cards carrying at least one of ``tags`` (all cards if ``tags`` is empty)."""
    if not tags:
        return deck
    wanted = set(tags)
    return replace(
        deck,
        red=tuple(c for c in deck.red if wanted & set(c.tags)),
        grey=tuple(c for c in deck.grey if wanted & set(c.tags)),
    )


class _Loaded:
    """A deck with the line of each card in its file (for error messages across files)."""

    def __init__(self, deck: Deck, lines: Mapping[CardId, int]) -> None:
        self.deck = deck
        self.lines = lines

    def where(self, card_id: CardId) -> str:
        line = self.lines.get(card_id)
        return f"{self.deck.source}:{line}" if line else self.deck.source


def _combine(loaded: Sequence[_Loaded]) -> Deck:
    if len(loaded) == 1:
        return loaded[0].deck
    problems: list[str] = []
    owner: dict[CardId, _Loaded] = {}
    first = loaded[0].deck
    for item in loaded:
        deck = item.deck
        if deck.language != first.language:
            problems.append(
                f"{deck.source}: language '{deck.language}' differs from '{first.language}' "
                f"of {first.source}: decks in different languages cannot be combined"
            )
        for card_id in [c.id for c in deck.red] + [c.id for c in deck.grey]:
            if card_id in owner:
                problems.append(
                    f"{item.where(card_id)}: card {card_id}: duplicate id, already used in "
                    f"{owner[card_id].where(card_id)}"
                )
            else:
                owner[card_id] = item
    if problems:
        raise DeckError(problems)
    return Deck(
        name="+".join(item.deck.name for item in loaded),
        language=first.language,
        red=tuple(c for item in loaded for c in item.deck.red),
        grey=tuple(c for item in loaded for c in item.deck.grey),
        source=" + ".join(item.deck.source for item in loaded),
    )


def _load(path: Path) -> _Loaded:
    text = _read_text(path)
    try:
        data = parse_toml(text, path)
    except FileFormatError as error:
        raise DeckError([str(error)]) from None
    except tomllib.TOMLDecodeError as error:
        raise DeckError([_toml_problem(path, error)]) from error
    checker = _Checker(path, text)
    deck = checker.deck(data)
    if checker.problems:
        raise DeckError(checker.problems)
    return _Loaded(deck, checker.card_lines)


def _read_text(path: Path) -> str:
    try:
        return read_text(path, limit=DECK_LIMIT, what="deck file")
    except FileReadError as error:
        raise DeckError([str(error)]) from None


def _toml_problem(path: Path, error: tomllib.TOMLDecodeError) -> str:
    message = str(error)
    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if found is None:
        return f"{path}: not valid TOML ({message})"
    bare = message[: found.start()].strip()
    return f"{path}:{found.group(1)}: not valid TOML: {bare} (column {found.group(2)})"


_HEADER = re.compile(r"^\s*\[\[\s*(red|grey)\s*\]\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")
_ID = re.compile(r"\bid\s*=\s*[\"']([^\"']*)[\"']")


class _Checker:
    """Validates parsed TOML into a Deck, collecting problems with file lines."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.problems: list[str] = []
        self.card_lines: dict[CardId, int] = {}
        self.headers: dict[str, list[int]] = {"red": [], "grey": []}
        self.any_headers: list[int] = []
        self._id_lines: dict[str, int] | None = None
        for number, line in enumerate(self.lines, start=1):
            match = _HEADER.match(line)
            if match:
                self.headers[match.group(1)].append(number)
            if _ANY_HEADER.match(line):
                self.any_headers.append(number)

    def deck(self, data: Mapping[str, Any]) -> Deck:
        for key in data:
            if key not in ("deck", "red", "grey"):
                self._problem(
                    self._key_line(key, 1, len(self.lines)),
                    f"unknown top-level field '{key}' (allowed: [deck], [[red]], [[grey]])",
                )
        name, language = self._deck_table(data.get("deck", {}))
        count = sum(len(data[c]) for c in ("red", "grey") if isinstance(data.get(c), list))
        if count > MAX_CARDS:
            self._problem(
                None,
                f"the deck has {count} cards; a deck file holds at most {MAX_CARDS} "
                "(split it into several files and combine them with --deck)",
            )
            return Deck(name=name, language=language, red=(), grey=(), source=str(self.path))
        red = self._cards(data, "red")
        grey = self._cards(data, "grey")
        if not red and not grey and not self.problems:
            self._problem(None, "the deck has no cards: add [[red]] and/or [[grey]] cards")
        return Deck(
            name=name,
            language=language,
            red=tuple(cast(RedCard, c) for c in red),
            grey=tuple(cast(GreyCard, c) for c in grey),
            source=str(self.path),
        )

    def _deck_table(self, table: Any) -> tuple[str, str]:
        name, language = self.path.stem, "en"
        if not isinstance(table, dict):
            self._problem(self._key_line("deck", 1, len(self.lines)), "[deck] must be a table")
            return name, language
        start = self._key_line("deck", 1, len(self.lines)) or 1
        for key, value in table.items():
            line = self._key_line(key, start, self._block_end(start))
            if key not in DECK_FIELDS:
                self._problem(line, f"[deck]: unknown field '{key}' (allowed: {', '.join(DECK_FIELDS)})")
            elif not isinstance(value, str) or not value.strip():
                self._problem(line, f"[deck]: {key} must be a non-empty string")
            elif unsafe_characters(value.replace("\n", " ")) or len(value) > MAX_TEXT:
                self._problem(line, f"[deck]: {key} must be printable text of at most {MAX_TEXT} characters")
        if isinstance(table.get("name"), str) and table["name"].strip():
            name = table["name"].strip()
        if isinstance(table.get("language"), str) and table["language"].strip():
            language = table["language"].strip()
        return name, language

    def _cards(self, data: Mapping[str, Any], colour: str) -> list[RedCard | GreyCard]:
        entries = data.get(colour, [])
        if not isinstance(entries, list):
            self._problem(
                self._key_line(colour, 1, len(self.lines)), f"'{colour}' must be a list of [[{colour}]] cards"
            )
            return []
        cards: list[RedCard | GreyCard] = []
        for index, entry in enumerate(entries):
            card = self._card(colour, index, entry)
            if card is not None:
                cards.append(card)
        return cards

    def _card(self, colour: str, index: int, entry: Any) -> RedCard | GreyCard | None:
        raw_id = entry.get("id") if isinstance(entry, dict) else None
        label = (
            f"{colour} card {shown(raw_id)}" if isinstance(raw_id, str) and raw_id else f"{colour} card #{index + 1}"
        )
        start = self._card_line(colour, index, raw_id)
        end = self._block_end(start) if start else None

        def problem(field: str | None, message: str) -> None:
            line = self._key_line(field, start, end) if field and start and end else None
            self._problem(line or start, f"{label}: {message}")

        if not isinstance(entry, dict):
            problem(None, "must be a table of fields")
            return None
        before = len(self.problems)
        allowed = RED_FIELDS if colour == "red" else GREY_FIELDS
        for key in entry:
            if key not in allowed:
                problem(key, f"unknown field '{key}' (allowed: {', '.join(allowed)})")
        card_id = self._card_id(entry, problem)
        text = self._text(entry, problem)
        tags = self._tags(entry, problem)
        if card_id is not None and start is not None:
            self.card_lines.setdefault(card_id, start)
        if colour == "red":
            card: RedCard | GreyCard | None = self._red(entry, card_id, text, tags, problem)
        else:
            card = self._grey(entry, card_id, text, tags, problem)
        return card if len(self.problems) == before else None

    def _card_id(self, entry: Mapping[str, Any], problem: Any) -> CardId | None:
        value = entry.get("id")
        if value is None:
            problem(None, 'missing id (give every card a unique id such as "r001")')
            return None
        if not isinstance(value, str) or not value or re.search(r"\s", value):
            problem("id", "id must be a non-empty string without spaces")
            return None
        if unsafe_characters(value):
            problem(
                "id", f"id {value!r} contains {describe_unsafe(unsafe_characters(value))}: use letters, digits and '-'"
            )
            return None
        if len(value) > MAX_ID:
            problem("id", f"id is {len(value)} characters long; at most {MAX_ID} are allowed")
            return None
        if value in self.card_lines:
            problem("id", f"duplicate id, already used at line {self.card_lines[value]}")
            return None
        return value

    @staticmethod
    def _text(entry: Mapping[str, Any], problem: Any) -> str | None:
        value = entry.get("text")
        if value is None:
            problem(None, "missing text")
            return None
        if not isinstance(value, str):
            problem("text", "text must be a string")
            return None
        if not value.strip():
            problem("text", "text is empty")
            return None
        if unsafe_characters(value.replace("\n", " ").replace("\t", " ")):
            bad = describe_unsafe(unsafe_characters(value.replace("\n", " ").replace("\t", " ")))
            problem("text", f"text contains {bad}: a card holds printable text only")
            return None
        text = " ".join(value.split())
        if len(text) > MAX_TEXT:
            problem("text", f"text is {len(text)} characters long; a card holds at most {MAX_TEXT}")
            return None
        return text

    @staticmethod
    def _tags(entry: Mapping[str, Any], problem: Any) -> tuple[str, ...]:
        value = entry.get("tags", [])
        if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
            problem("tags", 'tags must be a list of non-empty strings, e.g. tags = ["family"]')
            return ()
        if len(value) > MAX_TAGS or any(len(t) > MAX_ID or unsafe_characters(t) for t in value):
            problem("tags", f"at most {MAX_TAGS} tags of up to {MAX_ID} printable characters each")
            return ()
        return tuple(t.strip() for t in value)

    @staticmethod
    def _red(
        entry: Mapping[str, Any], card_id: CardId | None, text: str | None, tags: tuple[str, ...], problem: Any
    ) -> RedCard | None:
        template = entry.get("template")
        if template is not None and (not isinstance(template, str) or not template.strip()):
            problem("template", "template must be a non-empty string")
        elif isinstance(template, str) and (unsafe_characters(template) or len(template) > 2 * MAX_TEXT):
            problem("template", f"template must be printable text of at most {2 * MAX_TEXT} characters")
            template = None
        if text is None or card_id is None:
            return None
        blanks = text.count(BLANK)
        if blanks == 0:
            hint = " (write blanks as BAM! in capitals, with the exclamation mark)" if "bam" in text.lower() else ""
            problem("text", f"red card text has no BAM! blank{hint}")
        elif blanks > MAX_BLANKS:
            problem("text", f"red card text has {blanks} BAM! blanks; at most {MAX_BLANKS} are allowed")
        elif isinstance(template, str) and template.strip():
            _check_template(template, blanks, problem)
        return RedCard(
            id=card_id, text=text, blanks=blanks, tags=tags, template=template if isinstance(template, str) else None
        )

    @staticmethod
    def _grey(
        entry: Mapping[str, Any], card_id: CardId | None, text: str | None, tags: tuple[str, ...], problem: Any
    ) -> GreyCard | None:
        number = entry.get("number")
        if number is not None and number not in NUMBERS:
            problem("number", f"number must be one of {', '.join(NUMBERS)}, not {number!r}")
        article = entry.get("article")
        if article is not None and article not in ARTICLES:
            problem("article", f"article must be one of {', '.join(ARTICLES)}, not {article!r}")
        for flag in ("mass", "proper"):
            if not isinstance(entry.get(flag, False), bool):
                problem(flag, f"{flag} must be true or false")
        if text is None or card_id is None:
            return None
        return GreyCard(
            id=card_id,
            text=text,
            tags=tags,
            number=cast(Number | None, number),
            mass=entry.get("mass") is True,
            proper=entry.get("proper") is True,
            article=cast(Article | None, article),
        )

    def _problem(self, line: int | None, message: str) -> None:
        where = f"{self.path}:{line}" if line else str(self.path)
        self.problems.append(f"{where}: {message}")

    def _card_line(self, colour: str, index: int, card_id: Any) -> int | None:
        headers = self.headers[colour]
        if index < len(headers):
            return headers[index]
        if isinstance(card_id, str):  # inline tables: fall back to finding the id
            if self._id_lines is None:
                self._id_lines = {}
                for number, line in enumerate(self.lines, start=1):
                    for found in _ID.finditer(line):
                        self._id_lines.setdefault(found.group(1), number)
            return self._id_lines.get(card_id)
        return None

    def _block_end(self, start: int) -> int:
        later = bisect.bisect_right(self.any_headers, start)
        return (self.any_headers[later] - 1) if later < len(self.any_headers) else len(self.lines)

    def _key_line(self, key: str | None, start: int | None, end: int | None) -> int | None:
        if key is None or start is None or end is None:
            return None
        pattern = re.compile(r"^\s*(\[+\s*)?[\"']?" + re.escape(key) + r"[\"']?\s*(=|\]+)")
        for number in range(start, end + 1):
            if pattern.match(self.lines[number - 1]):
                return number
        return None


def _check_template(template: str, blanks: int, problem: Any) -> None:
    """A red card's template must be one the sentence realizer can read ({1}, {1:a}, {1:has|have} ...),
    checked now so that a bad template never stops a running game."""
    from voicehost.speak.realize.hints import BadTemplate
    from voicehost.speak.realize.template import check

    try:
        check(template, blanks)
    except BadTemplate as error:
        problem("template", str(error))


def tags_of(cards: Iterable[RedCard | GreyCard]) -> dict[str, int]:
    """How many of ``cards`` carry each tag, most common first."""
    tally: dict[str, int] = {}
    for card in cards:
        for tag in card.tags:
            tally[tag] = tally.get(tag, 0) + 1
    return dict(sorted(tally.items(), key=lambda item: (-item[1], item[0])))
