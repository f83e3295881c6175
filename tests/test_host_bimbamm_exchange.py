"""Bim Bamm!'s exchange without names in the grammar: "exchange" asks whom, numbered clockwise from
the player's left, answered by a number, "my left"/"my right" or "cancel"; typed lines may name the
player; the real PocketSphinx takes every Bim Bamm! grammar (the skip question's too) of a table
with a name it cannot say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.host_helpers import run_offline
from voicehost.eventlog import read_events
from voicehost.host.session import grammar
from voicehost.rules import bimbamm as bb
from voicehost.rules.bimbamm.state import changed

FOUR = "Anna,Ben,Cem,Dan"


def script(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def exchanges(tmp_path: Path) -> list[tuple[str, str]]:
    return [(e["player"], e["with"]) for e in read_events(tmp_path / "game.jsonl") if e["type"] == "exchange"]


def host_lines(transcript: str) -> list[str]:
    return [line for line in transcript.splitlines() if line.startswith("host: ")]


def test_exchange_asks_whom_numbered_from_the_left_and_a_number_answers(tmp_path: Path) -> None:
    """Ben's "exchange" lists the others clockwise from his left, numbered; a number out of range is
    explained (no tile flipped); "two" exchanges with the second one, Dan."""
    outcome, transcript, flow = run_offline(
        "bimbamm",
        FOUR,
        seed=2,
        tmp=tmp_path,
        options={"first_player": "Anna"},
        lines=script("1 Anna: swap", "3 Ben: exchange", "5 Ben: seven", "7 Ben: two"),
    )
    said = host_lines(transcript)
    assert (
        "host: Ben, exchange with whom? One: Cem, on your left. Two: Dan. Three: Anna, on your right. "
        "Say the number." in said
    )
    assert (
        "host: Ben, you are choosing whom to exchange with: say a number from one to three, or cancel. "
        "To flip a tile, say flip and its number."
    ) in said
    assert exchanges(tmp_path) == [("Ben", "Dan")]
    assert not any(e["type"] == "flip" for e in read_events(tmp_path / "game.jsonl"))
    assert flow.choosing is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("answer", "partner"),
    [
        ("my left", "Cem"),
        ("on my right", "Anna"),
        ("the player on my right", "Anna"),
        ("three", "Anna"),
    ],
)
def test_left_and_right_name_the_neighbours(tmp_path: Path, answer: str, partner: str) -> None:
    """ "my left" is the next seat clockwise, "my right" the seat before: no name needed."""
    run_offline(
        "bimbamm",
        FOUR,
        seed=2,
        tmp=tmp_path,
        options={"first_player": "Anna"},
        lines=script("1 Anna: swap", "3 Ben: exchange", f"5 Ben: {answer}"),
    )
    assert exchanges(tmp_path) == [("Ben", partner)]


def test_one_go_forms_cancel_and_a_flip_instead(tmp_path: Path) -> None:
    """ "exchange with the player on my left" needs no question; "cancel" backs out and "flip three"
    while choosing flips tile three instead."""
    outcome, transcript, flow = run_offline(
        "bimbamm",
        FOUR,
        seed=2,
        tmp=tmp_path,
        options={"first_player": "Anna"},
        lines=script(
            "1 Anna: swap",
            "3 Ben: exchange with the player on my left",
            "5 Cem: swap",
            "7 Dan: exchange",
            "9 Dan: cancel",
            "11 Dan: exchange",
            "13 Dan: flip three",
        ),
    )
    events = read_events(tmp_path / "game.jsonl")
    assert exchanges(tmp_path) == [("Ben", "Cem")]
    assert "host: Dan, flip a tile or use the special tile." in host_lines(transcript)
    assert [(e["player"], e["tile"]) for e in events if e["type"] == "flip"] == [("Dan", 2)]


def test_with_two_players_exchange_needs_no_answer(tmp_path: Path) -> None:
    """Two players: "exchange" can only mean the other one."""
    outcome, transcript, flow = run_offline(
        "bimbamm",
        "Anna,Ben",
        seed=2,
        tmp=tmp_path,
        options={"first_player": "Anna"},
        lines=script("1 Anna: swap", "3 Ben: exchange"),
    )
    assert exchanges(tmp_path) == [("Ben", "Anna")]
    assert "exchange with whom" not in transcript


def test_typed_lines_may_name_the_partner_and_the_grammar_never_does(tmp_path: Path) -> None:
    """Typed "exchange with Cem" (and "Dan" while choosing) are taken; the recognisers' phrases of
    every moment hold no player's name; a stranger's name is not taken."""
    outcome, transcript, flow = run_offline(
        "bimbamm",
        FOUR,
        seed=2,
        tmp=tmp_path,
        options={"first_player": "Anna"},
        lines=script(
            "1 Anna: swap",
            "3 Ben: exchange with Eve",
            "5 Ben: exchange with Cem",
            "7 Cem: swap",
            "9 Dan: exchange",
            "11 Dan: Ben",
        ),
    )
    assert exchanges(tmp_path) == [("Ben", "Cem"), ("Dan", "Ben")]
    assert "Ben, did you mean exchange? Then say just exchange." in transcript  # Eve is not at the table
    f: Any = flow
    for phrases in grammars(f):
        assert not {w for p in phrases for w in p.split()} & {"anna", "ben", "cem", "dan"}


def grammars(flow: Any) -> list[list[str]]:
    """Every grammar of a game's phases: a turn (SWAP, EXCHANGE, choosing whom), a race, the
    scorer's choice, the table asked whether to skip a player (on a turn and while the scorer
    chooses), the end; the flow is left as it was."""
    state, out = flow.state, []
    for changes in (
        {},
        {"special": bb.Special.EXCHANGE},
        {"phase": bb.Phase.RACE, "race": (bb.Animal.PIG,)},
        {"phase": bb.Phase.SCORER, "scorer": state.players[1], "scored": bb.Animal.PIG},
        {"phase": bb.Phase.OVER},
    ):
        flow.state = changed(state, **changes)
        out.append(grammar(flow))
    flow.state = changed(state, special=bb.Special.EXCHANGE)
    flow.choosing = state.turn
    out.append(grammar(flow))
    flow.asking = state.turn
    out.append(grammar(flow))
    flow.state = changed(state, phase=bb.Phase.SCORER, scorer=state.players[1], scored=bb.Animal.PIG)
    flow.asking = state.players[1]
    out.append(grammar(flow))
    flow.state, flow.choosing, flow.asking = state, None, None
    return out


def test_pocketsphinx_takes_every_bimbamm_grammar_of_a_table_with_a_name_it_cannot_say(tmp_path: Path) -> None:
    """The real PocketSphinx builds Bim Bamm!'s grammar of every phase (turn with swap or exchange,
    choosing whom, race, scorer, the skip question, over; table cards: waiting for the cat,
    challenge words) at a table with Cem (not in its dictionary); "exchange with cem" or "skip cem"
    would stop it."""
    from tests.test_recognize import clips
    from voicehost.errors import ModelError
    from voicehost.listen.recognize.sphinx import Design, SphinxRecognizer
    from voicehost.listen.vocab import load_pack

    sphinx = SphinxRecognizer(load_pack("en"), design=Design.VERIFY)
    segment = clips("en")[0][0]
    players = "Anna,Ben,Cem"
    (tmp_path / "dealt").mkdir()
    (tmp_path / "table").mkdir()
    outcome, transcript, dealt = run_offline(
        "bimbamm", players, seed=2, tmp=tmp_path / "dealt", lines="", options={"first_player": "Anna"}
    )
    outcome, transcript, table = run_offline(
        "bimbamm", players, seed=2, tmp=tmp_path / "table", lines="", options={"cards": "table", "cat_wait": 600.0}
    )
    table_f: Any = table
    assert table_f.state is None
    all_grammars = [grammar(table_f)]  # waiting for the cat holder's "me"
    table_f._begin("Anna")
    all_grammars += grammars(dealt) + grammars(table_f)
    for phrases in all_grammars:
        sphinx.recognize(segment, phrases)
    with pytest.raises(ModelError, match="cem"):
        sphinx.recognize(segment, [*all_grammars[2], "exchange with cem"])
    with pytest.raises(ModelError, match="cem"):
        sphinx.recognize(segment, [*all_grammars[7], "skip cem"])
