"""What the three rules engines share: the Game interface, events, errors and the RNG protocol.

A game is ``apply(state, action) -> (state, events)`` over frozen dataclasses. The engine assigns
every event its ``seq`` (0, 1, 2, … kept in the state) and copies ``t`` from the action (seconds on
the game clock, chosen by the caller), so the event log it produces is complete and replayable.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import Enum, StrEnum
from typing import Any, Callable, ClassVar, Generic, Mapping, Protocol, Sequence, TypeAlias, TypeVar

from voicehost.errors import InputError

PlayerName: TypeAlias = str
"""A player's name, unique at the table; seating order is clockwise and 'left' is the next name."""

JsonObject: TypeAlias = dict[str, Any]
"""One event as written to the JSON Lines log."""


class Rng(Protocol):
    """The randomness a caller passes in (``random.Random(seed)`` satisfies it)."""

    def shuffle(self, x: list[Any]) -> None:
        """Shuffle ``x`` in place."""

    def random(self) -> float:
        """A float in [0, 1)."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """An int from range(start, stop, step)."""


class IllegalAction(InputError):
    """An action the rules do not allow now; the state is unchanged.

    ``reason`` is a member of the game's ``Illegal`` enum (a ``StrEnum``, so it also compares equal
    to its code, e.g. "not_your_turn")."""

    def __init__(self, reason: StrEnum, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class LogError(InputError):
    """An event log cannot be read or replayed; the message names the file and line."""


@dataclass(frozen=True)
class Event:
    """Base of every rule event. Subclasses set ``TYPE`` and add typed fields.

    ``to_json`` gives the log object: {"seq", "t", "type", **fields}.
    """

    TYPE: ClassVar[str] = "event"
    seq: int
    """Position in the game's event log, from 0."""
    t: float
    """Game-clock seconds (from the caller)."""

    def to_json(self) -> JsonObject:
        """The JSON object for the log (fields in declaration order after seq, t, type)."""
        out: JsonObject = {"seq": self.seq, "t": self.t, "type": self.TYPE}
        for f in fields(self):
            if f.name not in ("seq", "t"):
                out[f.name] = _plain(getattr(self, f.name))
        return out


@dataclass(frozen=True)
class Resumed(Event):
    """A saved game was loaded and continues from here."""

    TYPE: ClassVar[str] = "resumed"


@dataclass(frozen=True)
class GameOver(Event):
    """Common shape of the end of a game; each game adds its own fields."""

    TYPE: ClassVar[str] = "game_over"
    reason: str = "quit"


def _plain(value: Any) -> Any:
    """Turn tuples, frozen mappings, enums and dataclasses into JSON-ready values."""
    if isinstance(value, Enum):
        return value.value
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


S = TypeVar("S")
A = TypeVar("A")


class Game(Protocol, Generic[S, A]):
    """The one interface every game's rules offer; the host, the CLI, the simulator and replay use it.

    Each rules package exports ``GAME`` (no RNG: enough to replay, judge and resume) and the class
    behind it; :meth:`seeded` gives the same rules drawing their randomness (deal, shuffles) from a
    caller's seeded RNG. A game's life: :meth:`new_game` gives the setup events, :meth:`apply` the
    events of each action, :meth:`replay` the state a log's events lead to.

    One shape for actions (``A``), in all three games: a frozen dataclass whose last field is
    ``t: float = field(kw_only=True)``, the game-clock seconds at which it happened (chosen by the
    caller), required and passed by keyword, e.g. ``Flip("Ann", 3, t=12.5)``.
    """

    name: str
    """The game's name in the registry and in its logs ('bimbamm', 'bimbambum' or 'bam')."""

    def seeded(self, rng: Rng) -> "Game[S, A]":
        """These rules with their randomness from ``rng`` (seeded by the caller)."""

    def new_game(
        self,
        players: Sequence[PlayerName],
        seed: int,
        *,
        first_player: PlayerName | None = None,
        t: float = 0.0,
        **options: Any,
    ) -> tuple[S, list[Event]]:
        """Set up a game (``seed`` is only recorded: the RNG given to :meth:`seeded` was seeded with
        it); ``first_player`` is the host's choice of who starts where the rules let the host choose;
        ``options`` are the game's own (tiles, settings, cards …). Returns the state and the setup events."""

    def apply(self, state: S, action: A) -> tuple[S, list[Event]]:
        """Apply one action; raise IllegalAction (state unchanged) if the rules forbid it."""

    def over(self, state: S) -> bool:
        """True once the game has ended."""

    def resume(self, state: S, t: float) -> tuple[S, list[Event]]:
        """Mark a loaded game as continuing at ``t`` (a "resumed" event)."""

    def event_from_json(self, obj: JsonObject) -> Event:
        """The typed event for one log object; LogError if it is not one of this game's events."""

    def replay(self, log: Sequence[JsonObject]) -> S:
        """Rebuild the state from a log's events (setup first); raise LogError if inconsistent."""


