"""The projector and the log replay: the only code that changes a Bim Bamm! state.

:func:`evolve` applies one event, checking that it can happen in that state: the seq continues and
t never goes back; a flipped tile exists and the event says what it shows and the counts after it;
a turn flip is the turn player's and obeys the 2-player rule, the scorer turns two different tiles
of the scored animal; races open for exactly the animals at five; a race's shouts come in onset
order and each is judged on the race and the cards held when it opened, so the "mistake" or
"point" that must follow is known (its player, reason or animal and shout); a point's drawn card,
a mistake's returned card, the cards of a swap, an exchange or a leaver are the ones the state
holds; a turn names the player to the left of whoever acted. Errors name the event's seq and the
wrong field.

The engine builds its states with it too (it decides the events of an action, then folds them),
so :func:`replay`, a fold of :func:`evolve` over a log's events, reproduces the live state exactly
and no action is guessed back from the log. A log that stops in the middle of an action (a flip
without its race or turn, a shout without its mistake …) is refused. Inside one action the state
keeps what its events so far oblige (:class:`~.state.Owed`) and the race window being judged
(:class:`~.state.RaceWindow`, :class:`~.state.ChallengeWindow`).

A table-cards log (setup "cards": "table") folds the same way: its setup has null hands and deck,
cards drawn, swapped, exchanged or left behind are null, the earliest trusted claim scores, a race's
no_card mistake is a claim the table refuted, and a "challenge" takes the scorer's point back and
judges the window's later claims again (rules 2 lists the refuted ones, rules 1 says so only with
their no_card mistakes) before the next claim's "point" or the next "turn".
"""

from __future__ import annotations

import math
from dataclasses import replace
from enum import StrEnum
from typing import Any, Callable, Sequence, TypeVar

from voicehost.rules.base import Event, JsonObject, LogError, PlayerName, Resumed
from voicehost.rules.bimbamm.events import (
    GAME_NAME,
    ChallengeEvent,
    EndReason,
    ExchangeEvent,
    FlipEvent,
    FlipReason,
    GameOverEvent,
    LeftEvent,
    MistakeEvent,
    MistakeReason,
    PointEvent,
    RaceEvent,
    SetupEvent,
    ShoutEvent,
    SwapEvent,
    TurnEvent,
    event_from_json,
)
from voicehost.rules.bimbamm.state import (
    FIVE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULES_VERSION,
    WINNING_POINTS,
    Cards,
    ChallengeWindow,
    Claim,
    Declaration,
    Owed,
    Phase,
    RaceWindow,
    State,
)
from voicehost.rules.bimbamm.tiles import ANIMALS, COPIES, TILE_COUNT, Animal, Side, Special, Tile

T = TypeVar("T")
Changes = dict[str, Any]

_INF = math.inf
_TURN = Owed(("turn",))
_RACE = Owed(("race",))
_MORE = Owed(("shout", "turn"))
"""A race window nobody has scored in yet: more of its shouts, or its closing turn."""
_JUDGE = Owed(("mistake", "point", "turn"))
"""A challenge: no_card mistakes of the window's refuted claims, then the next claim's point or the turn."""


def evolve(state: State | None, event: Event) -> State:
    """The state after ``event`` (None before the setup); LogError if it cannot happen there."""
    handler = _HANDLERS.get(event.__class__)
    if handler is None or state is None:
        return _first(state, event)
    if event.seq != state.seq:
        raise _wrong(event, "seq", event.seq, state.seq)
    if state.phase is Phase.OVER:
        raise _cannot(event, "the game is over")
    t = event.t
    if (t.__class__ is not float and (isinstance(t, bool) or not isinstance(t, int))) or not state.last_t <= t < _INF:
        raise _wrong(event, "t", t, f"a time from {state.last_t} s on")
    owed = state.owed
    if owed is not None and not owed.optional and event.TYPE not in owed.events:
        raise _wrong(event, "type", event.TYPE, " or ".join(owed.events))
    try:
        changes = handler(state, event)
    except LogError:
        raise
    except (TypeError, ValueError, AttributeError) as error:  # an edited field of the wrong type
        raise _cannot(event, f"a field has the wrong type ({error})") from None
    new = object.__new__(State)  # like dataclasses.replace without __init__: the simulator's hot path
    values = new.__dict__
    values.update(state.__dict__)
    values["owed"] = values["window"] = None
    values.update(changes)
    values["seq"] = state.seq + 1
    values["last_t"] = t
    return new


