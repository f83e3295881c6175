"""BAM! with table cards: printed grey cards the host never sees, submitted by printed number (issue 9).

The host shuffles and reads the red cards; players deal, draw and reshuffle the printed grey cards
themselves, so the engine knows hands and the pile only as counts. A submission is accepted when
the card is a grey card of the deck that is not out of play as far as the host knows.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import run_voicehost
from tests.test_bam_rules import make_grey, make_red
from voicehost.decks import load_decks
from voicehost.eventlog import EventLogWriter, read_events
from voicehost.rules.bam import (
    BadSetup,
    BamGame,
    BamState,
    CardMode,
    Illegal,
    Judge,
    Phase,
    Quit,
    Submit,
    card_for_number,
    replay,
)
from voicehost.rules.bam.actions import Action
from voicehost.sim.bam import NAMES, GameResult, play_game
from voicehost.rules.bam.state import final_result
from voicehost.rules.base import Event, IllegalAction, LogError

PLAYERS = ("Ann", "Bob", "Cid", "Dee")


def table_game(
    players: Sequence[str] = PLAYERS, red: int = 20, doubles: int = 0, grey: int = 200, seed: int = 1, **options: object
) -> tuple[BamGame, BamState, list[Event]]:
    """A started table-cards game with generated cards (g0, g1, … printed 1, 2, …) and a seeded RNG."""
    game = BamGame(random.Random(seed))
    state, events = game.start(
        list(players), make_red(red, doubles), make_grey(grey), seed=seed, **{"card_mode": "table", **options}
    )  # type: ignore[arg-type]
    return game, state, events


def fresh(state: BamState, count: int) -> list[str]:
    """The first ``count`` grey ids that are not out of play (cards a player might hold)."""
    gone = state.out_of_play()
    return [c for c, face in state.cards.items() if face.color == "grey" and c not in gone][:count]


def submit_all(game: BamGame, state: BamState, events: list[Event] | None = None) -> BamState:
    """Every waiting player submits cards nobody has played yet (as their printed cards would be)."""
    for player in state.waiting_for:
        state, produced = game.apply(state, Submit(player, tuple(fresh(state, state.blanks)), t=0.0))
        if events is not None:
            events.extend(produced)
    return state


def play_round(
    game: BamGame, state: BamState, events: list[Event] | None = None, best: int = 1, worst: int = 2
) -> BamState:
    """Submit for everyone, then the master judges."""
    state = submit_all(game, state, events)
    state, produced = game.apply(state, Judge(state.master, best, worst, t=0.0))
    if events is not None:
        events.extend(produced)
    return state


def rejects(game: BamGame, state: BamState, action: Action, reason: Illegal) -> None:
    """The action is refused with this reason, and the state is untouched."""
    with pytest.raises(IllegalAction) as caught:
        game.apply(state, action)
    assert caught.value.reason == reason, caught.value
    assert str(caught.value)


def grey_count(state: BamState) -> int:
    """Grey cards the state accounts for: pile and hands (counts) plus the known table, discard and wins."""
    return (
        state.pile_count
        + sum(state.hand_count(p) for p in state.players)
        + len(state.table)
        + len(state.discard)
        + sum(len(w) for w in state.won_grey.values())
    )


# -- setup -------------------------------------------------------------------------------------------


def test_table_cards_setup_logs_hands_and_grey_pile_as_unknown_and_records_the_mode() -> None:
    """Setup: "card_mode": "table", hands and grey_deck null, grey_pile the count left after the deal;
    the red deck is shuffled by the host and known."""
    _, state, events = table_game(grey=60, red=5)
    setup = events[0].to_json()
    assert setup["card_mode"] == "table"
    assert setup["state"]["hands"] is None and setup["state"]["grey_deck"] is None
    assert setup["state"]["grey_pile"] == 60 - 40 and sorted(setup["state"]["red_deck"]) == [f"r{i}" for i in range(5)]
    assert state.table_cards and state.pile_count == 20 and state.grey_deck == ()
    assert all(state.hand_count(p) == 10 and state.hands[p] == () for p in PLAYERS)
    assert state.red == setup["state"]["red_deck"][0] and [e.TYPE for e in events] == ["setup", "round"]


def test_a_dealt_game_records_card_mode_dealt_and_still_deals() -> None:
    """The default stays dealt: "card_mode": "dealt", hands and pile known."""
    game = BamGame(random.Random(2))
    state, events = game.start(list(PLAYERS), make_red(5), make_grey(50), seed=2)
    assert events[0].to_json()["card_mode"] == "dealt" and not state.table_cards
    assert all(len(h) == 10 for h in state.hands.values()) and len(state.grey_deck) == 10


def test_an_unknown_card_mode_is_refused_at_setup() -> None:
    """card_mode is "dealt" or "table"; anything else is a setup error."""
    with pytest.raises(BadSetup, match="'dealt' or 'table', not 'paper'"):
        table_game(card_mode="paper")


def test_printed_numbers_match_the_printed_deck() -> None:
    """Grey card n is the deck's n-th grey card, as `voicehost deck print` numbers it (also filtered by tag)."""
    for tags in ((), ("family",)):
        deck = load_decks(["base"], tags)
        state, _ = BamGame(random.Random(1)).start(list(PLAYERS), deck.red, deck.grey, seed=1, card_mode="table")
        assert state.printed_grey() == {n: card.id for n, card in deck.numbered_grey()}
        n, card = deck.numbered_grey()[6]
        assert card_for_number(state, n) == card.id


