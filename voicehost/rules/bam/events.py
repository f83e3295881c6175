"""The events of a BAM! game, as logged (JSON Lines), and their parsing back from the log.

With table cards the host does not know hands, draws or reshuffled piles: the setup logs "hands"
and "grey_deck" as null with a "grey_pile" count, a draw logs "cards": null with a "count", and a
reshuffle logs "deck": null.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import ClassVar, Mapping

from voicehost.rules.bam.state import GAME_NAME, HAND_SIZE, CardFace, CardId
from voicehost.rules.base import Event, GameOver, JsonObject, PlayerName, Resumed


class Inconsistent(ValueError):
    """An event does not fit the state it is applied to (a corrupt or foreign log)."""


@dataclass(frozen=True)
class SetupState:
    """The dealt table at the start, as logged in the setup event."""

    red_deck: tuple[CardId, ...]
    """Top first."""
    grey_deck: tuple[CardId, ...] | None
    """Top first, after the deal; None (null) with table cards: the pile is physical."""
    hands: Mapping[PlayerName, tuple[CardId, ...]] | None
    """None (null) with table cards: players hold printed cards the host does not know."""
    master: PlayerName
    grey_pile: int | None = None
    """Table cards only: how many grey cards the physical draw pile holds after the deal."""

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "red_deck": list(self.red_deck),
            "grey_deck": None if self.grey_deck is None else list(self.grey_deck),
            "hands": None if self.hands is None else {p: list(h) for p, h in self.hands.items()},
            "master": self.master,
        }
        if self.grey_pile is not None:
            out["grey_pile"] = self.grey_pile
        return out


@dataclass(frozen=True)
class GameSetup(Event):
    """The game starts: seating, options, the shuffled decks, the hands and every card's text."""

    TYPE: ClassVar[str] = "setup"
    game: str
    players: tuple[PlayerName, ...]
    seed: int
    rounds_per_player: int
    hand_size: int
    state: SetupState
    cards: Mapping[CardId, CardFace]
    """Every card's face, red then grey, each in deck order (grey order = printed numbers)."""
    card_mode: str = "dealt"
    """"dealt" (the host deals and knows hands) or "table" (printed cards); a log without it is dealt."""


@dataclass(frozen=True)
class RoundStarted(Event):
    """The master reveals the top red card."""

    TYPE: ClassVar[str] = "round"
    master: PlayerName
    red: CardId
    blanks: int
    number: int
    """Round number from 1."""
    players: tuple[PlayerName, ...]
    """Who must submit this round, clockwise from the master's left."""


@dataclass(frozen=True)
class Submitted(Event):
    """A player laid down grey cards (in blank order)."""

    TYPE: ClassVar[str] = "submit"
    player: PlayerName
    cards: tuple[CardId, ...]


@dataclass(frozen=True)
class ReadingOrder(Event):
    """All submissions are in; the master will hear them in this order (first name: submission 1)."""

    TYPE: ClassVar[str] = "reading"
    order: tuple[PlayerName, ...]


@dataclass(frozen=True)
class BestChosen(Event):
    """The best submission's player keeps ``card`` as a victory point."""

    TYPE: ClassVar[str] = "best"
    player: PlayerName
    card: CardId
    submission: int
    """Its reading number."""


@dataclass(frozen=True)
class WorstChosen(Event):
    """The worst submission's player takes the red ``card`` as a minus point."""

    TYPE: ClassVar[str] = "worst"
    player: PlayerName
    card: CardId
    submission: int
    """Its reading number."""


@dataclass(frozen=True)
class Discarded(Event):
    """The other grey cards played this round go to the discard pile."""

    TYPE: ClassVar[str] = "discard"
    cards: tuple[CardId, ...]


@dataclass(frozen=True)
class Drew(Event):
    """A player drew from the top of the grey draw pile."""

    TYPE: ClassVar[str] = "draw"
    player: PlayerName
    cards: tuple[CardId, ...] | None
    """The cards drawn, top first; None (null) with table cards: drawn from the physical pile."""
    count: int | None = None
    """Table cards only: how many cards were drawn (omitted from the log when cards are known)."""

    def to_json(self) -> JsonObject:
        out = super().to_json()
        if self.count is None:
            del out["count"]
        return out


