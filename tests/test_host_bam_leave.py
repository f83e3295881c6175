"""Hosting BAM! when a player has left: the host asks the table after two unanswered reminders,
"a player has left" asks at once, typed lines may name the player, and the rules' Leave follows
(the leaver's cards leave the game, a master's round is void, fewer than three players end it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_host_bam import SINGLE, play, table_lines
from voicehost.host.words import LEAVING_PHRASES, NO_PHRASES, YES_PHRASES
from voicehost.rules import bam
from voicehost.speak.realize import Realizer


@pytest.fixture(scope="module")
def realizer() -> Realizer:
    """One realizer for the module: its word knowledge takes two seconds to load."""
    r = Realizer()
    r.lexicon
    return r


SLOW = {"decks": (SINGLE,), "remind_after": 5.0, "reminders": 2}
"""Reminders every five seconds (after the host has finished speaking), two before the question."""


def script(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_after_two_reminders_the_table_is_asked_and_yes_skips_the_player(tmp_path: Path, realizer: Realizer) -> None:
    """Dan never plays: two "Still waiting for Dan", then "Dan has not answered. Skip Dan? Say yes
    or no."; Anna's yes makes Dan leave and the sentences are read without Dan's card."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines=script("1 Ben: seven", "2 Cem: one", "150 Anna: yes", "160 Anna: score"), **SLOW
    )
    said = table_lines(transcript)
    assert said.count("host: Still waiting for Dan: say the number of your card.") == 2
    question = said.index("host: Dan has not answered. Skip Dan? Say yes or no.")
    assert question > max(i for i, line in enumerate(said) if line.startswith("host: Still waiting for Dan"))
    assert "host: Dan has left the game: Dan's cards are out of the game." in said
    assert types(events)[-2:] == ["left", "reading"] and events[-2]["player"] == "Dan"
    assert any(
        line.startswith("host: All cards are in. Anna, here are the sentences. One:") and " Three:" not in line
        for line in said
    )
    assert flow.state is not None and flow.state.gone == ("Dan",) and flow.state.hands["Dan"] == ()
    assert "host: Scores: Anna 0, Ben 0, Cem 0 and Dan 0 (left the game)." in said
    assert bam.replay(events) == flow.state


def test_no_keeps_waiting_and_the_asked_player_speaking_drops_the_question(tmp_path: Path, realizer: Realizer) -> None:
    """ "no" keeps waiting for Dan; when asked again Dan plays, which shows Dan is here: nobody leaves."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines=script("1 Ben: seven", "2 Cem: one", "150 Ben: no", "300 Dan: two"), **SLOW
    )
    said = table_lines(transcript)
    assert "host: We wait for Dan." in said
    asked = [i for i, line in enumerate(said) if line == "host: Dan has not answered. Skip Dan? Say yes or no."]
    assert len(asked) == 2 and asked[0] < said.index("host: We wait for Dan.") < asked[1]
    assert "left" not in types(events) and types(events)[-1] == "reading"
    assert flow.asking == []


def test_the_asked_player_saying_no_is_still_here(tmp_path: Path, realizer: Realizer) -> None:
    """The asked-about player's own "no" (or "yes") means they are here: the host keeps waiting."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines=script("1 Ben: seven", "2 Cem: one", "150 Dan: yes"), **SLOW
    )
    assert "host: Dan is here: we wait for Dan." in table_lines(transcript)
    assert "left" not in types(events)


def test_a_player_has_left_asks_about_each_player_awaited(tmp_path: Path, realizer: Realizer) -> None:
    """ "a player has left" names nobody: the host asks about each player it waits for, one at a time."""
    outcome, transcript, flow, events = play(
        tmp_path,
        realizer,
        lines=script("1 Ben: seven", "3 Anna: a player has left", "4 Anna: no", "5 Anna: yes", "6 Ben: score"),
        decks=(SINGLE,),
    )
    said = table_lines(transcript)
    first = said.index("host: Skip Cem? Say yes or no.")
    assert said[first + 1 : first + 3] == ["host: We wait for Cem.", "host: Skip Dan? Say yes or no."]
    assert [e["player"] for e in events if e["type"] == "left"] == ["Dan"]
    assert "host: Dan has left the game: Dan's cards are out of the game. Still to play: Cem." in said


def test_a_typed_named_leaver_and_the_withdrawn_card_while_the_master_judges(
    tmp_path: Path, realizer: Realizer
) -> None:
    """ "Ben has left" (typed) while Anna judges: Ben's card leaves the round and the sentences are read
    again, renumbered; "I think Ben has left" changes nothing; Ben's later words are not played."""
    outcome, transcript, flow, events = play(
        tmp_path,
        realizer,
        lines=script(
            "1 Ben: seven",
            "2 Cem: one",
            "3 Dan: two",
            "5 Cem: I think Ben has left",
            "6 Cem: Ben has left",
            "8 Ben: seven",
            "9 Anna: best one worst two",
        ),
        decks=(SINGLE,),
    )
    said = table_lines(transcript)
    assert "host: Ben has left the game: Ben's cards are out of the game, the one played this round too." in said
    again = next(line for line in said if "here are the sentences again, numbered anew." in line)
    assert " Two:" in again and " Three:" not in again
    assert types(events).count("left") == 1 and "host: Sorry Cem, I did not understand." in " ".join(said)
    assert "host: Ben, you have left this game." in said
    best = next(e for e in events if e["type"] == "best")
    assert best["player"] != "Ben" and events[-1]["type"] == "round" and events[-1]["master"] == "Cem"