def _first(state: State | None, event: Event) -> State:
    """The setup event (only first), or why this event cannot be folded at all."""
    if isinstance(event, SetupEvent):
        if state is not None:
            raise _cannot(event, "a second setup event")
        return _setup_state(event.to_json())
    if state is None:
        raise LogError(f"a {GAME_NAME} log must start with its setup event, not {event.TYPE!r}")
    raise _cannot(event, "not a Bim Bamm! event")


def replay(events: Sequence[JsonObject]) -> State:
    """The state after all logged events (setup first); LogError if the log is inconsistent."""
    if len(events) < 2:
        raise LogError("a Bim Bamm! log starts with a 'setup' and a 'turn' event")
    state = state_from_setup(events[0], events[1])
    for obj in events[2:]:
        state = evolve(state, event_from_json(obj))
    owed = state.owed
    if owed is not None and not owed.optional:
        raise LogError(
            f"event {state.seq - 1}: the log ends in the middle of an action (the rules give "
            f"{_one_of(owed.events)} event next)"
        )
    return state


def state_from_setup(setup: JsonObject, turn: JsonObject) -> State:
    """The starting state recorded in a "setup" event (checked field by field) and its "turn"."""
    state = _setup_state(setup)
    if turn.get("type") != "turn" or turn.get("player") != state.turn or turn.get("seq") != 1:
        raise LogError(f"event 1: expected the first 'turn' event for {state.turn}")
    _num(turn, "t", 1)
    return evolve(state, event_from_json(turn))


# -- the setup ----------------------------------------------------------------------------------


def _setup_state(setup: JsonObject) -> State:
    """The position a setup event records (seq 1: its first "turn" is owed)."""
    if setup.get("type") != "setup" or setup.get("game") != GAME_NAME:
        raise LogError(f"event 0: expected a '{GAME_NAME}' setup event, found {setup.get('type')!r}")
    if setup.get("seq") != 0:
        raise LogError(f"event 0: field 'seq' is {setup.get('seq')!r}, the rules give 0")
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
    turn = _player(players, _get(snap, "turn", str, 0), "state.turn")
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
        turn=turn,
        variant2p=_get(snap, "variant2p", bool, 0),
        seed=_get(setup, "seed", int, 0),
        seq=1,
        last_t=_num(setup, "t", 0),
        cards=cards,
        rules=_rules(setup),
        owed=Owed(("turn",), turn),
    )
    _check_cards(state)
    return state


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


# -- messages and small helpers -------------------------------------------------------------------


def _shown(value: Any) -> Any:
    """A value as the log writes it (animals and reasons as plain words)."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_shown(v) for v in value]
    return value


def _wrong(event: Event, field: str, value: object, expected: object) -> LogError:
    return LogError(
        f"event {event.seq} ({event.TYPE}): field {field!r} is {_shown(value)!r}, the rules give {_shown(expected)!r}"
    )


def _cannot(event: Event, why: str) -> LogError:
    return LogError(f"event {event.seq} ({event.TYPE}): {why}")


def _one_of(kinds: tuple[str, ...]) -> str:
    return " or ".join(f"a {kind!r}" for kind in kinds)


def _owes(state: State, kind: str) -> bool:
    owed = state.owed
    return owed is not None and kind in owed.events


def _set(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A copy of ``values`` with one item replaced."""
    return values[:index] + (value,) + values[index + 1 :]


