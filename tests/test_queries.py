"""What players ask, in natural words, through the real session and flows (script mode): whose
turn, the score, my card, the table, one numbered thing, repeat (addressed to the asker), what can
I say, slower/faster. Answers are replies: they change no game state."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.host_helpers import run_offline
from tests.test_host_bimbambum import host_bots, scripted
from voicehost.host.words import Command, command, strip_fillers
from voicehost.speak.output import TABLE
from voicehost.speak.voice import DEFAULT_RATE, RATE_STEP

pytestmark = pytest.mark.timeout(120)

LATE = 60.0
"""Seconds into a scripted game when the welcome has long been said: answers are not queued behind it."""


def table_lines(transcript: str) -> list[str]:
    return [line for line in transcript.splitlines() if line.startswith("host: ")]


def script(start: float, *lines: str) -> str:
    """Lines one second apart from ``start``."""
    return "".join(f"{start + k} {line}\n" for k, line in enumerate(lines))


@pytest.mark.parametrize(
    "phrase, what",
    [
        ("what can I say", Command.HELP),
        ("um, what can I say please", Command.HELP),
        ("what do I say", Command.HELP),
        ("whose turn is it", Command.WHOSE_TURN),
        ("is it my turn", Command.WHOSE_TURN),
        ("what's the score", Command.SCORE),
        ("who's winning", Command.SCORE),
        ("what's my card", Command.MY_CARD),
        ("what are my cards", Command.MY_HAND),
        ("what's on the table", Command.TABLE),
        ("how many of each", Command.TABLE),
        ("what's the red card", Command.TABLE),
        ("read the card again", Command.TABLE),
        ("slow down", Command.SLOWER),
        ("speak slower", Command.SLOWER),
        ("a bit faster", Command.FASTER),
        ("speed up", Command.FASTER),
        ("say that again", Command.REPEAT),
    ],
)
def test_natural_questions_are_commands_fillers_aside(phrase: str, what: Command) -> None:
    """Each natural variant means its command, even one ending in a filler word ("what can I *say*")."""
    assert command(phrase) is what
    assert command(strip_fillers(phrase)) is what  # the session strips fillers before it looks


def test_bimbamm_queries_are_answered_and_change_nothing(tmp_path: Path) -> None:
    """Bim Bamm!: whose turn (for another player and for the one whose turn it is), the score, my card
    (privately), what's on the table (counts per animal), read tile N, what can I say; no event follows."""
    lines = script(
        LATE,
        "Ben: whose turn is it",
        "Anna: is it my turn",
        "Cem: what's the score",
        "Cem: what's my card",
        "Ben: how many of each",
        "Ben: what is tile seven",
        "Anna: what can I say",
        "Ben: read tile sixteen",
    )
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines=lines, tmp=tmp_path, options={"first_player": "Anna"}
    )
    said = table_lines(transcript)
    state = flow.state  # type: ignore[attr-defined]
    animal = state.tiles[6].showing.value
    held = state.hand("Cem").value
    answers = [
        "host: It is Anna's turn.",
        "host: It is your turn, Anna.",
        "host: Points: Anna 0, Ben 0 and Cem 0.",
        "host: Showing: three cats, three dogs, three pigs, three donkeys and three hens.",
        f"host: Tile seven shows a {animal}.",
        "host: Say a tile number from one to fifteen to flip it, or swap.",
        "host: Ben, the tiles are numbered one to fifteen.",
    ]
    assert said[-7:] == answers, said[-8:]
    assert f"host → Cem: Cem, your card is the {held}." in transcript.splitlines()[-9:]
    assert [e.TYPE for e in flow.host.events] == ["setup", "turn"]  # type: ignore[attr-defined]
    spans = flow.host.mouth.service.spans(TABLE)  # type: ignore[attr-defined]
    first = next(s for s in spans if s.text == "It is Anna's turn.")
    assert first.start - LATE <= 1.0  # answered within a second of the question's end


def test_repeat_says_what_was_for_the_asker_not_someone_elses_error(tmp_path: Path) -> None:
    """Ben speaks out of turn and is told so; Anna's "repeat" gets the last news for the table (her
    turn), Ben's "say that again" his own answer."""
    lines = script(LATE, "Ben: seven", "Anna: repeat", "Ben: say that again")
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines=lines, tmp=tmp_path, options={"first_player": "Anna"}
    )
    said = table_lines(transcript)
    turn = "host: Anna begins. Anna, flip a tile: say a number from one to fifteen, or say swap."
    assert said[-4:] == [turn, "host: Ben, it is Anna's turn.", turn, "host: Ben, it is Anna's turn."]


def test_slower_and_faster_in_their_natural_variants_change_the_rate(tmp_path: Path) -> None:
    """ "slow down" and "speak slower" each slow the voice one step, "a bit faster" speeds it up one."""
    lines = script(LATE, "Ben: slow down", "Cem: speak slower", "Anna: a bit faster")
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines=lines, tmp=tmp_path, options={"first_player": "Anna"}
    )
    said = table_lines(transcript)
    assert said[-3:] == ["host: I will speak more slowly."] * 2 + ["host: I will speak faster."]
    assert flow.host.mouth.service.settings.rate == DEFAULT_RATE - RATE_STEP  # type: ignore[attr-defined]


