"""Bim Bam Bum! rules: one test per rule of the rulebook and per choice in docs/rules.md."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any, Sequence

import pytest

from voicehost.rules.base import Event, IllegalAction, LogError
from voicehost.rules.bimbambum import (
    CARDS_PER_PLAYER,
    RULES,
    Card,
    Phase,
    Play,
    Quit,
    Resume,
    Settings,
    SetupError,
    SlapRace,
    State,
    Timeout,
    apply,
    expected_phrase,
    is_call,
    new_game,
    normalise_phrase,
    replay,
    start,
)

PLAYERS = ("A", "B", "C", "D")


def cards(text: str) -> list[Card]:
    """'bim bam' → [BIM, BAM]."""
    return [Card(word) for word in text.split()]


def begin(
    decks: dict[str, str], first: str = "A", piles: Sequence[str] = ("", "", ""), direction: int = 1, **settings: Any
) -> tuple[State, list[Event]]:
    """A game from a written position, started at t = 0."""
    return start(
        list(decks),
        {p: cards(d) for p, d in decks.items()},
        first_player=first,
        piles=[cards(p) for p in piles],
        direction=direction,
        settings=Settings(**settings),
    )


def play(
    state: State, player: str, pile: int, said: str | None = None, onset: float | None = None, t: float | None = None
) -> tuple[State, list[Event]]:
    """``player`` plays on ``pile``, by default 0.5 s into the window and yelling the right words."""
    onset = state.t + 0.5 if onset is None else onset
    said = state.expected(pile) if said is None else said
    return apply(state, Play(player, pile, said, onset, t=onset + 0.25 if t is None else t))


def kinds(events: Sequence[Event]) -> list[str]:
    return [e.TYPE for e in events]


def logged(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The events as a JSONL log would give them back."""
    return [json.loads(json.dumps(e.to_json())) for e in events]


FOUR = {"A": "bim bam", "B": "bam bum", "C": "bum bim", "D": "bim bim"}


# --- deal -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players, each, excess", [(3, 18, 0), (4, 13, 2), (5, 10, 4), (6, 9, 0), (7, 7, 5), (8, 9, 0)])
def test_deal_sizes_follow_the_rulebook_table(players: int, each: int, excess: int) -> None:
    """Each player gets the table's number of cards; the excess goes to the box."""
    names = [f"P{i}" for i in range(players)]
    state, _ = new_game(names, random.Random(players), seed=players)
    assert [len(d) for d in state.decks] == [each] * players
    assert len(state.box) == excess
    assert CARDS_PER_PLAYER[players] == each
    total = Counter(c for d in state.decks for c in d) + Counter(state.box)
    assert total == {card: 24 if players == 8 else 18 for card in Card}


def test_eight_players_use_the_extension_six_of_each_by_default() -> None:
    """With 8 players the 18 extension cards join: by our default 6 BIM, 6 BAM, 6 BUM."""
    state, events = new_game([f"P{i}" for i in range(8)], random.Random(1), seed=1)
    assert sum(len(d) for d in state.decks) == 72
    assert events[0].to_json()["state"]["boxed"] == 0


def test_custom_extension_cards_are_dealt_with_eight_players() -> None:
    """A table's own extension cards replace the default ones."""
    extension = [Card.BIM] * 18
    state, _ = new_game([f"P{i}" for i in range(8)], random.Random(2), seed=2, extension=extension)
    assert Counter(c for d in state.decks for c in d) == {Card.BIM: 36, Card.BAM: 18, Card.BUM: 18}


def test_extension_must_be_eighteen_cards() -> None:
    """An extension of another size is a setup error naming the size."""
    with pytest.raises(SetupError, match="18 cards"):
        new_game([f"P{i}" for i in range(8)], random.Random(2), seed=2, extension=[Card.BIM] * 17)


def test_extension_is_not_used_below_eight_players() -> None:
    """With 3 to 7 players the extension stays in the box (54 cards in play)."""
    state, _ = new_game(["A", "B", "C"], random.Random(3), seed=3, extension=[Card.BIM] * 18)
    assert sum(len(d) for d in state.decks) + len(state.box) == 54


@pytest.mark.parametrize("players", [2, 9])
def test_three_to_eight_players_only(players: int) -> None:
    """The rulebook's table covers 3 to 8 players; others are rejected with the count."""
    with pytest.raises(SetupError, match=str(players)):
        new_game([f"P{i}" for i in range(players)], random.Random(0), seed=0)


def test_player_names_must_be_distinct() -> None:
    """Two seats with one name cannot be told apart."""
    with pytest.raises(SetupError, match="distinct"):
        new_game(["A", "B", "A"], random.Random(0), seed=0)