def test_a_master_who_leaves_voids_the_round(tmp_path: Path, realizer: Realizer) -> None:
    """The master skipped while judging: the round does not count and the next player opens the next one."""
    outcome, transcript, flow, events = play(
        tmp_path,
        realizer,
        lines=script("1 Ben: seven", "2 Cem: one", "3 Dan: two", "150 Ben: yes", "160 Ben: score"),
        **SLOW,
    )
    said = table_lines(transcript)
    assert said.count("host: Anna, say best and worst, for example best two, worst one.") == 2
    assert "host: Anna has not answered. Skip Anna? Say yes or no." in said
    assert (
        "host: Anna has left the game: Anna's cards are out of the game. Anna was the BAM! Master, so this "
        "round does not count: nobody scores, and the red card goes back under the red pile."
    ) in said
    assert any(
        line.startswith("host: Round two of four. Ben is the BAM! Master.") and "Cem and Dan: play" in line
        for line in said
    )
    kinds = types(events)
    assert kinds[kinds.index("left") :] == ["left", "void", "discard", "draw", "draw", "draw", "round"]
    assert bam.replay(events) == flow.state


def test_fewer_than_three_players_left_ends_the_game_with_a_summary(tmp_path: Path, realizer: Realizer) -> None:
    """Three players, Ben leaves: the game ends at once, with the reason, the title and the scores."""
    outcome, transcript, flow, events = play(
        tmp_path,
        realizer,
        players="Anna,Ben,Cem",
        lines=script("1 Ben: seven", "3 Cem: Ben has left", "4 Cem: repeat"),
        decks=(SINGLE,),
    )
    said = table_lines(transcript)
    assert outcome.finished and events[-1]["type"] == "game_over" and events[-1]["reason"] == "too_few_players"
    summary = (
        "Only Anna and Cem are left, and BAM! needs at least three players: the game ends here. "
        "Anna and Cem share the title The True BAM! Master: 0 points and 0 grey cards won each! "
        "Scores: Anna 0, Ben 0 (left the game) and Cem 0."
    )
    assert said[-2] == f"host: {summary}"
    assert said[-1].endswith(summary)  # "repeat" after the game: the last announcement again
    assert "Ben" not in events[-1]["winners"]


def test_table_cards_tell_the_players_what_to_do_with_the_leavers_cards(tmp_path: Path, realizer: Realizer) -> None:
    """Printed cards: the leaver's cards go back in the box, with the card they played."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines=script("1 Ben: seven", "3 Dan: drop Ben"), decks=(SINGLE,), cards="table"
    )
    said = table_lines(transcript)
    assert (
        "host: Ben has left the game: put Ben's cards back in the box, with the card Ben played this round. "
        "Still to play: Cem and Dan."
    ) in said


def test_the_grammar_never_names_players_and_answers_only_while_asking(tmp_path: Path, realizer: Realizer) -> None:
    """The recognisers' phrases hold "a player has left" but no player's name; "yes"/"no" only while
    the table is asked; typed "skip Ben" is accepted all the same."""
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=script("1 Ben: seven"), decks=(SINGLE,))
    phrases = flow.phrases()
    words = {w for p in phrases for w in p.split()}
    assert set(LEAVING_PHRASES) <= set(phrases)
    assert not words & {"anna", "ben", "cem", "dan"}
    assert not set(phrases) & set(YES_PHRASES + NO_PHRASES)
    assert flow.accepts("skip ben") and flow.accepts("dan has left") and not flow.accepts("i think ben has left")
    flow.asking = ["Cem"]
    assert set(YES_PHRASES + NO_PHRASES) <= set(flow.phrases())


def test_pocketsphinx_takes_every_bam_grammar_of_a_table_with_a_name_it_cannot_say(
    tmp_path: Path, realizer: Realizer
) -> None:
    """The real PocketSphinx builds BAM!'s grammar while cards are played, while the table is asked
    and while the master judges, at a table with Cem (not in its dictionary); "skip cem" would stop it."""
    from tests.test_recognize import clips
    from voicehost.errors import ModelError
    from voicehost.listen.recognize.sphinx import Design, SphinxRecognizer
    from voicehost.listen.vocab import load_pack

    sphinx = SphinxRecognizer(load_pack("en"), design=Design.VERIFY)
    segment = clips("en")[0][0]
    outcome, transcript, flow, events = play(tmp_path / "a", realizer, lines=script("1 Ben: seven"), decks=(SINGLE,))
    grammars = [flow.phrases()]
    flow.asking = ["Cem"]
    grammars.append(flow.phrases())
    outcome, transcript, flow, events = play(
        tmp_path / "b", realizer, lines=script("1 Ben: seven", "2 Cem: one", "3 Dan: two"), decks=(SINGLE,)
    )
    grammars.append(flow.phrases())
    for phrases in grammars:
        sphinx.recognize(segment, phrases)
    with pytest.raises(ModelError, match="cem"):
        sphinx.recognize(segment, [*grammars[1], "skip cem"])
