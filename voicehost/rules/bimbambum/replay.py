"""The projector and the log replay: the only code that changes a Bim Bam Bum! state.

:func:`evolve` applies one event, checking that it can happen in that state (the card played is
the player's top card and the pile tops, expected yell and verdict follow from it; a penalty takes
and boxes whole piles; a turn names the player's top card). The engine builds its states with it
too (decide the events, then fold them), so :func:`replay`, a fold of :func:`evolve` over a log's
events, reproduces the live state exactly, and no action is guessed back from the log.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from voicehost.rules.base import Event, JsonObject, LogError, Resumed
from voicehost.rules.bimbambum.cards import Card, SetupError, expected_phrase, is_call, parse_card
from voicehost.rules.bimbambum.events import (
    GAME_NAME,
    CardPlayed,
    Called,
    GameEnded,
    MistakeMade,
    Penalised,
    Reversed,
    RoundStarted,
    Setup,
    Skipped,
    Slapped,
    TurnStarted,
    event_from_json,
)
from voicehost.rules.bimbambum.state import PILES, Phase, Settings, State

Changes = dict[str, Any]

ACTION_ENDS = (TurnStarted, Called, GameEnded)
"""Events that can close an action's batch (besides "resumed" while a slap race is open)."""


def evolve(state: State | None, event: Event) -> State:
    """The state after ``event`` (None before the setup); LogError if it cannot happen there."""
    handler = _HANDLERS.get(type(event))
    if handler is None or state is None:
        return _first(state, event)
    if event.seq != state.seq:
        raise LogError(f"event seq {event.seq}: expected seq {state.seq}")
    if state.phase is Phase.OVER:
        raise LogError(f"event seq {event.seq}: {event.TYPE!r} after the game ended")
    if not event.t >= state.t:  # also refuses NaN
        raise LogError(f"event seq {event.seq}: t {event.t} goes back before {state.t}")
    changes = handler(state, event)
    new = object.__new__(State)  # like dataclasses.replace without __init__: the simulator's hot path
    values = new.__dict__
    values.update(state.__dict__)
    values["resuming"] = False
    values.update(changes)
    values["seq"] = state.seq + 1
    values["t"] = event.t
    return new


def _first(state: State | None, event: Event) -> State:
    """The setup event (only first), or why this event cannot be folded at all."""
    if isinstance(event, Setup):
        if state is not None:
            raise LogError(f"event seq {event.seq}: a second setup event")
        return _setup_state(event)
    if state is None:
        raise LogError(f"a {GAME_NAME} log must start with its setup event, not {event.TYPE!r}")
    raise LogError(f"event seq {event.seq}: {event.TYPE!r} is not a Bim Bam Bum! event")


def replay(events: Sequence[JsonObject]) -> State:
    """The state after the logged events (setup first); LogError names the first bad event."""
    if not events or events[0].get("type") != "setup" or events[0].get("game") != GAME_NAME:
        raise LogError(f"a {GAME_NAME} log must start with its setup event")
    state: State | None = None
    for obj in events:
        state = evolve(state, event_from_json(obj))
    assert state is not None
    last = events[-1]
    if not (
        isinstance(event_from_json(last), ACTION_ENDS) or (last.get("type") == "resumed" and state.phase is Phase.SLAP)
    ):
        raise LogError(
            f"the log stops at seq {state.seq - 1} in the middle of an action "
            f"(a {last.get('type')!r} event cannot be an action's last)"
        )
    return state


# -- the setup ----------------------------------------------------------------------------------