def test_first_player_is_the_hosts_choice() -> None:
    """The host names the first player (the loudest); the game starts with their turn."""
    state, events = new_game(PLAYERS, random.Random(5), seed=5, first_player="C")
    assert state.turn == "C" and kinds(events) == ["setup", "round", "turn"]
    assert events[1].to_json()["starter"] == "C" and events[2].to_json()["player"] == "C"


def test_first_player_drawn_from_the_seeded_rng_when_not_given() -> None:
    """Without a choice the first player is random, and the same seed gives the same one."""
    firsts = {new_game(PLAYERS, random.Random(s), seed=s)[0].turn for s in range(40)}
    assert firsts == set(PLAYERS)
    assert new_game(PLAYERS, random.Random(9), seed=9)[0] == new_game(PLAYERS, random.Random(9), seed=9)[0]


def test_setup_event_has_every_field() -> None:
    """The setup event carries players, seed and the position with every required field."""
    state, events = new_game(
        PLAYERS, random.Random(4), seed=4, first_player="B", settings=Settings(window=2.5, slap_window=1.5)
    )
    setup = logged(events)[0]
    assert setup["type"] == "setup" and setup["seq"] == 0 and setup["t"] == 0.0
    assert setup["game"] == "bimbambum" and setup["players"] == list(PLAYERS) and setup["seed"] == 4
    position = setup["state"]
    assert {"decks", "piles", "direction", "turn", "boxed", "window", "slap_window"} <= position.keys()
    assert position["decks"]["A"] == [c.value for c in state.deck("A")]
    assert position["piles"] == [[], [], []] and position["direction"] == 1
    assert position["turn"] == "B" and position["boxed"] == 2
    assert position["window"] == 2.5 and position["slap_window"] == 1.5


def test_decks_are_face_up_only_the_top_card_matters() -> None:
    """The host learns each player's top card; the turn event names the current one."""
    state, events = begin(FOUR)
    assert state.tops == {"A": Card.BIM, "B": Card.BAM, "C": Card.BUM, "D": Card.BIM}
    assert logged(events)[2] == {"seq": 2, "t": 0.0, "type": "turn", "player": "A", "card": "bim"}


# --- a turn -----------------------------------------------------------------------------------


def test_card_goes_on_any_pile_empty_or_not() -> None:
    """The top card goes on the chosen pile, empty or not, and becomes its visible card."""
    state, _ = begin(FOUR, piles=("bam", "", "bum"))
    after, _ = play(state, "A", 2)
    assert after.piles[2] == (Card.BUM, Card.BIM) and after.deck("A") == (Card.BAM,)
    assert after.visible == (Card.BAM, None, Card.BIM)


def test_only_visible_card_of_its_kind_yells_once_and_passes_on() -> None:
    """One visible card of its kind: yell the word once; the next player plays."""
    state, _ = begin(FOUR)
    after, events = play(state, "A", 0, "bim")
    assert kinds(events) == ["play", "turn"] and after.turn == "B" and after.direction == 1


def test_second_visible_of_its_kind_yells_twice_and_skips_next_player() -> None:
    """Two visible of the kind: yell twice; the next player is skipped."""
    state, _ = begin(FOUR, piles=("bim", "", ""))
    after, events = play(state, "A", 1, "bim bim")
    assert kinds(events) == ["play", "skip", "turn"]
    assert events[1].to_json()["player"] == "B" and after.turn == "C" and after.direction == 1


def test_third_visible_of_its_kind_yells_thrice_and_reverses() -> None:
    """Three visible of the kind: yell thrice; direction flips; the next in the new order plays."""
    state, _ = begin(FOUR, piles=("bim", "bim", ""))
    after, events = play(state, "A", 2, "bim bim bim")
    assert kinds(events) == ["play", "reverse", "turn"]
    assert events[1].to_json()["direction"] == -1 and after.direction == -1 and after.turn == "D"


def test_skip_counterclockwise_after_a_reverse() -> None:
    """After a reverse, a skip jumps over the previous seat instead."""
    state, _ = begin(FOUR, first="C", piles=("bum", "", ""), direction=-1)
    after, events = play(state, "C", 1, "bum bum")
    assert events[1].to_json()["player"] == "B" and after.turn == "A"


def test_covering_a_card_changes_what_is_visible() -> None:
    """Only pile tops count: a card played on a BIM hides it."""
    state, _ = begin({"A": "bam bam", "B": "bim", "C": "bim"}, piles=("bim", "bim", ""))
    after, events = play(state, "A", 0, "bam")
    assert events[0].to_json()["visible"] == ["bam", "bim", None] and after.turn == "B"


