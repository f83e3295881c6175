"""The events of Bim Bamm!: what happened, in the log's exact shape (see issue 3 and docs/rules.md).

Each class's fields are the log fields after "seq", "t" and "type", in order. Animals are
:class:`~voicehost.rules.bimbamm.tiles.Animal` (a ``str``), so they serialise as plain words.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar, Mapping

from voicehost.rules.base import Event, GameOver, JsonObject, LogError, PlayerName, Resumed
from voicehost.rules.bimbamm.tiles import Animal

GAME_NAME = "bimbamm"
"""The game's name in the setup event (and on the command line)."""

__all__ = [
    "GAME_NAME",
    "BimBammEvent",
    "ChallengeEvent",
    "EndReason",
    "Illegal",
    "ExchangeEvent",
    "FlipEvent",
    "FlipReason",
    "GameOverEvent",
    "LeftEvent",
    "MistakeEvent",
    "MistakeReason",
    "PointEvent",
    "RaceEvent",
    "Resumed",
    "SetupEvent",
    "ShoutEvent",
    "SwapEvent",
    "TurnEvent",
]


@dataclass(frozen=True)
class BimBammEvent(Event):
    """Base of this game's events: its JSON holds plain strings, not enum members."""

    def to_json(self) -> JsonObject:
        """As :meth:`Event.to_json`, with every animal and reason as a plain ``str``."""
        out: JsonObject = _plain_strings(super().to_json())
        return out


def _plain_strings(value: Any) -> Any:
    """Enum members (which are ``str`` subclasses here) turned into plain ``str``, recursively."""
    if isinstance(value, dict):
        return {str(k): _plain_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_strings(v) for v in value]
    if isinstance(value, StrEnum):
        return value.value
    return value


class Illegal(StrEnum):
    """Reason codes of :class:`~voicehost.rules.base.IllegalAction` in Bim Bamm!."""

    AWAITING_SCORER = "awaiting_scorer"
    BAD_ONSET = "bad_onset"
    BAD_REASON = "bad_reason"
    BAD_SCORE_TILES = "bad_score_tiles"
    BAD_TARGET = "bad_target"
    BAD_TIME = "bad_time"
    CARDS_KNOWN = "cards_known"
    GAME_OVER = "game_over"
    LEFT = "left_the_game"
    """The player has left the game (they shout, leave again, or are named for an exchange)."""
    NO_CLAIM = "no_claim"
    NO_RACE = "no_race"
    NO_SUCH_TILE = "no_such_tile"
    NOT_AN_ANIMAL = "not_an_animal"
    NOT_SCORER = "not_scorer"
    NOT_YOUR_TURN = "not_your_turn"
    RACE_OPEN = "race_open"
    RESTRICTED_TILE = "restricted_tile"
    SWAP_HAS_NO_TARGET = "swap_has_no_target"
    TIME_BACKWARDS = "time_backwards"
    UNKNOWN_ACTION = "unknown_action"
    UNKNOWN_PLAYER = "unknown_player"


class EndReason(StrEnum):
    """Values of "reason" in "game_over" (the host may end a game with a word of its own too)."""

    THREE_POINTS = "three_points"
    """A player reached three points."""
    QUIT = "quit"
    TURN_LIMIT = "turn_limit"
    """The simulator's (or a host's) turn limit."""
    TOO_FEW_PLAYERS = "too_few_players"
    """A player left and fewer than two are still in the game."""


class FlipReason(StrEnum):
    """Why a tile was turned: a player's turn, or a scorer turning two tiles of their animal."""

    TURN = "turn"
    SCORE = "score"


class MistakeReason(StrEnum):
    """The three mistakes of the rulebook."""

    WRONG_ANIMAL = "wrong_animal"
    """The shouted animal is not the one showing five (or more) times."""
    NO_CARD = "no_card"
    """The right animal, but the shouter does not hold its card."""
    NO_FIVE = "no_five"
    """No animal shows on five tiles at all."""


