"""What the realizer is given: grey card texts with optional grammar hints, and its errors.

The deck loader has its own card types; the realizer takes this small :class:`Filler` instead,
so the two can change independently (the host converts one to the other).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from voicehost.errors import InputError

MARKER = "BAM!"
"""How a red card marks a blank, exactly as the printed cards do."""

Number: TypeAlias = Literal["singular", "plural"]
"""Grammatical number of a grey card."""

Article: TypeAlias = Literal["a", "an", "the", "none"]
"""The article a grey card takes where a red card offers one ("none": never one)."""

NUMBERS: tuple[Number, ...] = ("singular", "plural")
ARTICLES: tuple[Article, ...] = ("a", "an", "the", "none")


class RealizeError(InputError):
    """A red card, grey card or template the realizer cannot turn into a sentence."""


class MissingBlank(RealizeError):
    """The red card has no BAM! to fill."""


class EmptyCard(RealizeError):
    """A red or grey card has no text."""


class WrongCardCount(RealizeError):
    """The number of grey cards differs from the number of blanks on the red card."""


class BadTemplate(RealizeError):
    """A red card's explicit template is malformed or does not match its blanks."""


class BadHint(RealizeError):
    """A grammar hint has a value the realizer does not know."""


@dataclass(frozen=True)
class Filler:
    """One grey card's text with the grammar hints of its deck entry.

    Every hint left as None is guessed from the text; a hint that is given always wins.
    """

    text: str
    """The card text as printed, e.g. "Short-statured circus artists"."""
    number: Number | None = None
    """"singular" or "plural": decides the verb after a subject blank and a/an."""
    mass: bool | None = None
    """True for a mass noun ("porridge"): never "a"/"an", and a singular verb."""
    proper: bool | None = None
    """True for a proper name ("Paris"): keeps its capitals and drops "a"/"the";
    False: an ordinary noun phrase even if it is capitalised."""
    article: Article | None = None
    """The article to use where the red card has "a"/"an" before the blank ("none": drop it)."""

    def __post_init__(self) -> None:
        if self.number is not None and self.number not in NUMBERS:
            raise BadHint(f"grey card {self.text!r}: number must be singular or plural, not {self.number!r}")
        if self.article is not None and self.article not in ARTICLES:
            raise BadHint(f"grey card {self.text!r}: article must be a, an, the or none, not {self.article!r}")


def as_filler(card: str | Filler) -> Filler:
    """A plain string is a grey card without hints."""
    return card if isinstance(card, Filler) else Filler(card)