def test_play_event_has_every_field() -> None:
    """play: player, card, pile, onset, visible after placing, expected, said, ok."""
    state, _ = begin(FOUR, piles=("bam", "", "bum"))
    _, events = play(state, "A", 1, "Bim!", onset=1.25, t=1.5)
    assert logged(events)[0] == {
        "seq": 3,
        "t": 1.5,
        "type": "play",
        "player": "A",
        "card": "bim",
        "pile": 1,
        "onset": 1.25,
        "visible": ["bam", "bim", "bum"],
        "expected": "bim bam bum",
        "said": "bim",
        "ok": False,
        "left": 1,
    }


@pytest.mark.parametrize(
    "raw, normal", [("Bim-bim!", "bim bim"), ("  BAM   bam ", "bam bam"), ("bim, bam, bum!", "bim bam bum"), ("", "")]
)
def test_said_is_normalised_like_expected(raw: str, normal: str) -> None:
    """Lower case, punctuation to spaces, one space between words."""
    assert normalise_phrase(raw) == normal


def test_expected_phrases_tell_the_host_each_pile() -> None:
    """The state says what the current player must yell on each pile (the host's help)."""
    state, _ = begin(FOUR, piles=("bim", "bam", "bum"))
    assert state.expected_phrases == ("bim bam bum", "bim bim", "bim bim")


@pytest.mark.parametrize(
    "card, visible, phrase",
    [
        ("bam", ["bam", None, None], "bam"),
        ("bam", ["bam", "bam", None], "bam bam"),
        ("bam", ["bam", "bam", "bam"], "bam bam bam"),
        ("bum", ["bim", "bam", "bum"], "bim bam bum"),
        ("bum", ["bum", "bam", "bum"], "bum bum"),
    ],
)
def test_expected_phrase_counts_visible_cards_of_the_played_kind(
    card: str, visible: list[str | None], phrase: str
) -> None:
    """The word once per visible card of its kind, or the call for one of each."""
    tops = [None if v is None else Card(v) for v in visible]
    assert expected_phrase(Card(card), tops) == phrase


# --- BIM BAM BUM! -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "visible, call",
    [
        (["bim", "bam", "bum"], True),
        (["bum", "bim", "bam"], True),
        (["bim", "bam", None], False),
        (["bim", "bim", "bum"], False),
        ([None, None, None], False),
    ],
)
def test_bim_bam_bum_needs_exactly_one_of_each_visible(visible: list[str | None], call: bool) -> None:
    """Only one BIM + one BAM + one BUM on the pile tops makes a BIM BAM BUM!"""
    assert is_call([None if v is None else Card(v) for v in visible]) is call


def test_right_bim_bam_bum_opens_the_slap_race() -> None:
    """A right call logs "bimbambum" and waits for the slaps (no next turn yet)."""
    state, _ = begin(FOUR, piles=("", "bam", "bum"), slap_window=2.0)
    after, events = play(state, "A", 0, "bim bam bum", onset=1.0, t=1.3)
    assert kinds(events) == ["play", "bimbambum"] and events[1].to_json()["player"] == "A"
    assert after.phase is Phase.SLAP and after.caller == "A"
    assert after.slap_opens == 1.0 and after.slap_closes == pytest.approx(3.3)


def call_race(**settings: Any) -> State:
    """A 4-player game in which A has just rightly yelled BIM BAM BUM! (onset 1.0, t 1.3)."""
    state, _ = begin(FOUR, piles=("", "bam", "bum"), **settings)
    return play(state, "A", 0, "bim bam bum", onset=1.0, t=1.3)[0]


def test_no_play_while_the_slap_race_is_open() -> None:
    """Plays wait until the race result came in."""
    with pytest.raises(IllegalAction) as error:
        play(call_race(), "B", 0, onset=1.5, t=1.6)
    assert error.value.reason == "slap_race_open"


# --- mistakes ---------------------------------------------------------------------------------


def test_mistake_playing_out_of_turn_keeps_the_card_and_ends_the_round() -> None:
    """An out-of-turn play is a mistake, not illegal: no play event, the card stays on the deck."""
    state, _ = begin(FOUR, piles=("bum", "", ""))
    after, events = play(state, "C", 1, "bum bum", onset=0.4, t=0.6)
    assert kinds(events) == ["mistake", "penalty", "round", "turn"]
    assert logged(events)[0] == {
        "seq": 3,
        "t": 0.6,
        "type": "mistake",
        "player": "C",
        "reason": "out_of_turn",
        "onset": 0.4,
    }
    assert after.deck("C") == (Card.BUM, Card.BIM, Card.BUM) and after.turn == "C"


def test_mistake_timeout_when_nothing_is_played_in_the_window() -> None:
    """When the window closes without a play, the current player made a mistake."""
    state, _ = begin(FOUR, window=3.0)
    after, events = apply(state, Timeout(t=3.0))
    assert kinds(events) == ["mistake", "penalty", "round", "turn"]
    assert events[0].to_json()["reason"] == "timeout" and events[0].to_json()["player"] == "A"
    assert after.turn == "A" and after.window_opens == 3.0


