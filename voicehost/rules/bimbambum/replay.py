"""Rebuild a game from its event log by replaying the actions the log records.

Each action is recovered from the event that starts its batch ("play", "mistake", "slap",
"game_over" for a quit, "resumed"); the engine applies it and every event it gives must equal
the logged one. So a log that replays is a log the rules could have written, and the state it
ends in is the state to resume from.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from voicehost.rules.base import Event, IllegalAction, JsonObject, LogError
from voicehost.rules.bimbambum.actions import Action, Play, Quit, Resume, SlapRace, Timeout
from voicehost.rules.bimbambum.cards import Card, parse_card
from voicehost.rules.bimbambum.engine import apply, start
from voicehost.rules.bimbambum.events import GAME_NAME, EndReason, MistakeReason
from voicehost.rules.bimbambum.state import Settings, State


def replay(events: Sequence[JsonObject]) -> State:
    """The state after the logged events (setup first); LogError names the first bad event."""
    if not events or events[0].get("type") != "setup" or events[0].get("game") != GAME_NAME:
        raise LogError(f"a {GAME_NAME} log must start with its setup event")
    state, produced = _from_setup(events[0])
    done = _match(produced, events, 0)
    while done < len(events):
        action = _action_at(events, done)
        try:
            state, produced = apply(state, action)
        except IllegalAction as error:
            raise LogError(f"event seq {done}: the rules reject the logged action ({error})") from None
        done = _match(produced, events, done)
    return state


def _from_setup(setup: JsonObject) -> tuple[State, list[Event]]:
    """Start the engine from the setup event's position."""
    try:
        position = setup["state"]
        players = list(setup["players"])
        decks = {p: _cards(position["decks"][p], f"state.decks.{p}") for p in players}
        piles = [_cards(pile, f"state.piles[{i}]") for i, pile in enumerate(position["piles"])]
        settings = Settings(window=position["window"], slap_window=position["slap_window"],
                            turn_cap=position.get("turn_cap"), rules=setup.get("rules", 1))
        return start(players, decks, first_player=position["turn"], piles=piles,
                     box=_cards(position["box"], "state.box"), direction=position["direction"],
                     settings=settings, seed=setup["seed"], t=setup["t"])
    except LogError:
        raise
    except KeyError as error:
        raise LogError(f"setup event: missing field {error}") from None
    except (TypeError, ValueError) as error:
        raise LogError(f"setup event: {error}") from None


def _cards(values: Any, where: str) -> list[Card]:
    if not isinstance(values, list):
        raise LogError(f"setup event: {where} must be a list of cards")
    return [parse_card(value, f"setup event {where}") for value in values]


def _action_at(events: Sequence[JsonObject], i: int) -> Action:
    """The action whose events start at ``events[i]``."""
    event = events[i]
    kind = event.get("type")
    try:
        if kind == "play":
            return Play(event["player"], event["pile"], event["said"], event["onset"], event["t"])
        if kind == "mistake":
            return _mistake_action(event)
        if kind == "slap":
            slaps = []
            for later in events[i:]:
                if later.get("type") != "slap":
                    break
                slaps.append((later["player"], later["onset"]))
            return SlapRace(tuple(slaps), event["t"])
        if kind == "game_over" and event.get("reason") == EndReason.QUIT:
            return Quit(event["t"])
        if kind == "resumed":
            return Resume(event["t"])
    except KeyError as error:
        raise LogError(f"event seq {i}: {kind} event lacks field {error}") from None
    raise LogError(f"event seq {i}: a {kind!r} event cannot begin an action here")


def _mistake_action(event: JsonObject) -> Action:
    """A mistake without a play before it: out of turn, a timeout, or a slap race nobody won."""
    reason, onset, t = event["reason"], event.get("onset"), event["t"]
    if reason in (MistakeReason.OUT_OF_TURN.value, MistakeReason.TIMEOUT.value) and onset is not None:
        return Play(event["player"], 0, "", onset, t)  # pile and words do not matter: no card moves
    if reason == MistakeReason.TIMEOUT.value:
        return Timeout(t)
    return SlapRace((), t)


def _match(produced: list[Event], events: Sequence[JsonObject], start_at: int) -> int:
    """Check the engine's events against the log from ``start_at``; return the next index."""
    for k, event in enumerate(produced):
        i = start_at + k
        expected = json.loads(json.dumps(event.to_json()))
        if i >= len(events):
            raise LogError(f"the log stops at seq {i - 1} in the middle of an action "
                           f"(the rules also give: {expected})")
        if events[i] != expected:
            raise LogError(f"event seq {i}: the log has {json.dumps(events[i])}, the rules give "
                           f"{json.dumps(expected)}")
    return start_at + len(produced)
