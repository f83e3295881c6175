"""Save and resume: rebuild a game from its event log by re-applying the actions the log records.

The log is the save file. :func:`replay` reads the setup event's state, then turns each group of
events back into the action that caused it, applies that action with the real rules and checks
that the rules produce exactly the logged events. So a replayed state is the live state, and a
log that was edited or belongs to other rules is refused with the seq and field that differ.

A table-cards log (setup "cards": "table") replays the same way: its setup has null hands and
deck, a race's no_card mistakes are the claims the host refuted, and a "challenge" event is the
host's :class:`~.actions.Challenge`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence, TypeVar

from voicehost.rules.base import Event, IllegalAction, JsonObject, LogError, PlayerName, Rng
from voicehost.rules.bimbamm.actions import (
    Action,
    Call,
    Challenge,
    Flip,
    Leave,
    Quit,
    Refuted,
    ResolveRace,
    Resume,
    ScorerFlips,
    Shout,
    UseSpecial,
)
from voicehost.rules.bimbamm.engine import GAME_NAME, SetupError, apply, new_game, resume
from voicehost.rules.bimbamm.events import event_from_json
from voicehost.rules.bimbamm.state import MAX_PLAYERS, MIN_PLAYERS, RULES_VERSION, Cards, Phase, State
from voicehost.rules.bimbamm.tiles import COPIES, TILE_COUNT, Animal, Side, Special, Tile

T = TypeVar("T")

_RACE_EVENTS = frozenset({"shout", "point", "mistake"})
"""Event types that a ResolveRace produces before its closing "turn"/"game_over" (if any)."""


def replay(events: Sequence[JsonObject]) -> State:
    """The state after all logged events (setup first); LogError if the log is inconsistent."""
    if len(events) < 2:
        raise LogError("a Bim Bamm! log starts with a 'setup' and a 'turn' event")
    state = state_from_setup(events[0], events[1])
    i = 2
    while i < len(events):
        action = _action_at(state, events, i)
        try:
            state, produced = apply(state, action)
        except IllegalAction as error:
            raise LogError(f"event {i}: the rules refuse it ({error})") from error
        _compare(produced_json=[e.to_json() for e in produced], logged=events[i : i + len(produced)], first=i)
        i += len(produced)
    return state


def state_from_setup(setup: JsonObject, turn: JsonObject) -> State:
    """The starting state recorded in a "setup" event (checked field by field) and its "turn"."""
    if setup.get("type") != "setup" or setup.get("game") != GAME_NAME:
        raise LogError(f"event 0: expected a '{GAME_NAME}' setup event, found {setup.get('type')!r}")
    players = tuple(_get(setup, "players", list, 0))
    if (
        not MIN_PLAYERS <= len(players) <= MAX_PLAYERS
        or len(set(players)) != len(players)
        or not all(isinstance(p, str) and p for p in players)
    ):
        raise LogError(f"event 0: field 'players': {MIN_PLAYERS} to {MAX_PLAYERS} distinct names expected")
    snap = _get(setup, "state", dict, 0)
    cards = _parse(Cards, setup.get("cards", Cards.DEALT.value), "cards")
    hands, deck = _hands_and_deck(snap, players, cards)
    state = State(
        players=players,
        tiles=_tiles(_get(snap, "tiles", list, 0)),
        special=_parse(Special, _get(snap, "special", str, 0), "state.special"),
        hands=hands,
        deck=deck,
        points=tuple(
            tuple(_parse(Animal, c, f"state.points.{p}") for c in _get(_get(snap, "points", dict, 0), p, list, 0))
            for p in players
        ),
        turn=_player(players, _get(snap, "turn", str, 0), "state.turn"),
        variant2p=_get(snap, "variant2p", bool, 0),
        seed=_get(setup, "seed", int, 0),
        last_t=_num(setup, "t", 0),
        cards=cards,
        rules=_rules(setup),
    )
    _check_cards(state)
    if turn.get("type") != "turn" or turn.get("player") != state.turn or turn.get("seq") != 1:
        raise LogError(f"event 1: expected the first 'turn' event for {state.turn}")
    return replace(state, seq=2, last_t=_num(turn, "t", 1))


def _rules(setup: JsonObject) -> int:
    """The rulings version: the "rules" field, 1 for a log written before it existed."""
    rules = setup.get("rules", 1)
    if rules not in (1, RULES_VERSION) or isinstance(rules, bool):
        raise LogError(
            f"event 0: field 'rules': unknown rules version {rules!r} (this voicehost plays 1 to {RULES_VERSION})"
        )
    return int(rules)


def _hands_and_deck(
    snap: JsonObject, players: tuple[str, ...], cards: Cards
) -> tuple[tuple[Animal | None, ...], tuple[Animal, ...]]:
    """Dealt: every hand (an animal or null) and the pile. Table cards: both must be null (unknown)."""
    if cards is Cards.TABLE:
        for key in ("hands", "deck"):
            if snap.get(key, "missing") is not None:
                raise LogError(
                    f"event 0: field 'state.{key}' must be null in a table-cards game (the host "
                    f"does not know the cards), not {snap.get(key, 'missing')!r}"
                )
        return (None,) * len(players), ()
    hands = tuple(_card_or_none(_get(snap, "hands", dict, 0).get(p), f"hands.{p}") for p in players)
    return hands, tuple(_parse(Animal, c, "state.deck") for c in _get(snap, "deck", list, 0))


def _action_at(state: State, events: Sequence[JsonObject], i: int) -> Action:
    """The action that caused the events starting at ``events[i]``, judged by the phase."""
    ev = events[i]
    kind, t = ev.get("type"), _num(ev, "t", i)
    if kind == "resumed":
        return Resume(t)
    if kind == "game_over":
        return Quit(t, ev.get("player"), _get(ev, "reason", str, i))
    if kind == "challenge":
        return Challenge(t, _get(ev, "player", str, i), _refuted_later(state, events, i))
    if kind == "left":
        return Leave(t, _get(ev, "player", str, i))
    if state.phase is Phase.RACE:
        j = i
        while j < len(events) and _in_race(events[j]):
            j += 1
        calls = [_call(e, k) for k, e in enumerate(events[i:j], start=i) if e.get("type") == "shout"]
        refuted = _refuted(events[i:j]) if state.cards is Cards.TABLE else ()
        return ResolveRace(t, tuple(calls), refuted)
    if kind == "shout":
        call = _call(ev, i)
        return Shout(t, call.player, call.animal, call.onset)
    if state.phase is Phase.SCORER and kind == "flip" and i + 1 < len(events):
        return ScorerFlips(
            t, _get(ev, "player", str, i), (_get(ev, "tile", int, i), _get(events[i + 1], "tile", int, i + 1))
        )
    if state.phase is Phase.TURN and kind == "flip":
        return Flip(t, _get(ev, "player", str, i), _get(ev, "tile", int, i))
    if state.phase is Phase.TURN and kind == "swap":
        return UseSpecial(t, _get(ev, "player", str, i))
    if state.phase is Phase.TURN and kind == "exchange":
        return UseSpecial(t, _get(ev, "player", str, i), _get(ev, "with", str, i))
    raise LogError(f"event {i}: a {kind!r} event cannot come now (phase {state.phase.value})")


def _refuted(group: Sequence[JsonObject]) -> tuple[Refuted, ...]:
    """Table cards: a race's no_card mistakes are the claims the host said the table refuted."""
    shouts = {e.get("seq"): e for e in group if e.get("type") == "shout"}
    out = []
    for e in group:
        shout = shouts.get(e.get("shout")) if e.get("type") == "mistake" and e.get("reason") == "no_card" else None
        if shout is None and e.get("type") == "shout" and e.get("refuted") is True:
            shout = e  # rules 2: a refuted claim that was no second mistake
        if shout is not None:
            out.append(Refuted(str(shout.get("player")), _parse(Animal, shout.get("animal"), "animal")))
    return tuple(out)


