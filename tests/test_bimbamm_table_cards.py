"""Bim Bamm! with table cards: players hold physical cards the host never sees (issue 9).

The engine trusts the earliest shouter of a raced animal, the table reports false claims
(Challenge, or ResolveRace.refuted before a winning point), and hands, pile and drawn cards are
logged as unknown. Positions use LAYOUT from tests/test_bimbamm.py: black_up=[3] shows four cats,
and flipping tile 6 then makes the fifth.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_voicehost
from tests.test_bimbamm import CAT, DOG, HEN, LAYOUT, PIG, layout, make_state, of_type, play
from voicehost.eventlog import EventLogWriter, read_events
from voicehost.rules.base import Event, IllegalAction, LogError
from voicehost.rules.bimbamm import (
    GAME,
    Action,
    Animal,
    Call,
    Cards,
    Challenge,
    Flip,
    Phase,
    Quit,
    Refuted,
    ResolveRace,
    ScorerFlips,
    SetupError,
    Shout,
    Special,
    State,
    UseSpecial,
    apply,
    legal_actions,
    new_game,
    next_claim,
    replay,
    resume,
    would_score,
)
from voicehost.sim.bimbamm import GameResult, play_game, simulate

ABC = ("Ann", "Bob", "Cid")


def table_state(
    players: Sequence[str] = ABC,
    *,
    points: Mapping[str, Sequence[Animal]] | None = None,
    black_up: Iterable[int] = (),
    turn: str | None = None,
    special: Special = Special.SWAP,
    variant2p: bool = False,
) -> State:
    """A table-cards position: hands and pile unknown, these won cards and tiles."""
    won = points or {}
    return State(
        players=tuple(players),
        tiles=layout(black_up),
        special=special,
        hands=(None,) * len(players),
        deck=(),
        points=tuple(tuple(won.get(p, ())) for p in players),
        turn=turn or players[0],
        variant2p=variant2p,
        seq=2,
        cards=Cards.TABLE,
    )


def cat_race(**kwargs: Any) -> State:
    """Ann has just flipped the fifth cat: a cat race is open."""
    return play(table_state(black_up=[3], **kwargs), Flip("Ann", 6, t=1.0))[0]


# -- setup ----------------------------------------------------------------------------------------


def test_table_cards_setup_logs_hands_and_pile_as_unknown_and_records_the_mode() -> None:
    """Setup with table cards: "cards": "table", hands and deck null (unknown), nobody's card in the state."""
    state, events = new_game(["Ann", "Bob", "Cid"], random.Random(4), 4, cards="table", first_player="Bob")
    setup = events[0].to_json()
    assert setup["cards"] == "table" and setup["state"]["hands"] is None and setup["state"]["deck"] is None
    assert setup["state"]["points"] == {"Ann": [], "Bob": [], "Cid": []}
    assert state.cards is Cards.TABLE and state.table_cards and state.hands == (None, None, None) and state.deck == ()
    assert state.to_json()["hands"] is None and state.to_json()["cards"] == "table"


def test_a_dealt_game_records_cards_dealt_and_still_deals() -> None:
    """The default mode is dealt: "cards": "dealt" in the setup, every hand known."""
    state, events = new_game(["Ann", "Bob"], random.Random(4), 4)
    assert events[0].to_json()["cards"] == "dealt" and state.cards is Cards.DEALT
    assert all(h is not None for h in state.hands) and len(state.deck) == 13


def test_table_cards_the_host_chooses_the_first_player() -> None:
    """With table cards the host asks who holds a cat and passes that player; without one, the first seat."""
    chosen, events = new_game(["Ann", "Bob", "Cid"], random.Random(1), 1, cards=Cards.TABLE, first_player="Cid")
    default, _ = new_game(["Ann", "Bob", "Cid"], random.Random(1), 1, cards=Cards.TABLE)
    assert chosen.turn == "Cid" and events[1].to_json()["player"] == "Cid" and default.turn == "Ann"


def test_table_cards_same_seed_gives_the_same_tiles_as_a_dealt_game() -> None:
    """The seeded default tiles do not depend on the mode (table cards shuffle no cards)."""
    dealt, _ = new_game(["Ann", "Bob"], random.Random(9), 9)
    table, _ = new_game(["Ann", "Bob"], random.Random(9), 9, cards="table")
    assert dealt.tiles == table.tiles


