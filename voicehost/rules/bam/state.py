"""The state of a BAM! game: a frozen snapshot the host reads to prompt players and the master.

Every card is in exactly one place: the red or grey draw pile, a hand, the discard pile, a
player's won stack, on the table this round, or set aside with the cards of a player who left.

With table cards (:class:`CardMode`) the players hold printed grey cards: the state then knows how
many cards each hand and the draw pile hold, but not which; every card the host saw played (on
the table, won, discarded since the last reshuffle) is still known.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Mapping, Protocol, TypeAlias

from voicehost.rules.base import JsonObject, PlayerName, Seating

CardId: TypeAlias = str
"""A card's id as in the deck file ("r001", "g017")."""

GAME_NAME = "bam"
HAND_SIZE = 10
"""Grey cards in each hand (the rulebook's deal)."""
MIN_PLAYERS = 3
MAX_PLAYERS = 20
"""Supported table sizes. The deal needs ``players × hand size`` grey cards; hands stay full all
game while the deck holds at least ``players × hand size + rounds`` grey cards (the base deck:
20 players for 2 rounds each, 12 players for 10 rounds each)."""
MAX_BLANKS = 2


class CardMode(StrEnum):
    """Who holds the grey cards: the host (dealt, hands told privately) or the players (printed)."""

    DEALT = "dealt"
    """The host deals and knows every hand; a submission must come from the player's hand."""
    TABLE = "table"
    """Players hold printed grey cards and play them by the printed number; hands, draws and
    reshuffles are physical and unknown to the host (counts only)."""


class Phase(StrEnum):
    """What the game waits for."""

    SUBMITTING = "awaiting_submissions"
    """``BamState.waiting_for`` must submit."""
    JUDGING = "awaiting_judgement"
    """The master names the best and the worst of ``BamState.submissions``."""
    OVER = "over"


class EndReason(StrEnum):
    """Why a game ended."""

    ROUNDS_DONE = "rounds_done"
    """Every player has been master K times."""
    RED_CARDS_OUT = "red_cards_out"
    """No red card is left for the next round."""
    GREY_CARDS_OUT = "grey_cards_out"
    """Fewer than two players hold enough grey cards to fill the next red card."""
    QUIT = "quit"
    TOO_FEW_PLAYERS = "too_few_players"
    """Players left the game and fewer than :data:`MIN_PLAYERS` are still at the table."""


# ---------------------------------------------------------------------------------------- cards


class RedLike(Protocol):
    """What the engine needs of a red card (``voicehost.decks.RedCard`` has it)."""

    @property
    def id(self) -> CardId: ...
    @property
    def text(self) -> str: ...
    @property
    def blanks(self) -> int: ...


class GreyLike(Protocol):
    """What the engine needs of a grey card (``voicehost.decks.GreyCard`` has it)."""

    @property
    def id(self) -> CardId: ...
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class CardFace:
    """A card as the game and its log know it: text, colour and (red) number of blanks."""

    id: CardId
    text: str
    color: str
    """"red" or "grey"."""
    blanks: int = 0
    """Blanks on a red card (1 or 2); 0 for grey cards."""

    def to_json(self) -> JsonObject:
        out: JsonObject = {"text": self.text, "color": self.color}
        if self.color == "red":
            out["blanks"] = self.blanks
        return out


# ---------------------------------------------------------------------------------------- state


@dataclass(frozen=True)
class Submission:
    """One submission as the master hears it."""

    number: int
    """Reading number, from 1."""
    player: PlayerName
    cards: tuple[CardId, ...]
    """In blank order."""


@dataclass(frozen=True)
class Result:
    """The final standing."""

    reason: str
    scores: Mapping[PlayerName, int]
    grey_won: Mapping[PlayerName, int]
    winners: tuple[PlayerName, ...]


