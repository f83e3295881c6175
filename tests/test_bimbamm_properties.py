"""Bim Bamm! invariants over random games (hypothesis): cards, tiles, points, turn order, replay,
also with players leaving."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_bimbamm import card_count
from voicehost.rules.base import Event, IllegalAction
from voicehost.rules.bimbamm import (
    Action,
    Animal,
    Call,
    Flip,
    Leave,
    Phase,
    Quit,
    ResolveRace,
    ScorerFlips,
    Shout,
    State,
    UseSpecial,
    apply,
    default_tiles,
    legal_actions,
    new_game,
    parse_tile_spec,
    replay,
)

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
ANIMALS = list(Animal)
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_action(data: st.DataObject, state: State, t: float) -> Action:
    """Mostly a legal action; sometimes a shout, a player leaving, a quit, or an arbitrary (often
    illegal) action."""
    kind = data.draw(st.sampled_from(["legal"] * 12 + ["shout", "wild", "wild", "quit", "leave"]), label="kind")
    player = st.sampled_from(state.players + ("Zed",))
    animal = st.sampled_from(ANIMALS)
    if kind == "legal":
        actions = legal_actions(state, t)
        action = data.draw(st.sampled_from(actions), label="legal") if actions else Quit(t=t)
        if isinstance(action, ResolveRace):
            calls = data.draw(
                st.lists(
                    st.builds(Call, st.sampled_from(state.players), animal, st.floats(t - 2.0, t, allow_nan=False)),
                    max_size=6,
                ),
                label="calls",
            )
            action = ResolveRace(tuple(calls), t=t)
        return action
    if kind == "shout":
        return Shout(data.draw(st.sampled_from(state.players)), data.draw(animal), t, t=t)
    if kind == "leave":
        return Leave(data.draw(st.sampled_from(state.players)), t=t)
    if kind == "quit":
        return Quit(data.draw(st.sampled_from(state.players + (None,))), t=t)  # type: ignore[operator]
    tile = st.integers(-1, 16)
    return data.draw(
        st.one_of(
            st.builds(Flip, player, tile, t=st.just(t)),
            st.builds(UseSpecial, player, st.one_of(st.none(), player), t=st.just(t)),
            st.builds(ScorerFlips, player, st.tuples(tile, tile), t=st.just(t)),
            st.builds(ResolveRace, t=st.just(t - 100.0)),
        ),
        label="wild",
    )


def check_step(before: State, after: State, events: list[Event]) -> None:
    """Invariants of one applied action."""
    assert card_count(after) == dict.fromkeys(Animal, 3), "15 cards always accounted for"
    assert all(0 <= len(w) <= 3 for w in after.points), "points never negative, never past 3"
    assert [e.seq for e in events] == list(range(before.seq, before.seq + len(events)))
    assert after.seq == before.seq + len(events)
    flipped = [e.to_json()["tile"] for e in events if e.TYPE == "flip"]
    for i, (old, new) in enumerate(zip(before.tiles, after.tiles)):
        assert (old.white, old.black) == (new.white, new.black), "tile faces never change"
        assert (old.up != new.up) == (flipped.count(i) % 2 == 1), "a tile turns only by a flip"
    for e in events:
        obj = e.to_json()
        if obj["type"] == "point":
            assert 1 <= obj["points"] <= 3
        if obj["type"] in ("flip", "swap", "exchange", "shout", "point"):
            assert obj["player"] not in before.gone, "a player who left takes no part"
    assert after.gone[: len(before.gone)] == before.gone and all(after.score(p) == 0 for p in after.gone)
    if after.over:
        assert events[-1].TYPE == "game_over"
        assert after.winner is None or after.score(after.winner) == 3
    else:
        assert max(len(w) for w in after.points) < 3
        assert legal_actions(after, after.last_t), "a running game always has a legal action"


@SETTINGS
@given(st.integers(2, 8), st.integers(0, 2**31 - 1), st.data())
def test_random_games_keep_cards_tiles_points_and_turn_order_and_replay_to_the_same_state(
    players: int, seed: int, data: st.DataObject
) -> None:
    """Random action sequences: 15 cards accounted for, faces fixed, points within 0-3, illegal actions
    change nothing, turns pass to the left of the last actor, the game ends or goes on legally, and the
    log replays to the live state."""
    state, events = new_game(NAMES[:players], random.Random(seed), seed)
    log: list[dict[str, Any]] = [e.to_json() for e in events]
    last_actor = None
    for step in range(1, 120):
        if state.over:
            break
        action = random_action(data, state, float(step))
        snapshot = state.to_json()
        try:
            after, produced = apply(state, action)
        except IllegalAction as error:
            assert error.reason and state.to_json() == snapshot
            continue
        check_step(state, after, produced)
        for e in produced:
            obj = e.to_json()
            if obj["type"] in ("flip", "swap", "exchange") and obj.get("reason", "turn") == "turn":
                last_actor = obj["player"]
            elif obj["type"] == "point":
                last_actor = obj["player"]
            elif obj["type"] == "left" and any(e.TYPE == "turn" for e in produced):
                last_actor = obj["player"]  # they were to act: the turn passes to their left
            elif obj["type"] == "turn":
                assert last_actor is None or obj["player"] == state.left_of(last_actor), "turns pass left"
        state = after
        log.extend(e.to_json() for e in produced)
    if state.over:
        for action in (Flip(state.turn, 0, t=999.0), Quit(t=999.0)):
            try:
                apply(state, action)
                raise AssertionError("a finished game accepts no action")
            except IllegalAction as error:
                assert error.reason == "game_over"
    assert replay(log) == state


@SETTINGS
@given(st.integers(0, 2**31 - 1), st.data())
def test_a_race_is_judged_by_onset_not_by_the_order_shouts_are_submitted(seed: int, data: st.DataObject) -> None:
    """Resolving a race gives the same events and state whatever order the host lists the shouts in."""
    rng = random.Random(seed)
    state, _ = new_game(NAMES[:4], rng, seed)
    t = 0.0
    while state.phase is not Phase.RACE:
        t += 1.0
        state, _ = apply(state, rng.choice(legal_actions(state, t)))
        if state.over:
            return
    onsets = data.draw(st.lists(st.floats(t, t + 2.0, allow_nan=False), min_size=1, max_size=8, unique=True))
    calls = [Call(rng.choice(state.players), rng.choice(ANIMALS), onset) for onset in onsets]
    shuffled = data.draw(st.permutations(calls))
    first = apply(state, ResolveRace(tuple(calls), t=t + 2.0))
    second = apply(state, ResolveRace(tuple(shuffled), t=t + 2.0))
    assert first[0] == second[0] and [e.to_json() for e in first[1]] == [e.to_json() for e in second[1]]


@given(st.integers(0, 2**63))
def test_default_tiles_for_any_seed_show_three_of_each_animal_per_side(seed: int) -> None:
    """Whatever the seed, the default set has 3 of each animal per side and no tile alike on both sides."""
    tiles = default_tiles(random.Random(seed))
    assert sorted(t.white for t in tiles) == sorted(t.black for t in tiles) == sorted(a for a in Animal for _ in "xyz")
    assert all(t.white is not t.black for t in tiles)


@given(st.lists(st.tuples(st.sampled_from(ANIMALS), st.sampled_from(ANIMALS)), min_size=15, max_size=15))
def test_a_tile_spec_reads_back_what_was_written(pairs: list[tuple[Animal, Animal]]) -> None:
    """Any 15 white/black pairs written as a spec parse back to the same tiles."""
    tiles = parse_tile_spec(", ".join(f"{w}/{b}" for w, b in pairs))
    assert [(t.white, t.black) for t in tiles] == pairs
