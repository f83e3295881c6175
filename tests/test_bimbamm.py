"""Bim Bamm! rules, one test per rule of the rulebook (and of issue 3's readings of it).

Positions are built on LAYOUT, a fixed tile set, so each test can say exactly which tiles show
what. The helpers at the top are shared with the other test_bimbamm*.py files.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pytest

from voicehost.eventlog import EventLogWriter, read_events
from voicehost.rules.base import Event, IllegalAction, LogError
from voicehost.rules.bimbamm import (
    GAME,
    Action,
    Animal,
    Call,
    Flip,
    Phase,
    Quit,
    ResolveRace,
    ScorerFlips,
    SetupError,
    Shout,
    Side,
    Special,
    State,
    Tile,
    TileSetError,
    UseSpecial,
    apply,
    default_tiles,
    legal_actions,
    new_game,
    parse_tile_spec,
    parse_tile_toml,
    replay,
    resume,
)

# -- helpers (imported by the other Bim Bamm! test files) --------------------------------------

LAYOUT = parse_tile_spec(
    "cat/dog, cat/pig, cat/hen, dog/cat, dog/pig, dog/donkey, pig/cat, pig/hen, pig/donkey,"
    " donkey/cat, donkey/dog, donkey/hen, hen/pig, hen/dog, hen/donkey"
)
"""A fixed tile set: white sides 0-2 cat, 3-5 dog, 6-8 pig, 9-11 donkey, 12-14 hen; black sides
cat on 3, 6, 9; dog on 0, 10, 13; pig on 1, 4, 12; hen on 2, 7, 11; donkey on 5, 8, 14."""

CAT, DOG, PIG, DONKEY, HEN = Animal.CAT, Animal.DOG, Animal.PIG, Animal.DONKEY, Animal.HEN


def layout(black_up: Iterable[int] = ()) -> tuple[Tile, ...]:
    """LAYOUT with the given tiles turned to their black side."""
    black = set(black_up)
    return tuple(Tile(t.white, t.black, Side.BLACK if i in black else Side.WHITE) for i, t in enumerate(LAYOUT))


def make_state(
    hands: Mapping[str, Animal | None],
    *,
    points: Mapping[str, Sequence[Animal]] | None = None,
    deck: Sequence[Animal] | None = None,
    black_up: Iterable[int] = (),
    turn: str | None = None,
    special: Special = Special.SWAP,
    variant2p: bool = False,
) -> State:
    """A position with these hands (seating order = key order). By default the pile holds the
    remaining cards in animal order, so all 15 cards are accounted for."""
    players = tuple(hands)
    won = points or {}
    if deck is None:
        used = [h for h in hands.values() if h is not None] + [c for w in won.values() for c in w]
        deck = [a for a in Animal for _ in range(3 - used.count(a))]
    return State(
        players=players,
        tiles=layout(black_up),
        special=special,
        hands=tuple(hands.values()),
        deck=tuple(deck),
        points=tuple(tuple(won.get(p, ())) for p in players),
        turn=turn or players[0],
        variant2p=variant2p,
        seq=2,
    )


def play(state: State, *actions: Action) -> tuple[State, list[Event]]:
    """Apply actions in order; return the final state and all their events."""
    events: list[Event] = []
    for action in actions:
        state, produced = apply(state, action)
        events.extend(produced)
    return state, events


def of_type(events: Sequence[Event], kind: str) -> list[dict[str, Any]]:
    """The JSON objects of the events of one type."""
    return [e.to_json() for e in events if e.TYPE == kind]


def state_fields(state: State) -> dict[str, Any]:
    """A state's fields, to build a variant of it (e.g. under other rules)."""
    return dict(state.__dict__)


def card_count(state: State) -> dict[Animal, int]:
    """Cards of each animal among hands, pile and points."""
    cards = [h for h in state.hands if h is not None] + list(state.deck) + [c for w in state.points for c in w]
    return {a: cards.count(a) for a in Animal}


class Stacked:
    """An Rng that 'shuffles' the 15 cards into a given order (and leaves other lists alone)."""

    def __init__(self, cards: Sequence[Animal]) -> None:
        self.cards = list(cards)

    def shuffle(self, x: list[Any]) -> None:
        if len(x) == len(self.cards):
            x[:] = self.cards

    def random(self) -> float:
        return 0.0

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        return start if stop is not None else 0


def stacked(*hands: Animal) -> Stacked:
    """Cards dealt so that seat i gets hands[i]; the rest of the 15 follow in animal order."""
    rest = [a for a in Animal for _ in range(3 - list(hands).count(a))]
    return Stacked([*hands, *rest])


ABC = {"Ann": DOG, "Bob": CAT, "Cid": CAT}
"""Three players: Ann holds a dog, Bob and Cid a cat."""


# -- components and setup ---------------------------------------------------------------------


def test_setup_lays_every_tile_white_side_up_and_the_special_tile_on_swap() -> None:
    """Setup A: all tiles show the white frame; the special tile starts on SWAP."""
    state, events = new_game(["Ann", "Bob"], random.Random(3), 3)
    assert all(t.up is Side.WHITE for t in state.tiles) and len(state.tiles) == 15
    assert state.special is Special.SWAP
    snap = events[0].to_json()["state"]
    assert snap["special"] == "swap" and all(t["up"] == "white" for t in snap["tiles"])


@pytest.mark.parametrize("seed", range(40))
def test_default_tiles_carry_three_of_each_animal_per_side_never_one_animal_twice(seed: int) -> None:
    """Default tile set: white sides 3 of each animal, black sides 3 of each, no tile alike on both sides."""
    tiles = default_tiles(random.Random(seed))
    for side in ("white", "black"):
        shown = [getattr(t, side) for t in tiles]
        assert all(shown.count(a) == 3 for a in Animal)
    assert all(t.white is not t.black for t in tiles)


def test_default_tile_arrangement_is_seeded() -> None:
    """The default arrangement depends only on the seed: same seed, same tiles; another seed, others."""
    assert default_tiles(random.Random(7)) == default_tiles(random.Random(7))
    assert default_tiles(random.Random(7)) != default_tiles(random.Random(8))


