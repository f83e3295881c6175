"""What players and the host can do in Bim Bamm!, as the host submits it to :func:`~.engine.apply`.

Every action carries ``t``, the game-clock seconds at which it happened (the caller's clock), as
its last field, required and keyword-only (``Flip("Ann", 3, t=12.5)``); the engine copies it into
the events it produces and refuses actions that go back in time.

The voice host drives a race like this: after a flip it sees phase RACE and the animals in
``state.race``, keeps the microphones open for its race window, then submits every shout it heard
in one :class:`ResolveRace`; the engine sorts them by onset and judges each one.

With table cards (players hold physical cards) the engine trusts the earliest shouter of a raced
animal; when the table says that player does not hold the card, the host submits
:class:`Challenge` (while the scorer chooses tiles) or, having asked before closing the window,
lists the claim in ``ResolveRace.refuted``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from voicehost.rules.base import PlayerName
from voicehost.rules.bimbamm.tiles import Animal


@dataclass(frozen=True)
class Flip:
    """A turn: turn over animal tile ``tile`` (0-14)."""

    player: PlayerName
    tile: int
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class UseSpecial:
    """A turn: use the special tile. SWAP takes no target; EXCHANGE needs another player's name."""

    player: PlayerName
    target: PlayerName | None = None
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class Call:
    """One shout heard during a race window."""

    player: PlayerName
    animal: Animal
    onset: float
    """When the shout began, seconds on the game clock."""


@dataclass(frozen=True)
class Refuted:
    """Table cards: the table saw that ``player`` does not hold ``animal``."""

    player: PlayerName
    animal: Animal


@dataclass(frozen=True)
class ResolveRace:
    """Close the open race window with every shout heard in it (possibly none)."""

    shouts: tuple[Call, ...] = ()
    refuted: tuple[Refuted, ...] = ()
    """Table cards only: claims the table has already rejected (the host asked a would-be winner
    to show the card before closing the window); those shouts are no_card mistakes."""
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class ScorerFlips:
    """The scorer turns over 2 different tiles showing the animal they scored with."""

    player: PlayerName
    tiles: tuple[int, int]
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class Shout:
    """A shout while no race window is open (during a turn or the scorer's choice)."""

    player: PlayerName
    animal: Animal
    onset: float
    """When the shout began, seconds on the game clock."""
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class Challenge:
    """Table cards: the table says the scorer does not hold the animal they scored with.

    Allowed while the scorer chooses their 2 tiles: the point is taken back, the shout becomes a
    no_card mistake, and the window's next claim (if any) is trusted instead.
    """

    player: PlayerName
    """The scorer whose claim is false."""
    refuted: tuple[Refuted, ...] = ()
    """Later claims of the window the table has also rejected (the host asked a would-be winner,
    see :func:`~.engine.next_claim`); those shouts become no_card mistakes too."""
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class Leave:
    """The table says a player has left (or skips a player who does not answer): they are out of
    the game for good (see :func:`~.engine.apply` and docs/rules.md, "A player who leaves").

    Not while a race is open: the host closes the race window first."""

    player: PlayerName
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class Quit:
    """End the game now without a winner (a player quits, or the host stops: e.g. a turn limit)."""

    player: PlayerName | None = None
    reason: str = "quit"
    """The game_over reason: "quit", or the host's own word such as "turn_limit"."""
    t: float = field(kw_only=True)


@dataclass(frozen=True)
class Resume:
    """A saved game was loaded and play continues (logged as a "resumed" event)."""

    t: float = field(kw_only=True)


Action = Flip | UseSpecial | ResolveRace | ScorerFlips | Shout | Challenge | Leave | Quit | Resume
"""Every action :func:`~.engine.apply` accepts."""