def test_timeout_before_the_window_closes_is_rejected() -> None:
    """The window opens at the turn event's time; a timeout before its end is illegal."""
    state, _ = begin(FOUR, window=3.0)
    with pytest.raises(IllegalAction) as error:
        apply(state, Timeout(t=2.9))
    assert error.value.reason == "window_open"


def test_mistake_timeout_when_the_voice_starts_after_the_window() -> None:
    """A play whose onset is later than the window is a timeout; the card is not played."""
    state, _ = begin(FOUR, window=3.0)
    after, events = play(state, "A", 0, "bim", onset=3.01, t=3.3)
    assert kinds(events)[0] == "mistake" and events[0].to_json()["reason"] == "timeout"
    assert after.deck("A") == (Card.BIM, Card.BAM) and after.piles == ((), (), ())


def test_play_with_onset_at_the_window_end_is_on_time() -> None:
    """The window includes its last instant; recognition may finish after it."""
    state, _ = begin(FOUR, window=3.0)
    _, events = play(state, "A", 0, "bim", onset=3.0, t=3.6)
    assert kinds(events) == ["play", "turn"]


def test_mistake_wrong_word() -> None:
    """Yelling another word is a mistake; the card stays on the pile and the round ends."""
    state, _ = begin(FOUR)
    after, events = play(state, "A", 0, "bam")
    assert kinds(events) == ["play", "mistake", "penalty", "round", "turn"]
    assert events[0].to_json()["ok"] is False and events[1].to_json()["reason"] == "wrong_word"


def test_mistake_wrong_number_of_repetitions() -> None:
    """The right word yelled the wrong number of times is a wrong word too."""
    state, _ = begin(FOUR, piles=("bim", "", ""))
    _, events = play(state, "A", 1, "bim")
    assert events[0].to_json()["expected"] == "bim bim"
    assert events[1].to_json()["reason"] == "wrong_word"


def test_mistake_yelling_plain_words_instead_of_bim_bam_bum() -> None:
    """With one of each visible, the call is required; the word alone is wrong."""
    state, _ = begin(FOUR, piles=("", "bam", "bum"))
    _, events = play(state, "A", 0, "bim")
    assert events[1].to_json()["reason"] == "wrong_word"


def test_mistake_slapping_your_own_call() -> None:
    """The caller slapping is a mistake; others' slaps are logged too, nobody else is penalised."""
    race = call_race()
    after, events = apply(race, SlapRace((("B", 1.6), ("A", 1.8), ("C", 1.7)), t=3.3))
    assert kinds(events) == ["slap", "slap", "slap", "mistake", "penalty", "round", "turn"]
    assert [e.to_json()["player"] for e in events[:3]] == ["B", "C", "A"]
    assert logged(events)[3] == {
        "seq": 8,
        "t": 3.3,
        "type": "mistake",
        "player": "A",
        "reason": "slapped_own_call",
        "onset": 1.8,
    }
    assert after.turn == "A" and after.phase is Phase.PLAY


def test_mistake_last_to_slap() -> None:
    """When everyone else slapped, the latest slap is the mistake."""
    race = call_race()
    after, events = apply(race, SlapRace((("B", 1.6), ("C", 2.2), ("D", 1.9)), t=2.3))
    assert logged(events)[1] == {"seq": 6, "t": 2.3, "type": "slap", "player": "D", "onset": 1.9}
    assert events[3].to_json()["reason"] == "last_to_slap" and events[3].to_json()["player"] == "C"
    assert after.turn == "C"


def test_no_slap_counts_later_than_every_slapper() -> None:
    """A player who does not slap in the window is last, however late the others were."""
    race = call_race()
    _, events = apply(race, SlapRace((("B", 3.2), ("C", 3.3)), t=3.3))
    assert logged(events)[2] == {
        "seq": 7,
        "t": 3.3,
        "type": "mistake",
        "player": "D",
        "reason": "last_to_slap",
        "onset": None,
    }


def test_several_non_slappers_the_first_after_the_caller_is_penalised() -> None:
    """Among players who did not slap, the first in turn order after the caller is last."""
    _, events = apply(call_race(), SlapRace((("C", 1.6),), t=3.3))
    assert events[1].to_json()["player"] == "B"
    state, _ = begin(FOUR, piles=("", "bam", "bum"), direction=-1)
    race = play(state, "A", 0, "bim bam bum", onset=1.0, t=1.3)[0]
    _, events = apply(race, SlapRace((("C", 1.6),), t=3.3))
    assert events[1].to_json()["player"] == "D"