def test_an_explicit_tile_set_is_used_as_given() -> None:
    """A tile set entered by the owner of a physical game replaces the default arrangement."""
    state, events = new_game(["Ann", "Bob", "Cid"], random.Random(1), 1, tiles=LAYOUT)
    assert state.tiles == LAYOUT
    assert events[0].to_json()["state"]["tiles"][3] == {"white": "dog", "black": "cat", "up": "white"}


def test_tile_toml_gives_the_same_set_as_the_spec() -> None:
    """A TOML tile file ([[tile]] white/black) reads like the spec string."""
    text = "\n".join(f'[[tile]]\nwhite = "{t.white}"\nblack = "{t.black}"\n' for t in LAYOUT)
    assert parse_tile_toml(text, "mine.toml") == LAYOUT


@pytest.mark.parametrize(
    "spec, words",
    [
        ("cat/dog", "expected 15 tiles, found 1"),
        (",".join(["cat/dog"] * 14 + ["cat-dog"]), "tile 15: expected 'white/black'"),
        (",".join(["cat/dog"] * 14 + ["cat/cow"]), "tile 15: field 'black': 'cow' is not an animal"),
    ],
)
def test_a_bad_tile_spec_names_the_tile_and_field(spec: str, words: str) -> None:
    """Tile set errors say which tile and which side is wrong."""
    with pytest.raises(TileSetError, match=words):
        parse_tile_spec(spec)


def test_a_bad_tile_toml_names_file_line_tile_and_field() -> None:
    """A TOML tile file error names the file, the line of the [[tile]] header, the tile and the field."""
    lines = [f'[[tile]]\nwhite = "{t.white}"\nblack = "{t.black}"' for t in LAYOUT]
    lines[4] = '[[tile]]\nwhite = "lion"\nblack = "cat"'
    with pytest.raises(TileSetError, match=r"mine\.toml:13: tile 5: field 'white': 'lion'"):
        parse_tile_toml("\n".join(lines), "mine.toml")
    with pytest.raises(TileSetError, match="mine.toml: not valid TOML"):
        parse_tile_toml("[[tile]\n", "mine.toml")


def test_setup_deals_one_card_to_each_player_and_the_rest_is_the_pile() -> None:
    """Setup B-C: one card each, the other 15 - n cards face down in the pile; 3 of each animal."""
    for n in range(2, 9):
        names = [f"P{i}" for i in range(n)]
        state, _ = new_game(names, random.Random(n), n)
        assert all(h is not None for h in state.hands) and len(state.deck) == 15 - n
        assert card_count(state) == dict.fromkeys(Animal, 3)


def test_the_cat_holder_starts() -> None:
    """The game is started by the player who has the cat."""
    state, events = new_game(["Ann", "Bob", "Cid"], stacked(DOG, PIG, CAT), 0, tiles=LAYOUT)
    assert state.turn == "Cid" and events[1].to_json() == {"seq": 1, "t": 0.0, "type": "turn", "player": "Cid"}


def test_several_cat_holders_the_first_in_seating_order_starts() -> None:
    """Two players hold a cat: the first of them in seating order starts (host's choice ignored)."""
    state, _ = new_game(["Ann", "Bob", "Cid"], stacked(DOG, CAT, CAT), 0, tiles=LAYOUT, first_player="Cid")
    assert state.turn == "Bob"


def test_nobody_holds_the_cat_the_host_chooses_the_first_player() -> None:
    """No cat dealt: the host's choice (e.g. the youngest) starts; without one, the first seat."""
    chosen, _ = new_game(["Ann", "Bob", "Cid"], stacked(DOG, PIG, HEN), 0, tiles=LAYOUT, first_player="Cid")
    default, _ = new_game(["Ann", "Bob", "Cid"], stacked(DOG, PIG, HEN), 0, tiles=LAYOUT)
    assert chosen.turn == "Cid" and default.turn == "Ann"


@pytest.mark.parametrize(
    "players, words",
    [
        (["Ann"], "2 to 8 players"),
        ([f"P{i}" for i in range(9)], "2 to 8 players"),
        (["Ann", "Ann"], "must differ"),
        (["Ann", ""], "non-empty"),
    ],
)
def test_two_to_eight_players_with_distinct_names(players: list[str], words: str) -> None:
    """2 to 8 players with distinct names; anything else is refused at setup."""
    with pytest.raises(SetupError, match=words):
        new_game(players, random.Random(0), 0)


def test_the_two_player_variant_is_on_for_two_players_only() -> None:
    """The 2-player rule is on by default with 2 players, off with more, and refused with more."""
    assert new_game(["Ann", "Bob"], random.Random(0), 0)[0].variant2p
    assert not new_game(["Ann", "Bob", "Cid"], random.Random(0), 0)[0].variant2p
    assert not new_game(["Ann", "Bob"], random.Random(0), 0, variant2p=False)[0].variant2p
    with pytest.raises(SetupError):
        new_game(["Ann", "Bob", "Cid"], random.Random(0), 0, variant2p=True)


# -- turns --------------------------------------------------------------------------------------


def test_a_turn_flip_turns_the_tile_and_passes_the_turn_left() -> None:
    """Turning a tile shows its other side; play passes to the left (the next name, wrapping round)."""
    state = make_state(ABC, turn="Cid")
    state, events = play(state, Flip("Cid", 12, t=1.0))
    flip = of_type(events, "flip")[0]
    assert flip == {
        "seq": 2,
        "t": 1.0,
        "type": "flip",
        "player": "Cid",
        "tile": 12,
        "showing": "pig",
        "counts": {"cat": 3, "dog": 3, "pig": 4, "donkey": 3, "hen": 2},
        "reason": "turn",
    }
    assert state.tiles[12].up is Side.BLACK and state.turn == "Ann" and state.phase is Phase.TURN
    assert of_type(events, "turn") == [{"seq": 3, "t": 1.0, "type": "turn", "player": "Ann"}]


def test_a_tile_can_be_flipped_back() -> None:
    """A tile turned to black can be turned back to white by a later turn."""
    state, _ = play(make_state(ABC), Flip("Ann", 12, t=1.0), Flip("Bob", 12, t=2.0))
    assert state.tiles[12].up is Side.WHITE and state.turn == "Cid"


