"""Bim Bamm! as decide-then-fold (issue 15): ``evolve`` applies one event and refuses one that cannot
happen, naming its seq and field; the engine's states are folds of its own events, so a replayed
log (dealt or table cards, rules 1 or 2, with leavers, challenges and restarts) is the live state."""

from __future__ import annotations

import random
from functools import reduce
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_bimbamm import scripted_game
from tests.test_bimbamm_table_cards import scripted_table_game
from voicehost.rules.base import IllegalAction, LogError
from voicehost.rules.bimbamm import (
    Action,
    Animal,
    Call,
    Cards,
    Challenge,
    Leave,
    Phase,
    Quit,
    Refuted,
    ResolveRace,
    Resume,
    Shout,
    State,
    apply,
    event_from_json,
    evolve,
    legal_actions,
    new_game,
    replay,
)
from voicehost.sim.bimbamm import simulate

Log = list[dict[str, Any]]


def dealt_log() -> Log:
    return [e.to_json() for e in scripted_game()[1]]


def table_log() -> Log:
    return [e.to_json() for e in scripted_table_game()[1]]


def setting(seq: int, key: str, value: Any) -> Callable[[Log], None]:
    def edit(log: Log) -> None:
        assert log[seq].get(key) != value
        log[seq][key] = value

    return edit


def dropping(seq: int, renumber: bool = True) -> Callable[[Log], None]:
    def edit(log: Log) -> None:
        del log[seq]
        for obj in log[seq:] if renumber else ():
            obj["seq"] -= 1

    return edit


# scripted_game: Bob swaps, Cid exchanges with Ann, Ann and Bob flip cats: race (9); Ann shouts
# (10) and scores (11), Cid's pig (12) is wrong (13), Bob's cat (14) is late.
DEALT_EDITS = [
    ("a flip showing another animal", setting(8, "showing", "dog"), r"event 8 \(flip\): field 'showing' is 'dog'"),
    ("a flip's counts", lambda log: log[6]["counts"].update(cat=9), r"event 6 \(flip\): field 'counts'"),
    ("a turn flip by the wrong player", setting(8, "player", "Cid"), r"event 8 \(flip\): field 'player'"),
    ("t going back", setting(7, "t", 2.5), r"event 7 \(turn\): field 't' is 2\.5"),
    ("a turn for the wrong player", setting(7, "player", "Cid"), r"event 7 \(turn\): field 'player' is 'Cid'.*'Bob'"),
    ("a race for another animal", setting(9, "animal", "dog"), r"event 9 \(race\): field 'animal' is 'dog'"),
    ("a swap's drawn card", setting(2, "drew", "hen"), r"event 2 \(swap\): field 'drew'"),
    ("an exchange's card", setting(4, "got", "pig"), r"event 4 \(exchange\): field 'got' is 'pig'.*'dog'"),
    ("a point for another player", setting(11, "player", "Bob"), r"event 11 \(point\): field 'player'.*'Ann'"),
    ("a point for another animal", setting(11, "animal", "dog"), r"event 11 \(point\): field 'animal'"),
    (
        "a point for a player who does not hold the animal",
        lambda log: (log[10].update(player="Cid"), log[11].update(player="Cid")),
        r"event 11 \(point\): field 'type' is 'point', the rules give 'mistake'",
    ),
    ("a mistake's returned card", setting(13, "returned", "pig"), r"event 13 \(mistake\): field 'returned'"),
    ("a mistake's reason", setting(13, "reason", "no_card"), r"event 13 \(mistake\): field 'reason'"),
    ("a deleted mistake", dropping(13), r"event 13 \(shout\): field 'type' is 'shout', the rules give 'mistake'"),
    ("a gap in the seqs", dropping(13, renumber=False), r"event 14 \(shout\): field 'seq' is 14.*13"),
    ("a shout of a player not seated", setting(12, "player", "Zed"), r"event 12 \(shout\): field 'player'"),
    ("a second setup", lambda log: log.insert(2, dict(log[0], seq=2)), r"event 2 \(setup\): a second setup"),
    ("an unknown event", setting(7, "type", "dance"), r"event 7 \(dance\): not a Bim Bamm! event"),
]


@pytest.mark.parametrize("edit, words", [pytest.param(e, w, id=name) for name, e, w in DEALT_EDITS])
def test_evolve_refuses_an_edited_dealt_log_naming_seq_and_field(edit: Callable[[Log], None], words: str) -> None:
    log = dealt_log()
    replay(log)
    edit(log)
    with pytest.raises(LogError, match=words):
        replay(log)


# scripted_table_game: … Ann's point (11) is challenged (15), her no_card (16), Bob's later claim
# scores (17); later Bob's refuted claim (25, 26) and Cid's point (28).
TABLE_EDITS = [
    ("a table-cards point naming the card drawn", setting(17, "drew", "cat"), r"event 17 \(point\): field 'drew'"),
    ("a swap naming a card", setting(2, "returned", "cat"), r"event 2 \(swap\): field 'returned'"),
    ("a challenge of a non-scorer", setting(15, "player", "Cid"), r"event 15 \(challenge\): field 'player'"),
    ("a challenge's points", setting(15, "points", 1), r"event 15 \(challenge\): field 'points'"),
    (
        "a challenge listing no claim",
        lambda log: log[15].update(refuted=[12]),
        r"event 15 \(challenge\): field 'refuted'",
    ),
    ("a challenge without its mistake", dropping(16), r"event 16 \(point\): field 'type' is 'point'"),
    ("the next claim's point", setting(17, "shout", 12), r"event 17 \(point\): field 'shout' is 12.*14"),
    ("a refuted claim unmarked", lambda log: log[25].pop("refuted"), r"event 26 \(mistake\): field 'type'"),
    ("a valid claim marked refuted", lambda log: log[27].update(refuted=True), r"event 28 \(point\): field 'type'"),
]