@dataclass
class Rules(Generic[S, A]):
    """A rules package's functions behind the :class:`Game` interface (Bim Bamm! and Bim Bam Bum!
    export ``GAME = Rules(...)``; BAM!'s engine is a class of its own that satisfies it)."""

    name: str
    """The game's name in the registry and its logs."""
    title: str
    """The game's name as players read it, for messages ("Bim Bamm!")."""
    deal: Callable[..., tuple[S, list[Event]]]
    """``new_game(players, rng, seed, *, first_player, t, **options)``."""
    act: Callable[[S, A], tuple[S, list[Event]]]
    """``apply(state, action)``."""
    resumed: Callable[[float], A]
    """The action that marks a loaded game as continuing at ``t``."""
    ended: Callable[[S], bool]
    """True once the game is over."""
    read_event: Callable[[JsonObject], Event]
    """The typed event of one log object."""
    rebuild: Callable[[Sequence[JsonObject]], S]
    """The state a log's events lead to."""
    setup_error: Callable[[str], InputError]
    """The game's own error for a game that cannot start."""
    rng: Rng | None = None
    """The randomness that deals (None: enough to replay, judge and resume, not to deal)."""

    def seeded(self, rng: Rng) -> Rules[S, A]:
        """These rules dealing with ``rng``."""
        return replace(self, rng=rng)

    def new_game(
        self,
        players: Sequence[PlayerName],
        seed: int,
        *,
        first_player: PlayerName | None = None,
        t: float = 0.0,
        **options: Any,
    ) -> tuple[S, list[Event]]:
        """Deal (the game's own ``new_game`` documents its options)."""
        if self.rng is None:
            raise self.setup_error(f"{self.title} needs a seeded RNG to deal: use GAME.seeded(rng)")
        return self.deal(players, self.rng, seed, first_player=first_player, t=t, **options)

    def apply(self, state: S, action: A) -> tuple[S, list[Event]]:
        """Apply one action; raise IllegalAction (state unchanged) if the rules forbid it."""
        return self.act(state, action)

    def over(self, state: S) -> bool:
        """True once the game has ended."""
        return self.ended(state)

    def resume(self, state: S, t: float) -> tuple[S, list[Event]]:
        """The "resumed" event of a loaded game (an open window starts again at ``t``)."""
        return self.act(state, self.resumed(t))

    def event_from_json(self, obj: JsonObject) -> Event:
        """The typed event of one log object; LogError if it is not one of this game's events."""
        return self.read_event(obj)

    def replay(self, log: Sequence[JsonObject]) -> S:
        """Rebuild the state from a log's events; raise LogError if they do not follow the rules."""
        return self.rebuild(log)


@dataclass(frozen=True)
class Seating:
    """Players in clockwise order; 'left' of a player is the next name."""

    players: tuple[PlayerName, ...] = field(default_factory=tuple)

    def left_of(self, player: PlayerName, steps: int = 1) -> PlayerName:
        """The player ``steps`` seats to the left (negative: to the right)."""
        i = self.players.index(player)
        return self.players[(i + steps) % len(self.players)]