def test_five_identical_animals_after_a_turn_flip_open_a_race() -> None:
    """A flip that makes an animal show on five tiles opens a race for it."""
    state = make_state(ABC, black_up=[3])  # four cats showing
    state, events = play(state, Flip("Ann", 6, t=1.0))
    assert [e.TYPE for e in events] == ["flip", "race"] and of_type(events, "race")[0]["animal"] == "cat"
    assert state.phase is Phase.RACE and state.race == (CAT,) and state.to_act is None


def test_a_race_opens_again_when_the_five_was_already_showing() -> None:
    """Five cats already show: any turn flip that leaves five or more opens a race again."""
    state = make_state(ABC, black_up=[3, 6])
    state, events = play(state, Flip("Ann", 12, t=1.0))
    assert of_type(events, "race") == [{"seq": 3, "t": 1.0, "type": "race", "animal": "cat"}]


def test_two_animals_at_five_open_two_races_one_point_then_the_other_reopens() -> None:
    """Cats and dogs both at five: two races, only the earliest valid shout scores; the later valid
    one scores nothing; after the scorer's flips the dogs (still five) open a race again."""
    state = make_state({"Ann": HEN, "Bob": DOG, "Cid": CAT}, black_up=[6, 9, 10, 13])
    state, events = play(state, Flip("Ann", 12, t=1.0))
    assert [r["animal"] for r in of_type(events, "race")] == ["cat", "dog"]
    state, events = play(state, ResolveRace((Call("Bob", DOG, 1.3), Call("Cid", CAT, 1.2)), t=3.0))
    assert [(p["player"], p["animal"]) for p in of_type(events, "point")] == [("Cid", "cat")]
    assert of_type(events, "mistake") == [] and state.scorer == "Cid"
    state, events = play(state, ScorerFlips("Cid", (0, 1), t=4.0))  # cat->dog, cat->pig
    assert of_type(events, "race") == [{"seq": 10, "t": 4.0, "type": "race", "animal": "dog"}]


# -- scoring --------------------------------------------------------------------------------------


def test_the_earliest_holder_scores_draws_a_card_and_must_turn_two_tiles() -> None:
    """The first to shout the racing animal while holding it scores: card becomes a point, draws a
    new card, then must turn 2 tiles of that animal; a later holder's shout scores nothing."""
    state = make_state(ABC, black_up=[3], deck=[PIG, HEN])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    state, events = play(state, ResolveRace((Call("Cid", CAT, 1.40), Call("Bob", CAT, 1.35)), t=2.5))
    shouts, point = of_type(events, "shout"), of_type(events, "point")
    assert [s["player"] for s in shouts] == ["Bob", "Cid"]  # judged in onset order
    assert point == [
        {"seq": 5, "t": 2.5, "type": "point", "player": "Bob", "animal": "cat", "drew": "pig", "points": 1, "shout": 4}
    ]
    assert of_type(events, "mistake") == [] and "turn" not in [e.TYPE for e in events]
    assert state.won("Bob") == (CAT,) and state.hand("Bob") is PIG and state.deck == (HEN,)
    assert state.phase is Phase.SCORER and state.scorer == "Bob" and state.scored is CAT and state.to_act == "Bob"


def test_race_earliest_shouter_lacks_the_card_second_shouter_scores() -> None:
    """The earliest shouter does not hold the cat (a mistake, no_card); the next one, who does, scores."""
    state = make_state(ABC, black_up=[3])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    state, events = play(state, ResolveRace((Call("Ann", CAT, 1.1), Call("Cid", CAT, 1.3)), t=2.5))
    assert of_type(events, "mistake")[0] == {
        "seq": 5,
        "t": 2.5,
        "type": "mistake",
        "player": "Ann",
        "reason": "no_card",
        "returned": None,
        "shout": 4,
    }
    assert of_type(events, "point")[0]["player"] == "Cid"


def test_the_scorer_turns_two_different_tiles_of_their_animal() -> None:
    """The scorer's 2 tiles must differ and both show the scored animal; only the scorer chooses."""
    state = make_state(ABC, black_up=[3])
    state, _ = play(state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0))
    bad = [ScorerFlips("Bob", (0, 12), t=3.0), ScorerFlips("Bob", (0, 0), t=3.0), ScorerFlips("Bob", (0, 15), t=3.0)]
    for action in bad:
        with pytest.raises(IllegalAction) as caught:
            apply(state, action)
        assert caught.value.reason in ("bad_score_tiles", "no_such_tile")
    with pytest.raises(IllegalAction, match="Bob scored") as caught:
        apply(state, ScorerFlips("Cid", (0, 1), t=3.0))
    with pytest.raises(IllegalAction) as caught:
        apply(state, Flip("Bob", 12, t=3.0))
    assert caught.value.reason == "awaiting_scorer"
    state, events = play(state, ScorerFlips("Bob", (0, 6), t=3.0))
    assert [(f["tile"], f["reason"]) for f in of_type(events, "flip")] == [(0, "score"), (6, "score")]
    assert state.counts()[CAT] == 3


def test_scoring_chain_a_reflip_that_makes_a_new_five_opens_a_new_race() -> None:
    """The scorer's two flips make five dogs: a new race opens, its winner scores and turns two dog
    tiles, and play continues to the left of the last scorer."""
    state = make_state({"Ann": HEN, "Bob": CAT, "Cid": DOG}, black_up=[3, 10, 13])  # 4 cats, 4 dogs
    state, _ = play(state, Flip("Ann", 6, t=1.0))  # fifth cat
    state, events = play(state, ResolveRace((Call("Bob", CAT, 1.4),), t=2.5), ScorerFlips("Bob", (0, 1), t=4.0))
    flips = of_type(events, "flip")
    assert flips[-1]["counts"]["dog"] == 5 and of_type(events, "race")[-1]["animal"] == "dog"
    assert state.phase is Phase.RACE and state.turn == "Bob"
    state, events = play(state, ResolveRace((Call("Cid", DOG, 4.3), Call("Ann", DOG, 4.2)), t=5.5))
    assert [m["reason"] for m in of_type(events, "mistake")] == ["no_card"]  # Ann, earlier, holds a hen
    assert of_type(events, "point")[0]["player"] == "Cid"
    state, events = play(state, ScorerFlips("Cid", (4, 5), t=6.0))
    assert events[-1].to_json()["type"] == "turn" and state.turn == "Ann"  # left of Cid, the last scorer