def test_tied_last_slaps_the_first_after_the_caller_is_penalised() -> None:
    """Two slaps at the same instant: the first in turn order after the caller counts as later."""
    _, events = apply(call_race(), SlapRace((("D", 2.0), ("C", 2.0), ("B", 1.5)), t=3.3))
    assert [e.to_json()["player"] for e in events[:3]] == ["B", "C", "D"]
    assert events[3].to_json()["player"] == "C"


def test_slaps_outside_the_slap_window_are_not_logged() -> None:
    """Slaps before the call's onset or after the window's end do not count and are not logged."""
    _, events = apply(call_race(), SlapRace((("B", 0.9), ("C", 1.5), ("D", 3.31), ("B", 3.4)), t=3.5))
    assert [(e.to_json()["player"], e.to_json()["onset"]) for e in events if e.TYPE == "slap"] == [("C", 1.5)]
    assert events[1].to_json()["player"] == "B"


def test_only_a_players_first_slap_counts() -> None:
    """A second slap by the same player is ignored."""
    _, events = apply(call_race(), SlapRace((("B", 2.5), ("B", 1.5), ("C", 1.6), ("D", 1.7)), t=2.6))
    assert [e.to_json()["player"] for e in events if e.TYPE == "slap"] == ["B", "C", "D"]
    assert events[3].to_json()["player"] == "D"


def test_slap_race_result_waits_for_the_window_or_every_slap() -> None:
    """Before the window closes the race is decided only if all others (or the caller) slapped."""
    race = call_race()
    with pytest.raises(IllegalAction) as error:
        apply(race, SlapRace((("B", 1.6), ("C", 1.7)), t=2.0))
    assert error.value.reason == "race_not_finished"
    assert apply(race, SlapRace((("A", 1.4),), t=1.5))[1][1].to_json()["reason"] == "slapped_own_call"


def test_slap_race_without_a_call_is_rejected() -> None:
    """Slaps are only judged after a BIM BAM BUM!"""
    state, _ = begin(FOUR)
    with pytest.raises(IllegalAction) as error:
        apply(state, SlapRace((("B", 0.5),), t=1.0))
    assert error.value.reason == "no_slap_race"


# --- penalty ----------------------------------------------------------------------------------


def test_penalty_largest_pile_goes_under_the_deck_in_its_order() -> None:
    """The largest pile's bottom card goes under the old deck first, its top card ends up last."""
    state, _ = begin(FOUR, piles=("bam bim bum", "bum", "bam bam"))
    after, events = play(state, "A", 1, "bam")
    assert after.deck("A") == (Card.BAM, Card.BAM, Card.BIM, Card.BUM)
    assert logged(events)[2] == {
        "seq": 5,
        "t": 0.75,
        "type": "penalty",
        "player": "A",
        "took_pile": 0,
        "took": 3,
        "boxed_pile": 1,
        "boxed": 2,
        "cards": 4,
    }


def test_penalty_smallest_pile_goes_to_the_box_the_middle_one_stays() -> None:
    """The smallest pile leaves the game; the remaining pile stays on the table."""
    state, _ = begin(FOUR, piles=("bam", "bum bum", "bam bim bum"))
    after, _ = play(state, "A", 1, "bam")
    assert after.deck("A") == (Card.BAM, Card.BUM, Card.BUM, Card.BIM)
    assert after.box == (Card.BAM,)
    assert after.piles == ((), (), (Card.BAM, Card.BIM, Card.BUM))


def test_penalty_ties_go_to_the_lowest_pile_number() -> None:
    """Equal piles: the lowest-numbered is the largest; the smallest is the lower of the others."""
    state, _ = begin(FOUR, piles=("bum bum", "bam bam", "bum bam"))
    after, events = apply(state, Timeout(t=3.0))
    assert logged(events)[1] == {
        "seq": 4,
        "t": 3.0,
        "type": "penalty",
        "player": "A",
        "took_pile": 0,
        "took": 2,
        "boxed_pile": 1,
        "boxed": 2,
        "cards": 4,
    }
    assert after.piles == ((), (), (Card.BUM, Card.BAM))


def test_penalty_with_an_empty_pile_boxed_nothing_under_rules_1() -> None:
    """Rules 1 (before issue 14): the empty spot counted as the smallest pile, so nothing was boxed."""
    state, _ = begin(FOUR, piles=("bam", "", "bum bum"), rules=1)
    after, events = apply(state, Timeout(t=3.0))
    assert [events[1].to_json()[k] for k in ("took_pile", "took", "boxed_pile", "boxed")] == [2, 2, None, 0]
    assert after.piles == ((Card.BAM,), (), ()) and after.box == ()


