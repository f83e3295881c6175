"""The events of a Bim Bam Bum! game: what happened, as logged (JSON Lines) and announced.

Field names and meanings follow the event log format of issue 4; fields the issue does not ask
for are marked "extra". Every event also has "seq", "t" (game-clock seconds) and "type".
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from enum import Enum, StrEnum
from typing import Any, ClassVar, Mapping

from voicehost.rules.base import Event, GameOver, JsonObject, LogError, PlayerName, Resumed
from voicehost.rules.bimbambum.cards import Card
from voicehost.rules.bimbambum.state import State

GAME_NAME = "bimbambum"


class MistakeReason(Enum):
    """The five mistakes of the rulebook."""

    OUT_OF_TURN = "out_of_turn"
    TIMEOUT = "timeout"
    WRONG_WORD = "wrong_word"
    SLAPPED_OWN_CALL = "slapped_own_call"
    LAST_TO_SLAP = "last_to_slap"


class Illegal(StrEnum):
    """Reason codes of :class:`~voicehost.rules.base.IllegalAction` in Bim Bam Bum!."""

    BAD_ONSET = "bad_onset"
    BAD_PILE = "bad_pile"
    GAME_OVER = "game_over"
    NO_SLAP_RACE = "no_slap_race"
    NO_WINDOW = "no_window"
    NOT_SEATED = "not_seated"
    RACE_NOT_FINISHED = "race_not_finished"
    SLAP_RACE_OPEN = "slap_race_open"
    TIME_BACKWARDS = "time_backwards"
    UNKNOWN_ACTION = "unknown_action"
    WINDOW_OPEN = "window_open"


class EndReason(StrEnum):
    """Values of "reason" in "game_over"."""

    LAST_CARD = "last_card"
    TURN_CAP = "turn_cap"
    QUIT = "quit"


def snapshot(state: State) -> JsonObject:
    """The "state" object of the setup event: the position a replay starts from."""
    return {
        "decks": {p: [c.value for c in deck] for p, deck in zip(state.players, state.decks)},
        "piles": [[c.value for c in pile] for pile in state.piles],
        "direction": state.direction,
        "turn": state.turn,
        "boxed": len(state.box),
        "window": state.settings.window,
        "slap_window": state.settings.slap_window,
        "box": [c.value for c in state.box],  # extra: which cards, for per-kind accounting
        "turn_cap": state.settings.turn_cap,  # extra
    }


@dataclass(frozen=True)
class Setup(Event):
    """The deal: players, seed and the whole starting position."""

    TYPE: ClassVar[str] = "setup"
    game: str
    players: tuple[PlayerName, ...]
    seed: int
    state: Mapping[str, object]
    rules: int
    """Extra: the rulings version the game is played by (a log without it is version 1)."""

    def to_json(self) -> JsonObject:
        """As logged; version 1 wrote no "rules" field, so its setup stays as it was."""
        out = super().to_json()
        if self.rules == 1:
            del out["rules"]
        return out


@dataclass(frozen=True)
class RoundStarted(Event):
    """A round begins (the first one too): ``starter`` plays first."""

    TYPE: ClassVar[str] = "round"
    starter: PlayerName


@dataclass(frozen=True)
class TurnStarted(Event):
    """``player`` must play now; the time window opens at this event's t."""

    TYPE: ClassVar[str] = "turn"
    player: PlayerName
    card: Card
    """Extra: the player's top card, which the host announces."""


@dataclass(frozen=True)
class CardPlayed(Event):
    """The current player put their top card on a pile and yelled ``said``."""

    TYPE: ClassVar[str] = "play"
    player: PlayerName
    card: Card
    pile: int
    onset: float
    """Seconds: when the player's voice started."""
    visible: tuple[Card | None, ...]
    """The three pile tops after the card was placed."""
    expected: str
    said: str
    ok: bool
    left: int
    """Extra: cards left in the player's deck."""


@dataclass(frozen=True)
class Skipped(Event):
    """``player`` loses this turn (a word yelled twice)."""

    TYPE: ClassVar[str] = "skip"
    player: PlayerName


@dataclass(frozen=True)
class Reversed(Event):
    """Turn order flips (a word yelled thrice); ``direction`` is the new one."""

    TYPE: ClassVar[str] = "reverse"
    direction: int


@dataclass(frozen=True)
class Called(Event):
    """``player`` rightly yelled "BIM BAM BUM!": the slap race is open."""

    TYPE: ClassVar[str] = "bimbambum"
    player: PlayerName


@dataclass(frozen=True)
class Slapped(Event):
    """A slap inside the slap window (logged in onset order)."""

    TYPE: ClassVar[str] = "slap"
    player: PlayerName
    onset: float
    """Seconds: when the slap (clap, table slap or "ship") was heard."""


@dataclass(frozen=True)
class MistakeMade(Event):
    """``player`` made a mistake; the round ends with their penalty."""

    TYPE: ClassVar[str] = "mistake"
    player: PlayerName
    reason: MistakeReason
    onset: float | None = None
    """Extra, seconds: the onset of the play or slap that was the mistake; None if nothing was done."""


@dataclass(frozen=True)
class Penalised(Event):
    """The penalised player took the largest pile; the smallest went to the box."""

    TYPE: ClassVar[str] = "penalty"
    player: PlayerName
    took_pile: int | None
    took: int
    boxed_pile: int | None
    boxed: int
    cards: int
    """Extra: the player's deck size afterwards."""


@dataclass(frozen=True)
class GameEnded(GameOver):
    """The end: a winner on their last card, the turn cap, or a quit."""

    winner: PlayerName | None = None
    cards_left: Mapping[PlayerName, int] = field(default_factory=dict)


_BY_TYPE: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        Setup,
        RoundStarted,
        TurnStarted,
        CardPlayed,
        Skipped,
        Reversed,
        Called,
        Slapped,
        MistakeMade,
        Penalised,
        GameEnded,
        Resumed,
    )
}


def event_from_json(obj: JsonObject) -> Event:
    """The typed event of one log object (the inverse of ``to_json``); LogError naming the event
    (by seq) and field when it is not a Bim Bam Bum! event."""
    where = f"event seq {obj.get('seq', '?')}"
    cls = _BY_TYPE.get(obj.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise LogError(f"{where}: {obj.get('type')!r} is not a Bim Bam Bum! event")
    values: dict[str, Any] = {}
    try:
        for f in fields(cls):
            if f.name not in obj:
                if cls is Setup and f.name == "rules":
                    values["rules"] = 1  # a log written before the field: rules version 1
                elif f.default is MISSING and f.default_factory is MISSING:
                    raise LogError(f"{where}: {obj.get('type')} event lacks field {f.name!r}")
                continue
            values[f.name] = _field(f.name, obj[f.name])
        return cls(**values)
    except LogError:
        raise
    except (ValueError, TypeError, AttributeError) as error:
        raise LogError(f"{where}: {error}") from None


def _field(name: str, value: Any) -> Any:
    """One field's typed value."""
    if value is None:
        return None
    if name == "card":
        return Card(value)
    if name == "visible":
        return tuple(None if v is None else Card(v) for v in value)
    if name == "reason":
        return MistakeReason(value) if value in MistakeReason._value2member_map_ else EndReason(value)
    if name == "players":
        return tuple(value)
    return value