def test_an_unknown_cards_mode_is_refused_at_setup() -> None:
    """cards is "dealt" or "table"; anything else is a setup error naming the value."""
    with pytest.raises(SetupError, match="'dealt' or 'table', not 'hidden'"):
        new_game(["Ann", "Bob"], random.Random(0), 0, cards="hidden")


# -- races --------------------------------------------------------------------------------------------


def test_table_cards_the_earliest_shouter_of_the_raced_animal_is_trusted_and_scores() -> None:
    """The first cat shout scores (the engine cannot see the card); the drawn card is unknown (null)."""
    state, events = play(cat_race(), ResolveRace((Call("Cid", CAT, 1.40), Call("Bob", CAT, 1.35)), t=2.5))
    assert of_type(events, "point") == [
        {"seq": 5, "t": 2.5, "type": "point", "player": "Bob", "animal": "cat", "drew": None, "points": 1, "shout": 4}
    ]
    assert of_type(events, "mistake") == [] and state.won("Bob") == (CAT,) and state.hands == (None,) * 3
    assert state.phase is Phase.SCORER and state.scorer == "Bob" and state.scored is CAT
    assert state.declaration is not None and state.declaration.actor == "Ann"


def test_table_cards_wrong_animal_and_no_five_are_still_judged() -> None:
    """The engine sees the tiles: a wrong animal in a race and a shout with no five are mistakes."""
    state, events = play(cat_race(points={"Cid": [HEN]}), ResolveRace((Call("Cid", PIG, 1.2),), t=2.0))
    assert [(m["reason"], m["returned"]) for m in of_type(events, "mistake")] == [("wrong_animal", "hen")]
    state, events = play(table_state(points={"Ann": [DOG]}), Shout("Ann", CAT, 0.9, t=1.0))
    assert [(m["reason"], m["returned"]) for m in of_type(events, "mistake")] == [("no_five", "dog")]
    assert state.won("Ann") == () and state.deck == ()


def test_table_cards_a_shout_of_the_showing_animal_outside_a_race_is_not_judged_no_card() -> None:
    """Five cats show, no window open: a cat shout is late (the engine cannot tell if it is held)."""
    state, events = play(table_state(black_up=[3, 6], points={"Bob": [DOG]}), Shout("Bob", CAT, 0.9, t=1.0))
    assert [e.TYPE for e in events] == ["shout"] and state.won("Bob") == (DOG,)


def test_table_cards_late_claims_after_the_scorer_are_no_mistake_and_score_nothing() -> None:
    """A later cat shout in the same window scores nothing and costs nothing (unless the scorer is challenged)."""
    state, events = play(
        cat_race(points={"Cid": [DOG]}), ResolveRace((Call("Bob", CAT, 1.2), Call("Cid", CAT, 1.3)), t=2.0)
    )
    assert len(of_type(events, "point")) == 1 and of_type(events, "mistake") == [] and state.won("Cid") == (DOG,)
    assert state.declaration is not None and [c.player for c in state.declaration.later] == ["Cid"]


# -- false claims ---------------------------------------------------------------------------------------


def test_a_challenge_takes_the_point_back_costs_a_won_card_and_trusts_the_next_claim() -> None:
    """The table says Bob has no cat: his point is taken back, the shout is a no_card mistake (his
    last earlier card goes under the pile), and Cid, the next cat shouter, scores instead."""
    state, _ = play(
        cat_race(points={"Bob": [DOG]}),
        ResolveRace((Call("Bob", CAT, 1.2), Call("Ann", HEN, 1.25), Call("Cid", CAT, 1.3)), t=2.0),
    )
    assert state.score("Bob") == 2 and state.scorer == "Bob"
    state, events = play(state, Challenge("Bob", t=3.0))
    assert [e.to_json() for e in events] == [
        {"seq": 9, "t": 3.0, "type": "challenge", "player": "Bob", "animal": "cat", "shout": 4, "points": 1},
        {"seq": 10, "t": 3.0, "type": "mistake", "player": "Bob", "reason": "no_card", "returned": "dog", "shout": 4},
        {"seq": 11, "t": 3.0, "type": "point", "player": "Cid", "animal": "cat", "drew": None, "points": 1, "shout": 8},
    ]
    assert state.won("Bob") == () and state.won("Cid") == (CAT,) and state.deck == ()
    assert state.phase is Phase.SCORER and state.scorer == "Cid" and state.turn == "Cid"