@pytest.mark.parametrize("number", [0, 201, -3, True])
def test_a_number_not_printed_on_any_grey_card_is_refused(number: int) -> None:
    """Only 1 … (grey cards in the deck) are printed numbers: anything else is no_such_card."""
    _, state, _ = table_game()
    with pytest.raises(IllegalAction) as caught:
        card_for_number(state, number)
    assert caught.value.reason == Illegal.NO_SUCH_CARD and "1 to 200" in str(caught.value)


# -- submissions ---------------------------------------------------------------------------------------


def test_any_grey_card_not_out_of_play_is_accepted_by_its_printed_number() -> None:
    """The host cannot see hands: a submission of any grey card still in play is trusted."""
    game, state, _ = table_game(first_master="Ann")
    card = card_for_number(state, 117)
    state, events = game.apply(state, Submit("Bob", (card,), t=3.0))
    assert events[0].to_json() == {"seq": 2, "t": 3.0, "type": "submit", "player": "Bob", "cards": ["g116"]}
    assert state.hand_count("Bob") == 9 and state.table == ("g116",) and "g116" in state.out_of_play()


def test_a_card_already_on_the_table_this_round_is_refused() -> None:
    """Two players cannot both lay down printed card 5 in one round: already_played."""
    game, state, _ = table_game(first_master="Ann")
    state, _ = game.apply(state, Submit("Bob", ("g4",), t=0.0))
    rejects(game, state, Submit("Cid", ("g4",), t=0.0), Illegal.ALREADY_PLAYED)


def test_a_won_card_and_a_discarded_card_are_refused() -> None:
    """After a round the best card is a victory point (won_card) and the others are discarded (discarded)."""
    game, state, _ = table_game(first_master="Ann")
    state = submit_all(game, state)
    best, other = state.submissions[0], state.submissions[2]
    state, _ = game.apply(state, Judge("Ann", 1, 2, t=0.0))
    rejects(game, state, Submit(state.waiting_for[0], best.cards, t=0.0), Illegal.WON_CARD)
    rejects(game, state, Submit(state.waiting_for[0], other.cards, t=0.0), Illegal.DISCARDED)
    assert state.out_of_play() == {*best.cards, *state.discard}