def test_penalty_with_all_piles_empty_takes_and_boxes_nothing() -> None:
    """A timeout at the start of a round: no pile to take, none to box."""
    state, _ = begin(FOUR)
    after, events = apply(state, Timeout(t=3.0))
    assert [events[1].to_json()[k] for k in ("took_pile", "took", "boxed_pile", "boxed")] == [None, 0, None, 0]
    assert after.deck("A") == (Card.BIM, Card.BAM)


def test_new_round_starts_with_the_penalised_player_direction_unchanged() -> None:
    """After the penalty a round begins with that player, in the same turn order."""
    state, _ = begin(FOUR, first="B", direction=-1, piles=("bum", "", ""))
    after, events = play(state, "D", 0, onset=0.2, t=0.3)
    assert logged(events)[2] == {"seq": 5, "t": 0.3, "type": "round", "starter": "D"}
    assert after.turn == "D" and after.direction == -1 and after.rounds == 2


# --- end of the game --------------------------------------------------------------------------


def test_win_on_the_last_card() -> None:
    """Playing your last card without a mistake wins at once."""
    state, _ = begin({"A": "bim", "B": "bam", "C": "bum"})
    after, events = play(state, "A", 0, "bim", onset=0.5, t=0.8)
    assert kinds(events) == ["play", "game_over"]
    assert logged(events)[1] == {
        "seq": 4,
        "t": 0.8,
        "type": "game_over",
        "reason": "last_card",
        "winner": "A",
        "cards_left": {"A": 0, "B": 1, "C": 1},
    }
    assert after.over and after.winner == "A" and RULES.over(after)


def test_win_on_the_last_card_with_bim_bam_bum_has_no_slap_race() -> None:
    """A right BIM BAM BUM! with the last card wins at once; no race follows."""
    state, _ = begin({"A": "bim", "B": "bam", "C": "bum"}, piles=("bam", "bum", ""))
    after, events = play(state, "A", 2, "bim bam bum")
    assert kinds(events) == ["play", "game_over"] and after.winner == "A"


def test_last_card_with_a_wrong_word_is_a_mistake_not_a_win() -> None:
    """Only a last card without a mistake wins; a wrong yell takes the pile back."""
    state, _ = begin({"A": "bim", "B": "bam", "C": "bum"})
    after, events = play(state, "A", 0, "bam")
    assert "game_over" not in kinds(events) and after.deck("A") == (Card.BIM,)


def test_no_action_after_the_game_is_over() -> None:
    """A finished game rejects everything."""
    state, _ = begin({"A": "bim", "B": "bam", "C": "bum"})
    over, _ = play(state, "A", 0)
    with pytest.raises(IllegalAction) as error:
        play(over, "B", 0)
    assert error.value.reason == "game_over"


def test_quit_ends_the_game_without_a_winner() -> None:
    """Players may stop; the log ends with reason quit."""
    state, _ = begin(FOUR)
    after, events = apply(state, Quit(t=4.0))
    assert logged(events) == [
        {
            "seq": 3,
            "t": 4.0,
            "type": "game_over",
            "reason": "quit",
            "winner": None,
            "cards_left": {"A": 2, "B": 2, "C": 2, "D": 2},
        }
    ]
    assert after.over and after.winner is None


def test_turn_cap_stops_a_game_that_might_not_end() -> None:
    """At the turn cap the game ends without a winner (reason turn_cap)."""
    state, _ = begin(FOUR, turn_cap=2)
    state, _ = play(state, "A", 0)
    after, events = play(state, "B", 1)
    assert kinds(events) == ["play", "game_over"] and events[1].to_json()["reason"] == "turn_cap"
    assert after.turns == 2 and after.winner is None


# --- variant, timing and illegal actions ------------------------------------------------------


def test_no_time_window_variant_has_no_timeouts() -> None:
    """Without a window a late play is fine and a timeout is rejected."""
    state, _ = begin(FOUR, window=None)
    assert state.window_closes is None
    with pytest.raises(IllegalAction) as error:
        apply(state, Timeout(t=100.0))
    assert error.value.reason == "no_window"
    _, events = play(state, "A", 0, "bim", onset=60.0, t=60.5)
    assert kinds(events) == ["play", "turn"]
    assert logged(begin(FOUR, window=None)[1])[0]["state"]["window"] is None


def test_the_window_opens_at_the_turn_events_time() -> None:
    """Each turn's window is measured from its own turn event."""
    state, _ = begin(FOUR, window=3.0)
    state, events = play(state, "A", 0, onset=2.0, t=2.5)
    assert events[-1].t == 2.5 and state.window_opens == 2.5 and state.window_closes == 5.5
    _, events = play(state, "B", 1, onset=5.4, t=5.9)
    assert kinds(events) == ["play", "turn"]