@dataclass(frozen=True)
class Reshuffled(Event):
    """The draw pile ran out: the discard pile, shuffled, is the new draw pile."""

    TYPE: ClassVar[str] = "reshuffle"
    cards: int
    deck: tuple[CardId, ...] | None
    """Top first; None (null) with table cards: the players shuffle the physical discard pile."""


@dataclass(frozen=True)
class PlayerLeft(Event):
    """A player left the game: their hand and any cards they played this round are set aside,
    they no longer submit or judge, and they keep the points they won."""

    TYPE: ClassVar[str] = "left"
    player: PlayerName


@dataclass(frozen=True)
class RoundVoided(Event):
    """The round cannot be judged (its master left, or fewer than two players are left to submit):
    nobody scores, and the red card goes back under the red draw pile. A ``discard`` event follows
    for the grey cards played, then the players draw up and the next master opens a round."""

    TYPE: ClassVar[str] = "void"
    red: CardId


@dataclass(frozen=True)
class BamGameOver(GameOver):
    """The game ended; scores are victory points minus minus points."""

    scores: Mapping[PlayerName, int] = field(default_factory=dict)
    grey_won: Mapping[PlayerName, int] = field(default_factory=dict)
    winners: tuple[PlayerName, ...] = ()
    """Everyone sharing the best score and, among those, the most grey cards won."""


def event_from_json(obj: JsonObject) -> Event:
    """The typed event for one log object."""
    kind = obj["type"]
    seq, t = int(obj["seq"]), float(obj["t"])
    if kind == "setup":
        if obj["game"] != GAME_NAME:
            raise Inconsistent(f"this is a log of '{obj['game']}', not of BAM!")
        s = obj["state"]
        pile = s.get("grey_pile")
        return GameSetup(
            seq=seq,
            t=t,
            game=GAME_NAME,
            players=tuple(obj["players"]),
            seed=int(obj["seed"]),
            rounds_per_player=int(obj["rounds_per_player"]),
            hand_size=int(obj.get("hand_size", HAND_SIZE)),
            state=SetupState(
                tuple(s["red_deck"]),
                None if s["grey_deck"] is None else tuple(s["grey_deck"]),
                None if s["hands"] is None else {p: tuple(h) for p, h in s["hands"].items()},
                s["master"],
                None if pile is None else int(pile),
            ),
            cards={c: CardFace(c, f["text"], f["color"], int(f.get("blanks", 0))) for c, f in obj["cards"].items()},
            card_mode=str(obj.get("card_mode", "dealt")),
        )
    if kind == "game_over":
        return BamGameOver(
            seq=seq,
            t=t,
            reason=obj["reason"],
            scores=dict(obj["scores"]),
            grey_won=dict(obj["grey_won"]),
            winners=tuple(obj["winners"]),
        )
    if kind == "resumed":
        return Resumed(seq=seq, t=t)
    cls = _BY_TYPE.get(kind)
    if cls is None:
        raise Inconsistent(f"unknown event type '{kind}'")
    given = {k: tuple(v) if isinstance(v, list) else v for k, v in obj.items() if k not in ("seq", "t", "type")}
    expected = {f.name for f in fields(cls)} - {"seq", "t"}
    required = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING} - {"seq", "t"}
    if required - given.keys():
        raise Inconsistent(f"missing field(s) {', '.join(sorted(required - given.keys()))}")
    if given.keys() - expected:
        raise Inconsistent(f"unknown field(s) {', '.join(sorted(given.keys() - expected))}")
    return cls(seq=seq, t=t, **given)


_BY_TYPE: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        RoundStarted,
        Submitted,
        ReadingOrder,
        BestChosen,
        WorstChosen,
        Discarded,
        Drew,
        Reshuffled,
        PlayerLeft,
        RoundVoided,
    )
}
