"""BAM! rules, one test per rule: deal, rounds, double-BAM! order, scoring, reshuffle, end, illegal actions."""

from __future__ import annotations

import random
from typing import Sequence

import pytest

from voicehost.decks.cards import GreyCard, RedCard
from voicehost.rules.bam import (
    BadSetup,
    BamGame,
    BamState,
    EndReason,
    Illegal,
    Judge,
    Phase,
    Quit,
    Submit,
)
from voicehost.rules.bam.state import final_result, with_changes
from voicehost.rules.base import Event, IllegalAction

PLAYERS = ("Ann", "Bob", "Cid", "Dee")


def make_red(count: int, doubles: int = 0, prefix: str = "r") -> list[RedCard]:
    """``count`` red cards, the first ``doubles`` of them with two blanks."""
    return [
        RedCard(f"{prefix}{i}", "BAM! meets BAM!." if i < doubles else f"Card {i}: BAM!.", 2 if i < doubles else 1)
        for i in range(count)
    ]


def make_grey(count: int, prefix: str = "g") -> list[GreyCard]:
    return [GreyCard(f"{prefix}{i}", f"Thing {i}") for i in range(count)]


def new_game(
    players: Sequence[str] = PLAYERS, red: int = 20, doubles: int = 0, grey: int = 200, seed: int = 1, **options: object
) -> tuple[BamGame, BamState, list[Event]]:
    """A started game with generated cards and a seeded RNG."""
    game = BamGame(random.Random(seed))
    state, events = game.start(list(players), make_red(red, doubles), make_grey(grey), seed=seed, **options)  # type: ignore[arg-type]
    return game, state, events


def submit_all(game: BamGame, state: BamState, events: list[Event] | None = None) -> BamState:
    """Every waiting player submits the first cards of their hand."""
    for player in state.waiting_for:
        state, produced = game.apply(state, Submit(player, state.hands[player][: state.blanks], t=0.0))
        if events is not None:
            events.extend(produced)
    return state


def play_round(
    game: BamGame, state: BamState, best: int = 1, worst: int = 2, events: list[Event] | None = None
) -> BamState:
    state = submit_all(game, state, events)
    state, produced = game.apply(state, Judge(state.master, best, worst, t=0.0))
    if events is not None:
        events.extend(produced)
    return state


def rejects(game: BamGame, state: BamState, action: Submit | Judge | Quit, reason: Illegal) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        game.apply(state, action)
    assert caught.value.reason == reason, caught.value
    assert str(caught.value)
    return caught.value


# ------------------------------------------------------------------------------------- the deal


def test_each_player_is_dealt_ten_grey_cards_and_the_rest_is_the_draw_pile() -> None:
    """Setup deals 10 grey cards to each player; the rest is the draw pile; red cards stay stacked."""
    _, state, events = new_game(grey=100)
    assert all(len(hand) == 10 for hand in state.hands.values())
    assert len(state.grey_deck) == 100 - 40
    assert len(state.red_deck) == 19 and state.red is not None
    assert [e.TYPE for e in events] == ["setup", "round"]


def test_first_round_reveals_the_top_red_card_for_the_first_master() -> None:
    """The master (first seat unless chosen) reveals the top red card; everyone else must submit."""
    _, state, events = new_game(first_master="Cid")
    setup = events[0].to_json()
    assert state.master == "Cid" and state.red == setup["state"]["red_deck"][0]
    assert state.waiting_for == ("Dee", "Ann", "Bob")
    assert state.phase is Phase.SUBMITTING and state.round == 1


def test_setup_log_event_has_the_documented_shape() -> None:
    """The setup event holds players, seed, K, decks top first, hands, master and every card's face."""
    _, _, events = new_game(red=3, doubles=1, grey=45, seed=9, rounds_per_player=2)
    setup = events[0].to_json()
    assert setup["type"] == "setup" and setup["game"] == "bam" and setup["seq"] == 0
    assert setup["players"] == list(PLAYERS) and setup["seed"] == 9 and setup["rounds_per_player"] == 2
    assert set(setup["state"]) == {"red_deck", "grey_deck", "hands", "master"}
    assert setup["cards"]["r0"] == {"text": "BAM! meets BAM!.", "color": "red", "blanks": 2}
    assert setup["cards"]["g3"] == {"text": "Thing 3", "color": "grey"}
    round_event = events[1].to_json()
    assert {"master", "red", "blanks"} <= round_event.keys()