@pytest.mark.parametrize("cards", [("r3",), ("nonsense",)])
def test_a_red_card_or_an_unknown_id_is_refused(cards: tuple[str, ...]) -> None:
    """Only grey cards of the loaded deck can fill a blank: no_such_card."""
    game, state, _ = table_game(first_master="Ann")
    rejects(game, state, Submit("Bob", cards, t=0.0), Illegal.NO_SUCH_CARD)


def test_the_other_submission_rules_still_hold_with_table_cards() -> None:
    """Wrong number of cards, the same card twice, the master submitting, submitting twice, judging
    out of turn or too early and best = worst are all refused as with dealt cards."""
    game, state, _ = table_game(red=4, doubles=4, first_master="Ann")
    rejects(game, state, Submit("Bob", ("g1",), t=0.0), Illegal.WRONG_NUMBER_OF_CARDS)
    rejects(game, state, Submit("Bob", ("g1", "g1"), t=0.0), Illegal.SAME_CARD_TWICE)
    rejects(game, state, Submit("Ann", ("g1", "g2"), t=0.0), Illegal.MASTER_SUBMITS)
    rejects(game, state, Judge("Ann", 1, 2, t=0.0), Illegal.NOT_ALL_SUBMITTED)
    state, _ = game.apply(state, Submit("Bob", ("g1", "g2"), t=0.0))
    rejects(game, state, Submit("Bob", ("g3", "g5"), t=0.0), Illegal.ALREADY_SUBMITTED)
    state = submit_all(game, state)
    rejects(game, state, Judge("Bob", 1, 2, t=0.0), Illegal.NOT_MASTER)
    rejects(game, state, Judge("Ann", 2, 2, t=0.0), Illegal.BEST_IS_WORST)
    rejects(game, state, Judge("Ann", 1, 2, keep=3, t=0.0), Illegal.NO_SUCH_BLANK)


def test_a_double_bam_card_keeps_the_blank_order_and_the_chosen_card() -> None:
    """Double-BAM! with printed cards: the pair keeps its order; keep=2 wins the second card."""
    game, state, _ = table_game(red=3, doubles=3, first_master="Ann")
    state = submit_all(game, state)
    best = state.submissions[1]
    state, events = game.apply(state, Judge("Ann", 2, 1, keep=2, t=0.0))
    assert events[0].to_json()["card"] == best.cards[1] and state.won_grey[best.player] == (best.cards[1],)


# -- draws and reshuffles ----------------------------------------------------------------------------------


def test_players_draw_back_to_ten_logged_as_counts() -> None:
    """After judging each player who played draws back to 10 from the printed pile: "cards": null, "count"."""
    game, state, _ = table_game(grey=60, first_master="Ann")
    state = submit_all(game, state)
    state, events = game.apply(state, Judge("Ann", 1, 2, t=0.0))
    draws = [e.to_json() for e in events if e.TYPE == "draw"]
    assert [(d["player"], d["cards"], d["count"]) for d in draws] == [
        ("Bob", None, 1),
        ("Cid", None, 1),
        ("Dee", None, 1),
    ]
    assert all(state.hand_count(p) == 10 for p in PLAYERS) and state.pile_count == 17


def test_an_empty_pile_is_replaced_by_the_discard_pile_logged_without_cards() -> None:
    """The printed pile runs out: the players shuffle the discard pile into a new pile; "deck": null,
    "cards" the count; the discarded cards may be played again afterwards."""
    game, state, _ = table_game(players=("Ann", "Bob", "Cid"), grey=31, first_master="Ann")
    state = submit_all(game, state)
    state, events = game.apply(state, Judge("Ann", 1, 2, t=0.0))
    assert [e.TYPE for e in events] == ["best", "worst", "discard", "draw", "reshuffle", "draw", "round"]
    discarded = events[2].to_json()["cards"]
    assert events[4].to_json() == {"seq": events[4].seq, "t": 0.0, "type": "reshuffle", "cards": 1, "deck": None}
    assert [e.to_json()["count"] for e in events if e.TYPE == "draw"] == [1, 1]
    assert state.discard == () and state.pile_count == 0 and all(state.hand_count(p) == 10 for p in state.players)
    game.apply(state, Submit(state.waiting_for[0], tuple(discarded), t=0.0))