_INDEX = {animal: i for i, animal in enumerate(ANIMALS)}


def _seated(state: State, event: Event, player: PlayerName) -> int:
    """The seat of a player still in the game."""
    if player not in state.players or player in state.gone:
        raise _wrong(event, "player", player, "a player still in the game")
    return state.seat(player)


# -- turns and tiles ------------------------------------------------------------------------------


def _on_turn(state: State, event: TurnEvent) -> Changes:
    """The player to the left of whoever acted (the setup's first player first) begins a turn."""
    owed, window = state.owed, state.window
    if owed is not None and "turn" in owed.events:
        if isinstance(window, ChallengeWindow):
            kept = _settle(state, window, event)
            if kept:
                raise _cannot(event, f"the rules give a 'point' event for {kept[0].player}'s claim here")
        expected = owed.player or state.left_of(state.turn)
    elif state.phase is Phase.RACE and owed is None and window is None:
        expected = state.left_of(state.turn)  # a race window closed without a shout
    else:
        raise _cannot(event, "no turn begins here")
    if event.player != expected:
        raise _wrong(event, "player", event.player, expected)
    return {"phase": Phase.TURN, "turn": expected, "race": (), "scorer": None, "scored": None, "declaration": None}


def _on_flip(state: State, event: FlipEvent) -> Changes:
    """A turn flip, or one of the scorer's two; after the last one a race or a turn is owed."""
    tile, player, owed = event.tile, event.player, state.owed
    if tile.__class__ is not int or not 0 <= tile < TILE_COUNT:
        raise _wrong(event, "tile", tile, f"a tile 0 to {TILE_COUNT - 1}")
    before = state.tiles[tile]
    shown = before.white if before.up is Side.WHITE else before.black
    second = owed is not None and not owed.optional  # the wrapper let only an owed "flip" through
    changes: Changes = {}
    reason = event.reason
    if reason is FlipReason.TURN:
        if second:
            raise _wrong(event, "reason", reason, FlipReason.SCORE)
        if state.phase is not Phase.TURN or player != state.turn:
            raise _wrong(event, "player", player, state.to_act)
        if state.variant2p and state.restricted_by != player and shown in state.restricted:
            raise _cannot(event, f"2-player rule: {state.restricted_by} just revealed {shown}")
    elif reason is FlipReason.SCORE:
        if state.phase is not Phase.SCORER or player != state.scorer:
            raise _wrong(event, "player", player, state.to_act)
        if second and owed is not None and tile == owed.tile:
            raise _wrong(event, "tile", tile, "another tile than the first")
        if shown is not state.scored:
            raise _wrong(event, "tile", tile, f"a tile showing {state.scored}")
        changes["turn"] = player
    else:
        raise _wrong(event, "reason", reason, "turn or score")
    after = before.flipped()
    showing = after.black if after.up is Side.BLACK else after.white
    if event.showing is not showing:
        raise _wrong(event, "showing", event.showing, showing)
    tally = list(state.tallied())
    tally[_INDEX[shown]] -= 1
    tally[_INDEX[showing]] += 1
    counts = dict(zip(ANIMALS, tally))
    if event.counts != counts:
        raise _wrong(event, "counts", event.counts, counts)
    tiles = state.tiles[:tile] + (after,) + state.tiles[tile + 1 :]
    changes["tiles"] = tiles
    changes["tally"] = (tiles, tuple(tally))
    changes.update(_revealed(state, player, showing, reason))
    if reason is FlipReason.SCORE and not second:
        changes["owed"] = Owed(("flip",), player, tile=tile)
    else:
        changes["owed"] = _RACE if max(tally) >= FIVE else _TURN
    return changes