def test_a_challenge_with_no_later_claim_passes_play_left_of_the_player_who_flipped() -> None:
    """Nobody is left to trust: nobody scores, and play continues to the left of Ann, who flipped."""
    state, _ = play(cat_race(), ResolveRace((Call("Cid", CAT, 1.2),), t=2.0))
    state, events = play(state, Challenge("Cid", t=3.0))
    assert [e.TYPE for e in events] == ["challenge", "mistake", "turn"]
    assert of_type(events, "mistake")[0]["returned"] is None and state.points_by_name() == {
        "Ann": 0,
        "Bob": 0,
        "Cid": 0,
    }
    assert state.phase is Phase.TURN and state.turn == "Bob" and state.declaration is None


def test_a_challenge_also_settles_the_players_other_claims_of_that_animal() -> None:
    """Bob shouted cat twice and holds none: one no_card mistake for the window (his repeat is no
    second one); Cid's claim is next."""
    state, _ = play(
        cat_race(points={"Bob": [DOG]}),
        ResolveRace((Call("Bob", CAT, 1.2), Call("Bob", CAT, 1.3), Call("Cid", CAT, 1.4)), t=2.0),
    )
    state, events = play(state, Challenge("Bob", t=3.0))
    assert [(m["returned"], m["shout"]) for m in of_type(events, "mistake")] == [("dog", 4)]
    assert of_type(events, "point")[0]["player"] == "Cid" and state.won("Bob") == ()


def test_a_challenged_chain_the_next_claim_can_be_challenged_too() -> None:
    """Bob's claim is false, so Cid's is trusted; Cid's is false as well: nobody scores, play goes left of Ann."""
    state, _ = play(cat_race(), ResolveRace((Call("Bob", CAT, 1.2), Call("Cid", CAT, 1.3)), t=2.0))
    state, _ = play(state, Challenge("Bob", t=3.0))
    state, events = play(state, Challenge("Cid", t=3.5))
    assert [e.TYPE for e in events] == ["challenge", "mistake", "turn"] and state.turn == "Bob"


def test_the_second_trusted_claim_can_win_the_game() -> None:
    """After a challenge the next claim is a point like any other: a third point wins at once."""
    state, _ = play(
        cat_race(points={"Cid": [DOG, PIG]}), ResolveRace((Call("Bob", CAT, 1.2), Call("Cid", CAT, 1.3)), t=2.0)
    )
    state, events = play(state, Challenge("Bob", t=3.0))
    assert [e.TYPE for e in events] == ["challenge", "mistake", "point", "game_over"]
    assert state.over and state.winner == "Cid"


def test_a_refuted_claim_before_the_race_closes_is_a_no_card_mistake_and_the_next_claim_scores() -> None:
    """Bob (2 points) would win: the host asks him to show his cat first; the table says no, so the
    race goes in with his claim refuted: no_card for Bob, the point for Cid, no game over."""
    state = cat_race(points={"Bob": [DOG, PIG]})
    calls = (Call("Bob", CAT, 1.2), Call("Cid", CAT, 1.3))
    assert would_score(state, calls) == calls[0]
    refuted = (Refuted("Bob", CAT),)
    assert would_score(state, calls, refuted) == calls[1]
    state, events = play(state, ResolveRace(calls, refuted, t=2.0))
    assert [(m["player"], m["reason"], m["returned"]) for m in of_type(events, "mistake")] == [
        ("Bob", "no_card", "pig")
    ]
    assert of_type(events, "point")[0]["player"] == "Cid" and not state.over and state.won("Bob") == (DOG,)