def _setup_state(event: Setup) -> State:
    """The position the setup event records (checked as a deal would be)."""
    from voicehost.rules.bimbambum.engine import check_setup

    where = f"event seq {event.seq} (setup)"
    if event.seq != 0 or event.game != GAME_NAME:
        raise LogError(f"{where}: a {GAME_NAME} log must start with its setup event")
    try:
        position = event.state
        players = list(event.players)
        decks = {p: _cards(_get(position, "decks")[p], f"state.decks.{p}") for p in players}
        piles = [_cards(pile, f"state.piles[{i}]") for i, pile in enumerate(_get(position, "piles"))]
        box = _cards(_get(position, "box"), "state.box")
        settings = Settings(
            window=_get(position, "window"),
            slap_window=_get(position, "slap_window"),
            turn_cap=_get(position, "turn_cap") if "turn_cap" in position else None,
            rules=event.rules,
        )
        direction, turn = _get(position, "direction"), _get(position, "turn")
        check_setup(players, decks, turn, piles, direction, event.t)
    except SetupError as error:
        raise LogError(f"{where}: {error}") from None
    except KeyError as error:
        raise LogError(f"{where}: missing field {error}") from None
    except (TypeError, ValueError) as error:
        raise LogError(f"{where}: {error}") from None
    if _get(position, "boxed") != len(box):
        raise LogError(f"{where}: field 'boxed' is {position['boxed']!r}, the box holds {len(box)} cards")
    return State(
        players=tuple(players),
        decks=tuple(tuple(decks[p]) for p in players),
        piles=tuple(tuple(pile) for pile in piles),
        box=tuple(box),
        turn=turn,
        direction=direction,
        settings=settings,
        seed=event.seed,
        seq=1,
        t=event.t,
    )


def _get(position: Mapping[str, Any], key: str) -> Any:
    return position[key]


def _cards(values: Any, where: str) -> list[Card]:
    if not isinstance(values, list):
        raise LogError(f"setup event: {where} must be a list of cards")
    return [parse_card(value, f"setup event {where}") for value in values]


# -- one handler per event ------------------------------------------------------------------------


def _wrong(event: Event, field: str, value: object, expected: object) -> LogError:
    return LogError(f"event seq {event.seq} ({event.TYPE}): field {field!r} is {value!r}, the rules give {expected!r}")


def _on_round(state: State, event: RoundStarted) -> Changes:
    if event.starter not in state.players:
        raise _wrong(event, "starter", event.starter, "a seated player")
    return {"rounds": state.rounds + 1}


def _on_turn(state: State, event: TurnStarted) -> Changes:
    if event.player not in state.players:
        raise _wrong(event, "player", event.player, "a seated player")
    if event.card is not state.top(event.player):
        raise _wrong(event, "card", event.card.value, getattr(state.top(event.player), "value", None))
    repeat = state.resuming
    return {
        "turn": event.player,
        "window_opens": event.t,
        "phase": Phase.PLAY,
        "turns": state.turns + (0 if repeat else 1),
    }


def _on_play(state: State, event: CardPlayed) -> Changes:
    """The current player's top card goes on the pile; the pile tops, the yell and the verdict follow."""
    if state.phase is not Phase.PLAY or event.player != state.turn:
        raise _wrong(event, "player", event.player, state.turn)
    if not 0 <= event.pile < PILES:
        raise _wrong(event, "pile", event.pile, "0, 1 or 2")
    seat = state.seat(event.player)
    card, deck = state.decks[seat][0], state.decks[seat][1:]
    piles = list(state.piles)
    piles[event.pile] = piles[event.pile] + (card,)
    visible = tuple(pile[-1] if pile else None for pile in piles)
    expected = expected_phrase(card, visible)
    if (
        event.card is not card
        or tuple(event.visible) != visible
        or event.expected != expected
        or event.ok is not (event.said == expected)
        or event.left != len(deck)
    ):
        for field, value, want in (
            ("card", event.card, card),
            ("visible", tuple(event.visible), visible),
            ("expected", event.expected, expected),
            ("ok", event.ok, event.said == expected),
            ("left", event.left, len(deck)),
        ):
            if value != want:
                raise _wrong(event, field, value, want)
    decks = list(state.decks)
    decks[seat] = deck
    called = event.ok and bool(deck) and is_call(visible)
    # A right "BIM BAM BUM!" opens the slap race from the yell's onset (the "bimbambum" event follows).
    return {"decks": tuple(decks), "piles": tuple(piles), **({"slap_opens": event.onset} if called else {})}


