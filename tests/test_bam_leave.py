"""BAM! rules: a player who leaves (the table says so, or skips a player who does not answer).

The leaver's cards leave the game, the round goes on without them, a round whose master left is
void (nobody scores, the red card goes under the red pile, the next master opens a round), and
fewer than three players left ends the game. Everything is an event folded by ``evolve``.
"""

from __future__ import annotations

import pytest

from tests.test_bam_properties import grey_places, red_places
from tests.test_bam_rules import make_grey, make_red, new_game, play_round, rejects, submit_all
from voicehost.rules.bam import (
    BamState,
    EndReason,
    Illegal,
    Judge,
    Leave,
    Phase,
    Submit,
    replay,
)
from voicehost.rules.base import Event, LogError

FIVE = ("Ann", "Bob", "Cid", "Dee", "Eve")


def types(events: list[Event]) -> list[str]:
    return [e.TYPE for e in events]


def conserved(state: BamState, grey: int, red: int) -> None:
    """Every card still in exactly one place, the set-aside pile included."""
    greys = grey_places(state)
    assert set(state.set_aside) <= set(greys)
    assert sorted(greys) == sorted(c.id for c in make_grey(grey)) and len(set(greys)) == len(greys)
    assert sorted(red_places(state)) == sorted(c.id for c in make_red(red))


def test_a_player_who_has_not_played_leaves_and_the_round_goes_on_without_them() -> None:
    """Bob leaves before playing: his hand is set aside, the others' cards are read and judged as usual."""
    game, state, log = new_game(players=FIVE)
    hand = state.hands["Bob"]
    state, events = game.apply(state, Leave("Bob", t=3.0))
    assert types(events) == ["left"] and events[0].to_json() == {
        "type": "left",
        "seq": events[0].seq,
        "t": 3.0,
        "player": "Bob",
    }
    assert state.gone == ("Bob",) and state.hands["Bob"] == () and state.set_aside == hand
    assert state.waiting_for == ("Cid", "Dee", "Eve") and state.active == ("Ann", "Cid", "Dee", "Eve")
    conserved(state, 200, 20)
    state = submit_all(game, state)
    assert state.phase is Phase.JUDGING and sorted(state.reading) == ["Cid", "Dee", "Eve"]
    rejects(game, state, Submit("Bob", hand[:1], t=0.0), Illegal.LEFT)


def test_the_last_player_awaited_leaving_brings_the_reading() -> None:
    """When the leaver was the only one still to play, the submissions go straight to the master."""
    game, state, _ = new_game(players=FIVE)
    for player in ("Bob", "Cid", "Dee"):
        state, _ = game.apply(state, Submit(player, state.hands[player][:1], t=0.0))
    state, events = game.apply(state, Leave("Eve", t=0.0))
    assert types(events) == ["left", "reading"]
    assert state.phase is Phase.JUDGING and sorted(state.reading) == ["Bob", "Cid", "Dee"]


def test_a_submitted_card_is_withdrawn_and_the_reading_renumbered() -> None:
    """Cid leaves while the master judges: Cid's card leaves the table and the others keep their order."""
    game, state, _ = new_game(players=FIVE)
    state = submit_all(game, state)
    before = [p for p in state.reading if p != "Cid"]
    cid = state.submitted["Cid"]
    state, events = game.apply(state, Leave("Cid", t=0.0))
    assert types(events) == ["left"] and state.phase is Phase.JUDGING
    assert list(state.reading) == before and [s.number for s in state.submissions] == [1, 2, 3]
    assert not set(cid) & set(state.table) and set(cid) <= set(state.set_aside)
    conserved(state, 200, 20)
    state, events = game.apply(state, Judge("Ann", 1, 3, t=0.0))
    assert "best" in types(events) and state.round == 2 and state.master == "Bob"


def test_a_master_who_leaves_voids_the_round_and_the_next_player_is_master() -> None:
    """Ann (master) leaves: nobody scores, the red card goes under the red pile, played cards are
    discarded, everyone draws up and Bob opens the next round."""
    game, state, _ = new_game(players=FIVE)
    red = state.red
    state, _ = game.apply(state, Submit("Bob", state.hands["Bob"][:1], t=0.0))
    played = state.table
    state, events = game.apply(state, Leave("Ann", t=9.0))
    assert types(events)[:3] == ["left", "void", "discard"] and types(events)[-1] == "round"
    assert state.red_deck[-1] == red and state.red != red
    assert state.discard == played and state.scores == {p: 0 for p in FIVE}
    assert state.master == "Bob" and state.round == 2 and state.waiting_for == ("Cid", "Dee", "Eve")
    assert len(state.hands["Bob"]) == 10 and state.hands["Ann"] == ()
    conserved(state, 200, 20)