def test_a_challenge_can_carry_refuted_later_claims_so_a_would_be_winner_shows_first() -> None:
    """Bob is challenged; Cid (2 points) is next and would win, so the host asks him first: his claim is
    refuted with the challenge (no_card), and Ann's later claim scores instead."""
    state, _ = play(
        cat_race(points={"Cid": [DOG, PIG]}),
        ResolveRace((Call("Bob", CAT, 1.2), Call("Cid", CAT, 1.3), Call("Ann", CAT, 1.4)), t=2.0),
    )
    claim = next_claim(state)
    assert claim is not None and (claim.player, claim.animal, claim.shout) == ("Cid", CAT, 6)
    refuted = (Refuted("Cid", CAT),)
    after = next_claim(state, refuted)
    assert after is not None and after.player == "Ann"
    state, events = play(state, Challenge("Bob", refuted, t=3.0))
    assert [(m["player"], m["returned"], m["shout"]) for m in of_type(events, "mistake")] == [
        ("Bob", None, 4),
        ("Cid", "pig", 6),
    ]
    assert of_type(events, "point")[0]["player"] == "Ann" and not state.over and next_claim(state) is None


def test_would_score_follows_the_rules_of_each_mode() -> None:
    """would_score: the earliest valid shout (dealt: by a holder; table: any raced-animal shout), else None."""
    dealt = play(make_state({"Ann": DOG, "Bob": CAT, "Cid": CAT}, black_up=[3]), Flip("Ann", 6, t=1.0))[0]
    calls = (Call("Ann", CAT, 1.1), Call("Cid", PIG, 1.2), Call("Bob", CAT, 1.3))
    assert would_score(dealt, calls) == calls[2] and would_score(cat_race(), calls) == calls[0]
    assert would_score(cat_race(), calls[1:2]) is None and would_score(table_state(), calls) is None


def test_table_cards_a_third_point_wins_at_once() -> None:
    """The win at 3 points works as before: game_over, no scorer's flips, no challenge possible."""
    state, events = play(cat_race(points={"Bob": [DOG, PIG]}), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0))
    assert [e.TYPE for e in events] == ["shout", "point", "game_over"] and state.winner == "Bob"
    with pytest.raises(IllegalAction) as caught:
        apply(state, Challenge("Bob", t=3.0))
    assert caught.value.reason == "game_over"


CLAIMED = play(cat_race(), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0))[0]
DEALT_SCORER = play(
    make_state({"Ann": DOG, "Bob": CAT, "Cid": CAT}, black_up=[3]),
    Flip("Ann", 6, t=1.0),
    ResolveRace((Call("Bob", CAT, 1.2),), t=2.0),
)[0]


@pytest.mark.parametrize(
    "state, action, reason",
    [
        (DEALT_SCORER, Challenge("Bob", t=3.0), "cards_known"),
        (
            play(make_state({"Ann": DOG, "Bob": CAT}, black_up=[3]), Flip("Ann", 6, t=1.0))[0],
            ResolveRace((Call("Bob", CAT, 1.2),), (Refuted("Bob", CAT),), t=2.0),
            "cards_known",
        ),
        (table_state(), Challenge("Ann", t=3.0), "no_claim"),
        (cat_race(), Challenge("Ann", t=3.0), "no_claim"),
        (CLAIMED, Challenge("Cid", t=3.0), "not_scorer"),
        (CLAIMED, Challenge("Zed", t=3.0), "unknown_player"),
        (play(CLAIMED, ScorerFlips("Bob", (0, 1), t=3.0))[0], Challenge("Bob", t=4.0), "no_claim"),
        (cat_race(), ResolveRace((), (Refuted("Zed", CAT),), t=2.0), "unknown_player"),
        (cat_race(), ResolveRace((), (Refuted("Bob", "cat"),), t=2.0), "not_an_animal"),  # type: ignore[arg-type]
    ],
)
def test_challenges_and_refutations_out_of_place_are_refused_and_change_nothing(
    state: State, action: Action, reason: str
) -> None:
    """Challenge only a table-cards scorer before their flips; refute only with table cards: else refused."""
    before = state.to_json()
    with pytest.raises(IllegalAction) as caught:
        apply(state, action)
    assert caught.value.reason == reason and str(caught.value)
    assert state.to_json() == before


# -- cards the host does not see ------------------------------------------------------------------


def test_table_cards_a_mistake_names_the_returned_card_the_pile_stays_unknown() -> None:
    """A mistake returns the player's last won card (the engine knows which animal); the pile is physical."""
    state, events = play(cat_race(points={"Ann": [PIG, HEN]}), ResolveRace((Call("Ann", DOG, 1.5),), t=2.0))
    assert of_type(events, "mistake")[0]["returned"] == "hen" and state.won("Ann") == (PIG,)
    assert state.deck == () and state.to_json()["deck"] is None