def test_bimbambum_queries_and_repeat_for_the_asker(tmp_path: Path) -> None:
    """Bim Bam Bum!: whose turn (with your card when it is yours), my card privately, the piles, read
    pile N, what can I say, what's the score; Ben's half play out of turn is answered to Ben, and
    Anna's repeat is still her card."""
    lines = [
        (0.5, "Ben", "whose turn is it"),
        (1, "Anna", "whose turn is it"),
        (2, "Cem", "what's my card"),
        (3, "Ben", "what are the piles"),
        (4, "Ben", "read pile two"),
        (5, "Cem", "what can I say"),
        (6, "Ben", "what's the score"),
        (7, "Ben", "two"),
        (8, "Ben", "repeat"),
        (9, "Anna", "repeat"),
        (10, "Ben", "quit"),
        (10.5, "Cem", "yes"),
    ]
    outcome, transcript, flow = host_bots(tmp_path, scripted(lines), options={"first_player": "Anna", "window": None})
    state = flow.state
    assert state is not None
    anna, cem = state.top("Anna"), state.top("Cem")
    assert anna is not None and cem is not None
    said = table_lines(transcript)
    start = said.index(f"host: Anna starts. Anna: {anna.value}.")
    assert said[start + 1 : start + 10] == [
        "host: It is Anna's turn.",
        f"host: It is your turn, Anna: {anna.value}.",
        "host: Piles: one empty, two empty and three empty.",
        "host: Pile two: empty.",
        "host: Cem, wait for your turn: it is Anna's. When someone yells bim bam bum, slap or say ship, fast. "
        "You can also say repeat, score, table, my card, slower, faster, pause or quit.",
        "host: Cards left: Anna 18, Ben 18 and Cem 18.",
        "host: Ben, it is Anna's turn.",
        "host: Ben, it is Anna's turn.",
        f"host: Anna starts. Anna: {anna.value}.",
    ]
    assert f"host → Cem: Cem, your top card is {cem.value}." in transcript
    assert [e.TYPE for e in flow.host.events] == ["setup", "round", "turn"]


def test_bam_queries_read_the_red_card_and_numbered_cards_without_playing_them(tmp_path: Path) -> None:
    """BAM!: "what's the red card" / "read the card again" read it; "read card three" and "what is card
    five" answer privately and play nothing (before, "read card three" played card three); "whose turn
    is it" says who still has to play; while judging, "read sentence two" reads sentence two."""
    from tests.test_host_bam import SINGLE
    from voicehost.speak.realize import Realizer

    lines = script(
        1,
        "Ben: what's the red card",
        "Cem: read the card again",
        "Ben: read card three",
        "Cem: what is card five",
        "Anna: whose turn is it",
        "Ben: seven",
        "Cem: one",
        "Dan: two",
        "Dan: read sentence two",
    )
    outcome, transcript, flow = run_offline(
        "bam",
        "Anna,Ben,Cem,Dan",
        seed=1,
        lines=lines,
        tmp=tmp_path,
        options={"realizer": Realizer(), "decks": (SINGLE,)},
    )
    said, every = table_lines(transcript), transcript.splitlines()
    red = next(line for line in said if "The red card:" in line).split("The red card: ")[1].split(" Ben, Cem")[0]
    assert said.count(f"host: The red card: {red}") == 2
    assert any(line.startswith("host → Ben: Ben, your card three: ") for line in every)
    assert any(line.startswith("host → Cem: Cem, your card five: ") for line in every)
    assert "host: Anna is the BAM! Master. Still to play: Ben, Cem and Dan." in said
    submits = [e for e in flow.host.events if e.TYPE == "submit"]  # type: ignore[attr-defined]
    assert [(e.player, e.t) for e in submits] == [
        ("Ben", pytest.approx(6.6, abs=0.5)),
        ("Cem", pytest.approx(7.6, abs=0.5)),
        ("Dan", pytest.approx(8.6, abs=0.5)),
    ]
    assert f"host: Two: {flow.sentences[1]}" in said  # type: ignore[attr-defined]


def test_bam_table_cards_read_card_n_is_the_printed_card_at_the_table(tmp_path: Path) -> None:
    """With printed cards "read card three" reads printed card three aloud (its text is public) and plays nothing."""
    from tests.test_host_bam import SINGLE
    from voicehost.speak.realize import Realizer

    outcome, transcript, flow = run_offline(
        "bam",
        "Anna,Ben,Cem",
        seed=1,
        lines=script(1, "Ben: read card three"),
        tmp=tmp_path,
        options={"realizer": Realizer(), "decks": (SINGLE,), "cards": "table"},
    )
    state = flow.state  # type: ignore[attr-defined]
    text = state.cards[state.printed_grey()[3]].text.rstrip(".")
    assert table_lines(transcript)[-1] == f"host: Card three: {text}."
    assert "submit" not in [e.TYPE for e in flow.host.events]  # type: ignore[attr-defined]