def _revealed(state: State, player: PlayerName, animal: Animal, reason: FlipReason) -> Changes:
    """Note what ``player`` revealed for the 2-player rule ("the previous player" is the last
    player who acted; everything they turned over since the other player acted binds).
    Rules 1: only a turn flip counts, and only its own animal."""
    if state.rules == 1:
        return {"restricted": (animal,), "restricted_by": player} if reason is FlipReason.TURN else {}
    if state.restricted_by != player:
        return {"restricted": (animal,), "restricted_by": player}
    if animal in state.restricted:
        return {}
    return {"restricted": state.restricted + (animal,)}


def _on_race(state: State, event: RaceEvent) -> Changes:
    """A race opens for each animal at five, in Animal order, right after the flip that made it."""
    if not _owes(state, "race"):
        raise _cannot(event, "no flip has just made a five")
    fives = state.fives()
    prior = state.race if state.phase is Phase.RACE else ()
    expected = fives[len(prior)]
    if event.animal is not expected:
        raise _wrong(event, "animal", event.animal, expected)
    race = prior + (expected,)
    return {
        "phase": Phase.RACE,
        "race": race,
        "scorer": None,
        "scored": None,
        "declaration": None,
        "owed": _RACE if len(race) < len(fives) else None,
    }


def _turn_seat(state: State, event: SwapEvent | ExchangeEvent) -> int:
    """The special tile is used on the turn player's turn."""
    if state.phase is not Phase.TURN or event.player != state.turn:
        raise _wrong(event, "player", event.player, state.to_act)
    return state.seat(event.player)


def _on_swap(state: State, event: SwapEvent) -> Changes:
    """SWAP: the held card under the pile, the top card drawn; the tile turns to EXCHANGE."""
    seat = _turn_seat(state, event)
    if state.special is not Special.SWAP:
        raise _cannot(event, "the special tile shows EXCHANGE")
    changes: Changes = {"special": Special.EXCHANGE}
    if state.table_cards:
        if event.returned is not None or event.drew is not None:
            raise _wrong(
                event, "returned" if event.returned is not None else "drew", event.returned or event.drew, None
            )
    else:
        held = state.hands[seat]
        if event.returned is not held:
            raise _wrong(event, "returned", event.returned, held)
        deck = state.deck + ((held,) if held is not None else ())
        drew = deck[0] if deck else None
        if event.drew is not drew:
            raise _wrong(event, "drew", event.drew, drew)
        changes.update(deck=deck[1:], hands=_set(state.hands, seat, drew))
    return _after_special(state, event, changes)


def _on_exchange(state: State, event: ExchangeEvent) -> Changes:
    """EXCHANGE: cards change hands with the named player; the tile turns to SWAP."""
    seat = _turn_seat(state, event)
    if state.special is not Special.EXCHANGE:
        raise _cannot(event, "the special tile shows SWAP")
    other = event.with_
    if other == event.player or other not in state.active:
        raise _wrong(event, "with", other, "another player still in the game")
    far = state.seat(other)
    gave, got = state.hands[seat], state.hands[far]
    if event.gave is not gave:
        raise _wrong(event, "gave", event.gave, gave)
    if event.got is not got:
        raise _wrong(event, "got", event.got, got)
    changes: Changes = {"special": Special.SWAP, "hands": _set(_set(state.hands, seat, got), far, gave)}
    return _after_special(state, event, changes)


def _after_special(state: State, event: SwapEvent | ExchangeEvent, changes: Changes) -> Changes:
    """A special-tile turn reveals no animal (rules 2: the player still acted last); the turn passes."""
    changes.update(restricted=(), restricted_by=None if state.rules == 1 else event.player, owed=_TURN)
    return changes


# -- shouts, races, points and mistakes -----------------------------------------------------------