def test_nobody_scores_play_continues_left_of_the_player_who_flipped() -> None:
    """A race closed without a valid shout: the player to the left of the one who flipped plays."""
    state = make_state(ABC, black_up=[3])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    state, events = play(state, ResolveRace(t=2.5))
    assert [e.TYPE for e in events] == ["turn"] and state.turn == "Bob" and state.phase is Phase.TURN


def test_nobody_scores_after_a_scorers_reflip_play_continues_left_of_the_scorer() -> None:
    """After a chain race nobody wins, play continues to the left of the last scorer, not the flipper."""
    state = make_state(ABC, black_up=[3, 10, 13])
    state, _ = play(
        state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.4),), t=2.5), ScorerFlips("Bob", (0, 1), t=4.0)
    )
    assert state.race == (DOG,)
    state, _ = play(state, ResolveRace(t=5.5))
    assert state.turn == "Cid"


def test_a_scorer_whose_flips_make_no_five_passes_play_to_their_left() -> None:
    """After the scorer's two flips with no new five, the player to the scorer's left plays."""
    state = make_state(ABC, black_up=[3])
    state, events = play(
        state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Cid", CAT, 1.2),), t=2.0), ScorerFlips("Cid", (0, 1), t=3.0)
    )
    assert events[-1].to_json()["type"] == "turn" and state.turn == "Ann"


# -- mistakes -----------------------------------------------------------------------------------


def test_mistake_wrong_animal_returns_the_last_won_card_to_the_bottom_of_the_pile() -> None:
    """Shouting another animal in a race is a mistake: the last won card goes under the pile."""
    state = make_state(ABC, black_up=[3], points={"Ann": [PIG, HEN]}, deck=[DONKEY])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    state, events = play(state, ResolveRace((Call("Ann", PIG, 1.5),), t=2.0))
    assert of_type(events, "mistake")[0]["reason"] == "wrong_animal"
    assert of_type(events, "mistake")[0]["returned"] == "hen"
    assert state.won("Ann") == (PIG,) and state.deck == (DONKEY, HEN)


def test_mistake_without_a_won_card_changes_nothing() -> None:
    """A player with no won card makes a mistake: nothing happens (but it is logged)."""
    state = make_state(ABC, black_up=[3])
    before, _ = play(state, Flip("Ann", 6, t=1.0))
    after, events = play(before, ResolveRace((Call("Ann", PIG, 1.5),), t=2.0))
    assert of_type(events, "mistake")[0]["returned"] is None
    assert after.points == before.points and after.deck == before.deck and after.hands == before.hands


def test_mistake_no_five_a_shout_when_no_five_identical_show() -> None:
    """Shouting while no animal shows on five tiles is a mistake (no_five), even holding that animal."""
    state = make_state(ABC, points={"Bob": [DOG]}, deck=[PIG])
    state, events = play(state, Shout("Bob", CAT, 0.9, t=1.0))
    assert [e.TYPE for e in events] == ["shout", "mistake"]
    assert of_type(events, "mistake")[0] == {
        "seq": 3,
        "t": 1.0,
        "type": "mistake",
        "player": "Bob",
        "reason": "no_five",
        "returned": "dog",
        "shout": 2,
    }
    assert state.deck == (PIG, DOG) and state.phase is Phase.TURN and state.turn == "Ann"


def test_a_shout_outside_a_race_window_is_judged_against_the_table() -> None:
    """Five cats still show after a race closed: a late cat shout by a holder is no mistake (and no
    point); a dog shout is the wrong animal; a cat shout without the card is no_card."""
    state = make_state(ABC, black_up=[3, 6])
    state, events = play(
        state, Shout("Bob", CAT, 0.9, t=1.0), Shout("Ann", DOG, 1.0, t=1.0), Shout("Ann", CAT, 1.1, t=1.5)
    )
    assert [m["reason"] for m in of_type(events, "mistake")] == ["wrong_animal", "no_card"]
    assert state.points_by_name() == {"Ann": 0, "Bob": 0, "Cid": 0} and state.phase is Phase.TURN


def test_every_shout_in_a_race_is_judged_one_mistake_per_player() -> None:
    """Each shout of a race window is judged, but a player's first wrong shout is their one mistake
    of the window (rules 2; rules 1 took a won card for each)."""
    state = make_state(ABC, black_up=[3], points={"Ann": [PIG, HEN]}, deck=[DONKEY])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    calls = (Call("Ann", PIG, 1.2), Call("Cid", DOG, 1.3), Call("Ann", CAT, 1.4), Call("Bob", CAT, 1.5))
    state, events = play(state, ResolveRace(calls, t=2.0))
    assert [(m["player"], m["reason"], m["returned"]) for m in of_type(events, "mistake")] == [
        ("Ann", "wrong_animal", "hen"),
        ("Cid", "wrong_animal", None),
    ]
    assert state.won("Ann") == (PIG,) and of_type(events, "point")[0]["player"] == "Bob"
    assert of_type(events, "point")[0]["drew"] == "donkey" and state.deck == (HEN,)
    old = State(
        **{**state_fields(make_state(ABC, black_up=[3], points={"Ann": [PIG, HEN]}, deck=[DONKEY])), "rules": 1}
    )
    old, _ = play(old, Flip("Ann", 6, t=1.0))
    old, events = play(old, ResolveRace(calls, t=2.0))
    assert [m["returned"] for m in of_type(events, "mistake")] == ["hen", None, "pig"]


def test_a_late_valid_shout_after_someone_scored_is_no_mistake_and_scores_nothing() -> None:
    """A holder who shouts the right animal after the scorer: no point, no mistake."""
    state = make_state(ABC, black_up=[3], points={"Cid": [DOG]})
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    state, events = play(state, ResolveRace((Call("Bob", CAT, 1.2), Call("Cid", CAT, 1.25)), t=2.0))
    assert len(of_type(events, "point")) == 1 and of_type(events, "mistake") == []
    assert state.won("Cid") == (DOG,)


def test_a_scorer_is_judged_on_the_card_they_held_during_the_race() -> None:
    """The scorer's second cat shout in the same race is late, not a no_card mistake, though they
    have drawn a new card by then."""
    state = make_state(ABC, black_up=[3], deck=[PIG])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    state, events = play(state, ResolveRace((Call("Bob", CAT, 1.2), Call("Bob", CAT, 1.6)), t=2.0))
    assert of_type(events, "mistake") == [] and state.score("Bob") == 1