@dataclass(frozen=True)
class BamState:
    """Everything about a BAM! game at one moment. Every card is in exactly one place: a draw pile,
    a hand, the discard pile, a player's won stack, on the table this round, or set aside."""

    players: tuple[PlayerName, ...]
    """Seating, clockwise; 'left' is the next name."""
    seed: int
    rounds_per_player: int
    hand_size: int
    cards: Mapping[CardId, CardFace]
    red_deck: tuple[CardId, ...]
    """Top first."""
    grey_deck: tuple[CardId, ...]
    """Top first."""
    discard: tuple[CardId, ...]
    hands: Mapping[PlayerName, tuple[CardId, ...]]
    won_grey: Mapping[PlayerName, tuple[CardId, ...]]
    """Victory points."""
    won_red: Mapping[PlayerName, tuple[CardId, ...]]
    """Minus points."""
    master: PlayerName
    phase: Phase = Phase.SUBMITTING
    round: int = 0
    """Current round from 1 (0 before the first red card is revealed)."""
    red: CardId | None = None
    """The red card on the table, until the worst submission takes it."""
    round_players: tuple[PlayerName, ...] = ()
    """Who must submit this round, clockwise from the master's left."""
    submitted: Mapping[PlayerName, tuple[CardId, ...]] = field(default_factory=dict)
    """This round's submissions, in the order they came."""
    table: tuple[CardId, ...] = ()
    """Grey cards lying on the table this round."""
    reading: tuple[PlayerName, ...] = ()
    """Reading order once all submissions are in (first name: submission 1)."""
    result: Result | None = None
    seq: int = 0
    """Seq of the next event."""
    card_mode: CardMode = CardMode.DEALT
    """Dealt (hands known) or table cards (printed cards in the players' hands, unknown)."""
    grey_pile: int = 0
    """Table cards: grey cards in the physical draw pile (``grey_deck`` stays empty)."""
    held: Mapping[PlayerName, int] = field(default_factory=dict)
    """Table cards: grey cards each player holds (``hands`` stay empty)."""
    gone: tuple[PlayerName, ...] = ()
    """Players who left the game, in the order they left. They keep their seats in ``players``
    and their points, but hold no cards, submit, judge or win no more."""
    set_aside: tuple[CardId, ...] = ()
    """Grey cards out of the game: the hands and withdrawn submissions of players who left (with
    table cards only the withdrawn submissions are known; the hands go back in the box)."""
    mastered: Mapping[PlayerName, int] = field(default_factory=dict)
    """Rounds each player has been the BAM! Master so far (a voided round counts)."""

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase is Phase.OVER

    @property
    def seating(self) -> Seating:
        return Seating(self.players)

    @property
    def blanks(self) -> int:
        """Blanks on the current red card (0 between rounds)."""
        return self.cards[self.red].blanks if self.red else 0

    @property
    def waiting_for(self) -> tuple[PlayerName, ...]:
        """Players who still must submit this round, clockwise from the master's left."""
        if self.phase is not Phase.SUBMITTING:
            return ()
        return tuple(p for p in self.round_players if p not in self.submitted)

    @property
    def submissions(self) -> tuple[Submission, ...]:
        """The submissions in reading order, numbered from 1 (empty until all are in)."""
        return tuple(Submission(i, p, self.submitted[p]) for i, p in enumerate(self.reading, start=1))

    @property
    def scores(self) -> dict[PlayerName, int]:
        """Victory points minus minus points, now."""
        return {p: len(self.won_grey[p]) - len(self.won_red[p]) for p in self.players}

    @property
    def active(self) -> tuple[PlayerName, ...]:
        """The players still in the game, in seating order."""
        return tuple(p for p in self.players if p not in self.gone)

    @property
    def next_master(self) -> PlayerName:
        """Who is master next: the first player still in the game to the current master's left."""
        seating = self.seating
        return next(
            p for p in (seating.left_of(self.master, k) for k in range(1, len(self.players) + 1)) if p not in self.gone
        )

    def clockwise_after(self, player: PlayerName) -> tuple[PlayerName, ...]:
        """The players still in the game, clockwise from ``player``'s left (``player`` last, if in)."""
        seating = self.seating
        return tuple(
            p for p in (seating.left_of(player, k) for k in range(1, len(self.players) + 1)) if p not in self.gone
        )

    @property
    def rounds_total(self) -> int:
        """Rounds in a full game: every player still in it is master ``rounds_per_player`` times,
        plus the rounds mastered by those who left (without players who left: K × players)."""
        mastered_by_gone = sum(self.mastered.get(p, 0) for p in self.gone)
        return self.rounds_per_player * len(self.active) + mastered_by_gone

    @property
    def void(self) -> bool:
        """True when the round on the table cannot be judged: its master left, or fewer than two
        players are left to submit (best and worst must differ)."""
        return self.red is not None and (self.master in self.gone or len(self.round_players) < 2)

    @property
    def table_cards(self) -> bool:
        """True when players hold printed cards the host does not know."""
        return self.card_mode is CardMode.TABLE

    def hand_count(self, player: PlayerName) -> int:
        """How many grey cards ``player`` holds (known in both modes)."""
        return self.held[player] if self.card_mode is CardMode.TABLE else len(self.hands[player])

    @property
    def pile_count(self) -> int:
        """How many grey cards are in the draw pile (known in both modes)."""
        return self.grey_pile if self.card_mode is CardMode.TABLE else len(self.grey_deck)

    def out_of_play(self) -> frozenset[CardId]:
        """Grey cards nobody can hold as far as the host knows: on the table this round, won as
        victory points, discarded since the last reshuffle, or set aside with a player who left."""
        won = (c for stack in self.won_grey.values() for c in stack)
        return frozenset((*self.table, *won, *self.discard, *self.set_aside))

    def printed_grey(self) -> dict[int, CardId]:
        """Printed number → grey card id: the grey cards numbered 1, 2, … in deck order, as
        ``voicehost deck print`` numbers them (``Deck.numbered_grey``)."""
        grey = (c for c, face in self.cards.items() if face.color == "grey")
        return dict(enumerate(grey, start=1))


def final_result(state: BamState, reason: str) -> Result:
    """Scores, grey cards won and winners (ties: more grey cards won; still tied: shared title).

    Everyone's points are counted, but only players still in the game can win."""
    scores = state.scores
    grey_won = {p: len(state.won_grey[p]) for p in state.players}
    top = max((scores[p], grey_won[p]) for p in state.active)
    winners = tuple(p for p in state.active if (scores[p], grey_won[p]) == top)
    return Result(str(reason), scores, grey_won, winners)


def with_changes(state: BamState, **changes: Any) -> BamState:
    """A copy of ``state`` with ``changes``.

    Like ``dataclasses.replace`` but without re-running ``__init__`` over every field: this is the
    simulator's hot path (two thirds of its time went into ``replace``).
    """
    new = object.__new__(BamState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new