def _on_shout(state: State, event: ShoutEvent) -> Changes:
    """A shout: in a race window (judged with the race) or outside one (judged against the table)."""
    seat = _seated(state, event, event.player)
    if not isinstance(event.animal, Animal):
        raise _wrong(event, "animal", event.animal, "an animal")
    onset = event.onset
    if isinstance(onset, bool) or not isinstance(onset, (int, float)) or not math.isfinite(onset):
        raise _wrong(event, "onset", onset, "seconds on the game clock")
    if event.in_race is True:
        return _race_shout(state, event, seat)
    if event.in_race is not False:
        raise _wrong(event, "in_race", event.in_race, "true or false")
    return _lone_shout(state, event, seat)


def _lone_shout(state: State, event: ShoutEvent, seat: int) -> Changes:
    """Outside a race window: no five, another animal, or (dealt) not the card held is a mistake."""
    if _owes(state, "shout"):
        raise _wrong(event, "in_race", False, True)
    if state.phase is Phase.RACE:
        raise _wrong(event, "in_race", False, True)
    if event.refuted is not False:
        raise _wrong(event, "refuted", event.refuted, False)
    fives = state.fives()
    fault: MistakeReason | None = None
    if not fives:
        fault = MistakeReason.NO_FIVE
    elif event.animal not in fives:
        fault = MistakeReason.WRONG_ANIMAL
    elif not state.table_cards and state.hands[seat] is not event.animal:
        fault = MistakeReason.NO_CARD
    return {"owed": Owed(("mistake",), event.player, fault, shout=event.seq)} if fault is not None else {}


def _race_shout(state: State, event: ShoutEvent, seat: int) -> Changes:
    """A shout of a race window, in onset order: its fault (if any) says what must follow it."""
    window, owed = state.window, state.owed
    if window is None and state.phase is Phase.RACE and owed is None:
        window = RaceWindow(state.race, state.turn)  # the first shout of a ResolveRace
    elif not isinstance(window, RaceWindow) or (
        not _owes(state, "shout") and not (window.scored and (owed is None or owed.optional))
    ):
        raise _cannot(event, "no race window is open")
    player, animal, onset = event.player, event.animal, event.onset
    if onset < window.onset:
        raise _wrong(event, "onset", onset, f"{window.onset} or later (shouts are judged in onset order)")
    if owed is not None and owed.optional and owed.player is not None and owed.animal is not None:
        window = replace(window, trusted=window.trusted | {(owed.player, owed.animal)})  # it was not refuted
    table, race, pair = state.table_cards, window.race, (player, animal)
    if event.refuted is not False and not (event.refuted is True and table and state.rules > 1 and animal in race):
        raise _wrong(event, "refuted", event.refuted, False)
    maybe = False  # rules 1, table cards: a claim the table may have refuted (then a mistake follows)
    fault: MistakeReason | None = None
    if animal not in race:
        fault = MistakeReason.WRONG_ANIMAL
    elif table:
        if (
            state.rules > 1
            and (pair in window.refuted or pair in window.trusted)
            and event.refuted != (pair in window.refuted)
        ):
            raise _wrong(event, "refuted", event.refuted, pair in window.refuted)  # one claim, one verdict
        if event.refuted or pair in window.refuted:
            fault = MistakeReason.NO_CARD
            window = replace(window, refuted=window.refuted | {pair})
        else:
            maybe = state.rules == 1 and pair not in window.trusted
            if not maybe:
                window = replace(window, trusted=window.trusted | {pair})
    else:
        mine = window.scored and player == state.scorer
        held = state.scored if mine else state.hands[seat]
        if held is not animal and not (mine and state.rules > 1 and state.hands[seat] is animal):
            fault = MistakeReason.NO_CARD  # (the scorer's card drawn in this window: late, not false)
    window = replace(window, onset=onset)
    changes: Changes = {"window": window}
    if fault is not None:
        if state.rules == 1 or player not in window.erred:
            changes["owed"] = Owed(("mistake",), player, fault, shout=event.seq)
    elif not window.scored:
        kinds = ("mistake", "point") if maybe else ("point",)
        changes["owed"] = Owed(kinds, player, MistakeReason.NO_CARD if maybe else None, animal, event.seq)
    elif table:
        claim = state.declaration
        assert claim is not None, "a table-cards point leaves a declaration"
        later = claim.later + (Claim(player, animal, event.seq),)
        changes["declaration"] = Declaration(claim.actor, claim.shout, later, claim.erred)
        if maybe:
            changes["owed"] = Owed(("mistake",), player, MistakeReason.NO_CARD, animal, event.seq, optional=True)
    if "owed" not in changes and not window.scored:
        changes["owed"] = _MORE
    return changes