# -- the draw pile ------------------------------------------------------------------------------


def test_empty_draw_pile_the_scorer_holds_no_card_until_they_get_one() -> None:
    """Scoring with an empty pile: the scorer draws nothing and holds no card; their cat shouts are
    then no_card mistakes; a SWAP later draws the card a mistake put back."""
    state = make_state(ABC, black_up=[3], deck=[])
    state, events = play(state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0))
    assert of_type(events, "point")[0]["drew"] is None and state.hand("Bob") is None
    state, events = play(state, ScorerFlips("Bob", (0, 1), t=3.0), Shout("Bob", CAT, 3.4, t=3.5))
    assert of_type(events, "mistake")[0]["reason"] == "no_five" and of_type(events, "mistake")[0]["returned"] == "cat"
    assert state.deck == (CAT,) and state.turn == "Cid"
    state, events = play(state, Flip("Cid", 12, t=4.0), Flip("Ann", 12, t=5.0), UseSpecial("Bob", t=6.0))
    assert of_type(events, "swap") == [
        {"seq": events[-2].seq, "t": 6.0, "type": "swap", "player": "Bob", "returned": None, "drew": "cat"}
    ]
    assert state.hand("Bob") is CAT and state.deck == ()


def test_swap_with_no_card_and_an_empty_pile_only_turns_the_special_tile() -> None:
    """SWAP with nothing to put back and nothing to draw is still a turn: the special tile turns."""
    state = make_state({"Ann": None, "Bob": CAT}, deck=[])
    state, events = play(state, UseSpecial("Ann", t=1.0))
    assert of_type(events, "swap")[0]["returned"] is None and of_type(events, "swap")[0]["drew"] is None
    assert state.special is Special.EXCHANGE and state.turn == "Bob"


# -- the special tile -----------------------------------------------------------------------------


def test_swap_puts_the_card_under_the_pile_and_draws_the_top_card() -> None:
    """SWAP: the held card goes to the bottom of the pile, the top card is drawn."""
    state = make_state(ABC, deck=[PIG, HEN])
    state, events = play(state, UseSpecial("Ann", t=1.0))
    assert of_type(events, "swap")[0] == {
        "seq": 2,
        "t": 1.0,
        "type": "swap",
        "player": "Ann",
        "returned": "dog",
        "drew": "pig",
    }
    assert state.hand("Ann") is PIG and state.deck == (HEN, DOG) and state.turn == "Bob"


def test_exchange_swaps_cards_with_the_named_player() -> None:
    """EXCHANGE: the player takes the named player's card and gives their own."""
    state = make_state(ABC, special=Special.EXCHANGE)
    state, events = play(state, UseSpecial("Ann", "Cid", t=1.0))
    assert of_type(events, "exchange")[0] == {
        "seq": 2,
        "t": 1.0,
        "type": "exchange",
        "player": "Ann",
        "with": "Cid",
        "gave": "dog",
        "got": "cat",
    }
    assert state.hand("Ann") is CAT and state.hand("Cid") is DOG and state.turn == "Bob"


def test_swap_then_exchange_the_special_tile_alternates_after_every_use() -> None:
    """After each use the special tile turns over: SWAP, EXCHANGE, SWAP, EXCHANGE …"""
    state = make_state(ABC)
    sides = [state.special]
    for t, (player, target) in enumerate([("Ann", None), ("Bob", "Ann"), ("Cid", None), ("Ann", "Bob")], 1):
        state, events = play(state, UseSpecial(player, target, t=float(t)))
        sides.append(state.special)
        assert [e.TYPE for e in events][0] == ("swap" if target is None else "exchange")
    assert sides == [Special.SWAP, Special.EXCHANGE, Special.SWAP, Special.EXCHANGE, Special.SWAP]


@pytest.mark.parametrize("target", [None, "Ann", "Zed"])
def test_exchange_without_a_valid_target_is_illegal(target: str | None) -> None:
    """EXCHANGE needs another player at the table: no name, oneself or a stranger is refused."""
    state = make_state(ABC, special=Special.EXCHANGE)
    with pytest.raises(IllegalAction) as caught:
        apply(state, UseSpecial("Ann", target, t=1.0))
    assert caught.value.reason == "bad_target" and "Bob, Cid" in str(caught.value)


def test_swap_with_a_target_is_illegal() -> None:
    """The SWAP side names nobody: a target is refused rather than silently ignored."""
    with pytest.raises(IllegalAction) as caught:
        apply(make_state(ABC), UseSpecial("Ann", "Bob", t=1.0))
    assert caught.value.reason == "swap_has_no_target"


# -- the 2-player variant ---------------------------------------------------------------------


def test_two_player_rule_no_flipping_a_tile_showing_the_animal_the_other_just_revealed() -> None:
    """2 players: after Ann reveals a cat, Bob may not turn a tile showing a cat."""
    state = make_state({"Ann": DOG, "Bob": PIG}, variant2p=True)
    state, _ = play(state, Flip("Ann", 3, t=1.0))  # dog -> cat
    with pytest.raises(IllegalAction) as caught:
        apply(state, Flip("Bob", 0, t=2.0))
    assert caught.value.reason == "restricted_tile"
    legal = {a.tile for a in legal_actions(state, 2.0) if isinstance(a, Flip)}
    assert legal == set(range(15)) - {0, 1, 2, 3}
    state, _ = play(state, Flip("Bob", 12, t=2.0))  # hen -> pig: now Ann may not turn pigs
    with pytest.raises(IllegalAction):
        apply(state, Flip("Ann", 6, t=3.0))
    play(state, Flip("Ann", 0, t=3.0))


def test_two_player_rule_lifted_after_a_special_tile_turn() -> None:
    """2 players: a special-tile turn reveals nothing, so the next player is not restricted."""
    state = make_state({"Ann": DOG, "Bob": PIG}, variant2p=True)
    state, _ = play(state, Flip("Ann", 3, t=1.0), UseSpecial("Bob", t=2.0))
    play(state, Flip("Ann", 0, t=3.0))
    state, _ = play(make_state({"Ann": DOG, "Bob": PIG}, variant2p=True), UseSpecial("Ann", t=1.0))
    play(state, Flip("Bob", 0, t=2.0))