@pytest.mark.parametrize(
    "players, grey, words",
    [
        (("Ann", "Bob"), 100, "3 to 20 players"),
        (tuple(f"P{i}" for i in range(21)), 300, "3 to 20 players"),
        (("Ann", "Bob", "Ann"), 100, "distinct"),
        (PLAYERS, 39, "at least 40 grey cards"),
    ],
)
def test_bad_setups_are_refused_before_the_game_starts(players: tuple[str, ...], grey: int, words: str) -> None:
    """Too few or too many players, duplicate names, or too few grey cards to deal: BadSetup."""
    with pytest.raises(BadSetup, match=words):
        new_game(players, grey=grey)


def test_twenty_players_can_play_with_enough_cards() -> None:
    """The documented upper limit, 20 players, starts and plays a round."""
    players = [f"P{i}" for i in range(20)]
    game, state, _ = new_game(players, grey=230)
    state = play_round(game, state)
    assert state.round == 2 and state.master == "P1"


# ----------------------------------------------------------------------------------- a round


def test_master_passes_to_the_left() -> None:
    """After each round the next name in seating order (the left neighbour) is the master."""
    game, state, _ = new_game(rounds_per_player=2)
    masters = []
    while not game.over(state):
        masters.append(state.master)
        state = play_round(game, state)
    assert masters == list(PLAYERS) * 2


def test_reading_order_is_a_shuffle_of_the_submissions_numbered_from_one() -> None:
    """Once all are in, submissions are numbered 1..n in a shuffled reading order; the log keeps names."""
    game, state, _ = new_game(players=[f"P{i}" for i in range(8)], grey=200, seed=5)
    events: list[Event] = []
    state = submit_all(game, state, events)
    reading = [e for e in events if e.TYPE == "reading"]
    assert len(reading) == 1 and events[-1] is reading[0]
    order = reading[0].to_json()["order"]
    assert sorted(order) == sorted(state.round_players) and order != list(state.round_players)
    assert [(s.number, s.player) for s in state.submissions] == list(enumerate(order, start=1))
    assert state.phase is Phase.JUDGING and state.waiting_for == ()


def test_double_bam_submission_keeps_blank_order() -> None:
    """On a double-BAM! card each player submits two cards; their order (first blank first) is kept."""
    game, state, _ = new_game(red=5, doubles=5)
    assert state.blanks == 2
    chosen = {p: (state.hands[p][3], state.hands[p][0]) for p in state.waiting_for}
    events: list[Event] = []
    for player, cards in chosen.items():
        state, produced = game.apply(state, Submit(player, cards, t=0.0))
        events.extend(produced)
    assert all(e.to_json()["cards"] == list(chosen[e.to_json()["player"]]) for e in events if e.TYPE == "submit")
    assert all(s.cards == chosen[s.player] for s in state.submissions)


def test_double_bam_winner_keeps_the_first_blank_card_unless_told_otherwise() -> None:
    """Host's rule: the best double submission keeps its first card; keep=2 keeps the second; the other is discarded."""
    for keep in (1, 2):
        game, state, _ = new_game(red=5, doubles=5)
        state = submit_all(game, state)
        best = state.submissions[0]
        state, events = game.apply(state, Judge(state.master, 1, 2, keep=keep, t=0.0))
        assert state.won_grey[best.player] == (best.cards[keep - 1],)
        discarded = next(e for e in events if e.TYPE == "discard").to_json()["cards"]
        assert best.cards[2 - keep] in discarded


def test_best_keeps_the_grey_card_and_worst_takes_the_red_card() -> None:
    """The best submission's player wins its grey card; the worst submission's player takes the red card."""
    game, state, _ = new_game()
    red = state.red
    state = submit_all(game, state)
    best, worst = state.submissions[2], state.submissions[0]
    state, events = game.apply(state, Judge(state.master, 3, 1, t=0.0))
    assert state.won_grey[best.player] == best.cards
    assert state.won_red[worst.player] == (red,)
    types = [e.TYPE for e in events]
    assert types[:3] == ["best", "worst", "discard"] and types[-1] == "round"
    assert events[0].to_json() == {
        "seq": events[0].seq,
        "t": 0.0,
        "type": "best",
        "player": best.player,
        "card": best.cards[0],
        "submission": 3,
    }
    assert events[1].to_json()["card"] == red