def _on_mistake(state: State, event: MistakeEvent) -> Changes:
    """The judged shout was a mistake: the player's last won card goes under the pile."""
    owed, window = state.owed, state.window
    if owed is None or "mistake" not in owed.events:
        raise _cannot(event, "no shout is judged a mistake here")
    if isinstance(window, ChallengeWindow) and owed.player is None:
        window = _judge_claim(state, window, event)
    else:
        for field, value, expected in (
            ("shout", event.shout, owed.shout),
            ("player", event.player, owed.player),
            ("reason", event.reason, owed.reason),
        ):
            if value != expected:
                raise _wrong(event, field, value, expected)
    player = event.player
    seat = state.seat(player)
    won = state.points[seat]
    returned = won[-1] if won else None
    if event.returned is not returned:
        raise _wrong(event, "returned", event.returned, returned)
    changes: Changes = {}
    if returned is not None:
        changes["points"] = _set(state.points, seat, won[:-1])
        if not state.table_cards:
            changes["deck"] = state.deck + (returned,)
    if isinstance(window, RaceWindow):
        window = replace(window, erred=window.erred + (player,))
        if owed.animal is not None:  # rules 1, table cards: the table refuted this claim
            window = replace(window, refuted=window.refuted | {(player, owed.animal)})
        claim = state.declaration
        if claim is not None and window.scored:
            later = claim.later[:-1] if claim.later and claim.later[-1].shout == event.shout else claim.later
            changes["declaration"] = Declaration(claim.actor, claim.shout, later, claim.erred + (player,))
        changes.update(window=window, owed=None if window.scored else _MORE)
    elif isinstance(window, ChallengeWindow):
        if owed.player is not None:  # the challenged scorer's own shout
            window = replace(window, erred=window.erred + (player,))
        changes.update(window=window, owed=_JUDGE)
    return changes


def _on_point(state: State, event: PointEvent) -> Changes:
    """The earliest valid shout (or, after a challenge, the next trusted claim) scores: the card
    becomes a point and its player draws; the scorer turns 2 tiles, or wins at 3 points."""
    owed, window = state.owed, state.window
    if owed is None or "point" not in owed.events:
        raise _cannot(event, "no shout scores here")
    player: PlayerName | None = owed.player
    animal: Animal | None = owed.animal
    shout = owed.shout
    kept: tuple[Claim, ...] = ()
    if isinstance(window, ChallengeWindow):
        kept = _settle(state, window, event)
        if not kept:
            raise _cannot(event, "no claim of the window is left to trust")
        player, animal, shout = kept[0].player, kept[0].animal, kept[0].shout
    for field, value, expected in (("shout", event.shout, shout), ("player", event.player, player)):
        if value != expected:
            raise _wrong(event, field, value, expected)
    if event.animal is not animal:
        raise _wrong(event, "animal", event.animal, animal)
    assert player is not None and animal is not None
    seat = state.seat(player)
    won = state.points[seat] + (animal,)
    if event.points != len(won):
        raise _wrong(event, "points", event.points, len(won))
    drew = None if state.table_cards or not state.deck else state.deck[0]
    if event.drew is not drew:
        raise _wrong(event, "drew", event.drew, drew)
    changes: Changes = {"points": _set(state.points, seat, won), "turn": player}
    if not state.table_cards:
        changes.update(hands=_set(state.hands, seat, drew), deck=state.deck[1:])
    if len(won) >= WINNING_POINTS:
        changes["owed"] = Owed(("game_over",), player, EndReason.THREE_POINTS)
        return changes
    changes.update(phase=Phase.SCORER, scorer=player, scored=animal, race=())
    if isinstance(window, ChallengeWindow):
        changes["declaration"] = Declaration(window.actor, shout, kept[1:], window.erred)
    else:
        assert isinstance(window, RaceWindow), "a race shout is owed its point"
        window = replace(window, scored=True, trusted=window.trusted | {(player, animal)})
        changes["window"] = window
        if state.table_cards:
            changes["declaration"] = Declaration(window.actor, shout, (), window.erred)
    return changes