@pytest.mark.parametrize(
    "action, reason",
    [
        (Play("A", 3, "bim", 0.5, t=0.6), "bad_pile"),
        (Play("A", -1, "bim", 0.5, t=0.6), "bad_pile"),
        (Play("Zoe", 0, "bim", 0.5, t=0.6), "not_seated"),
        (Play("A", 0, "bim", 0.7, t=0.6), "bad_onset"),
        (Play("A", 0, "bim", float("nan"), t=0.6), "bad_onset"),
        (Timeout(t=-1.0), "time_backwards"),
        (Quit(t=float("inf")), "time_backwards"),
    ],
)
def test_illegal_actions_are_rejected_with_a_reason_and_change_nothing(action: Any, reason: str) -> None:
    """Pile out of range, player not seated, impossible times: rejected with a reason code."""
    state, _ = begin(FOUR)
    with pytest.raises(IllegalAction) as error:
        apply(state, action)
    assert error.value.reason == reason


def test_slapper_not_seated_is_rejected() -> None:
    """A slap from an unknown name is illegal, not a slap."""
    with pytest.raises(IllegalAction) as error:
        apply(call_race(), SlapRace((("Zoe", 1.5),), t=3.3))
    assert error.value.reason == "not_seated"


def test_events_are_numbered_and_timed_from_the_actions() -> None:
    """seq counts on from the state; every event of an action has the action's t."""
    state, first = begin(FOUR)
    state, events = play(state, "A", 0, onset=1.0, t=1.4)
    assert [e.seq for e in first + events] == list(range(5)) and {e.t for e in events} == {1.4}
    assert state.seq == 5 and state.t == 1.4


# --- resume and replay ------------------------------------------------------------------------


def test_resume_marks_the_restart_and_reopens_the_window() -> None:
    """A resumed game continues seq and t, logs "resumed", and the window opens again."""
    state, _ = begin(FOUR, window=3.0)
    after, events = apply(state, Resume(t=50.0))
    assert logged(events) == [
        {"seq": 3, "t": 50.0, "type": "resumed"},
        {"seq": 4, "t": 50.0, "type": "turn", "player": "A", "card": "bim"},
    ]
    assert after.window_opens == 50.0 and after.turns == state.turns


def test_resume_during_a_slap_race_reopens_the_slap_window() -> None:
    """Slaps count again from the restart, for a whole slap window."""
    after, events = apply(call_race(slap_window=2.0), Resume(t=40.0))
    assert kinds(events) == ["resumed"] and after.phase is Phase.SLAP
    assert (after.slap_opens, after.slap_closes) == (40.0, 42.0)


def scripted_game() -> tuple[State, list[Event]]:
    """A short game using every kind of action and event."""
    state, log = begin(
        {"A": "bim bam bum bim", "B": "bam bum bim", "C": "bum bim bam", "D": "bim"}, window=3.0, slap_window=2.0
    )
    steps = [
        Play("A", 0, "bim", 0.5, t=0.7),  # once
        Play("B", 1, "bam", 1.0, t=1.2),  # once
        Play("C", 2, "bim bam bum", 1.5, t=1.8),  # call
        SlapRace((("B", 2.0), ("D", 2.1)), t=3.8),  # A did not slap: last; A starts the round
        Play("C", 0, "bim", 4.0, t=4.1),  # out of turn: C starts the next round
        Timeout(t=7.1),  # C did not play in time
        Resume(t=20.0),
        Play("C", 1, "bum bum", 23.5, t=23.6),  # late: timeout
        Play("C", 0, "bam", 24.0, t=24.3),  # wrong word
        Quit(t=30.0),
    ]
    for action in steps:
        state, events = apply(state, action)
        log += events
    return state, log


def test_replay_of_a_log_reproduces_the_same_state() -> None:
    """Replaying a log's actions from its setup gives the live game's state."""
    state, events = scripted_game()
    assert {"mistake", "slap", "bimbambum", "resumed", "game_over", "penalty", "round"} <= set(kinds(events))
    assert replay(logged(events)) == state
    assert RULES.replay(logged(events)) == state


def test_replay_of_a_log_prefix_gives_the_state_to_resume_from() -> None:
    """A log cut between actions (a crash) replays to the state at that point."""
    state, events = begin(FOUR)
    state, more = play(state, "A", 0)
    assert replay(logged(events + more)) == state


def test_replay_rejects_a_tampered_log_naming_the_event() -> None:
    """An event the rules would not give is reported with its seq."""
    _, events = scripted_game()
    log = logged(events)
    changed = next(e for e in log if e["type"] == "penalty")
    changed["took"] += 1
    with pytest.raises(LogError, match=f"seq {changed['seq']}"):
        replay(log)