def test_other_played_grey_cards_go_to_the_discard_pile() -> None:
    """All played grey cards except the best one land on the discard pile (the worst one's too)."""
    game, state, _ = new_game()
    state = submit_all(game, state)
    played = [c for s in state.submissions for c in s.cards]
    state, _ = game.apply(state, Judge(state.master, 1, 2, t=0.0))
    assert sorted(state.discard) == sorted(played[1:])
    assert state.table == ()


def test_everyone_except_the_master_draws_back_to_ten() -> None:
    """After judging, players draw from the top of the draw pile until they hold 10 again, clockwise."""
    game, state, _ = new_game(red=5, doubles=5)
    master, top = state.master, state.grey_deck[:6]
    state = submit_all(game, state)
    state, events = game.apply(state, Judge(state.master, 1, 2, t=0.0))
    draws = [e.to_json() for e in events if e.TYPE == "draw"]
    assert [d["player"] for d in draws] == ["Bob", "Cid", "Dee"] and master == "Ann"
    assert [c for d in draws for c in d["cards"]] == list(top)
    assert all(len(hand) == 10 for hand in state.hands.values())


def test_reshuffle_of_the_discard_pile_when_the_draw_pile_runs_out() -> None:
    """An empty draw pile is replaced by the shuffled discard pile, logged with the new deck."""
    game, state, _ = new_game(players=("Ann", "Bob", "Cid"), grey=31)
    assert len(state.grey_deck) == 1
    state = submit_all(game, state)
    state, events = game.apply(state, Judge(state.master, 1, 2, t=0.0))
    types = [e.TYPE for e in events]
    assert types == ["best", "worst", "discard", "draw", "reshuffle", "draw", "round"]
    reshuffle = events[4].to_json()
    assert reshuffle["cards"] == 1 and len(reshuffle["deck"]) == 1
    discard_before = events[2].to_json()["cards"]
    assert reshuffle["deck"] == discard_before
    assert state.discard == () and all(len(h) == 10 for h in state.hands.values())


def test_reshuffle_order_comes_from_the_rng() -> None:
    """With a bigger discard pile the new draw pile is a shuffled permutation of it."""
    game, state, _ = new_game(players=[f"P{i}" for i in range(8)], grey=80, seed=3)
    state = submit_all(game, state)
    state, events = game.apply(state, Judge(state.master, 1, 2, t=0.0))
    discard = next(e for e in events if e.TYPE == "discard").to_json()["cards"]
    reshuffle = next(e for e in events if e.TYPE == "reshuffle").to_json()
    assert sorted(reshuffle["deck"]) == sorted(discard) and reshuffle["deck"] != discard


def test_players_with_too_few_cards_sit_out_and_the_game_ends_when_fewer_than_two_can_play() -> None:
    """When both piles are empty hands shrink; those who cannot fill the blanks sit out; <2 players ends it."""
    game, state, _ = new_game(players=("Ann", "Bob", "Cid"), red=30, grey=3, hand_size=1, rounds_per_player=10)
    state = play_round(game, state)
    assert state.phase is Phase.OVER
    assert state.result is not None and state.result.reason == EndReason.GREY_CARDS_OUT


# ------------------------------------------------------------------------------------- the end


def test_k_rounds_per_player() -> None:
    """The game ends after every player was master K times (K*players rounds), reason rounds_done."""
    for k in (1, 3):
        game, state, _ = new_game(players=("Ann", "Bob", "Cid"), red=20, rounds_per_player=k)
        rounds = 0
        while not game.over(state):
            state = play_round(game, state)
            rounds += 1
        assert rounds == 3 * k and state.result is not None
        assert state.result.reason == EndReason.ROUNDS_DONE


def test_game_ends_early_when_red_cards_run_out() -> None:
    """With fewer red cards than rounds, the game ends after the last red card, reason red_cards_out."""
    game, state, _ = new_game(red=5, rounds_per_player=2)
    events: list[Event] = []
    while not game.over(state):
        state = play_round(game, state, events=events)
    assert state.round == 5 and state.red_deck == ()
    over = events[-1].to_json()
    assert over["type"] == "game_over" and over["reason"] == "red_cards_out"