def test_table_cards_swap_and_exchange_log_unknown_cards_and_turn_the_special_tile() -> None:
    """SWAP and EXCHANGE are done with physical cards: logged with null cards; the special tile turns."""
    state, events = play(table_state(), UseSpecial("Ann", t=1.0), UseSpecial("Bob", "Ann", t=2.0))
    assert of_type(events, "swap") == [
        {"seq": 2, "t": 1.0, "type": "swap", "player": "Ann", "returned": None, "drew": None}
    ]
    assert of_type(events, "exchange") == [
        {"seq": 4, "t": 2.0, "type": "exchange", "player": "Bob", "with": "Ann", "gave": None, "got": None}
    ]
    assert state.special is Special.SWAP and state.turn == "Cid" and state.hands == (None,) * 3
    with pytest.raises(IllegalAction) as caught:
        apply(state, UseSpecial("Cid", "Ann", t=3.0))
    assert caught.value.reason == "swap_has_no_target"


def test_table_cards_two_player_rule_still_applies() -> None:
    """2 players with table cards: Bob may not turn a tile showing the cat Ann just revealed."""
    state, _ = play(table_state(("Ann", "Bob"), variant2p=True), Flip("Ann", 3, t=1.0))
    with pytest.raises(IllegalAction) as caught:
        apply(state, Flip("Bob", 0, t=2.0))
    assert caught.value.reason == "restricted_tile"


def test_table_cards_a_scorers_flips_close_the_claim_and_can_open_a_new_race() -> None:
    """Once the scorer turns 2 tiles the claim stands (no challenge); a new five opens a new race."""
    state, _ = play(
        table_state(black_up=[3, 10, 13]), Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0)
    )
    state, events = play(state, ScorerFlips("Bob", (0, 1), t=3.0))
    assert of_type(events, "race") == [{"seq": 8, "t": 3.0, "type": "race", "animal": "dog"}]
    assert state.declaration is None and state.phase is Phase.RACE and state.won("Bob") == (CAT,)


# -- log, replay, resume --------------------------------------------------------------------------------


def scripted_table_game() -> tuple[State, list[Event]]:
    """Swap, exchange, a challenged point, a refuted claim, a late claim and mistakes."""
    state, events = new_game(
        ["Ann", "Bob", "Cid"], random.Random(11), 11, tiles=LAYOUT, cards="table", first_player="Bob"
    )
    actions: list[Action] = [
        UseSpecial("Bob", t=1.0),
        UseSpecial("Cid", "Ann", t=2.0),
        Flip("Ann", 3, t=3.0),
        Flip("Bob", 6, t=4.0),
        ResolveRace((Call("Ann", CAT, 4.3), Call("Cid", PIG, 4.4), Call("Bob", CAT, 4.6)), t=5.5),
        Challenge("Ann", t=6.0),
        ScorerFlips("Bob", (0, 1), t=7.0),
        Flip("Cid", 1, t=8.0),
        Flip("Ann", 0, t=9.0),
        ResolveRace((Call("Bob", CAT, 9.2), Call("Cid", CAT, 9.3)), (Refuted("Bob", CAT),), t=9.5),
        ScorerFlips("Cid", (2, 3), t=10.0),
        Flip("Ann", 12, t=11.0),
    ]
    for action in actions:
        state, produced = apply(state, action)
        events += produced
    return state, events


def test_a_table_cards_log_replays_to_the_live_state_and_resumes(tmp_path: Path) -> None:
    """Save and resume with table cards: the log (challenge included) replays to the same state; the
    game goes on after a "resumed" event and the whole log replays again."""
    state, events = scripted_table_game()
    assert {"challenge", "swap", "exchange", "point", "mistake"} <= {e.TYPE for e in events}
    path = tmp_path / "table.jsonl"
    with EventLogWriter(path) as log:
        log.write(events)
    loaded = replay(read_events(path))
    assert loaded == state and loaded.cards is Cards.TABLE
    resumed, produced = resume(loaded, 20.0)
    more: list[Event] = []
    for action in (Flip(resumed.turn, 14, t=21.0),):
        resumed, out = apply(resumed, action)
        more += out
    with EventLogWriter(path) as log:
        log.write(produced + more)
    assert GAME.replay(read_events(path)) == resumed