@dataclass(frozen=True)
class SetupEvent(BimBammEvent):
    """The game's start: seating and the complete starting state (tiles, cards, first player)."""

    TYPE: ClassVar[str] = "setup"
    game: str
    """Always "bimbamm"."""
    players: tuple[PlayerName, ...]
    """Seating order, clockwise: 'left' of a player is the next name."""
    seed: int
    """The seed the caller gave the RNG that shuffled the cards (and arranged default tiles)."""
    cards: str
    """Extra: "dealt" (the host deals and knows every card) or "table" (physical cards, unknown to
    the host: "hands" and "deck" below are null). A log without it is a dealt game."""
    state: JsonObject
    """The starting state: tiles, special, hands, deck (top first), points, turn, variant2p."""
    rules: int = 2
    """Extra: the rulings version the game is played by (a log without it is version 1)."""

    def to_json(self) -> JsonObject:
        """As logged; version 1 wrote no "rules" field, so its setup stays as it was."""
        out = super().to_json()
        if self.rules == 1:
            del out["rules"]
        return out


@dataclass(frozen=True)
class TurnEvent(BimBammEvent):
    """A player's turn begins: they flip a tile or use the special tile."""

    TYPE: ClassVar[str] = "turn"
    player: PlayerName


@dataclass(frozen=True)
class FlipEvent(BimBammEvent):
    """A tile was turned over."""

    TYPE: ClassVar[str] = "flip"
    player: PlayerName
    tile: int
    """Tile index, 0-14 in table order."""
    showing: Animal
    """The animal the tile shows now."""
    counts: Mapping[Animal, int]
    """How many tiles show each animal after the flip (all five animals, zeros included)."""
    reason: FlipReason


@dataclass(frozen=True)
class RaceEvent(BimBammEvent):
    """Five or more tiles show this animal: holders of its card may shout it."""

    TYPE: ClassVar[str] = "race"
    animal: Animal


@dataclass(frozen=True)
class ShoutEvent(BimBammEvent):
    """A player shouted an animal's name."""

    TYPE: ClassVar[str] = "shout"
    player: PlayerName
    animal: Animal
    onset: float
    """When the shout began: seconds on the same game clock as "t"."""
    in_race: bool = True
    """Extra: true when heard in a race window (judged with the race), false for a shout while no
    race window was open (judged against the table, never scoring)."""
    refuted: bool = False
    """Extra, table cards, rules 2: the table refuted this claim (logged only when true, because a
    player's second false claim in a window is no second mistake, so no "mistake" event says it)."""

    def to_json(self) -> JsonObject:
        out = super().to_json()
        if not self.refuted:
            del out["refuted"]
        return out


@dataclass(frozen=True)
class PointEvent(BimBammEvent):
    """A player scored: their card became a point and they drew a new one."""

    TYPE: ClassVar[str] = "point"
    player: PlayerName
    animal: Animal
    """The card won (the animal shouted)."""
    drew: Animal | None
    """The new card from the pile; null when the pile was empty, and always null with table cards
    (the scorer draws a physical card the host does not see)."""
    points: int
    """The player's points after this one."""
    shout: int
    """Extra: the seq of the shout that scored."""


@dataclass(frozen=True)
class MistakeEvent(BimBammEvent):
    """A shout was a mistake; the player's last won card (if any) went to the bottom of the pile."""

    TYPE: ClassVar[str] = "mistake"
    player: PlayerName
    reason: MistakeReason
    returned: Animal | None
    """The won card put back under the pile; null when the player had none."""
    shout: int
    """The seq of the shout this judges."""


@dataclass(frozen=True)
class ChallengeEvent(BimBammEvent):
    """Table cards: the table says the scorer does not hold the animal; their point is taken back.

    A "mistake" (no_card) for the same shout follows, then the next trusted claim's "point" or the
    next "turn".
    """

    TYPE: ClassVar[str] = "challenge"
    player: PlayerName
    animal: Animal
    """The animal the player claimed to hold."""
    shout: int
    """The seq of the shout that had scored."""
    points: int
    """The player's points after the point is taken back (before the mistake's penalty)."""
    refuted: tuple[int, ...] | None = None
    """Extra, rules 2: the seqs of the window's later claims the table also refuted (a player's
    second false claim in a window is no second mistake, so the "mistake" events do not say it)."""

    def to_json(self) -> JsonObject:
        out = super().to_json()
        if self.refuted is None:
            del out["refuted"]
        return out


@dataclass(frozen=True)
class SwapEvent(BimBammEvent):
    """SWAP: the player put their card under the pile and drew the top card."""

    TYPE: ClassVar[str] = "swap"
    player: PlayerName
    returned: Animal | None
    """The card put under the pile; null if the player held none (always null with table cards)."""
    drew: Animal | None
    """The card drawn; null if the pile was empty (always null with table cards)."""