# -- table cards: a challenge ---------------------------------------------------------------------


def _on_challenge(state: State, event: ChallengeEvent) -> Changes:
    """The table says the scorer does not hold the animal: the point is taken back, and the
    scorer's shout and the refuted claims of the window are judged no_card."""
    claim, animal = state.declaration, state.scored
    if not state.table_cards:
        raise _cannot(event, "with dealt cards the host knows every hand: nobody is challenged")
    if state.phase is not Phase.SCORER or claim is None or animal is None:
        raise _cannot(event, "no scorer's claim is open to a challenge")
    if event.player != state.scorer:
        raise _wrong(event, "player", event.player, state.scorer)
    if event.animal is not animal:
        raise _wrong(event, "animal", event.animal, animal)
    if event.shout != claim.shout:
        raise _wrong(event, "shout", event.shout, claim.shout)
    seat = state.seat(event.player)
    won = state.points[seat][:-1]
    if event.points != len(won):
        raise _wrong(event, "points", event.points, len(won))
    refuted = {(event.player, animal)}
    if state.rules == 1:
        if event.refuted is not None:
            raise _wrong(event, "refuted", event.refuted, None)
    else:
        listed = tuple(event.refuted or ())
        named = {(c.player, c.animal) for c in claim.later if c.shout in listed}
        if (event.refuted is not None and not listed) or listed != tuple(
            c.shout for c in claim.later if (c.player, c.animal) in named
        ):
            raise _wrong(event, "refuted", event.refuted, "every shout of the refuted later claims, in order")
        refuted |= named
    window = ChallengeWindow(
        claim.actor, event.player, animal, claim.later, frozenset(refuted), state.rules > 1, claim.erred
    )
    scorer_erred = state.rules > 1 and event.player in claim.erred
    return {
        "points": _set(state.points, seat, won),
        "declaration": None,
        "scorer": None,
        "scored": None,
        "turn": claim.actor,
        "window": window,
        "owed": _JUDGE if scorer_erred else Owed(("mistake",), event.player, MistakeReason.NO_CARD, shout=claim.shout),
    }


def _judge_claim(state: State, window: ChallengeWindow, event: MistakeEvent) -> ChallengeWindow:
    """A no_card mistake for one of the window's later claims; the claims before it are kept
    (or, rules 2, skipped: a player's second false claim in a window is no second mistake)."""
    kept = list(window.kept)
    for i, claim in enumerate(window.claims):
        pair = (claim.player, claim.animal)
        must = pair in window.refuted
        skip = must and state.rules > 1 and claim.player in window.erred
        may = not window.complete and all((c.player, c.animal) != pair for c in kept)  # rules 1: unlisted
        if claim.shout == event.shout and not skip and (must or may):
            if event.player != claim.player:
                raise _wrong(event, "player", event.player, claim.player)
            if event.reason is not MistakeReason.NO_CARD:
                raise _wrong(event, "reason", event.reason, MistakeReason.NO_CARD)
            return replace(
                window,
                claims=window.claims[i + 1 :],
                refuted=window.refuted | {pair},
                erred=window.erred + (claim.player,),
                kept=tuple(kept),
            )
        if must and not skip:
            raise _wrong(event, "shout", event.shout, claim.shout)
        if not must:
            kept.append(claim)
    raise _wrong(event, "shout", event.shout, "a refuted claim of the challenged window")