def test_a_refuted_claim_replays_from_the_logged_no_card_mistake() -> None:
    """ResolveRace.refuted is not logged as such: replay reads it back from the race's no_card mistakes."""
    state, events = new_game(["Ann", "Bob", "Cid"], random.Random(2), 2, tiles=LAYOUT, cards="table")
    state = State(**{**state.__dict__, "points": ((), (DOG, PIG), ()), "tiles": layout([3])})
    setup = events[0].to_json()
    setup["state"]["points"] = {"Ann": [], "Bob": ["dog", "pig"], "Cid": []}
    setup["state"]["tiles"] = [t.to_json() for t in layout([3])]
    log = [setup, events[1].to_json()]
    state, produced = play(
        state,
        Flip("Ann", 6, t=1.0),
        ResolveRace((Call("Bob", CAT, 1.2), Call("Cid", CAT, 1.3)), (Refuted("Bob", CAT),), t=2.0),
    )
    log += [e.to_json() for e in produced]
    assert replay(log) == state and state.scorer == "Cid"


def test_replay_refuses_a_table_cards_setup_with_known_cards() -> None:
    """A table-cards setup must log hands and deck as null; a log naming cards is refused."""
    _, events = scripted_table_game()
    log = [e.to_json() for e in events]
    log[0]["state"]["hands"] = {"Ann": "cat", "Bob": "dog", "Cid": "pig"}
    with pytest.raises(LogError, match="'state.hands' must be null"):
        replay(log)


def test_replay_refuses_an_edited_challenge() -> None:
    """A challenge event naming someone who is not the scorer does not replay."""
    _, events = scripted_table_game()
    log = [e.to_json() for e in events]
    at = next(i for i, e in enumerate(log) if e["type"] == "challenge")
    log[at]["player"] = "Cid"
    with pytest.raises(LogError, match=f"event {at}"):
        replay(log)


def test_a_dealt_log_without_the_cards_field_still_replays() -> None:
    """Logs written before table cards existed (no "cards" in the setup) replay as dealt games."""
    state, events = new_game(["Ann", "Bob"], random.Random(5), 5)
    state, more = play(state, *legal_actions(state, 1.0)[:1])
    log = [e.to_json() for e in events + more]
    del log[0]["cards"]
    assert replay(log) == state


# -- properties -------------------------------------------------------------------------------------------

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_table_action(data: st.DataObject, state: State, t: float) -> Action:
    """Mostly legal actions, the host's challenges and refutations, stray shouts and wild actions."""
    kind = data.draw(st.sampled_from(["legal"] * 10 + ["challenge", "challenge", "shout", "wild", "quit"]))
    players = st.sampled_from(state.players)
    if kind == "legal":
        actions = legal_actions(state, t)
        action = data.draw(st.sampled_from(actions)) if actions else Quit(t=t)
        if isinstance(action, ResolveRace):
            calls = data.draw(
                st.lists(
                    st.builds(Call, players, st.sampled_from(list(Animal)), st.floats(t - 2.0, t, allow_nan=False)),
                    max_size=6,
                )
            )
            refuted = data.draw(st.lists(st.builds(Refuted, players, st.sampled_from(list(Animal))), max_size=2))
            action = ResolveRace(tuple(calls), tuple(refuted), t=t)
        return action
    if kind == "challenge":
        refuted = data.draw(st.lists(st.builds(Refuted, players, st.sampled_from(list(Animal))), max_size=2))
        return Challenge(state.scorer or data.draw(players), tuple(refuted), t=t)
    if kind == "shout":
        return Shout(data.draw(players), data.draw(st.sampled_from(list(Animal))), t, t=t)
    if kind == "quit":
        return Quit(data.draw(players), t=t)
    return data.draw(
        st.one_of(
            st.builds(Flip, players, st.integers(-1, 15), t=st.just(t)),
            st.builds(Challenge, st.sampled_from(state.players + ("Zed",)), t=st.just(t)),
            st.builds(ScorerFlips, players, st.tuples(st.integers(0, 14), st.integers(0, 14)), t=st.just(t)),
        )
    )


