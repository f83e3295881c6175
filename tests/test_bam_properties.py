"""BAM! invariants under random play (hypothesis): every card in exactly one place, legal order, replay = live.

Random play includes players leaving (their cards are set aside; a round whose master left is void)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.test_bam_rules import make_grey, make_red
from voicehost.rules.bam import BamGame, BamState, Judge, Leave, Phase, Quit, Submit, replay
from voicehost.rules.bam.actions import Action
from voicehost.rules.base import Event, IllegalAction

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")


def grey_places(state: BamState) -> list[str]:
    """Every grey card id wherever it is: draw pile, hands, discard, victory stacks, table, set aside."""
    return [
        *state.grey_deck,
        *state.discard,
        *state.table,
        *state.set_aside,
        *(c for hand in state.hands.values() for c in hand),
        *(c for won in state.won_grey.values() for c in won),
    ]


def red_places(state: BamState) -> list[str]:
    """Every red card id: draw pile, on the table this round, minus stacks."""
    return [*state.red_deck, *([state.red] if state.red else []), *(c for won in state.won_red.values() for c in won)]


def assert_conserved(state: BamState, grey_ids: list[str], red_ids: list[str]) -> None:
    grey = Counter(grey_places(state))
    red = Counter(red_places(state))
    assert sorted(grey) == sorted(grey_ids) and set(grey.values()) == {1}, grey
    assert sorted(red) == sorted(red_ids) and set(red.values()) == {1}, red
    assert all(len(hand) <= state.hand_size for hand in state.hands.values())
    assert sum(state.scores.values()) == 0  # every judged round gives one +1 and one -1


def random_action(data: st.DataObject, state: BamState, grey_ids: list[str]) -> Action:
    """Mostly a legal move, sometimes anything at all (which the rules must refuse or accept consistently)."""
    kind = data.draw(st.sampled_from(["legal"] * 6 + ["submit", "judge", "quit", "leave"]))
    if kind == "quit" and data.draw(st.integers(0, 199)) == 0:
        return Quit(t=0.0)
    if kind == "leave" and data.draw(st.integers(0, 9)) == 0:
        return Leave(data.draw(st.sampled_from([*state.players, "Zed"])), t=0.0)
    if kind == "legal" and state.phase is Phase.SUBMITTING:
        player = data.draw(st.sampled_from(state.waiting_for))
        cards = data.draw(st.permutations(state.hands[player]))[: state.blanks]
        return Submit(player, tuple(cards), t=0.0)
    if kind == "legal":
        n = len(state.reading)
        best = data.draw(st.integers(1, n))
        worst = data.draw(st.integers(1, n - 1))
        worst += worst >= best
        return Judge(state.master, best, worst, keep=data.draw(st.integers(1, state.blanks)), t=0.0)
    if kind == "submit":
        player = data.draw(st.sampled_from([*state.players, "Zed"]))
        cards = data.draw(st.lists(st.sampled_from(grey_ids), max_size=3))
        return Submit(player, tuple(cards), t=0.0)
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
def test_every_card_is_in_exactly_one_place(
    data: st.DataObject,
    players: int,
    rounds_per_player: int,
    red: int,
    doubles: int,
    hand_size: int,
    extra_grey: int,
    seed: int,
) -> None:
    """After every action (legal, illegal or refused) each grey and each red card is in exactly one place;
    masters follow the seating to the left, skipping players who left; the logged game replays to the same state."""
    names = NAMES[:players]
    reds, greys = make_red(red, min(doubles, red)), make_grey(players * hand_size + extra_grey)
    red_ids, grey_ids = [c.id for c in reds], [c.id for c in greys]
    game = BamGame(random.Random(seed))
    state, events = game.start(
        list(names), reds, greys, seed=seed, rounds_per_player=rounds_per_player, hand_size=hand_size
    )
    log: list[Event] = list(events)
    masters = [state.master] if state.phase is not Phase.OVER else []
    gone: set[str] = set()
    assert_conserved(state, grey_ids, red_ids)
    for _ in range(300):
        if game.over(state):
            break
        before = state
        try:
            state, events = game.apply(state, random_action(data, state, grey_ids))
        except IllegalAction:
            assert state is before
            continue
        log += events
        for e in events:
            if e.TYPE == "left":
                gone.add(e.to_json()["player"])
            elif e.TYPE == "round":
                master = e.to_json()["master"]
                i = names.index(masters[-1])
                expected = next(p for p in (names[(i + k) % players] for k in range(1, players + 1)) if p not in gone)
                assert master == expected and master not in gone
                masters.append(master)
        assert_conserved(state, grey_ids, red_ids)
    event(f"ended: {state.result.reason if state.result else 'still running'}")
    event("reshuffled" if any(e.TYPE == "reshuffle" for e in log) else "no reshuffle")
    event("a player left" if gone else "nobody left")
    if not gone:
        assert masters == [names[i % players] for i in range(len(masters))]
    assert len(masters) <= players * rounds_per_player
    assert replay([e.to_json() for e in log]) == state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 8), rounds_per_player=st.integers(1, 3))
def test_a_full_game_always_ends_with_a_reason_and_winners(seed: int, players: int, rounds_per_player: int) -> None:
    """Any complete game ends by rounds, red cards or grey cards; winners share the top (score, grey won)."""
    rng = random.Random(seed)
    game = BamGame(random.Random(seed))
    state, _ = game.start(
        list(NAMES[:players]),
        make_red(12, 4),
        make_grey(players * 10 + 5),
        seed=seed,
        rounds_per_player=rounds_per_player,
    )
    while not game.over(state):
        if state.phase is Phase.SUBMITTING:
            player = rng.choice(state.waiting_for)
            state, _ = game.apply(state, Submit(player, tuple(rng.sample(state.hands[player], state.blanks)), t=0.0))
        else:
            best, worst = rng.sample(range(1, len(state.reading) + 1), 2)
            state, _ = game.apply(state, Judge(state.master, best, worst, t=0.0))
    result = state.result
    assert result is not None and result.reason in {"rounds_done", "red_cards_out", "grey_cards_out"}
    rounds_expected = min(players * rounds_per_player, 12)
    assert state.round == rounds_expected or result.reason == "grey_cards_out"
    top = max((result.scores[p], result.grey_won[p]) for p in state.players)
    assert result.winners == tuple(p for p in state.players if (result.scores[p], result.grey_won[p]) == top)