def _settle(state: State, window: ChallengeWindow, event: Event) -> tuple[Claim, ...]:
    """The claims still trusted once the challenge's mistakes are all logged (LogError if one is missing)."""
    kept = list(window.kept)
    for claim in window.claims:
        if (claim.player, claim.animal) not in window.refuted:
            kept.append(claim)
        elif not (state.rules > 1 and claim.player in window.erred):
            raise _cannot(event, f"the rules give a 'mistake' event for shout {claim.shout} here")
    return tuple(kept)


# -- leaving, the end, a restart ------------------------------------------------------------------


def _on_left(state: State, event: LeftEvent) -> Changes:
    """The player is out: their card, then their won cards, go under the pile (table cards: unseen)."""
    player = event.player
    seat = _seated(state, event, player)
    if state.phase is Phase.RACE:
        raise _cannot(event, "a race is open: it is resolved first")
    held, won = state.hands[seat], state.points[seat]
    card = None if state.table_cards else held
    if event.card is not card:
        raise _wrong(event, "card", event.card, card)
    if tuple(event.won) != won:
        raise _wrong(event, "won", event.won, won)
    changes: Changes = {
        "gone": state.gone + (player,),
        "hands": _set(state.hands, seat, None),
        "points": _set(state.points, seat, ()),
    }
    if not state.table_cards:
        changes["deck"] = state.deck + ((held,) if held is not None else ()) + won
    if len(state.active) - 1 < MIN_PLAYERS:
        changes["owed"] = Owed(("game_over",), None, EndReason.TOO_FEW_PLAYERS)
    elif state.to_act == player:
        changes.update(turn=player, owed=_TURN)  # play goes on to their left
    elif state.declaration is not None:
        claim = state.declaration
        later = tuple(c for c in claim.later if c.player != player)
        changes["declaration"] = Declaration(claim.actor, claim.shout, later, claim.erred)
    return changes


def _on_over(state: State, event: GameOverEvent) -> Changes:
    """A third point, too few players left, or the host's quit (no winner, any other reason)."""
    owed = state.owed
    if owed is not None and "game_over" in owed.events:
        for field, value, expected in (
            ("reason", event.reason, owed.reason),
            ("winner", event.winner, owed.player),
            ("player", event.player, None),
        ):
            if value != expected:
                raise _wrong(event, field, value, expected)
    else:
        if not isinstance(event.reason, str) or not event.reason or event.reason == EndReason.THREE_POINTS:
            raise _wrong(event, "reason", event.reason, "the host's reason to stop")
        if event.winner is not None:
            raise _wrong(event, "winner", event.winner, None)
        if event.player is not None and event.player not in state.players:
            raise _wrong(event, "player", event.player, "a player at the table or null")
    points = state.points_by_name()
    if event.points != points:
        raise _wrong(event, "points", event.points, points)
    return {
        "phase": Phase.OVER,
        "winner": event.winner,
        "race": (),
        "scorer": None,
        "scored": None,
        "declaration": None,
    }


def _on_resumed(state: State, event: Resumed) -> Changes:
    """A loaded game continues: nothing changes but seq and t."""
    return {}


_HANDLERS: dict[type[Event], Callable[[State, Any], Changes]] = {
    TurnEvent: _on_turn,
    FlipEvent: _on_flip,
    RaceEvent: _on_race,
    SwapEvent: _on_swap,
    ExchangeEvent: _on_exchange,
    ShoutEvent: _on_shout,
    MistakeEvent: _on_mistake,
    PointEvent: _on_point,
    ChallengeEvent: _on_challenge,
    LeftEvent: _on_left,
    GameOverEvent: _on_over,
    Resumed: _on_resumed,
}