def test_replay_rejects_a_log_cut_inside_an_action() -> None:
    """A log that stops in the middle of an action's events is reported."""
    _, events = scripted_game()
    log = logged(events)
    cut = next(i for i, e in enumerate(log) if e["type"] == "penalty")
    with pytest.raises(LogError, match="middle of an action"):
        replay(log[:cut])


def test_replay_needs_a_bimbambum_setup_first() -> None:
    """A log that does not start with this game's setup is rejected."""
    _, events = scripted_game()
    with pytest.raises(LogError, match="setup"):
        replay(logged(events)[1:])
    bad = logged(events)
    bad[0]["state"]["decks"]["A"][0] = "bom"
    with pytest.raises(LogError, match="bom"):
        replay(bad)


REQUIRED = {
    "setup": {"game", "players", "seed", "state"},
    "turn": {"player"},
    "play": {"player", "card", "pile", "onset", "visible", "expected", "said", "ok"},
    "skip": {"player"},
    "reverse": {"direction"},
    "bimbambum": {"player"},
    "slap": {"player", "onset"},
    "mistake": {"player", "reason"},
    "penalty": {"player", "took_pile", "took", "boxed_pile", "boxed"},
    "round": {"starter"},
    "game_over": {"winner", "cards_left", "reason"},
    "resumed": set(),
}


def test_every_event_has_seq_t_type_and_its_required_fields() -> None:
    """Each logged event carries "seq", "t", "type" and the fields issue 4 names."""
    _, events = scripted_game()
    state, _ = begin(FOUR, piles=("bim", "bim", ""))
    events += play(state, "A", 2)[1] + play(begin(FOUR, piles=("bim", "", ""))[0], "A", 1)[1]
    seen = set()
    for event in logged(events):
        assert {"seq", "t", "type"} | REQUIRED[event["type"]] <= event.keys()
        seen.add(event["type"])
    assert seen == set(REQUIRED)


# --- issue 14: rulings -----------------------------------------------------------------------


def test_penalty_boxes_the_smallest_pile_that_holds_cards() -> None:
    """Ruling 2: piles of 1, 0 and 2 cards: the 2 are taken and the 1 is boxed (an empty spot is no pile)."""
    state, _ = begin(FOUR, piles=("bam", "", "bum bum"))
    after, events = apply(state, Timeout(t=3.0))
    assert [events[1].to_json()[k] for k in ("took_pile", "took", "boxed_pile", "boxed")] == [2, 2, 0, 1]
    assert after.piles == ((), (), ()) and after.box == (Card.BAM,)


def test_penalty_smallest_card_pile_ties_go_to_the_lowest_pile_number() -> None:
    """Ruling 2: piles 0, 3, 3 (an empty spot first): pile 1 is taken, pile 2 boxed, spot 0 stays empty."""
    state, _ = begin(FOUR, piles=("", "bum bum bim", "bam bam bim"))
    after, events = apply(state, Timeout(t=3.0))
    assert [events[1].to_json()[k] for k in ("took_pile", "boxed_pile", "boxed")] == [1, 2, 3]
    assert after.piles == ((), (), ())


def test_penalty_with_one_card_pile_takes_it_and_boxes_nothing() -> None:
    """Ruling 2: with a single card pile there is no other pile to box."""
    state, _ = begin(FOUR, piles=("", "bum", ""))
    after, events = apply(state, Timeout(t=3.0))
    assert [events[1].to_json()[k] for k in ("took_pile", "took", "boxed_pile", "boxed")] == [1, 1, None, 0]


def test_setup_event_records_the_rules_version() -> None:
    """A log says which rulings wrote it: rules 2 since issue 14 (a log without the field is rules 1)."""
    _, events = new_game(PLAYERS, random.Random(4), seed=4, first_player="B")
    assert logged(events)[0]["rules"] == 2


def test_a_rules_1_log_replays_with_the_old_penalty() -> None:
    """An old log (no "rules" field) whose penalty boxed nothing beside an empty spot still replays exactly."""
    state, events = begin(FOUR, piles=("bam", "", "bum bum"), rules=1)
    after, more = apply(state, Timeout(t=3.0))
    assert [more[1].to_json()[k] for k in ("took_pile", "boxed_pile")] == [2, None]
    log = logged(events + more)
    assert "rules" not in log[0]
    assert replay(log) == after


@pytest.mark.parametrize("players", [9, 12])
def test_nine_or_more_players_are_refused_saying_the_deal_table_stops_at_eight(players: int) -> None:
    """9+ players: the refusal says why (the rulebook's deal table ends at 8 players)."""
    with pytest.raises(SetupError, match="deal table stops at 8"):
        new_game([f"P{i}" for i in range(players)], random.Random(0), seed=0)