def test_when_both_piles_are_empty_hands_shrink_and_players_sit_out() -> None:
    """No pile and no discard: hands shrink; a player without enough cards sits out; fewer than two ends it."""
    game, state, events = table_game(players=("Ann", "Bob", "Cid"), hand_size=1, grey=3, red=6, rounds_per_player=2)
    while state.phase is not Phase.OVER:
        state = play_round(game, state, events)
    assert state.result is not None and state.result.reason == "grey_cards_out"
    nxt = state.seating.left_of(state.master)
    assert len([p for p in state.players if p != nxt and state.hand_count(p) >= 1]) < 2
    assert state.round < state.rounds_total and state.pile_count == 0 and state.discard == ()


# -- scoring, masters, the end ---------------------------------------------------------------------------


def test_a_full_table_cards_game_rotates_the_master_plays_k_rounds_and_breaks_ties() -> None:
    """Scores, master rotation, K rounds per player and the tie-breaks work as with dealt cards."""
    game, state, events = table_game(rounds_per_player=2, seed=5)
    rng = random.Random(5)
    while state.phase is not Phase.OVER:
        n = len(state.submissions) if state.phase is Phase.JUDGING else 3
        best, worst = rng.sample(range(1, n + 1), 2)
        state = play_round(game, state, events, best, worst)
    masters = [e.to_json()["master"] for e in events if e.TYPE == "round"]
    assert masters == [PLAYERS[i % 4] for i in range(8)] and state.round == 8
    assert state.result is not None and state.result.reason == "rounds_done"
    assert state.result == final_result(state, "rounds_done") and sum(state.scores.values()) == 0


def test_quit_ends_a_table_cards_game_with_the_scores_as_they_stand() -> None:
    """Quit works as before."""
    game, state, _ = table_game()
    state = play_round(game, state)
    state, events = game.apply(state, Quit(t=9.0))
    assert events[-1].to_json()["reason"] == "quit" and state.phase is Phase.OVER


# -- log, replay, resume -------------------------------------------------------------------------------------


def played_table_log(seed: int = 3) -> tuple[BamState, list[Event]]:
    """A complete table-cards game with reshuffles (a small grey deck) and its events."""
    game, state, events = table_game(
        players=("Ann", "Bob", "Cid", "Dee"), grey=44, red=12, doubles=4, seed=seed, rounds_per_player=3
    )
    while state.phase is not Phase.OVER:
        state = play_round(game, state, events, best=2, worst=1)
    return state, events


def test_a_table_cards_log_replays_to_the_live_state_and_resumes(tmp_path: Path) -> None:
    """The log is the save file in table-cards mode too: replay gives the live state; a resumed game
    goes on and the whole log replays again."""
    game, state, events = table_game(grey=44, red=12, doubles=4, rounds_per_player=3)
    for _ in range(5):
        state = play_round(game, state, events, best=2, worst=1)
    assert any(e.TYPE == "reshuffle" for e in events)
    path = tmp_path / "bam.jsonl"
    with EventLogWriter(path) as log:
        log.write(events)
    loaded = replay(read_events(path))
    assert loaded == state and loaded.table_cards
    resumed = BamGame(random.Random(99))
    state, tail = resumed.resume(loaded, 500.0)
    while state.phase is not Phase.OVER:
        state = play_round(resumed, state, tail)
    with EventLogWriter(path) as log:
        log.write(tail)
    assert replay(read_events(path)) == state