def test_two_player_rule_does_not_bind_the_player_who_revealed() -> None:
    """2 players: Ann reveals a cat, Bob scores, Ann plays next: her own reveal does not bind her."""
    state = make_state({"Ann": DOG, "Bob": CAT}, variant2p=True, black_up=[3])
    state, _ = play(
        state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.3),), t=2.0), ScorerFlips("Bob", (0, 1), t=3.0)
    )
    assert state.turn == "Ann" and state.restricted == (DOG, PIG) and state.restricted_by == "Bob"
    play(state, Flip("Ann", 2, t=4.0))


def test_two_player_rule_does_not_apply_to_three_players() -> None:
    """With 3 players any tile may be turned, whatever the last reveal."""
    state, _ = play(make_state(ABC), Flip("Ann", 3, t=1.0))
    play(state, Flip("Bob", 0, t=2.0))


# -- the end ----------------------------------------------------------------------------------------


def test_win_at_exactly_three_points_ends_the_game_at_once() -> None:
    """A third point wins at once: game_over, no scorer's flips, later shouts of the race ignored."""
    state = make_state(ABC, black_up=[3], points={"Bob": [DOG, PIG]}, deck=[HEN, DONKEY])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    state, events = play(state, ResolveRace((Call("Bob", CAT, 1.2), Call("Ann", PIG, 1.3)), t=2.0))
    assert [e.TYPE for e in events] == ["shout", "point", "game_over"]
    assert of_type(events, "point")[0]["points"] == 3
    assert of_type(events, "game_over")[0] == {
        "seq": 6,
        "t": 2.0,
        "type": "game_over",
        "winner": "Bob",
        "points": {"Ann": 0, "Bob": 3, "Cid": 0},
        "reason": "three_points",
        "player": None,
    }
    assert state.over and state.winner == "Bob" and state.phase is Phase.OVER and legal_actions(state, 3.0) == []
    with pytest.raises(IllegalAction) as caught:
        apply(state, ScorerFlips("Bob", (0, 1), t=3.0))
    assert caught.value.reason == "game_over"


def test_two_points_is_not_a_win() -> None:
    """A second point does not end the game: the scorer turns two tiles."""
    state = make_state(ABC, black_up=[3], points={"Bob": [DOG]})
    state, _ = play(state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.2),), t=2.0))
    assert state.score("Bob") == 2 and state.phase is Phase.SCORER


def test_quit_ends_the_game_without_a_winner() -> None:
    """A player (or the host) quits: game_over with no winner and the points so far."""
    state, events = play(make_state(ABC, points={"Cid": [PIG]}, deck=[HEN]), Quit("Bob", t=5.0))
    assert events[0].to_json() == {
        "seq": 2,
        "t": 5.0,
        "type": "game_over",
        "winner": None,
        "points": {"Ann": 0, "Bob": 0, "Cid": 1},
        "reason": "quit",
        "player": "Bob",
    }
    assert state.over and state.winner is None


# -- illegal actions ----------------------------------------------------------------------------------


RACE_STATE = play(make_state(ABC, black_up=[3]), Flip("Ann", 6, t=1.0))[0]


@pytest.mark.parametrize(
    "state, action, reason",
    [
        (make_state(ABC), Flip("Bob", 0, t=1.0), "not_your_turn"),
        (make_state(ABC), UseSpecial("Cid", t=1.0), "not_your_turn"),
        (make_state(ABC), Flip("Zed", 0, t=1.0), "unknown_player"),
        (make_state(ABC), Flip("Ann", 15, t=1.0), "no_such_tile"),
        (make_state(ABC), Flip("Ann", -1, t=1.0), "no_such_tile"),
        (make_state(ABC), Flip("Ann", True, t=1.0), "no_such_tile"),
        (make_state(ABC), ResolveRace(t=1.0), "no_race"),
        (make_state(ABC), ScorerFlips("Ann", (0, 1), t=1.0), "not_scorer"),
        (make_state(ABC), Quit("Ann", "three_points", t=1.0), "bad_reason"),
        (RACE_STATE, Flip("Bob", 0, t=2.0), "race_open"),
        (RACE_STATE, Shout("Bob", CAT, 1.5, t=2.0), "race_open"),
        (RACE_STATE, ResolveRace((Call("Zed", CAT, 1.5),), t=2.0), "unknown_player"),
        (RACE_STATE, ResolveRace((Call("Bob", "cat", 1.5),), t=2.0), "not_an_animal"),  # type: ignore[arg-type]
        (RACE_STATE, ResolveRace((Call("Bob", CAT, float("nan")),), t=2.0), "bad_onset"),
        (RACE_STATE, ResolveRace(t=0.5), "time_backwards"),
    ],
)
def test_illegal_actions_are_rejected_with_a_reason_and_leave_the_state_unchanged(
    state: State, action: Action, reason: str
) -> None:
    """Out of turn, no such tile, wrong phase, unknown names, time going back: refused, state intact."""
    before = state.to_json()
    with pytest.raises(IllegalAction) as caught:
        apply(state, action)
    assert caught.value.reason == reason and str(caught.value)
    assert state.to_json() == before
    assert legal_actions(state, 5.0)  # the game can still go on


def test_legal_actions_list_what_the_player_to_act_may_do() -> None:
    """Turn: 15 flips and the special tile; race: closing it; scorer: each pair of their tiles."""
    state = make_state(ABC, black_up=[3], special=Special.EXCHANGE)
    actions = legal_actions(state, 1.0)
    assert len([a for a in actions if isinstance(a, Flip)]) == 15
    assert [a.target for a in actions if isinstance(a, UseSpecial)] == ["Bob", "Cid"]
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    assert legal_actions(state, 2.0) == [ResolveRace(t=2.0)]
    state, _ = play(state, ResolveRace((Call("Bob", CAT, 1.5),), t=2.0))
    assert len(legal_actions(state, 3.0)) == 10  # 5 cat tiles, any 2
    for action in legal_actions(state, 3.0):
        apply(state, action)


# -- the event log, save and resume -----------------------------------------------------------------

