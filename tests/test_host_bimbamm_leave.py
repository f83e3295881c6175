"""Hosting Bim Bamm! when a player has left: after two unanswered reminders the host asks the table
("Ben has not answered. Skip Ben? Say yes or no."), "a player has left" asks at once, typed lines
may name the player, and the rules' Leave follows (card and won cards under the pile, the turn
skips the leaver, a scorer's point leaves with them, fewer than two players end the game)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.host_helpers import run_offline
from voicehost.eventlog import read_events
from voicehost.host.words import LEAVING_PHRASES, NO_PHRASES, YES_PHRASES
from voicehost.rules import bimbamm as bb

SLOW = {"first_player": "Anna", "remind_after": 5.0}
"""Reminders every five seconds (after the host has finished speaking), two before the question."""


def script(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def play(
    tmp_path: Path, *lines: str, players: str = "Anna,Ben,Cem", **options: Any
) -> tuple[Any, list[str], Any, list[dict[str, Any]]]:
    """Run Bim Bamm! (seed 2: Anna and Ben hold a dog, Cem a donkey; tiles nine and twelve turn to
    dogs); return (outcome, what the host said at the table, flow, logged events)."""
    outcome, transcript, flow = run_offline(
        "bimbamm", players, seed=2, tmp=tmp_path, lines=script(*lines), options={**SLOW, **options}
    )
    said = [line for line in transcript.splitlines() if line.startswith("host: ")]
    return outcome, said, flow, read_events(tmp_path / "game.jsonl")


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_after_two_reminders_the_table_is_asked_and_yes_skips_the_player(tmp_path: Path) -> None:
    """Ben never plays: two reminders, then "Ben has not answered. Skip Ben? Say yes or no." (again
    until answered); Cem's yes makes Ben leave: his card goes under the pile and Cem plays next."""
    outcome, said, flow, events = play(tmp_path, "1 Anna: seven", "60 Cem: yes", "62 Cem: score")
    reminder = "host: Ben, it is your turn: flip a tile, or use the special tile."
    assert said.count(reminder) == 2
    question = said.index("host: Ben has not answered. Skip Ben? Say yes or no.")
    assert question > max(i for i, line in enumerate(said) if line == reminder)
    assert "host: Skip Ben? Say yes or no." in said[question + 1 :]
    assert "host: Ben has left the game: Ben's card goes under the pile. Still playing: Anna and Cem." in said
    assert kinds(events)[-2:] == ["left", "turn"] and events[-2]["player"] == "Ben" and events[-1]["player"] == "Cem"
    assert "host: Points: Anna 0, Ben 0 (left the game) and Cem 0." in said
    assert flow.state.gone == ("Ben",) and bb.replay(events) == flow.state


def test_no_keeps_waiting_and_the_asked_player_speaking_drops_the_question(tmp_path: Path) -> None:
    """ "no" keeps waiting (the question comes back after two more reminders); Ben's own "yes" says
    he is here; then Ben plays: nobody leaves."""
    outcome, said, flow, events = play(tmp_path, "1 Anna: seven", "35 Anna: no", "80 Ben: yes", "82 Ben: swap")
    assert "host: We wait for Ben." in said and "host: Ben is here: we wait for Ben." in said
    asked = [i for i, line in enumerate(said) if line == "host: Ben has not answered. Skip Ben? Say yes or no."]
    assert len(asked) == 2 and asked[0] < said.index("host: We wait for Ben.") < asked[1]
    assert "left" not in kinds(events) and "swap" in kinds(events) and flow.asking is None


def test_a_player_has_left_asks_about_the_awaited_player(tmp_path: Path) -> None:
    """ "a player has left" names nobody: the host asks about the player it waits for, and yes skips them."""
    outcome, said, flow, events = play(tmp_path, "1 Anna: seven", "3 Cem: a player has left", "4 Anna: yes")
    assert said[said.index("host: Skip Ben? Say yes or no.") - 1] == "host: Ben."
    assert [e["player"] for e in events if e["type"] == "left"] == ["Ben"]


def test_a_typed_named_leaver_is_skipped_and_their_later_words_are_not_played(tmp_path: Path) -> None:
    """ "drop Cem" (typed) on Ben's turn: Cem leaves, it stays Ben's turn, Ben's flip passes the turn
    to Anna (Cem is skipped); "I think Cem has left" changes nothing; Cem's words are not played."""
    outcome, said, flow, events = play(
        tmp_path,
        "1 Anna: seven",
        "3 Ben: I think Cem has left",
        "4 Anna: drop Cem",
        "6 Cem: three",
        "7 Ben: three",
        "9 Cem: donkey",
    )
    assert kinds(events)[2:] == ["flip", "turn", "left", "flip", "turn"]
    assert events[-1]["player"] == "Anna" and events[4]["player"] == "Cem"
    assert "host: Cem has left the game: Cem's card goes under the pile. Still playing: Anna and Ben." in said
    assert said.count("host: Cem, you have left this game.") == 2
    assert bb.replay(events) == flow.state


