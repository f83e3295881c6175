"""The cards of Bim Bam Bum!, the deal table, and what a player must yell for a card.

Three kinds of card, 18 of each; 18 extension cards join them for 8 players. The rulebook never
says what the extension cards show, so by default they are 6 of each kind (docs/rules.md); a
table that owns different ones can pass them in.
"""

from __future__ import annotations

from enum import Enum
from typing import Mapping, Sequence

from voicehost.errors import InputError
from voicehost.text import normalise


class Card(Enum):
    """A card's word; the value is the word as logged and as said (lower case)."""

    BIM = "bim"
    BAM = "bam"
    BUM = "bum"


class SetupError(InputError):
    """The game cannot be set up as asked (player count, names, decks, settings)."""


MIN_PLAYERS = 3
MAX_PLAYERS = 8
PER_KIND = 18
"""Cards of each kind in the base game."""
EXTENSION_SIZE = 18
"""Extension cards, used only with 8 players."""

CARDS_PER_PLAYER: Mapping[int, int] = {3: 18, 4: 13, 5: 10, 6: 9, 7: 7, 8: 9}
"""The rulebook's "Cards Per Player" table; what is left over goes back to the box."""

DEFAULT_EXTENSION: tuple[Card, ...] = tuple(card for card in Card for _ in range(EXTENSION_SIZE // 3))
"""Our reading of the unspecified extension cards: 6 BIM, 6 BAM, 6 BUM."""

CALL = "bim bam bum"
"""The phrase for three different visible cards."""


def player_count_problem(players: int) -> str:
    """Why ``players`` players cannot play, in one line."""
    if players > MAX_PLAYERS:
        return (
            f"Bim Bam Bum! is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}: the "
            f"rulebook's deal table stops at {MAX_PLAYERS} and gives no deal for more; play at two tables"
        )
    return f"Bim Bam Bum! is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"


def game_cards(players: int, extension: Sequence[Card] | None = None) -> list[Card]:
    """All cards used for ``players`` players, in a fixed order (the caller shuffles them)."""
    if players not in CARDS_PER_PLAYER:
        raise SetupError(player_count_problem(players))
    cards = [card for card in Card for _ in range(PER_KIND)]
    if players == MAX_PLAYERS:
        extra = DEFAULT_EXTENSION if extension is None else tuple(extension)
        if len(extra) != EXTENSION_SIZE or not all(isinstance(c, Card) for c in extra):
            raise SetupError(f"the extension must be {EXTENSION_SIZE} cards of bim/bam/bum, got {len(extra)}")
        cards.extend(extra)
    return cards


def is_call(visible: Sequence[Card | None]) -> bool:
    """True when the pile tops show exactly one BIM, one BAM and one BUM."""
    if len(visible) != 3 or None in visible:
        return False
    a, b, c = visible
    return a is not b and b is not c and a is not c


def expected_phrase(card: Card, visible: Sequence[Card | None]) -> str:
    """What the player who just put ``card`` on a pile must yell, given the tops after it.

    Three different tops call for "bim bam bum"; otherwise the word once per visible card of its
    kind (the played card included): "bam", "bam bam" or "bam bam bam".
    """
    if is_call(visible):
        return CALL
    return " ".join([card.value] * sum(1 for top in visible if top is card))


normalise_phrase = normalise
"""Lower case, punctuation and hyphens as spaces, one space between words
(:func:`voicehost.text.normalise`, the one normaliser): "Bim-bim!" and " BIM  bim " both become
"bim bim", the form ``expected_phrase`` gives."""


def parse_card(value: object, where: str) -> Card:
    """A card from its logged word; ``where`` names the place for the error message."""
    try:
        return Card(value)
    except ValueError:
        raise SetupError(f"{where}: {value!r} is not a card (bim, bam or bum)") from None