REQUIRED: dict[str, dict[str, Any]] = {
    "setup": {"game": str, "players": list, "seed": int, "state": dict},
    "turn": {"player": str},
    "flip": {"player": str, "tile": int, "showing": str, "counts": dict, "reason": str},
    "race": {"animal": str},
    "shout": {"player": str, "animal": str, "onset": float},
    "point": {"player": str, "animal": str, "drew": (str, type(None)), "points": int},
    "mistake": {"player": str, "reason": str, "returned": (str, type(None)), "shout": int},
    "swap": {"player": str, "returned": (str, type(None)), "drew": (str, type(None))},
    "exchange": {"player": str, "with": str, "gave": (str, type(None)), "got": (str, type(None))},
    "game_over": {"winner": (str, type(None)), "points": dict, "reason": str},
    "resumed": {},
}
"""Every event type of issue 3 with its required fields and JSON types."""


def scripted_game() -> tuple[State, list[Event]]:
    """A short game with a swap, an exchange, a race with a point, a mistake and a late shout."""
    state, events = new_game(["Ann", "Bob", "Cid"], stacked(DOG, CAT, CAT), 11, tiles=LAYOUT, t=0.0)
    actions: list[Action] = [
        UseSpecial("Bob", t=1.0),
        UseSpecial("Cid", "Ann", t=2.0),
        Flip("Ann", 3, t=3.0),
        Flip("Bob", 6, t=4.0),
        ResolveRace((Call("Ann", CAT, 4.3), Call("Cid", PIG, 4.4), Call("Bob", CAT, 4.6)), t=5.5),
    ]
    for action in actions:
        state, produced = apply(state, action)
        events += produced
    return state, events


def test_every_event_has_the_fields_issue_3_names_with_their_types() -> None:
    """Each event type carries seq (0, 1, 2 …), t, type and its required fields with the right types."""
    state, events = scripted_game()
    state, produced = resume(state, 7.0)
    events += produced
    scorer = state.scorer
    assert scorer is not None
    state, produced = apply(state, legal_actions(state, 8.0)[0])
    events += produced
    state, produced = apply(state, Quit(None, t=9.0))
    events += produced
    seen = set()
    for seq, event in enumerate(events):
        obj = event.to_json()
        assert obj["seq"] == seq and isinstance(obj["t"], float) and obj["type"] in REQUIRED
        for key, kind in REQUIRED[obj["type"]].items():
            assert key in obj and isinstance(obj[key], kind), (obj, key)
        seen.add(obj["type"])
    assert seen == set(REQUIRED)


def test_the_setup_event_holds_the_whole_starting_state() -> None:
    """setup.state has tiles (white, black, up) ×15, special, hands, deck (top first), points, turn, variant2p."""
    state, events = new_game(["Ann", "Bob"], stacked(DOG, CAT), 42, tiles=LAYOUT)
    setup = events[0].to_json()
    assert setup["game"] == "bimbamm" and setup["players"] == ["Ann", "Bob"] and setup["seed"] == 42
    assert set(setup["state"]) == {"tiles", "special", "hands", "deck", "points", "turn", "variant2p"}
    assert setup["state"]["hands"] == {"Ann": "dog", "Bob": "cat"} and setup["state"]["turn"] == "Bob"
    assert setup["state"]["deck"] == [a.value for a in state.deck] and setup["state"]["variant2p"] is True
    assert setup["state"]["points"] == {"Ann": [], "Bob": []}


def test_save_and_resume_seq_and_t_continue_and_replay_reproduces_the_state(tmp_path: Path) -> None:
    """The log is the save file: reload, replay to the same state, append 'resumed', play on; the
    whole log (with the restart) replays again to the same state."""
    state, events = scripted_game()
    path = tmp_path / "game.jsonl"
    with EventLogWriter(path) as log:
        log.write(events)
    loaded = replay(read_events(path))
    assert loaded == state
    with pytest.raises(IllegalAction):
        resume(loaded, 5.0)  # the game clock does not go back
    resumed, produced = resume(loaded, 60.0)
    assert [e.to_json() for e in produced] == [{"seq": len(events), "t": 60.0, "type": "resumed"}]
    resumed, more = play(resumed, legal_actions(resumed, 61.0)[0])
    assert more[0].seq == len(events) + 1 and more[0].t == 61.0
    with EventLogWriter(path) as log:
        log.write(produced + more)
    assert replay(read_events(path)) == resumed
    assert GAME.replay(read_events(path)) == resumed and not GAME.over(resumed)


@pytest.mark.parametrize(
    "seq, key, value, words",
    [
        (6, "tile", 4, "event 6"),
        (11, "drew", "hen", "field 'drew'"),
        (10, "onset", 4.7, r"event 12 \(shout\): field 'onset'"),  # out of onset order
        (0, "game", "bam", "setup"),
    ],
)
def test_replay_refuses_an_edited_log(seq: int, key: str, value: Any, words: str) -> None:
    """A log whose events the rules would not produce is refused, naming the event and field."""
    _, events = scripted_game()
    log = [e.to_json() for e in events]
    assert log[seq].get(key) != value
    log[seq][key] = value
    with pytest.raises(LogError, match=words):
        replay(log)


def test_replay_refuses_a_setup_whose_cards_do_not_add_up() -> None:
    """The setup's 15 cards must be 3 of each animal among hands, pile and points."""
    _, events = scripted_game()
    log = [e.to_json() for e in events]
    log[0]["state"]["deck"][0] = "cat" if log[0]["state"]["deck"][0] != "cat" else "dog"
    with pytest.raises(LogError, match="cards, expected 3"):
        replay(log)


def test_replay_refuses_a_log_cut_in_the_middle_of_an_action() -> None:
    """A log that stops between the events of one action (a five-making flip without its race) is refused."""
    _, events = scripted_game()
    log = [e.to_json() for e in events]
    with pytest.raises(LogError, match="middle of an action"):
        replay(log[:9])


# -- issue 14: rulings ---------------------------------------------------------------------------


def test_a_scorer_who_shouts_the_second_raced_animal_in_the_same_window_is_late_not_wrong() -> None:
    """Ruling 3: cats and dogs at five; Cid scores the cat, draws a dog and shouts "dog" in the same
    window: late (no point, no mistake), and Cid keeps the point just won."""
    deck = [DOG, CAT, CAT, DOG, PIG, PIG, PIG, DONKEY, DONKEY, DONKEY, HEN, HEN]
    state = make_state({"Ann": HEN, "Bob": DOG, "Cid": CAT}, black_up=[6, 9, 10, 13], deck=deck)
    state, _ = play(state, Flip("Ann", 12, t=1.0))
    state, events = play(state, ResolveRace((Call("Cid", CAT, 1.2), Call("Cid", DOG, 1.5)), t=3.0))
    assert of_type(events, "mistake") == [] and len(of_type(events, "point")) == 1
    assert state.score("Cid") == 1 and state.hand("Cid") is DOG


