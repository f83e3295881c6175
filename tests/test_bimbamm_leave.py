"""Bim Bamm! rules for a player who leaves (host ruling, docs/rules.md): the leaver's card and won
cards go under the pile, the turn skips them, the scorer's point leaves with them, no leaving while
a race is open, fewer than two players end the game; the "left" event round-trips and replays."""

from __future__ import annotations

import pytest

from tests.test_bimbamm import CAT, DOG, HEN, LAYOUT, PIG, card_count, make_state, of_type, play, stacked
from tests.test_bimbamm_table_cards import table_state
from voicehost.rules.base import IllegalAction, LogError
from voicehost.rules.bimbamm import (
    Animal,
    Call,
    Challenge,
    Flip,
    Leave,
    Phase,
    ResolveRace,
    ScorerFlips,
    Shout,
    Special,
    UseSpecial,
    apply,
    event_from_json,
    legal_actions,
    new_game,
    replay,
)

ABCD = {"Ann": DOG, "Bob": CAT, "Cid": CAT, "Dee": HEN}
"""Four players: Ann holds a dog, Bob and Cid a cat, Dee a hen."""


def test_the_leavers_card_then_won_cards_go_under_the_pile_and_the_turn_stays() -> None:
    """Cid (not to act) leaves: a "left" event names his card and won cards, which go under the pile
    in that order; he holds nothing and has no points; it is still Ann's turn; all 15 cards remain."""
    state = make_state(ABCD, points={"Cid": [PIG, HEN]})
    state, events = play(state, Leave("Cid", t=1.0))
    assert [e.to_json() for e in events] == [
        {"seq": 2, "t": 1.0, "type": "left", "player": "Cid", "card": "cat", "won": ["pig", "hen"]}
    ]
    assert state.deck[-3:] == (CAT, PIG, HEN) and state.hand("Cid") is None and state.score("Cid") == 0
    assert state.gone == ("Cid",) and state.active == ("Ann", "Bob", "Dee") and state.turn == "Ann"
    assert card_count(state) == dict.fromkeys(Animal, 3)


def test_turns_skip_a_player_who_left() -> None:
    """Bob left: Ann's flip passes the turn to Cid, and Dee's to Ann."""
    state, events = play(make_state(ABCD), Leave("Bob", t=1.0), Flip("Ann", 12, t=2.0))
    assert of_type(events, "turn")[-1]["player"] == "Cid"
    state, events = play(state, Flip("Cid", 13, t=3.0), Flip("Dee", 14, t=4.0))
    assert [t["player"] for t in of_type(events, "turn")] == ["Dee", "Ann"]


def test_the_player_whose_turn_it_is_leaving_passes_the_turn_to_their_left() -> None:
    """Ann leaves on her turn: the turn passes to Bob (a "turn" event follows the "left")."""
    state, events = play(make_state(ABCD), Leave("Ann", t=1.0))
    assert [e.TYPE for e in events] == ["left", "turn"] and state.turn == "Bob" and state.phase is Phase.TURN


def test_the_scorer_who_leaves_takes_the_point_with_them() -> None:
    """Bob scores the cat, then leaves before turning his two tiles: the cat card (and the card he
    drew) go under the pile, nobody turns tiles, and play goes on to Bob's left."""
    state = make_state(ABCD, black_up=[3], deck=[PIG, HEN])
    state, _ = play(state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0))
    assert state.phase is Phase.SCORER and state.scorer == "Bob"
    state, events = play(state, Leave("Bob", t=3.0))
    assert [e.to_json() for e in events] == [
        {"seq": 6, "t": 3.0, "type": "left", "player": "Bob", "card": "pig", "won": ["cat"]},
        {"seq": 7, "t": 3.0, "type": "turn", "player": "Cid"},
    ]
    assert state.phase is Phase.TURN and state.scorer is None and state.deck == (HEN, PIG, CAT)


def test_nobody_leaves_while_a_race_is_open() -> None:
    """A race is open: Leave is refused (race_open) until the host has resolved it."""
    state, _ = play(make_state(ABCD, black_up=[3]), Flip("Ann", 6, t=1.0))
    with pytest.raises(IllegalAction) as error:
        apply(state, Leave("Dee", t=2.0))
    assert error.value.reason == "race_open"


def test_a_player_who_left_cannot_shout_leave_again_or_be_exchanged_with() -> None:
    """A leaver's shout, a second Leave and an exchange with the leaver are refused; legal_actions
    lists no exchange with them."""
    state, _ = play(make_state(ABCD, special=Special.EXCHANGE), Leave("Cid", t=1.0))
    for action, reason in (
        (Shout("Cid", CAT, 2.0, t=2.0), "left_the_game"),
        (Leave("Cid", t=2.0), "left_the_game"),
        (UseSpecial("Ann", "Cid", t=2.0), "bad_target"),
    ):
        with pytest.raises(IllegalAction) as error:
            apply(state, action)
        assert error.value.reason == reason
    targets = [a.target for a in legal_actions(state, 2.0) if isinstance(a, UseSpecial)]
    assert targets == ["Bob", "Dee"]