def test_score_is_victory_points_minus_minus_points() -> None:
    """Each won grey card is +1, each red card taken is -1; the game_over event reports both."""
    game, state, _ = new_game()
    state = with_changes(
        state,
        won_grey={**state.won_grey, "Ann": ("g1", "g2", "g3")},
        won_red={**state.won_red, "Ann": ("r1",), "Bob": ("r2",)},
    )
    result = final_result(state, "quit")
    assert result.scores == {"Ann": 2, "Bob": -1, "Cid": 0, "Dee": 0}
    assert result.grey_won["Ann"] == 3 and result.winners == ("Ann",)


def test_tie_on_score_is_broken_by_more_grey_cards_won() -> None:
    """Equal scores: the player with more grey cards won takes the title."""
    game, state, _ = new_game()
    state = with_changes(
        state,
        won_grey={**state.won_grey, "Ann": ("g1",), "Bob": ("g2", "g3")},
        won_red={**state.won_red, "Bob": ("r1",)},
    )
    result = final_result(state, "rounds_done")
    assert result.scores["Ann"] == result.scores["Bob"] == 1
    assert result.winners == ("Bob",)


def number_of(state: BamState, player: str) -> int:
    """The reading number of ``player``'s submission."""
    return next(s.number for s in state.submissions if s.player == player)


def test_remaining_tie_is_a_shared_title() -> None:
    """Equal score and equal grey cards won: all of them share the title (a played-out game)."""
    game, state, _ = new_game(players=("Ann", "Bob", "Cid"), seed=4)
    events: list[Event] = []
    for best, worst in (("Bob", "Cid"), ("Cid", "Ann"), ("Ann", "Bob")):
        state = submit_all(game, state, events)
        state, produced = game.apply(state, Judge(state.master, number_of(state, best), number_of(state, worst), t=0.0))
        events.extend(produced)
    over = events[-1].to_json()
    assert over["type"] == "game_over" and over["reason"] == "rounds_done"
    assert over["scores"] == {"Ann": 0, "Bob": 0, "Cid": 0}
    assert over["grey_won"] == {"Ann": 1, "Bob": 1, "Cid": 1}
    assert over["winners"] == ["Ann", "Bob", "Cid"]


def test_quit_ends_the_game_with_the_scores_so_far() -> None:
    """Quit at any time: game_over with reason quit; further actions are refused."""
    game, state, _ = new_game()
    state = play_round(game, state)
    state, events = game.apply(state, Quit(t=12.5))
    over = events[-1].to_json()
    assert over["reason"] == "quit" and over["t"] == 12.5 and sum(over["grey_won"].values()) == 1
    rejects(game, state, Quit(t=0.0), Illegal.GAME_OVER)
    rejects(game, state, Submit("Cid", state.hands["Cid"][:1], t=0.0), Illegal.GAME_OVER)
    rejects(game, state, Judge(state.master, 1, 2, t=0.0), Illegal.GAME_OVER)


# --------------------------------------------------------------------------------- illegal actions


def test_illegal_submitting_a_card_not_in_your_hand() -> None:
    """A card from someone else's hand is refused with not_in_hand."""
    game, state, _ = new_game()
    rejects(game, state, Submit("Bob", (state.hands["Cid"][0],), t=0.0), Illegal.NOT_IN_HAND)
    rejects(game, state, Submit("Bob", ("no-such-card",), t=0.0), Illegal.NOT_IN_HAND)


def test_illegal_the_master_submitting() -> None:
    """The BAM! Master does not submit."""
    game, state, _ = new_game()
    error = rejects(game, state, Submit("Ann", state.hands["Ann"][:1], t=0.0), Illegal.MASTER_SUBMITS)
    assert "Master" in str(error)


def test_illegal_submitting_twice() -> None:
    """A player submits once per round, also after all submissions are in."""
    game, state, _ = new_game()
    state, _ = game.apply(state, Submit("Bob", state.hands["Bob"][:1], t=0.0))
    rejects(game, state, Submit("Bob", state.hands["Bob"][:1], t=0.0), Illegal.ALREADY_SUBMITTED)
    state = submit_all(game, state)
    rejects(game, state, Submit("Cid", state.hands["Cid"][:1], t=0.0), Illegal.ALREADY_SUBMITTED)


