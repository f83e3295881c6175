"""BAM! cards as loaded from deck files: red cards with one or two blanks, grey word cards.

These are plain frozen values, free of file handling, so the rules engine and the sentence
realizer can use them without touching the disk. The grammar hints on grey cards (``number``,
``mass``, ``proper``, ``article``) and the red ``template`` exist for the sentence realizer: the
rules ignore them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

CardId: TypeAlias = str
"""A card's stable id, unique across all decks loaded together (e.g. "r001", "g017")."""

BLANK = "BAM!"
"""How red card texts mark a blank, exactly as the printed cards do."""

Number: TypeAlias = Literal["singular", "plural"]
"""Grammatical number of a grey card's text."""

Article: TypeAlias = Literal["a", "an", "the", "none"]
"""The article a grey card prefers when it fills a blank ("none": never add one)."""


@dataclass(frozen=True)
class RedCard:
    """A red BAM! card: a sentence with one or two blanks."""

    id: CardId
    text: str
    """The printed text; each blank is written "BAM!"."""
    blanks: int
    """How many grey cards fill it: 1 or 2 (the count of "BAM!" in ``text``)."""
    tags: tuple[str, ...] = ()
    """Content tags such as "family" or "spicy"."""
    template: str | None = None
    """An explicit rendering for the speaker where the automatic grammar fixer would be wrong."""


@dataclass(frozen=True)
class GreyCard:
    """A grey word card: a noun phrase that fills a blank."""

    id: CardId
    text: str
    """The printed text, usually without an article ("Short-statured circus artists")."""
    tags: tuple[str, ...] = ()
    """Content tags such as "family" or "spicy"."""
    number: Number | None = None
    """Grammatical number if given; None lets the realizer guess."""
    mass: bool = False
    """A mass noun ("porridge"): never "a", and it takes a singular verb."""
    proper: bool = False
    """A proper name ("Paris"): keeps its capitals mid-sentence."""
    article: Article | None = None
    """Preferred article if given; None lets the realizer choose."""


@dataclass(frozen=True)
class Deck:
    """Red and grey cards, loaded from one deck file or combined from several."""

    name: str
    """The deck's name ("base"; combined decks join names with "+")."""
    language: str
    """Language code of the card texts ("en")."""
    red: tuple[RedCard, ...]
    grey: tuple[GreyCard, ...]
    source: str
    """Where the cards came from: the file path, or several joined with " + "."""

    def numbered_red(self) -> list[tuple[int, RedCard]]:
        """Red cards with their printed numbers (1, 2, … in deck order)."""
        return list(enumerate(self.red, start=1))

    def numbered_grey(self) -> list[tuple[int, GreyCard]]:
        """Grey cards with their printed numbers (1, 2, … in deck order).

        With paper cards a player submits by saying the number, so the numbers depend only on the
        decks and tag filter given: print and play with the same ``--deck``/``--tag`` options.
        """
        return list(enumerate(self.grey, start=1))