def test_a_round_with_fewer_than_two_players_left_to_play_is_void() -> None:
    """Best and worst must differ: when only one player is left to submit, the round is void and
    the next player still in the game opens the next one."""
    game, state, _ = new_game(players=FIVE, grey=5, hand_size=1)
    state = play_round(game, state)  # three cards come back through the reshuffle: Eve gets none
    assert state.master == "Bob" and state.round_players == ("Cid", "Dee", "Ann")
    red = state.red
    state, events = game.apply(state, Leave("Cid", t=0.0))
    assert types(events) == ["left"] and state.round_players == ("Dee", "Ann")
    state, events = game.apply(state, Leave("Dee", t=0.0))
    assert types(events)[:2] == ["left", "void"] and types(events)[-1] == "round"
    assert state.red_deck[-1] == red and state.master == "Eve" and state.round_players == ("Ann", "Bob")
    conserved(state, 5, 20)


def test_fewer_than_three_players_left_ends_the_game_with_the_points_so_far() -> None:
    """Three players, one leaves: the game ends (too_few_players); the leaver's points count but cannot win."""
    game, state, _ = new_game(players=("Ann", "Bob", "Cid"), seed=4)
    state = submit_all(game, state)
    bob_best = next(s.number for s in state.submissions if s.player == "Bob")
    state, _ = game.apply(state, Judge("Ann", bob_best, 3 - bob_best, t=0.0))
    assert state.scores["Bob"] == 1
    state, events = game.apply(state, Leave("Bob", t=0.0))
    assert types(events) == ["left", "game_over"] and state.over
    over = events[-1].to_json()
    assert over["reason"] == "too_few_players" and over["scores"]["Bob"] == 1
    assert "Bob" not in over["winners"] and over["winners"] == ["Ann"]


def test_masters_skip_a_player_who_left_and_everyone_left_is_master_k_times() -> None:
    """K=2 with five players; Cid leaves in round 3 (as master): the rotation skips Cid and the game
    ends when every player still in it has been master twice."""
    game, state, _ = new_game(players=FIVE, red=40, rounds_per_player=2)
    masters = [state.master]
    while not state.over:
        if state.round == 3 and "Cid" not in state.gone:
            assert state.master == "Cid"
            state, events = game.apply(state, Leave("Cid", t=0.0))
        else:
            state = play_round(game, state)
        if not state.over:
            masters.append(state.master)
    assert masters == ["Ann", "Bob", "Cid", "Dee", "Eve", "Ann", "Bob", "Dee", "Eve"]
    assert state.result is not None and state.result.reason == EndReason.ROUNDS_DONE
    assert state.round == state.rounds_total == 9


def test_leaving_is_refused_for_strangers_twice_and_after_the_game() -> None:
    """Only a player still in a running game can leave."""
    game, state, _ = new_game(players=FIVE)
    rejects(game, state, Leave("Zed", t=0.0), Illegal.UNKNOWN_PLAYER)  # type: ignore[arg-type]
    state, _ = game.apply(state, Leave("Eve", t=0.0))
    rejects(game, state, Leave("Eve", t=0.0), Illegal.LEFT)  # type: ignore[arg-type]
    game, state, _ = new_game(players=("Ann", "Bob", "Cid"))
    state, _ = game.apply(state, Leave("Cid", t=0.0))
    rejects(game, state, Leave("Bob", t=0.0), Illegal.GAME_OVER)  # type: ignore[arg-type]


def test_table_cards_a_leaver_holds_nothing_and_their_played_card_is_out() -> None:
    """Printed cards: the leaver's count drops to zero and a card they played cannot be played again."""
    game, state, _ = new_game(players=FIVE, card_mode="table")
    card = state.printed_grey()[5]
    state, _ = game.apply(state, Submit("Bob", (card,), t=0.0))
    state, _ = game.apply(state, Leave("Bob", t=0.0))
    assert state.held["Bob"] == 0 and state.set_aside == (card,) and card not in state.table
    rejects(game, state, Submit("Cid", (card,), t=0.0), Illegal.SET_ASIDE)


@pytest.mark.parametrize("mode", ["dealt", "table"])
def test_a_game_with_leavers_replays_exactly_and_a_forged_void_is_refused(mode: str) -> None:
    """The log of a game with a leaving player and a void round replays to the live state; a void
    logged while the round can still be judged is refused."""
    game, state, log = new_game(players=FIVE, card_mode=mode)
    log = list(log)
    state, events = game.apply(state, Leave("Dee", t=0.0))
    log += events
    if mode == "dealt":
        state, events = game.apply(state, Submit("Bob", state.hands["Bob"][:1], t=0.0))
        log += events
    state, events = game.apply(state, Leave("Ann", t=0.0))
    log += events
    assert replay([e.to_json() for e in log]) == state
    forged = [e.to_json() for e in log[: len(log) - len(events)]]
    forged.append({"type": "void", "seq": forged[-1]["seq"] + 1, "t": 0.0, "red": state.red_deck[-1]})
    with pytest.raises(LogError, match="cannot be voided"):
        replay(forged)