@SETTINGS
@given(st.integers(2, 8), st.integers(0, 2**31 - 1), st.data())
def test_random_table_cards_games_keep_points_tiles_and_the_win_and_replay_to_the_same_state(
    players: int, seed: int, data: st.DataObject
) -> None:
    """Random table-cards play: points 0-3 and never more than 3 of an animal won, tiles change only
    by flips, hands and pile stay unknown, illegal actions change nothing, the game ends exactly when
    someone reaches 3 points (or a quit), and the log replays to the live state."""
    state, events = new_game(
        NAMES[:players], random.Random(seed), seed, cards="table", first_player=NAMES[seed % players]
    )
    log: list[dict[str, Any]] = [e.to_json() for e in events]
    for step in range(1, 120):
        if state.over:
            break
        snapshot = state.to_json()
        try:
            after, produced = apply(state, random_table_action(data, state, float(step)))
        except IllegalAction as error:
            assert error.reason and state.to_json() == snapshot
            continue
        flipped = [e.to_json()["tile"] for e in produced if e.TYPE == "flip"]
        for i, (old, new) in enumerate(zip(state.tiles, after.tiles)):
            assert (old.white, old.black) == (new.white, new.black) and (old.up != new.up) == (
                flipped.count(i) % 2 == 1
            )
        assert all(0 <= len(w) <= 3 for w in after.points), "points never negative, never past 3"
        won = [c for w in after.points for c in w]
        assert all(won.count(a) <= 3 for a in Animal) and after.hands == (None,) * players and after.deck == ()
        assert [e.seq for e in produced] == list(range(state.seq, after.seq))
        if after.over:
            assert produced[-1].TYPE == "game_over"
            assert (after.winner is not None) == (produced[-1].to_json()["reason"] == "three_points")
            assert after.winner is None or after.score(after.winner) == 3
        else:
            assert max(len(w) for w in after.points) < 3 and legal_actions(after, after.last_t)
        state = after
        log.extend(e.to_json() for e in produced)
    assert replay(log) == state


@pytest.mark.parametrize("players", [2, 4, 8])
def test_simulated_table_cards_games_match_the_physical_cards_and_replay(players: int, tmp_path: Path) -> None:
    """Simulated table-cards games: the 15 physical cards stay accounted for, the engine's points are the
    physical won cards, false claims get challenged, and every log replays to the live state."""
    results: list[GameResult] = []
    summary = simulate(
        players, 30, seed=players, mistake_rate=0.2, log_dir=tmp_path, keep=results.append, cards=Cards.TABLE
    )
    assert summary.challenges > 0 and summary.games == 30
    for path, result in zip(sorted(tmp_path.glob("*.jsonl")), results):
        table = result.table
        assert table is not None
        cards = [h for h in table.hands if h is not None] + table.deck + [c for w in table.points for c in w]
        assert sorted(cards) == sorted(a for a in Animal for _ in range(3))
        assert [list(w) for w in result.state.points] == table.points
        events = read_events(path)
        assert events[0]["cards"] == "table" and replay(events) == result.state


def test_simulated_table_cards_games_end_with_a_winner_and_are_seeded() -> None:
    """Bots finish table-cards games with a 3-point winner; the same seed plays the same game."""
    results: list[GameResult] = []
    summary = simulate(4, 40, seed=3, keep=results.append, cards=Cards.TABLE)
    assert summary.unfinished == 0 and all(r.state.winner and r.state.score(r.state.winner) == 3 for r in results)
    a, b = (play_game(["Ann", "Bob", "Cid"], 8, cards=Cards.TABLE) for _ in range(2))
    assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]


def test_simulate_command_plays_table_cards(tmp_path: Path) -> None:
    """`voicehost simulate bimbamm --cards table` says so, prints challenges per game, logs "cards": "table"."""
    result = run_voicehost(
        "simulate",
        "bimbamm",
        "--players",
        "3",
        "--games",
        "10",
        "--seed",
        "2",
        "--cards",
        "table",
        "--mistake-rate",
        "0.2",
        "--log-dir",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert "table cards" in result.stdout and "challenges per game:" in result.stdout
    assert read_events(tmp_path / "bimbamm-00001.jsonl")[0]["cards"] == "table"
    bad = run_voicehost("simulate", "bimbamm", "--cards", "hidden")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr and "Traceback" not in bad.stderr