def test_the_scorer_who_leaves_takes_the_point_with_them(tmp_path: Path) -> None:
    """Ben scores the dog, then never names his two tiles: after two reminders the table skips him;
    the dog and his new card go under the pile, nobody turns tiles, Cem plays next."""
    outcome, said, flow, events = play(
        tmp_path, "1 Anna: nine", "3 Ben: twelve", "6 Ben: dog", "90 Anna: yes", race_window=10.0
    )
    assert [(e["player"], e["animal"]) for e in events if e["type"] == "point"] == [("Ben", "dog")]
    assert "host: Ben has not answered. Skip Ben? Say yes or no." in said
    left = next(line for line in said if line.startswith("host: Ben has left the game"))
    assert left == (
        "host: Ben has left the game: Ben's card and the dog Ben won go under the pile. The point for "
        "the dog leaves with Ben: nobody turns tiles. Still playing: Anna and Cem."
    )
    assert kinds(events)[-2:] == ["left", "turn"] and events[-1]["player"] == "Cem"
    assert events[-2]["won"] == ["dog"] and bb.replay(events) == flow.state


def test_nobody_is_skipped_while_a_race_is_open(tmp_path: Path) -> None:
    """ "a player has left" during a race: the host asks to say it again when the race is over."""
    outcome, said, flow, events = play(
        tmp_path, "1 Anna: nine", "3 Ben: twelve", "6 Cem: a player has left", race_window=10.0
    )
    assert "host: Cem, first the race: say it again when it is over." in said
    assert "left" not in kinds(events) and "race" in kinds(events)


def test_fewer_than_two_players_left_ends_the_game_with_the_summary(tmp_path: Path) -> None:
    """Two players, Ben leaves: the game ends at once, with the reason and the points; "repeat" after
    the game says the summary again."""
    outcome, said, flow, events = play(tmp_path, "1 Anna: drop Ben", "3 Anna: repeat", players="Anna,Ben")
    summary = (
        "Only Anna is left, and Bim Bamm! needs at least two players: the game ends here. "
        "Points: Anna 0 and Ben 0 (left the game)."
    )
    assert outcome.finished and events[-1]["type"] == "game_over" and events[-1]["reason"] == "too_few_players"
    assert events[-1]["winner"] is None
    assert said[-2] == f"host: {summary}" and said[-1].endswith(summary)


def test_table_cards_tell_the_players_what_to_do_with_the_leavers_cards(tmp_path: Path) -> None:
    """Table cards: the players put the leaver's card under the pile (the host never learns it)."""
    outcome, said, flow, events = play(tmp_path, "1 Anna: me", "2 Anna: seven", "4 Anna: skip Ben", cards="table")
    assert ("host: Ben has left the game: put Ben's card under the pile. Still playing: Anna and Cem.") in said
    assert next(e for e in events if e["type"] == "left")["card"] is None


def test_the_grammar_never_names_players_and_answers_only_while_asking(tmp_path: Path) -> None:
    """The recognisers' phrases hold "a player has left" but no player's name; "yes"/"no" only while
    the table is asked; typed "skip Ben" is accepted all the same, "I think Ben has left" is not."""
    outcome, said, flow, events = play(tmp_path, "1 Anna: seven")
    phrases = flow.phrases()
    assert set(LEAVING_PHRASES) <= set(phrases)
    assert not {w for p in phrases for w in p.split()} & {"anna", "ben", "cem"}
    assert not set(phrases) & set(YES_PHRASES + NO_PHRASES)
    assert flow.accepts("skip ben") and flow.accepts("cem has left") and not flow.accepts("i think ben has left")
    flow.asking = "Ben"
    assert set(YES_PHRASES + NO_PHRASES) <= set(flow.phrases())


def test_only_the_player_who_must_act_is_listened_to_for_tiles(tmp_path: Path) -> None:
    """On Ben's turn the others' microphones leave out tile numbers, flips and the special tile
    (seat_grammar), not the animals (a shout), the leaving phrases or a challenge; while the
    table is asked, yes/no stay heard from everyone; typed lines keep the whole grammar."""
    from voicehost.host.session import microphone_grammar, seat_grammar

    outcome, said, flow, events = play(tmp_path, "1 Anna: seven")
    state = flow.state
    assert state.phase is bb.Phase.TURN and state.turn == "Ben"
    seats = seat_grammar(flow, ["Anna", "Ben", "Cem"])
    assert set(seats) == {"Anna", "Cem"}
    every = microphone_grammar(flow)
    for own in seats.values():
        left_out = set(every) - set(own)
        assert {"seven", "flip twelve", "swap"} <= left_out
        assert not left_out & {"dog", "cat", "donkey", "pig", "hen", *LEAVING_PHRASES, "repeat", "quit"}
    assert "seven" in every
    flow.asking = "Ben"
    assert all(set(YES_PHRASES + NO_PHRASES) <= set(own) for own in seat_grammar(flow, ["Anna", "Cem"]).values())