def test_a_race_shout_by_a_player_who_left_is_refused() -> None:
    """The host must leave a leaver's shout out of ResolveRace: the rules refuse it (left_the_game)."""
    state, _ = play(make_state(ABCD, black_up=[3]), Leave("Bob", t=0.5), Flip("Ann", 6, t=1.0))
    with pytest.raises(IllegalAction) as error:
        apply(state, ResolveRace((Call("Bob", CAT, 1.2),), t=2.0))
    assert error.value.reason == "left_the_game"


def test_fewer_than_two_players_left_ends_the_game_without_a_winner() -> None:
    """Two players, Bob leaves: game_over (too_few_players), no winner, every player's points listed."""
    state = make_state({"Ann": DOG, "Bob": CAT}, points={"Ann": [PIG]})
    state, events = play(state, Leave("Bob", t=1.0))
    assert [e.TYPE for e in events] == ["left", "game_over"]
    over = of_type(events, "game_over")[0]
    assert over["reason"] == "too_few_players" and over["winner"] is None and over["points"] == {"Ann": 1, "Bob": 0}
    assert state.over and state.winner is None


def test_table_cards_the_leavers_card_is_unknown_and_their_later_claim_is_dropped() -> None:
    """Table cards: the "left" event's card is null (the physical card goes under the pile unseen),
    the won cards are named; a leaver's later claim in the window is no longer trusted after a challenge."""
    state = table_state(("Ann", "Bob", "Cid", "Dee"), black_up=[3], points={"Dee": [DOG]})
    state, _ = play(
        state,
        Flip("Ann", 6, t=1.0),
        ResolveRace((Call("Bob", CAT, 1.2), Call("Dee", CAT, 1.3), Call("Cid", CAT, 1.4)), t=2.0),
    )
    state, events = play(state, Leave("Dee", t=3.0))
    assert of_type(events, "left") == [
        {"seq": 8, "t": 3.0, "type": "left", "player": "Dee", "card": None, "won": ["dog"]}
    ]
    assert state.deck == () and state.score("Dee") == 0
    state, events = play(state, Challenge("Bob", t=4.0))
    assert [p["player"] for p in of_type(events, "point")] == ["Cid"]


def test_a_log_with_leavers_round_trips_and_replays_to_the_live_state() -> None:
    """Dee leaves (not to act), the scorer Cid leaves, Bob leaves on his turn and the game ends:
    every "left" event reads back as the same typed event, the log replays to the live state, and
    an edited "left" event is refused."""
    state, events = new_game(["Ann", "Bob", "Cid", "Dee"], stacked(DOG, CAT, CAT, HEN), 8, tiles=LAYOUT)
    state, produced = play(
        state,
        Flip("Bob", 3, t=1.0),
        Leave("Dee", t=2.0),
        Flip("Cid", 6, t=3.0),
        ResolveRace((Call("Cid", CAT, 3.5),), t=4.0),
        Leave("Cid", t=5.0),
        Flip("Ann", 0, t=6.0),
        Leave("Bob", t=7.0),
    )
    log = [e.to_json() for e in events + produced]
    assert [(e["type"], e.get("player")) for e in log if e["type"] in ("left", "turn", "game_over")] == [
        ("turn", "Bob"),
        ("turn", "Cid"),
        ("left", "Dee"),
        ("left", "Cid"),
        ("turn", "Ann"),
        ("turn", "Bob"),
        ("left", "Bob"),
        ("game_over", None),
    ]
    assert log[-1]["reason"] == "too_few_players"
    assert all(event_from_json(obj) == event for obj, event in zip(log, events + produced))
    assert replay(log) == state
    edited = [dict(e) for e in log]
    cid = next(e for e in edited if e["type"] == "left" and e["player"] == "Cid")
    cid["won"] = []
    with pytest.raises(LogError, match="left"):
        replay(edited)


def test_scorer_flips_after_a_non_scorer_leaves_go_on() -> None:
    """Dee leaves while Bob chooses his tiles: Bob still turns two cats and play continues left of Bob."""
    state = make_state(ABCD, black_up=[3], deck=[PIG, HEN])
    state, _ = play(state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0), Leave("Dee", t=2.5))
    state, events = play(state, ScorerFlips("Bob", (0, 1), t=3.0))
    assert state.phase is Phase.TURN and state.turn == "Cid" and state.score("Bob") == 1