def test_illegal_wrong_number_of_cards() -> None:
    """One card per blank: two on a single card, one or three on a double card are refused."""
    game, state, _ = new_game(red=2, doubles=0)
    rejects(game, state, Submit("Bob", state.hands["Bob"][:2], t=0.0), Illegal.WRONG_NUMBER_OF_CARDS)
    rejects(game, state, Submit("Bob", (), t=0.0), Illegal.WRONG_NUMBER_OF_CARDS)
    game, state, _ = new_game(red=2, doubles=2)
    rejects(game, state, Submit("Bob", state.hands["Bob"][:1], t=0.0), Illegal.WRONG_NUMBER_OF_CARDS)
    rejects(game, state, Submit("Bob", state.hands["Bob"][:3], t=0.0), Illegal.WRONG_NUMBER_OF_CARDS)


def test_illegal_the_same_card_for_both_blanks() -> None:
    """A double submission needs two different cards."""
    game, state, _ = new_game(red=2, doubles=2)
    card = state.hands["Bob"][0]
    rejects(game, state, Submit("Bob", (card, card), t=0.0), Illegal.SAME_CARD_TWICE)


def test_illegal_unknown_player() -> None:
    """Someone not at the table cannot submit."""
    game, state, _ = new_game()
    rejects(game, state, Submit("Zed", state.hands["Bob"][:1], t=0.0), Illegal.UNKNOWN_PLAYER)


def test_illegal_judging_before_all_submissions_are_in() -> None:
    """The master cannot judge while players are still choosing; the message names them."""
    game, state, _ = new_game()
    state, _ = game.apply(state, Submit("Bob", state.hands["Bob"][:1], t=0.0))
    error = rejects(game, state, Judge("Ann", 1, 2, t=0.0), Illegal.NOT_ALL_SUBMITTED)
    assert "Cid" in str(error) and "Dee" in str(error)


def test_illegal_judging_a_submission_that_does_not_exist() -> None:
    """Submission numbers run from 1 to the number of submissions."""
    game, state, _ = new_game()
    state = submit_all(game, state)
    rejects(game, state, Judge("Ann", 4, 1, t=0.0), Illegal.NO_SUCH_SUBMISSION)
    rejects(game, state, Judge("Ann", 1, 0, t=0.0), Illegal.NO_SUCH_SUBMISSION)


def test_illegal_best_equals_worst() -> None:
    """Best and worst must be different submissions."""
    game, state, _ = new_game()
    state = submit_all(game, state)
    rejects(game, state, Judge("Ann", 2, 2, t=0.0), Illegal.BEST_IS_WORST)


def test_illegal_judging_by_someone_other_than_the_master() -> None:
    """Only the BAM! Master judges."""
    game, state, _ = new_game()
    state = submit_all(game, state)
    rejects(game, state, Judge("Bob", 1, 2, t=0.0), Illegal.NOT_MASTER)


def test_illegal_keeping_a_card_from_a_blank_that_does_not_exist() -> None:
    """keep is 1 on a single card, 1 or 2 on a double card."""
    game, state, _ = new_game()
    state = submit_all(game, state)
    rejects(game, state, Judge("Ann", 1, 2, keep=2, t=0.0), Illegal.NO_SUCH_BLANK)


def test_a_refused_action_leaves_the_state_unchanged() -> None:
    """After an IllegalAction the same state object is still valid and equal to before."""
    game, state, _ = new_game()
    before = with_changes(state)
    with pytest.raises(IllegalAction):
        game.apply(state, Submit("Bob", (state.hands["Cid"][0],), t=0.0))
    assert state == before
    state, events = game.apply(state, Submit("Bob", state.hands["Bob"][:1], t=0.0))
    assert events[0].seq == before.seq


# ----------------------------------------------------------------------------------- determinism


def test_same_seed_same_game() -> None:
    """The same seed and the same actions give the same events."""
    logs = []
    for _ in range(2):
        game, state, events = new_game(seed=42, rounds_per_player=2)
        while not game.over(state):
            state = play_round(game, state, events=events)
        logs.append([e.to_json() for e in events])
    assert logs[0] == logs[1]
    assert [e["seq"] for e in logs[0]] == list(range(len(logs[0])))