@pytest.mark.parametrize("edit, words", [pytest.param(e, w, id=name) for name, e, w in TABLE_EDITS])
def test_evolve_refuses_an_edited_table_cards_log_naming_seq_and_field(edit: Callable[[Log], None], words: str) -> None:
    log = table_log()
    replay(log)
    edit(log)
    with pytest.raises(LogError, match=words):
        replay(log)


def test_a_log_cut_inside_an_action_is_refused_and_one_cut_between_actions_is_not() -> None:
    """The fold knows what an action still owes: a flip without its race or turn, a shout without its
    mistake, a challenge without its verdicts."""
    log = table_log()
    for end, complete in [(9, False), (10, True), (11, False), (12, True), (13, False), (14, True), (16, False)]:
        if complete:
            replay(log[:end])
        else:
            with pytest.raises(LogError, match=f"event {end - 1}: the log ends in the middle of an action"):
                replay(log[:end])


def test_a_game_over_ends_the_fold() -> None:
    """Nothing follows "game_over", and its points are the state's."""
    state, events = scripted_game()
    state, more = apply(state, Quit("Ann", t=9.0))
    log = [e.to_json() for e in events + more]
    assert replay(log) == state
    with pytest.raises(LogError, match=r"event 15 \(game_over\): field 'points'"):
        replay(log[:-1] + [dict(log[-1], points={"Ann": 0, "Bob": 0, "Cid": 0})])
    with pytest.raises(LogError, match=r"event 16 \(resumed\): the game is over"):
        replay(log + [{"seq": 16, "t": 10.0, "type": "resumed"}])


# -- the engine's states are folds of its events ---------------------------------------------------

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def random_action(rng: random.Random, state: State, t: float) -> Action:
    """Mostly a legal action with random shouts and claims; sometimes a challenge, a leaver, a restart."""
    roll = rng.random()
    if roll < 0.03:
        return Leave(rng.choice(state.active), t=t)
    if roll < 0.05:
        return Resume(t=t)
    if roll < 0.08:
        return Shout(rng.choice(state.active), rng.choice(list(Animal)), t - 0.5, t=t)
    if roll < 0.3 and state.phase is Phase.SCORER and state.table_cards and state.scorer is not None:
        later = state.declaration.later if state.declaration is not None else ()
        return Challenge(state.scorer, tuple(Refuted(c.player, c.animal) for c in later if rng.random() < 0.4), t=t)
    actions = legal_actions(state, t)
    action = rng.choice(actions) if actions else Quit(t=t)
    if isinstance(action, ResolveRace):
        animals = list(state.race) * 3 + list(Animal)
        calls = tuple(
            Call(rng.choice(state.active), rng.choice(animals), round(t - rng.random(), 2))
            for _ in range(rng.randint(0, 6))
        )
        refuted = tuple(Refuted(c.player, c.animal) for c in calls if state.table_cards and rng.random() < 0.3)
        action = ResolveRace(calls, refuted, t=t)
    return action


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 6),
    st.sampled_from(["dealt", "table"]),
    st.sampled_from([1, 2]),
    st.integers(0, 2**31 - 1),
    st.data(),
)
def test_every_action_folds_its_events_and_every_complete_log_replays_to_the_live_state(
    players: int, cards: str, rules: int, seed: int, data: st.DataObject
) -> None:
    """Dealt or table cards, rules 1 or 2, with challenges, refuted claims, leavers and restarts:
    each action's new state is ``evolve`` folded over its events, and the log cut after any action
    replays to the state at that point (so a game can be resumed from anywhere)."""
    rng = random.Random(seed)
    state, events = new_game(NAMES[:players], rng, seed, cards=cards, rules=rules)
    log = [e.to_json() for e in events]
    states = {len(log): state}
    for step in range(1, 150):
        if state.over:
            break
        try:
            after, produced = apply(state, random_action(rng, state, float(step)))
        except IllegalAction:
            continue
        assert reduce(evolve, produced, state) == after
        assert [event_from_json(e.to_json()) for e in produced] == produced
        state = after
        log.extend(e.to_json() for e in produced)
        states[len(log)] = state
    assert replay(log) == state
    cut = data.draw(st.sampled_from(sorted(states)), label="cut")
    assert replay(log[:cut]) == states[cut]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_simulated_table_cards_games_replay_to_the_engine_state(players: int) -> None:
    """The simulator's table-cards games (challenges, refused winning claims) replay to the live state."""
    results: list[Any] = []
    simulate(players, 25, seed=players + 40, mistake_rate=0.2, cards=Cards.TABLE, keep=results.append)
    assert any(e.TYPE == "challenge" for r in results for e in r.events)
    for result in results:
        assert replay([e.to_json() for e in result.events]) == result.state