def _refuted_later(state: State, events: Sequence[JsonObject], i: int) -> tuple[Refuted, ...]:
    """A challenge's no_card mistakes after the first: the later claims the table also refuted."""
    j = i + 1
    while j < len(events) and events[j].get("type") == "mistake":
        j += 1
    shouts = {e.get("shout") for e in events[i + 2 : j] if e.get("reason") == "no_card"}
    said_no = events[i].get("refuted")
    if isinstance(said_no, list):
        shouts = set(said_no)  # rules 2: the challenge lists them (not every one is a mistake)
    later = state.declaration.later if state.declaration is not None else ()
    return tuple(Refuted(c.player, c.animal) for c in later if c.shout in shouts)


def _in_race(ev: JsonObject) -> bool:
    """Whether an event belongs to a race resolution (a lone shout carries "in_race": false)."""
    return ev.get("type") in _RACE_EVENTS and not (ev.get("type") == "shout" and ev.get("in_race") is False)


def _call(ev: JsonObject, i: int) -> Call:
    """A logged shout as the Call it was submitted as."""
    return Call(
        _get(ev, "player", str, i),
        _parse(Animal, _get(ev, "animal", str, i), f"event {i}: animal"),
        _num(ev, "onset", i),
    )


def _compare(produced_json: list[JsonObject], logged: Sequence[JsonObject], first: int) -> None:
    """The rules must produce exactly the logged events."""
    for k, want in enumerate(produced_json):
        seq = first + k
        if k >= len(logged):
            raise LogError(f"event {seq}: the log ends in the middle of an action (expected a {want['type']!r} event)")
        got = logged[k]
        for key, value in want.items():
            if key not in got or got[key] != value:
                raise LogError(
                    f"event {seq} ({want['type']}): field {key!r} is {got.get(key)!r}, the rules give {value!r}"
                )