@pytest.mark.parametrize(
    "tamper, words",
    [
        (
            lambda log: next(o for o in log if o["type"] == "draw").update(count=4),
            "more than the pile holds or a full hand",
        ),
        (lambda log: next(o for o in log if o["type"] == "draw").update(cards=["g1"]), "cards as null"),
        (lambda log: next(o for o in log if o["type"] == "reshuffle").update(cards=99), "counts exactly the discard"),
        (lambda log: log[0]["state"].update(hands={"Ann": ["g1"]}), "hands and grey_deck as null"),
        (lambda log: log[0]["state"].update(grey_pile=5), "grey_pile 5"),
    ],
)
def test_a_tampered_table_cards_log_is_refused(tamper: object, words: str) -> None:
    """Replay checks table-cards events too: draw counts, reshuffles and the setup."""
    _, events = played_table_log()
    objects = [e.to_json() for e in events]
    tamper(objects)  # type: ignore[operator]
    with pytest.raises(LogError, match=words):
        replay(objects)


def test_a_logged_submission_of_a_won_card_is_refused_on_replay() -> None:
    """Replay applies the out-of-play rule: a later submission of a victory-point card does not replay."""
    game, state, events = table_game(red=6)
    state = play_round(game, state, events)
    won = next(e.to_json() for e in events if e.TYPE == "best")["card"]
    state = play_round(game, state, events)
    objects = [e.to_json() for e in events]
    later = [
        o
        for o in objects
        if o["type"] == "submit" and o["seq"] > objects.index(next(o for o in objects if o["type"] == "best"))
    ]
    later[0]["cards"] = [won]
    with pytest.raises(LogError, match=f"event {later[0]['seq']} .*victory point"):
        replay(objects)


def test_a_dealt_log_without_card_mode_still_replays() -> None:
    """Logs written before table cards existed (no "card_mode") replay as dealt games."""
    game = BamGame(random.Random(4))
    state, events = game.start(list(PLAYERS), make_red(4), make_grey(60), seed=4)
    objects = [e.to_json() for e in events]
    del objects[0]["card_mode"]
    assert replay(objects) == state


# -- properties --------------------------------------------------------------------------------------------

SIM_NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")