def test_a_scorer_who_shouts_an_animal_never_held_in_the_window_is_still_wrong() -> None:
    """Ruling 3: after scoring the cat and drawing a pig, Cid's "dog" is a no_card mistake (never held)."""
    deck = [PIG, CAT, CAT, DOG, DOG, PIG, PIG, DONKEY, DONKEY, DONKEY, HEN, HEN]
    state = make_state({"Ann": HEN, "Bob": DOG, "Cid": CAT}, black_up=[6, 9, 10, 13], deck=deck)
    state, _ = play(state, Flip("Ann", 12, t=1.0))
    state, events = play(state, ResolveRace((Call("Cid", CAT, 1.2), Call("Cid", DOG, 1.5)), t=3.0))
    assert [(m["player"], m["reason"]) for m in of_type(events, "mistake")] == [("Cid", "no_card")]


def test_one_mistake_per_race_window_per_player_the_first_wrong_shout() -> None:
    """Ruling 4: "Cat! Cat!" without the card costs one won card, not two: a referee counts the
    first wrong shout of each player in a race window."""
    state = make_state(ABC, black_up=[3], points={"Ann": [PIG, HEN]}, deck=[DONKEY])
    state, _ = play(state, Flip("Ann", 6, t=1.0))
    calls = (Call("Ann", CAT, 1.2), Call("Ann", CAT, 1.3), Call("Ann", PIG, 1.4), Call("Bob", CAT, 1.5))
    state, events = play(state, ResolveRace(calls, t=2.0))
    assert [(m["player"], m["reason"], m["returned"]) for m in of_type(events, "mistake")] == [
        ("Ann", "no_card", "hen")
    ]
    assert state.won("Ann") == (PIG,) and len(of_type(events, "shout")) == 4


def test_two_player_rule_after_a_point_binds_the_animals_the_scorer_revealed() -> None:
    """Ruling 5: Ann reveals a cat, Bob scores and turns two cats to dog and pig; Ann, next, may not
    turn a dog or a pig (Bob is the previous player), but her own cat does not bind her."""
    state = make_state({"Ann": DOG, "Bob": CAT}, variant2p=True, black_up=[3])
    state, _ = play(
        state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Bob", CAT, 1.3),), t=2.0), ScorerFlips("Bob", (0, 1), t=3.0)
    )
    assert state.turn == "Ann"
    for tile in (4, 7):  # a dog, a pig
        with pytest.raises(IllegalAction) as caught:
            apply(state, Flip("Ann", tile, t=4.0))
        assert caught.value.reason == "restricted_tile"
    play(state, Flip("Ann", 2, t=4.0))  # a cat: allowed


def test_two_player_rule_after_two_turns_in_a_row_binds_the_other_players_reveals() -> None:
    """Ruling 5: Bob's flip makes five cats, Ann scores and turns two cats (dog, pig), Bob plays again:
    Ann was the previous player, so her dog and pig bind Bob, and his own cat does not."""
    state = make_state({"Ann": CAT, "Bob": DOG}, variant2p=True, black_up=[3], turn="Bob")
    state, _ = play(
        state, Flip("Bob", 6, t=1.0), ResolveRace((Call("Ann", CAT, 1.3),), t=2.0), ScorerFlips("Ann", (0, 1), t=3.0)
    )
    assert state.turn == "Bob"
    with pytest.raises(IllegalAction):
        apply(state, Flip("Bob", 4, t=4.0))
    play(state, Flip("Bob", 2, t=4.0))


def test_two_player_rule_after_scoring_on_ones_own_flip_binds_everything_revealed() -> None:
    """Ruling 5: Ann reveals the fifth cat, scores it and turns two cats (dog, pig): Bob may turn no
    cat, dog or pig, as in the book's example everything the previous player revealed binds."""
    state = make_state({"Ann": CAT, "Bob": DOG}, variant2p=True, black_up=[3])
    state, _ = play(
        state, Flip("Ann", 6, t=1.0), ResolveRace((Call("Ann", CAT, 1.3),), t=2.0), ScorerFlips("Ann", (0, 1), t=3.0)
    )
    assert state.turn == "Bob"
    legal = {a.tile for a in legal_actions(state, 4.0) if isinstance(a, Flip)}
    showing = {i: state.tiles[i].showing for i in range(15)}
    assert legal == {i for i, a in showing.items() if a not in (CAT, DOG, PIG)}


def test_two_player_variant_can_be_switched_off() -> None:
    """Ruling 5: with variant2p=False two players may flip any tile."""
    state, events = new_game(["Ann", "Bob"], stacked(DOG, PIG), seed=1, tiles=LAYOUT, variant2p=False)
    assert events[0].to_json()["state"]["variant2p"] is False
    state, _ = play(state, Flip(state.turn, 3, t=1.0))
    play(state, Flip(state.turn, 0, t=2.0))


def test_setup_event_records_the_rules_version() -> None:
    """A Bim Bamm! log says which rulings wrote it: rules 2 since issue 14 (none: rules 1)."""
    _, events = new_game(["Ann", "Bob", "Cid"], random.Random(2), seed=2)
    assert events[0].to_json()["rules"] == 2


def test_a_rules_1_log_replays_with_two_mistakes_for_cat_cat() -> None:
    """An old log (no "rules" field) in which "Cat! Cat!" cost two won cards still replays exactly."""
    state, events = new_game(["Ann", "Bob", "Cid"], stacked(DOG, CAT, HEN), seed=1, tiles=LAYOUT, rules=1)
    log = [e.to_json() for e in events]
    assert "rules" not in log[0]
    actions = [Flip("Bob", 3, t=1.0), UseSpecial("Cid", t=2.0), Flip("Ann", 6, t=3.0)]
    state, more = play(state, *actions)
    calls = (Call("Ann", CAT, 3.2), Call("Ann", CAT, 3.3))
    state, race = play(state, ResolveRace(calls, t=4.0))
    assert len(of_type(race, "mistake")) == 2
    assert replay(log + [e.to_json() for e in more + race]) == state
