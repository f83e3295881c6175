"""Bim Bam Bum! invariants over random action sequences (hypothesis): whatever the players do,
cards are conserved, turn order only flips on a thrice, the turn stays at the table, and the log
replays to the live state."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any, Callable, Iterator

from hypothesis import event, given, settings
from hypothesis import strategies as st

from voicehost.rules.base import Event, IllegalAction
from voicehost.rules.bimbambum import (
    Action,
    Card,
    Phase,
    Play,
    Quit,
    Resume,
    Settings,
    SlapRace,
    State,
    Timeout,
    apply,
    new_game,
    replay,
)
from voicehost.sim.bimbambum import PHRASES, SimSettings, play_game

Step = tuple[State, Action, State, list[Event]]
"""(state before, action, state after, events); after is before when the action was illegal."""

KINDS = ["right"] * 12 + ["call"] * 6 + ["wrong", "out_of_turn", "late", "timeout", "bad_pile", "stranger", "resume"]
"""Mostly right plays (and plays that make a BIM BAM BUM! when they can), some of everything else."""


def all_cards(state: State) -> Counter[Card]:
    return Counter(c for part in (*state.decks, *state.piles, state.box) for c in part)


def draw_action(data: st.DataObject, state: State) -> Action:
    """Any action a table could send now, legal or not, with times that may be early or late."""
    if state.phase is Phase.SLAP:
        assert state.slap_opens is not None and state.slap_closes is not None
        slaps = tuple(
            (p, data.draw(st.floats(state.slap_opens - 0.5, state.slap_closes + 0.5)))
            for p in state.players
            if data.draw(st.booleans())
        )
        latest = max([state.t, *(onset for _, onset in slaps)])
        finish = data.draw(st.sampled_from([latest, max(latest, state.slap_closes)]))
        return SlapRace(slaps, t=finish)
    kind = data.draw(st.sampled_from(KINDS))
    pile = data.draw(st.integers(0, 2))
    onset = state.window_opens + data.draw(st.floats(0.0, 4.0))
    t = onset + 0.2
    others = [p for p in state.players if p != state.turn]
    if kind == "call" and "bim bam bum" in state.expected_phrases:
        pile = state.expected_phrases.index("bim bam bum")
    if kind in ("right", "call"):
        return Play(state.turn, pile, state.expected(pile), onset, t=t)
    if kind == "wrong":
        return Play(state.turn, pile, data.draw(st.sampled_from(PHRASES)), onset, t=t)
    if kind == "out_of_turn":
        return Play(data.draw(st.sampled_from(others)), pile, state.expected(pile), onset, t=t)
    if kind == "late":
        return Play(state.turn, pile, state.expected(pile), onset + 3.0, t=t + 3.0)
    if kind == "timeout":
        return Timeout(t=state.window_opens + data.draw(st.floats(0.0, 6.0)))
    if kind == "bad_pile":
        return Play(state.turn, data.draw(st.sampled_from([-1, 3, 7])), "bim", onset, t=t)
    if kind == "stranger":
        return Play("Stranger", pile, "bim", onset, t=t)
    return Resume(t=state.t + 5.0)


def random_game(data: st.DataObject, max_steps: int = 150) -> tuple[list[Event], Iterator[Step]]:
    """A dealt game and the steps of a random table playing it (the log grows as it is iterated)."""
    players = data.draw(st.integers(3, 8), label="players")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    window = data.draw(st.sampled_from([3.0, 1.0, None]), label="window")
    names = [f"P{i}" for i in range(players)]
    state, log = new_game(names, random.Random(seed), seed, settings=Settings(window=window, turn_cap=400))

    def steps() -> Iterator[Step]:
        nonlocal state
        for _ in range(max_steps):
            if state.over:
                return
            action = draw_action(data, state)
            try:
                after, events = apply(state, action)
            except IllegalAction:
                after, events = state, []
            log.extend(events)
            yield state, action, after, events
            state = after
        if not state.over and data.draw(st.booleans(), label="quit at the end"):
            after, events = apply(state, Quit(t=state.t + 1.0))
            log.extend(events)
            yield state, Quit(t=state.t + 1.0), after, events
            state = after

    return log, steps()


def check_every_step(check: Callable[[State, Action, State, list[Event]], None]) -> Callable[[st.DataObject], None]:
    """A property test body: play a random game and check each step."""

    def body(data: st.DataObject) -> None:
        _, steps = random_game(data)
        for step in steps:
            check(*step)

    return body


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_cards_are_conserved_decks_piles_and_box(data: st.DataObject) -> None:
    """Decks + piles + box always hold exactly the dealt cards, kind by kind."""
    log, steps = random_game(data)
    dealt = None
    for before, _, after, _ in steps:
        dealt = dealt or all_cards(before)
        assert all_cards(after) == dealt
        assert sum(dealt.values()) == (72 if len(after.players) == 8 else 54)


def _direction_only_on_thrice(before: State, action: Action, after: State, events: list[Event]) -> None:
    plays = [e.to_json() for e in events if e.TYPE == "play"]
    thrice = any(
        p["ok"]
        and p["visible"].count(p["card"]) == 3
        and p["expected"].count(" ") == 2
        and p["expected"] != "bim bam bum"
        for p in plays
    )
    reversed_ = [e for e in events if e.TYPE == "reverse"]
    if after.direction != before.direction:
        assert thrice and len(reversed_) == 1 and reversed_[0].to_json()["direction"] == after.direction
    elif not after.over:
        assert not reversed_ and not thrice


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_direction_changes_only_on_a_thrice(data: st.DataObject) -> None:
    """Turn order flips exactly when a card is rightly yelled thrice, and never otherwise."""
    check_every_step(_direction_only_on_thrice)(data)


def _seated(before: State, action: Action, after: State, events: list[Event]) -> None:
    assert after.turn in after.players
    for event in events:
        obj = event.to_json()
        for key in ("player", "starter", "winner"):
            assert obj.get(key) is None or obj[key] in after.players
        if event.TYPE == "turn":
            assert obj["player"] == after.turn
    if not after.over:
        assert all(after.decks), "a player without cards has won"
        assert events or after is before


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_turn_always_passes_to_a_seated_player_with_cards(data: st.DataObject) -> None:
    """Every turn goes to a seated player holding a card; every named player is seated."""
    check_every_step(_seated)(data)


def _numbered(before: State, action: Action, after: State, events: list[Event]) -> None:
    assert [e.seq for e in events] == list(range(before.seq, after.seq))
    assert all(e.t == action.t for e in events) and after.t >= before.t


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_events_are_numbered_in_order_and_time_never_goes_back(data: st.DataObject) -> None:
    """seq runs on without gaps and every event has its action's time, never earlier."""
    check_every_step(_numbered)(data)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_replay_equals_live(data: st.DataObject) -> None:
    """Replaying the JSON log of any game reproduces the live state exactly."""
    log, steps = random_game(data)
    state = None
    for _, _, state, _ in steps:
        pass
    assert state is not None
    logged: list[dict[str, Any]] = [json.loads(json.dumps(e.to_json())) for e in log]
    for kind in sorted({event["type"] for event in logged}):
        event(f"log has {kind}")
    event(f"ended: {logged[-1].get('reason') if state.over else 'no'}")
    assert replay(logged) == state


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 8), st.integers(0, 2**32 - 1), st.sampled_from([3.0, None]))
def test_mistake_free_games_always_end_with_a_winner(players: int, seed: int, window: float | None) -> None:
    """Without mistakes each round boxes a card, so the game ends on a last card well within the cap."""
    total = 72 if players == 8 else 54
    state, _ = play_game(seed, SimSettings(players, 0.0, Settings(window=window, turn_cap=total * total)))
    assert state.winner is not None and state.turns <= total * (total + 1) // 2
