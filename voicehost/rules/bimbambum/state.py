"""The state of a Bim Bam Bum! game: a frozen snapshot the engine replaces on every action.

It also answers what the voice host must know between actions: whose turn it is, each player's
top card, the visible pile tops, the phase, the open windows, and what the current player would
have to yell on each pile (the host's "help").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias

from voicehost.rules.base import PlayerName
from voicehost.rules.bimbambum.cards import Card, SetupError, expected_phrase

Deck: TypeAlias = tuple[Card, ...]
"""A player's deck, top card first (only the top is visible)."""
Pile: TypeAlias = tuple[Card, ...]
"""A pile in the middle, bottom card first (the last card is the visible top)."""

PILES = 3

RULES_VERSION = 2
"""The rulings a new game is played by, logged in the setup event as "rules". 1: before issue 14
(an empty pile spot counted as the smallest pile, so nothing was boxed beside it); 2: the smallest
pile that holds cards is boxed. A log without the field is version 1 and replays by those rules."""


class Phase(Enum):
    """What the engine waits for."""

    PLAY = "play"
    """The current player's card (a Play), or a Timeout when the window has closed."""
    SLAP = "slap"
    """A right "BIM BAM BUM!" was yelled: the result of the slap race (a SlapRace)."""
    OVER = "over"
    """The game has ended; every action is rejected."""


@dataclass(frozen=True)
class Settings:
    """The table's agreements, fixed for the whole game."""

    window: float | None = 3.0
    """Seconds a player has to play, counted from the "turn" event; None: no time window."""
    slap_window: float = 2.0
    """Seconds after the "bimbambum" event in which slaps count."""
    turn_cap: int | None = None
    """Most "turn" events before the game is stopped as endless (reason "turn_cap"); None: no cap."""
    rules: int = RULES_VERSION
    """Which rulings apply (see :data:`RULES_VERSION`); older ones only to replay old logs."""

    def __post_init__(self) -> None:
        if self.rules not in (1, RULES_VERSION):
            raise SetupError(f"rules version {self.rules} is unknown: this voicehost plays 1 to {RULES_VERSION}")
        if self.window is not None and not (math.isfinite(self.window) and self.window > 0):
            raise SetupError(f"the time window must be a positive number of seconds, not {self.window}")
        if not (math.isfinite(self.slap_window) and self.slap_window > 0):
            raise SetupError(f"the slap window must be a positive number of seconds, not {self.slap_window}")
        if self.turn_cap is not None and self.turn_cap < 1:
            raise SetupError(f"the turn cap must be at least 1, not {self.turn_cap}")


@dataclass(frozen=True)
class State:
    """Everything the rules need to go on; replaced, never changed."""

    players: tuple[PlayerName, ...]
    """Seating order, clockwise."""
    decks: tuple[Deck, ...]
    """One deck per seat, in seating order."""
    piles: tuple[Pile, ...]
    """The three piles 0, 1, 2."""
    box: tuple[Card, ...]
    """Cards out of the game: excess of the deal and boxed smallest piles, in the order boxed."""
    turn: PlayerName
    """The player whose card the engine waits for (in a slap race: the caller)."""
    direction: int = 1
    """+1 clockwise (to the next name in ``players``), -1 counterclockwise."""
    phase: Phase = Phase.PLAY
    settings: Settings = Settings()
    seed: int = 0
    """The seed the deal was shuffled with (recorded only)."""
    seq: int = 0
    """The ``seq`` of the next event."""
    t: float = 0.0
    """Game-clock seconds of the last event; actions may not go back before it."""
    window_opens: float = 0.0
    """Seconds: the "turn" event's time, when the current play window opened."""
    caller: PlayerName | None = None
    """Who yelled the open "BIM BAM BUM!" (slap phase only)."""
    slap_opens: float | None = None
    """Seconds: slaps count from here (the caller's voice onset; after a resume, the resume)."""
    slap_closes: float | None = None
    """Seconds: slaps count up to here (the "bimbambum" event's t plus the slap window)."""
    turns: int = 0
    """"turn" events so far, not counting the repeat after a resume."""
    rounds: int = 0
    """"round" events so far (the first round included)."""
    winner: PlayerName | None = None
    resuming: bool = False
    """True right after a "resumed" event: the next "turn" event repeats the open turn (not counted)."""

    def seat(self, player: PlayerName) -> int:
        """The player's index in the seating order."""
        return self.players.index(player)

    def deck(self, player: PlayerName) -> Deck:
        """The player's deck, top first."""
        return self.decks[self.seat(player)]

    def top(self, player: PlayerName) -> Card | None:
        """The player's visible top card (None only for a winner who has played out)."""
        deck = self.deck(player)
        return deck[0] if deck else None

    @property
    def tops(self) -> dict[PlayerName, Card | None]:
        """Every player's top card."""
        return {player: self.top(player) for player in self.players}

    @property
    def visible(self) -> tuple[Card | None, ...]:
        """The top card of each pile (None for an empty pile)."""
        return tuple(pile[-1] if pile else None for pile in self.piles)

    @property
    def cards_left(self) -> dict[PlayerName, int]:
        """Cards in each player's deck."""
        return {player: len(deck) for player, deck in zip(self.players, self.decks)}

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase is Phase.OVER

    @property
    def is_over(self) -> bool:
        """The old name of :attr:`over` (``host/fixtures.py`` still reads it)."""
        return self.over

    @property
    def window_closes(self) -> float | None:
        """Seconds: the latest onset of an on-time play (None without a time window)."""
        if self.settings.window is None:
            return None
        return self.window_opens + self.settings.window

    def next_player(self, player: PlayerName, steps: int = 1, direction: int | None = None) -> PlayerName:
        """The player ``steps`` turns after ``player`` in the (given or current) direction."""
        way = self.direction if direction is None else direction
        return self.players[(self.seat(player) + way * steps) % len(self.players)]

    def after(self, player: PlayerName) -> tuple[PlayerName, ...]:
        """The other players in turn order, starting with the one after ``player``."""
        return tuple(self.next_player(player, k) for k in range(1, len(self.players)))

    def expected(self, pile: int) -> str:
        """What the current player must yell if they put their top card on ``pile``."""
        card = self.top(self.turn)
        if card is None:
            return ""
        visible = list(self.visible)
        visible[pile] = card
        return expected_phrase(card, visible)

    @property
    def expected_phrases(self) -> tuple[str, ...]:
        """``expected(pile)`` for piles 0, 1, 2: what the host's "help" can say."""
        return tuple(self.expected(pile) for pile in range(PILES))