@dataclass(frozen=True)
class ExchangeEvent(BimBammEvent):
    """EXCHANGE: the player swapped cards with a named player."""

    TYPE: ClassVar[str] = "exchange"
    player: PlayerName
    with_: PlayerName
    """The named player (logged as "with", a Python keyword)."""
    gave: Animal | None
    """The card the player gave away (null if they held none; always null with table cards)."""
    got: Animal | None
    """The card the player received (null if the other held none; always null with table cards)."""

    def to_json(self) -> JsonObject:
        """As the base, with the field ``with_`` written as "with"."""
        return {("with" if k == "with_" else k): v for k, v in super().to_json().items()}


@dataclass(frozen=True)
class LeftEvent(BimBammEvent):
    """A player left the game for good: their card and the cards they won went under the pile
    (held card first, then the won cards in the order won), so they have no points left.

    A "turn" follows when it was their turn or they were choosing tiles as the scorer (play goes on
    to their left); a "game_over" (too_few_players) when fewer than two players are left."""

    TYPE: ClassVar[str] = "left"
    player: PlayerName
    card: Animal | None
    """The card they held; null when they held none, and always null with table cards (the
    player's physical card goes under the pile unseen)."""
    won: tuple[Animal, ...]
    """The cards they had won (their points), in the order won."""


@dataclass(frozen=True)
class GameOverEvent(BimBammEvent, GameOver):
    """The game ended: someone reached 3 points, or the host stopped it (quit, a turn limit …)."""

    winner: PlayerName | None = None
    points: Mapping[PlayerName, int] | None = None
    """Points of every player, in seating order."""
    player: PlayerName | None = None
    """Extra: who quit, when a player ended the game."""

    def to_json(self) -> JsonObject:
        """Put "winner" and "points" first, then "reason", as in the issue's example."""
        out: dict[str, Any] = super().to_json()
        reason = out.pop("reason")
        player = out.pop("player")
        out["reason"] = reason
        out["player"] = player
        return out


# -- reading events back from the log -----------------------------------------------------------

_BY_TYPE: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        SetupEvent,
        TurnEvent,
        FlipEvent,
        RaceEvent,
        ShoutEvent,
        PointEvent,
        MistakeEvent,
        ChallengeEvent,
        SwapEvent,
        ExchangeEvent,
        LeftEvent,
        GameOverEvent,
        Resumed,
    )
}

_ANIMALS = frozenset({"showing", "animal", "drew", "returned", "gave", "got", "card"})
"""Fields holding an animal (or null)."""


def event_from_json(obj: JsonObject) -> Event:
    """The typed event of one log object (the inverse of ``to_json``); LogError naming the event
    and field when it is not a Bim Bamm! event."""
    where = f"event {obj.get('seq', '?')} ({obj.get('type', '?')})"
    cls = _BY_TYPE.get(obj.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise LogError(f"{where}: not a Bim Bamm! event")
    values: dict[str, Any] = {}
    try:
        for f in fields(cls):
            key = "with" if f.name == "with_" else f.name
            if key not in obj:
                if f.default is MISSING and f.default_factory is MISSING:
                    if cls is SetupEvent and key in ("cards", "rules"):
                        values[f.name] = "dealt" if key == "cards" else 1  # logs written before these fields
                        continue
                    raise LogError(f"{where}: missing field {key!r}")
                if cls is SetupEvent and key == "rules":
                    values[f.name] = 1
                continue
            values[f.name] = _field(cls, f.name, obj[key])
        return cls(**values)
    except (ValueError, TypeError) as error:
        if isinstance(error, LogError):
            raise
        raise LogError(f"{where}: {error}") from None


def _field(cls: type[Event], name: str, value: Any) -> Any:
    """One field's typed value."""
    if value is None:
        return None
    if name in _ANIMALS:
        return Animal(value)
    if name == "reason":
        if cls is FlipEvent:
            return FlipReason(value)
        if cls is MistakeEvent:
            return MistakeReason(value)
        return EndReason(value) if value in EndReason._value2member_map_ else str(value)
    if name == "won" and isinstance(value, list):
        return tuple(Animal(v) for v in value)
    if name == "counts":
        return {Animal(k): int(v) for k, v in value.items()}
    if name in ("players", "refuted") and isinstance(value, list):
        return tuple(value)
    return value