def _on_skip(state: State, event: Skipped) -> Changes:
    if event.player != state.next_player(state.turn):
        raise _wrong(event, "player", event.player, state.next_player(state.turn))
    return {}


def _on_reverse(state: State, event: Reversed) -> Changes:
    if event.direction != -state.direction:
        raise _wrong(event, "direction", event.direction, -state.direction)
    return {"direction": event.direction}


def _on_call(state: State, event: Called) -> Changes:
    if event.player != state.turn or not is_call(state.visible) or state.slap_opens is None:
        raise LogError(f"event seq {event.seq} (bimbambum): {event.player} did not just make a right call")
    return {"phase": Phase.SLAP, "caller": event.player, "slap_closes": event.t + state.settings.slap_window}


def _on_slap(state: State, event: Slapped) -> Changes:
    if (
        state.phase is not Phase.SLAP
        or state.slap_opens is None
        or state.slap_closes is None
        or not state.slap_opens <= event.onset <= state.slap_closes
    ):
        raise _wrong(event, "onset", event.onset, "a time inside the open slap window")
    return {}


def _on_mistake(state: State, event: MistakeMade) -> Changes:
    if event.player not in state.players:
        raise _wrong(event, "player", event.player, "a seated player")
    return {}


def _on_penalty(state: State, event: Penalised) -> Changes:
    """The player takes the named pile under their deck; the boxed pile leaves the game."""
    if event.player not in state.players:
        raise _wrong(event, "player", event.player, "a seated player")
    for field, pile, count in (("took", event.took_pile, event.took), ("boxed", event.boxed_pile, event.boxed)):
        if pile is not None and not (isinstance(pile, int) and 0 <= pile < PILES):
            raise _wrong(event, f"{field}_pile", pile, "0, 1, 2 or null")
        size = len(state.piles[pile]) if pile is not None else 0
        if count != size:
            raise _wrong(event, field, count, size)
    if event.took_pile is not None and event.took_pile == event.boxed_pile:
        raise _wrong(event, "boxed_pile", event.boxed_pile, "another pile than the one taken")
    if event.took_pile is None and any(state.piles):
        raise _wrong(event, "took_pile", None, "the largest pile")
    seat = state.seat(event.player)
    took = state.piles[event.took_pile] if event.took_pile is not None else ()
    decks = list(state.decks)
    decks[seat] = decks[seat] + took
    if event.cards != len(decks[seat]):
        raise _wrong(event, "cards", event.cards, len(decks[seat]))
    boxed = state.piles[event.boxed_pile] if event.boxed_pile is not None else ()
    emptied = {event.took_pile, event.boxed_pile}
    piles = tuple(() if i in emptied else pile for i, pile in enumerate(state.piles))
    return {
        "decks": tuple(decks),
        "piles": piles,
        "box": state.box + boxed,
        "phase": Phase.PLAY,
        "caller": None,
        "slap_opens": None,
        "slap_closes": None,
    }


def _on_end(state: State, event: GameEnded) -> Changes:
    if dict(event.cards_left) != state.cards_left:
        raise _wrong(event, "cards_left", dict(event.cards_left), state.cards_left)
    if event.winner is not None and state.deck(event.winner):
        raise _wrong(event, "winner", event.winner, "a player without cards")
    return {"phase": Phase.OVER, "winner": event.winner, "caller": None, "slap_opens": None, "slap_closes": None}


def _on_resumed(state: State, event: Resumed) -> Changes:
    """The open window starts again: a slap race at once, a turn with the repeated "turn" event."""
    if state.phase is Phase.SLAP:
        return {"slap_opens": event.t, "slap_closes": event.t + state.settings.slap_window}
    return {"resuming": True}


_HANDLERS: dict[type[Event], Callable[[State, Any], Changes]] = {
    RoundStarted: _on_round,
    TurnStarted: _on_turn,
    CardPlayed: _on_play,
    Skipped: _on_skip,
    Reversed: _on_reverse,
    Called: _on_call,
    Slapped: _on_slap,
    MistakeMade: _on_mistake,
    Penalised: _on_penalty,
    GameEnded: _on_end,
    Resumed: _on_resumed,
}