def random_table_action(data: st.DataObject, state: BamState, grey_ids: list[str]) -> Action:
    """Mostly a submission of cards still in play or a valid judgement; sometimes anything at all."""
    kind = data.draw(st.sampled_from(["legal"] * 6 + ["submit", "judge", "quit"]))
    if kind == "quit" and data.draw(st.integers(0, 199)) == 0:
        return Quit(t=0.0)
    if kind == "legal" and state.phase is Phase.SUBMITTING:
        free = [c for c in grey_ids if c not in state.out_of_play()]
        cards = data.draw(st.lists(st.sampled_from(free), min_size=state.blanks, max_size=state.blanks, unique=True))
        return Submit(data.draw(st.sampled_from(state.waiting_for)), tuple(cards), t=0.0)
    if kind == "legal":
        n = len(state.reading)
        best = data.draw(st.integers(1, n))
        worst = data.draw(st.integers(1, n - 1))
        return Judge(state.master, best, worst + (worst >= best), keep=data.draw(st.integers(1, state.blanks)), t=0.0)
    if kind == "submit":
        cards = data.draw(st.lists(st.sampled_from([*grey_ids, "r0", "zz"]), max_size=3))
        return Submit(data.draw(st.sampled_from([*state.players, "Zed"])), tuple(cards), t=0.0)
    return Judge(
        data.draw(st.sampled_from([*state.players, "Zed"])),
        data.draw(st.integers(0, 9)),
        data.draw(st.integers(0, 9)),
        keep=data.draw(st.integers(0, 3)),
        t=0.0,
    )


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    players=st.integers(3, 8),
    rounds_per_player=st.integers(1, 3),
    red=st.integers(1, 30),
    doubles=st.integers(0, 30),
    hand_size=st.integers(1, 10),
    extra_grey=st.integers(0, 25),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_table_cards_play_keeps_the_counts_the_rules_and_replays(
    data: st.DataObject,
    players: int,
    rounds_per_player: int,
    red: int,
    doubles: int,
    hand_size: int,
    extra_grey: int,
    seed: int,
) -> None:
    """After every action: every grey card is counted once (pile + hands + table + discard + won), the
    known places never share a card, hands stay within 0 … hand size, scores sum to 0, refused actions
    change nothing, masters go to the left, and the log replays to the live state."""
    names = SIM_NAMES[:players]
    greys = make_grey(players * hand_size + extra_grey)
    grey_ids = [c.id for c in greys]
    game = BamGame(random.Random(seed))
    state, events = game.start(
        list(names),
        make_red(red, min(doubles, red)),
        greys,
        seed=seed,
        rounds_per_player=rounds_per_player,
        hand_size=hand_size,
        card_mode="table",
    )
    log: list[Event] = list(events)
    for _ in range(300):
        if game.over(state):
            break
        before = state
        try:
            state, produced = game.apply(state, random_table_action(data, state, grey_ids))
        except IllegalAction:
            assert state is before
            continue
        log += produced
        known = Counter([*state.table, *state.discard, *(c for w in state.won_grey.values() for c in w)])
        assert grey_count(state) == len(grey_ids) and set(known.values()) <= {1}
        assert all(0 <= state.hand_count(p) <= hand_size for p in names) and sum(state.scores.values()) == 0
        assert state.hands == {p: () for p in names} and state.grey_deck == ()
    masters = [e.to_json()["master"] for e in log if e.TYPE == "round"]
    assert masters == [names[i % players] for i in range(len(masters))]
    assert replay([e.to_json() for e in log]) == state


@pytest.mark.parametrize("players, rounds", [(3, 3), (6, 2), (12, 5), (20, 3)])
def test_simulated_table_cards_games_match_the_printed_cards_and_replay(players: int, rounds: int) -> None:
    """Bots with printed cards: every printed card is in one place, the engine's counts and known piles
    equal the cards the bots hold, and every game replays to its live state."""
    deck = load_decks(["base"])
    reshuffles = 0
    for seed in range(4):
        result: GameResult = play_game(NAMES[:players], deck, seed, rounds, 0.3, CardMode.TABLE)
        printed, state = result.printed, result.state
        assert printed is not None and state.result is not None
        places = [
            *printed.pile,
            *printed.discard,
            *state.table,
            *(c for h in printed.hands.values() for c in h),
            *(c for w in state.won_grey.values() for c in w),
        ]
        assert sorted(places) == sorted(c.id for c in deck.grey)
        assert {p: len(h) for p, h in printed.hands.items()} == dict(state.held)
        assert len(printed.pile) == state.pile_count and sorted(printed.discard) == sorted(state.discard)
        assert replay([e.to_json() for e in result.events]) == state
        reshuffles += sum(e.TYPE == "reshuffle" for e in result.events)
    assert reshuffles > 0 or players * 10 + players * rounds <= len(deck.grey)


def test_simulate_bam_command_plays_table_cards(tmp_path: Path) -> None:
    """`voicehost simulate bam --cards table` says so, writes logs with "card_mode": "table" that replay."""
    result = run_voicehost(
        "simulate",
        "bam",
        "--players",
        "5",
        "--games",
        "10",
        "--seed",
        "2",
        "--cards",
        "table",
        "--check-replay",
        "--log-dir",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert "games: 10 (5 players, table cards)" in result.stdout and "(all rejected)" in result.stdout
    events = read_events(tmp_path / "bam-00001.jsonl")
    assert events[0]["card_mode"] == "table" and replay(events).phase is Phase.OVER
    bad = run_voicehost("simulate", "bam", "--cards", "paper")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr and "Traceback" not in bad.stderr
