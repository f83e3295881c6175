"""The state of a Bim Bamm! game: a frozen snapshot the host reads to prompt players.

Per-seat data (hands, won cards) is kept in tuples indexed by seat; the ``*_by_name`` views and
:meth:`State.to_json` give name-keyed dictionaries for the host and the log.

A game is played with dealt cards (the host deals and knows every card) or with table cards
(players hold physical cards the host never sees; see :class:`Cards` and docs/rules.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from voicehost.rules.base import JsonObject, PlayerName
from voicehost.rules.bimbamm.tiles import ANIMALS, Animal, Side, Special, Tile

FIVE = 5
"""Tiles showing one animal that open a race."""

WINNING_POINTS = 3
"""Points that win at once."""

MIN_PLAYERS = 2
MAX_PLAYERS = 8

RULES_VERSION = 2
"""The rulings a new game is played by, logged in the setup event as "rules". Version 1 (before
issue 14): every wrong shout in a race window was a mistake, a scorer's later shout of the card
just drawn was no_card, and the 2-player rule followed turn flips only. Version 2: one mistake
per player per window, that shout is late, and the 2-player rule follows everything the previous
player revealed (turn flip and scorer's flips). A log without the field replays by version 1."""


class Cards(StrEnum):
    """Who holds the animal cards: the host (dealt) or the players' hands on the table."""

    DEALT = "dealt"
    """The host deals and knows every card: hands and pile are tracked, no_card is judged."""
    TABLE = "table"
    """Players hold physical cards the host never sees: hands and pile are unknown, the earliest
    shouter of a raced animal is trusted to hold it, and the host reports a false claim."""


class Phase(StrEnum):
    """What the game waits for; the host prompts accordingly."""

    TURN = "turn"
    """``turn`` flips a tile or uses the special tile."""
    RACE = "race"
    """A race is open for ``race``: the host gathers shouts, then submits ResolveRace."""
    SCORER = "scorer"
    """``scorer`` must choose 2 tiles showing ``scored`` to turn over."""
    OVER = "over"
    """The game has ended (``winner`` is set, or null after a quit)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A shout of a raced animal, read as the claim "I hold this card" (table cards only)."""

    player: PlayerName
    animal: Animal
    shout: int
    """The seq of the shout event."""


@dataclass(frozen=True, slots=True)
class Declaration:
    """The scorer's trusted claim, open to a challenge until they turn their tiles (table cards).

    If the table says the scorer does not hold the card, the point is taken back and the next
    claim of the same race window is trusted in turn; with none left, play goes on to the left of
    ``actor``.
    """

    actor: PlayerName
    """Whose flip opened the race (or the last scorer, in a chain): play continues to their left
    when nobody keeps a point."""
    shout: int
    """The seq of the scorer's shout."""
    later: tuple[Claim, ...] = ()
    """The window's later claims of raced animals, in onset order."""
    erred: tuple[PlayerName, ...] = ()
    """Who already made a mistake in that window: one mistake per player per window (rules 2)."""


@dataclass(frozen=True, slots=True)
class Owed:
    """What the action whose events are being folded must log next (bookkeeping of
    :func:`~.replay.evolve`: the engine and a replay build it alike, the host never reads it).

    ``events`` are the event types that may come next; a specific "mistake" or "point" names its
    player, reason or animal and shout, the scorer's second "flip" the tile already turned (which
    may not be turned twice). ``optional``: the action may also end here (a table-cards claim of
    rules 1 that the table may have refuted, logged only as a "mistake" right after the shout)."""

    events: tuple[str, ...]
    player: PlayerName | None = None
    reason: str | None = None
    animal: Animal | None = None
    shout: int = -1
    tile: int = -1
    optional: bool = False


@dataclass(frozen=True, slots=True)
class RaceWindow:
    """A race window a ResolveRace is judging, from its first shout to its last event (fold
    bookkeeping, see :class:`Owed`): the shouts come in onset order and are judged on the race and
    the cards held when it opened."""

    race: tuple[Animal, ...]
    """The animals raced."""
    actor: PlayerName
    """Whose flip opened the race: play continues to their left if nobody scores."""
    onset: float = -math.inf
    """The last shout's onset."""
    erred: tuple[PlayerName, ...] = ()
    """Who made a mistake in this window so far."""
    scored: bool = False
    """Someone has scored in this window."""
    refuted: frozenset[tuple[PlayerName, Animal]] = frozenset()
    """Table cards: the claims (player, animal) the table refuted in this window: every shout of
    such a claim is a no_card mistake."""
    trusted: frozenset[tuple[PlayerName, Animal]] = frozenset()
    """Table cards: the claims found valid in this window (rules 1 logs a refuted claim only by
    its mistake, so a claim neither refuted nor trusted yet may still be either)."""


@dataclass(frozen=True, slots=True)
class ChallengeWindow:
    """A challenged scorer's race window being judged again, from the "challenge" event to the
    action's last event (fold bookkeeping, see :class:`Owed`)."""

    actor: PlayerName
    """The declaration's actor: play continues to their left if no claim is kept."""
    player: PlayerName
    """The challenged scorer."""
    animal: Animal
    """The animal they claimed."""
    claims: tuple[Claim, ...]
    """The window's later claims not yet judged, in onset order."""
    refuted: frozenset[tuple[PlayerName, Animal]]
    """The claims (player, animal) judged no_card: the challenged one, and those the table refuted
    too (rules 2: all listed by the challenge; rules 1: known only by their "mistake" events)."""
    complete: bool
    """Whether ``refuted`` is the whole list (rules 2)."""
    erred: tuple[PlayerName, ...]
    """Who made a mistake in that window so far."""
    kept: tuple[Claim, ...] = ()
    """Claims judged so far and still trusted, in onset order."""


@dataclass(frozen=True)
class State:
    """Everything the rules know. Build the first one with :func:`~.engine.new_game`."""

    players: tuple[PlayerName, ...]
    """Seating order, clockwise; 'left' of a player is the next name."""
    tiles: tuple[Tile, ...]
    """The 15 animal tiles in table order (index 0-14)."""
    special: Special
    """The special tile's side facing up."""
    hands: tuple[Animal | None, ...]
    """Each seat's secret card; None while a player holds none (pile was empty when they drew).
    With table cards every entry is None: the host does not know (see ``cards``)."""
    deck: tuple[Animal, ...]
    """The face-down pile, top first; always empty with table cards (the pile is physical)."""
    points: tuple[tuple[Animal, ...], ...]
    """Each seat's won cards, in the order won (a mistake returns the last one)."""
    turn: PlayerName
    """Whose turn it is (phase TURN); during a race or a scorer's flips, whose action is being
    resolved (the last scorer, else the player who flipped): play continues to their left."""
    variant2p: bool
    """The 2-player rule: no flipping a tile that shows the animal the other player last revealed."""
    seed: int = 0
    """The seed recorded in the setup event."""
    phase: Phase = Phase.TURN
    race: tuple[Animal, ...] = ()
    """Animals a race is open for (phase RACE), in Animal order."""
    scorer: PlayerName | None = None
    """Who must turn 2 tiles (phase SCORER)."""
    scored: Animal | None = None
    """The animal the scorer scored with, whose tiles they turn (phase SCORER)."""
    restricted: tuple[Animal, ...] = ()
    """The animals the previous player revealed, in order: with rules 2 every tile they turned
    since the other player last acted (turn flip and scorer's flips); with rules 1 the last turn
    flip's animal. Empty after a special-tile turn."""
    restricted_by: PlayerName | None = None
    """Who revealed ``restricted``: the 2-player rule binds only the other player."""
    winner: PlayerName | None = None
    seq: int = 0
    """The seq the next event gets."""
    last_t: float = 0.0
    """Game-clock seconds of the last action; actions may not go back in time."""
    cards: Cards = Cards.DEALT
    """Dealt cards (known to the host) or table cards (physical, unknown)."""
    declaration: Declaration | None = None
    """Table cards, phase SCORER: the scorer's claim, which the host may still challenge."""
    rules: int = RULES_VERSION
    """Which rulings apply (see :data:`RULES_VERSION`); version 1 only to replay old logs."""
    gone: tuple[PlayerName, ...] = ()
    """Players who left the game, in the order they left: they keep their seat in ``players``
    but hold no card, have no points, are skipped by the turn and may no longer shout."""
    owed: Owed | None = None
    """Bookkeeping of the fold: what the action being logged must log next; None when it may end
    here (always so between two actions, except inside a table-cards rules-1 race, see Owed)."""
    window: RaceWindow | ChallengeWindow | None = None
    """Bookkeeping of the fold: the race window whose shouts a ResolveRace or a Challenge is
    judging (cleared by the next action's first event)."""
    tally: tuple[tuple[Tile, ...], tuple[int, ...]] | None = field(default=None, compare=False, repr=False)
    """A cache of :meth:`counts` with the very tiles tuple it counted (a copy with other tiles
    does not use it); :func:`~.replay.evolve` keeps it up to date flip by flip."""

    # -- views for the host -------------------------------------------------------------------

    def seat(self, player: PlayerName) -> int:
        """The seat index of a player (ValueError if unknown)."""
        return self.players.index(player)

    def left_of(self, player: PlayerName) -> PlayerName:
        """The next player clockwise still in the game (``player`` may have left)."""
        seat, n = self.seat(player), len(self.players)
        if not self.gone:
            return self.players[(seat + 1) % n]
        return next((p for k in range(1, n + 1) if (p := self.players[(seat + k) % n]) not in self.gone), player)

    @property
    def active(self) -> tuple[PlayerName, ...]:
        """The players still in the game, in seating order."""
        return tuple(p for p in self.players if p not in self.gone)

    def hand(self, player: PlayerName) -> Animal | None:
        """The card a player holds."""
        return self.hands[self.seat(player)]

    def won(self, player: PlayerName) -> tuple[Animal, ...]:
        """The cards a player has won."""
        return self.points[self.seat(player)]

    def score(self, player: PlayerName) -> int:
        """A player's points."""
        return len(self.won(player))

    @property
    def to_act(self) -> PlayerName | None:
        """Who must act next (the turn player or the scorer); None during a race or when over."""
        if self.phase is Phase.TURN:
            return self.turn
        if self.phase is Phase.SCORER:
            return self.scorer
        return None

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase is Phase.OVER

    def counts(self) -> dict[Animal, int]:
        """Tiles showing each animal, every animal listed (zeros too) in Animal order."""
        return dict(zip(ANIMALS, self.tallied()))

    def tallied(self) -> tuple[int, ...]:
        """The counts in Animal order, from the cache when it counted these tiles."""
        tally = self.tally
        if tally is not None and tally[0] is self.tiles:
            return tally[1]
        out = dict.fromkeys(ANIMALS, 0)
        for tile in self.tiles:
            out[tile.white if tile.up is Side.WHITE else tile.black] += 1
        return tuple(out.values())

    def fives(self) -> tuple[Animal, ...]:
        """Animals showing on five or more tiles, in Animal order."""
        return tuple(a for a, n in self.counts().items() if n >= FIVE)

    @property
    def table_cards(self) -> bool:
        """True when players hold physical cards the host does not know."""
        return self.cards is Cards.TABLE

    def hands_by_name(self) -> dict[PlayerName, Animal | None]:
        """Every player's card by name, in seating order (all None with table cards)."""
        return dict(zip(self.players, self.hands))

    def points_by_name(self) -> dict[PlayerName, int]:
        """Every player's points by name, in seating order."""
        return {p: len(w) for p, w in zip(self.players, self.points)}

    def to_json(self) -> JsonObject:
        """The state in the setup event's shape, plus the phase fields (extras).

        With table cards "hands" and "deck" are null: unknown, unlike a hand of null (no card).
        """
        table = self.cards is Cards.TABLE
        out: dict[str, Any] = {
            "tiles": [t.to_json() for t in self.tiles],
            "special": self.special.value,
            "hands": None if table else {p: (h.value if h else None) for p, h in zip(self.players, self.hands)},
            "deck": None if table else [c.value for c in self.deck],
            "points": {p: [c.value for c in w] for p, w in zip(self.players, self.points)},
            "turn": self.turn,
            "variant2p": self.variant2p,
            "phase": self.phase.value,
            "race": [a.value for a in self.race],
            "scorer": self.scorer,
            "scored": self.scored.value if self.scored else None,
            "restricted": [a.value for a in self.restricted],
            "restricted_by": self.restricted_by,
            "winner": self.winner,
            "cards": self.cards.value,
            "gone": list(self.gone),
        }
        return out


_FIELDS = frozenset(f.name for f in fields(State))


def changed(state: State, **changes: Any) -> State:
    """``dataclasses.replace`` for the hot path: a copy with some fields changed, ~5x faster.

    Only :func:`~.replay.evolve` (and tests building positions) change a state; this is its tool.

    It skips ``__init__`` (State has no validation there) but still refuses unknown field names.
    """
    unknown = changes.keys() - _FIELDS
    if unknown:
        raise TypeError(f"State has no field(s) {', '.join(sorted(unknown))}")
    new = object.__new__(State)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new