def _get(obj: JsonObject, key: str, kind: type[T], seq: int) -> T:
    """A field of the right JSON type, or a LogError naming the event and field."""
    if not isinstance(obj, dict) or key not in obj:
        raise LogError(f"event {seq}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise LogError(f"event {seq}: field {key!r} has the wrong type ({value!r})")
    return value


def _num(obj: JsonObject, key: str, seq: int) -> float:
    """A numeric field (seconds), or a LogError naming the event and field."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LogError(f"event {seq}: field {key!r} must be a number of seconds, not {value!r}")
    return value


def _parse(enum: Callable[[Any], T], value: Any, field: str) -> T:
    """An enum member, or a LogError naming the field."""
    try:
        return enum(value)
    except ValueError:
        raise LogError(f"event 0: field {field!r}: unknown value {value!r}") from None


def _card_or_none(value: Any, field: str) -> Animal | None:
    """A hand: an animal or null."""
    return None if value is None else _parse(Animal, value, f"state.{field}")


def _player(players: tuple[str, ...], name: str, field: str) -> str:
    """A name that is at the table."""
    if name not in players:
        raise LogError(f"event 0: field {field!r}: {name!r} is not a player")
    return name


def _tiles(raw: list[Any]) -> tuple[Tile, ...]:
    """15 tiles with "white", "black" and "up"."""
    if len(raw) != TILE_COUNT:
        raise LogError(f"event 0: field 'state.tiles': expected {TILE_COUNT} tiles, found {len(raw)}")
    return tuple(
        Tile(
            _parse(Animal, _get(x, "white", str, 0), f"state.tiles[{i}].white"),
            _parse(Animal, _get(x, "black", str, 0), f"state.tiles[{i}].black"),
            _parse(Side, _get(x, "up", str, 0), f"state.tiles[{i}].up"),
        )
        for i, x in enumerate(raw)
    )


def _check_cards(state: State) -> None:
    """The 15 cards are all there: 3 of each animal among hands, pile and points (table cards: no
    more than 3 of an animal among the points, the only cards the host knows)."""
    cards = [h for h in state.hands if h is not None] + list(state.deck) + [c for w in state.points for c in w]
    for animal in Animal:
        if state.cards is Cards.TABLE:
            if cards.count(animal) > COPIES:
                raise LogError(
                    f"event 0: field 'state.points': {cards.count(animal)} {animal} cards won, there are only {COPIES}"
                )
        elif cards.count(animal) != COPIES:
            raise LogError(f"event 0: field 'state': {cards.count(animal)} {animal} cards, expected {COPIES}")


class BimBamm:
    """Bim Bamm! behind the shared :class:`~voicehost.rules.base.Game` interface."""

    name = GAME_NAME

    def __init__(self, rng: Rng | None = None) -> None:
        self.rng = rng

    def seeded(self, rng: Rng) -> BimBamm:
        """These rules dealing with ``rng``."""
        return BimBamm(rng)

    def new_game(
        self,
        players: Sequence[PlayerName],
        seed: int,
        *,
        first_player: PlayerName | None = None,
        t: float = 0.0,
        **options: Any,
    ) -> tuple[State, list[Event]]:
        """Deal (see :func:`~.engine.new_game`; options: tiles, variant2p, cards, rules)."""
        if self.rng is None:
            raise SetupError("Bim Bamm! needs a seeded RNG to deal: use GAME.seeded(rng)")
        return new_game(players, self.rng, seed, first_player=first_player, t=t, **options)

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Apply one action (see :func:`~.engine.apply`)."""
        return apply(state, action)

    def over(self, state: State) -> bool:
        """True once the game has ended."""
        return state.over

    def resume(self, state: State, t: float) -> tuple[State, list[Event]]:
        """The "resumed" event of a loaded game."""
        return resume(state, t)

    def event_from_json(self, obj: JsonObject) -> Event:
        """The typed event of one log object."""
        return event_from_json(obj)

    def replay(self, log: Sequence[JsonObject]) -> State:
        """Rebuild the state from a log (see :func:`replay`)."""
        return replay(log)
