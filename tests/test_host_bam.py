"""Hosting BAM!: scripted and bot-played games on the simulated clock (text transcript, no devices)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.host_helpers import run_offline
from voicehost.decks import load_decks
from voicehost.eventlog import read_events
from voicehost.host.build import PlaySettings, run_session, settings_for_resume
from voicehost.host.flows.bam import KEEP_WAIT, BamFlow, number_words, parse_judgement, spoken_numbers
from voicehost.host.words import number_phrase
from voicehost.rules import bam
from voicehost.speak.realize import Realizer

DATA = Path(__file__).parent / "data" / "host" / "bam"
SINGLE = str(DATA / "single.toml")
DOUBLE = str(DATA / "double.toml")
PLAYERS = "Anna,Ben,Cem,Dan"


@pytest.fixture(scope="module")
def realizer() -> Realizer:
    """One realizer for the module: its word knowledge takes two seconds to load."""
    r = Realizer()
    r.lexicon
    return r


def play(
    tmp_path: Path,
    realizer: Realizer,
    *,
    lines: str | None = None,
    bot: Any = None,
    seed: int = 1,
    players: str = PLAYERS,
    **options: Any,
) -> tuple[Any, str, BamFlow, list[dict[str, Any]]]:
    """Run a BAM! game; return (outcome, transcript, flow, logged events)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    outcome, transcript, flow = run_offline(
        "bam", players, seed=seed, lines=lines, bot=bot, tmp=tmp_path, options={"realizer": realizer, **options}
    )
    assert isinstance(flow, BamFlow)
    return outcome, transcript, flow, read_events(tmp_path / "game.jsonl")


def table_lines(transcript: str) -> list[str]:
    """What the host said at the table (not the private lines)."""
    return [line for line in transcript.splitlines() if line.startswith("host: ")]


def judge_bot(plan: list[tuple[str, str]] | None = None, seed: int = 7) -> Any:
    """Players who submit random numbers from their hand; the master judges by ``plan`` (best
    player, worst player per round) or at random."""
    rng = random.Random(seed)

    def decide(flow: Any, now: float) -> list[tuple[float, str, str]]:
        state: bam.BamState = flow.state
        if state.phase is bam.Phase.SUBMITTING:
            lines = []
            for i, player in enumerate(state.waiting_for):
                numbers = rng.sample([n for n, _ in flow.slots.numbered(player)], state.blanks)
                lines.append((1.0 + i, player, " then ".join(number_phrase(n) for n in numbers)))
            return lines
        if state.phase is bam.Phase.JUDGING:
            order = list(state.reading)
            if plan is not None:
                best, worst = (order.index(p) + 1 for p in plan[state.round - 1])
            else:
                best, worst = rng.sample(range(1, len(order) + 1), 2)
            return [(2.0, state.master, f"best {number_phrase(best)} worst {number_phrase(worst)}")]
        return []

    return decide


# ---- words -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "phrase, numbers",
    [
        ("seven", [7]),
        ("seven then three", [7, 3]),
        ("7 then 3", [7, 3]),
        ("seven three", [7, 3]),
        ("twenty one", [21]),
        ("one hundred and five", [105]),
        ("two hundred forty", [240]),
        ("one hundred twelve then nine", [112, 9]),
        ("card number ten", [10]),
        ("banana", []),
    ],
)
def test_spoken_numbers_join_compounds_and_split_lists(phrase: str, numbers: list[int]) -> None:
    """Card numbers are read from words: lists split, tens/hundreds join ('twenty one' is 21)."""
    assert spoken_numbers(phrase) == numbers


def test_printed_numbers_said_in_words_read_back() -> None:
    """Every printed card number the host says ('one hundred and five') is read back as that number."""
    assert number_words(21) == "twenty one" and number_words(105) == "one hundred and five"
    assert all(spoken_numbers(number_words(n)) == [n] for n in range(1, 400))


@pytest.mark.parametrize(
    "phrase, judged",
    [
        ("best two worst four", (2, 4)),
        ("best is two and worst is four", (2, 4)),
        ("worst four best two", (2, 4)),
        ("two is best and four is worst", (2, 4)),
        ("the best is number three", (3, None)),
        ("worse one", (None, 1)),
        ("two and four", (None, None)),
    ],
)
def test_judgement_phrases(phrase: str, judged: tuple[int | None, int | None]) -> None:
    """'best two, worst four' and its usual variants name the best and the worst by number."""
    assert parse_judgement(phrase) == judged


# ---- whole games ----------------------------------------------------------------------------


def test_whole_game_to_the_end_and_its_log_replays(tmp_path: Path, realizer: Realizer) -> None:
    """Four players, K=1, base deck: four rounds hosted to game_over; the log replays to the same state."""
    outcome, transcript, flow, events = play(tmp_path, realizer, bot=judge_bot(), seed=11)
    assert outcome.finished
    assert [e["type"] for e in events].count("round") == 4
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "rounds_done"
    assert bam.replay(events) == flow.state
    assert events == [e.to_json() for e in flow.host.events]
    said = table_lines(transcript)
    masters = [e["master"] for e in events if e["type"] == "round"]
    assert masters == ["Anna", "Ben", "Cem", "Dan"]
    for n, master in enumerate(masters, start=1):
        assert any(f"Round {number_phrase(n)} of four. {master} is the BAM! Master." in line for line in said)
    assert sum("All cards are in." in line for line in said) == 4
    assert sum("takes the red card" in line for line in said) == 4
    assert TITLE_WORDS in said[-1] and "Scores:" in said[-1]


TITLE_WORDS = "The True BAM! Master"


def test_private_hands_never_reach_the_table(tmp_path: Path, realizer: Realizer) -> None:
    """Hands are told only on private routes; a card never played is never named at the table."""
    outcome, transcript, flow, events = play(tmp_path, realizer, bot=judge_bot(seed=3), seed=5)
    hand_lines = [line for line in transcript.splitlines() if "your cards:" in line]
    assert len(hand_lines) == 12  # 4 rounds x 3 players
    assert all(line.startswith("host → ") for line in hand_lines)
    cards = events[0]["cards"]
    played = {c for e in events if e["type"] == "submit" for c in e["cards"]}
    table = " ".join(table_lines(transcript)).lower()
    reds = " ".join(f["text"] for f in cards.values() if f["color"] == "red").lower()
    unplayed = [
        f["text"].lower() for c, f in cards.items() if f["color"] == "grey" and c not in played and len(f["text"]) > 6
    ]
    named = [
        t for t in unplayed if t in table and t not in reds and not any(t in cards[p]["text"].lower() for p in played)
    ]
    assert unplayed and named == []
    # and every played card was named at the table when the sentences were read
    assert all(cards[c]["text"].lower().rstrip(".") in table for c in played)


def test_submission_by_hand_number_and_stable_numbers(tmp_path: Path, realizer: Realizer) -> None:
    """'seven' plays the seventh card told; the card drawn afterwards takes number seven."""
    lines = "1 Ben: seven\n2 Cem: one\n3 Dan: ten\n5 Anna: best one worst two\n7 Ben: my hand\n"
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, decks=(SINGLE,))
    hands = events[0]["state"]["hands"]
    submits = {e["player"]: e["cards"] for e in events if e["type"] == "submit"}
    assert submits == {"Ben": [hands["Ben"][6]], "Cem": [hands["Cem"][0]], "Dan": [hands["Dan"][9]]}
    drawn = next(e["cards"][0] for e in events if e["type"] == "draw" and e["player"] == "Ben")
    assert flow.slots.card("Ben", 7) == drawn
    ben_hands = [line for line in transcript.splitlines() if line.startswith("host → Ben: Ben, your cards:")]
    text = events[0]["cards"][drawn]["text"]
    assert f"seven, {text};" in ben_hands[-1]
    assert f"host → Ben: Ben, you played: {events[0]['cards'][hands['Ben'][6]]['text']}." in transcript


def test_double_bam_submission_order(tmp_path: Path, realizer: Realizer) -> None:
    """'seven then three' fills the first blank with card seven and the second with card three."""
    lines = "1 Ben: seven then three\n2 Cem: three then seven\n3 Dan: one then two\n"
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, decks=(DOUBLE,))
    hands = events[0]["state"]["hands"]
    cards = events[0]["cards"]
    submits = {e["player"]: e["cards"] for e in events if e["type"] == "submit"}
    assert submits["Ben"] == [hands["Ben"][6], hands["Ben"][2]]
    assert submits["Cem"] == [hands["Cem"][2], hands["Cem"][6]]
    state = flow.state
    assert state is not None and state.phase is bam.Phase.JUDGING
    for i, sentence in enumerate(flow.sentences):
        first, second = (cards[c]["text"].lower() for c in state.submissions[i].cards)
        low = sentence.lower()
        assert first in low and second in low and low.index(first) < low.index(second), sentence
    assert "A double BAM! card:" in transcript and "first blank first, for example seven then three" in transcript


def test_judging_by_number_follows_the_shuffled_reading_order(tmp_path: Path, realizer: Realizer) -> None:
    """'best two, worst three' awards the players whose submissions were read second and third."""
    lines = "1 Ben: one\n2 Cem: one\n3 Dan: one\n5 Anna: best is two and worst is three\n"
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, decks=(SINGLE,), seed=4)
    order = next(e["order"] for e in events if e["type"] == "reading")
    assert order != ["Ben", "Cem", "Dan"]  # seed 4 shuffles: the test would not tell otherwise
    best = next(e for e in events if e["type"] == "best")
    worst = next(e for e in events if e["type"] == "worst")
    assert (best["player"], best["submission"]) == (order[1], 2)
    assert (worst["player"], worst["submission"]) == (order[2], 3)
    submitted = {e["player"]: e["cards"][0] for e in events if e["type"] == "submit"}
    reading = next(line for line in table_lines(transcript) if "All cards are in." in line)
    two = reading.split(" Two: ")[1].split(" Three: ")[0].lower()
    assert events[0]["cards"][submitted[order[1]]]["text"].lower() in two
    assert any(
        line.startswith(f"host: Best: two. {order[1]} wins a point with")
        and f"Worst: three. {order[2]} takes the red card." in line
        for line in table_lines(transcript)
    )
    assert "Ben" not in reading and "Cem" not in reading.replace("Anna", "")


def test_every_illegal_action_gets_a_short_reprompt(tmp_path: Path, realizer: Realizer) -> None:
    """Master submitting, unknown number, wrong count, judging early or by others, best = worst,
    no such sentence: each is answered in one line, nothing is applied, and the game goes on."""
    script = [
        "Anna: seven",
        "Anna: best one worst two",
        "Ben: eleven",
        "Ben: seven then three",
        "Ben: banana",
        "Ben: seven",
        "Ben: three",
        "Cem: two",
        "Dan: four",
        "Ben: best one worst two",
        "Anna: best two worst two",
        "Anna: best nine worst one",
        "Anna: two and three",
        "Cem: five",
        "Anna: best one worst two",
    ]
    lines = "".join(f"{i} {line}\n" for i, line in enumerate(script, start=1))
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, decks=(SINGLE,))
    said = table_lines(transcript)
    for expected in [
        "host: Anna, you are the BAM! Master this round: wait for the sentences, then choose.",
        "host: Anna, not yet: still waiting for Ben, Cem and Dan.",
        "host: Ben, you have no card eleven: your cards are numbered one to ten.",
        "host: Ben, this card has one blank: say one number.",
        "host: Sorry Ben, I did not understand. Say help to hear what you can say.",
        "host: Ben, your card is already in.",
        "host: Ben, Anna is the BAM! Master and chooses.",
        "host: Anna, the best and the worst must be different sentences.",
        "host: Anna, the sentences are numbered one to three.",
        "host: Anna, say best and worst, for example best two, worst one.",
        "host: Cem, all cards are in: Anna is choosing.",
    ]:
        assert expected in said, expected
    kinds = [e["type"] for e in events]
    submits = [e for e in events if e["type"] == "submit"]
    assert [s["player"] for s in submits] == ["Ben", "Cem", "Dan"]
    assert kinds.count("best") == 1 and next(e for e in events if e["type"] == "best")["submission"] == 1
    assert [e["number"] for e in events if e["type"] == "round"] == [1, 2]


def test_same_card_twice_on_a_double_card(tmp_path: Path, realizer: Realizer) -> None:
    """'seven then seven' on a double-BAM! card is refused: two different cards are needed."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines="1 Ben: seven then seven\n2 Ben: seven\n", decks=(DOUBLE,)
    )
    said = table_lines(transcript)
    assert "host: Ben, play two different cards." in said
    assert (
        "host: Ben, this card has two blanks: say two numbers, first blank first, for example seven then three." in said
    )
    assert not any(e["type"] == "submit" for e in events)


def test_best_and_worst_in_two_parts(tmp_path: Path, realizer: Realizer) -> None:
    """The master may say 'best two' and then 'worst one'; the host asks for the missing half."""
    lines = "1 Ben: one\n2 Cem: one\n3 Dan: one\n5 Anna: best two\n7 Anna: worst one\n"
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, decks=(SINGLE,))
    assert "host: Best: two. And the worst?" in table_lines(transcript)
    best = next(e for e in events if e["type"] == "best")
    worst = next(e for e in events if e["type"] == "worst")
    assert (best["submission"], worst["submission"]) == (2, 1)


@pytest.mark.parametrize(
    "plan, title",
    [
        (
            [("Ben", "Dan"), ("Cem", "Dan"), ("Ben", "Anna"), ("Cem", "Anna")],
            "Ben and Cem share the title The True BAM! Master: 2 points and 2 grey cards won each!",
        ),
        (
            [("Ben", "Dan"), ("Cem", "Dan"), ("Ben", "Anna"), ("Anna", "Ben")],
            "Ben and Cem have 1 point each; Ben won more grey cards (2 to 1), so Ben is The True BAM! Master!",
        ),
        (
            [("Ben", "Dan"), ("Cem", "Dan"), ("Ben", "Anna"), ("Ben", "Anna")],
            "Ben is The True BAM! Master with 3 points!",
        ),
    ],
)
def test_tie_breaks_and_the_shared_title(
    tmp_path: Path, realizer: Realizer, plan: list[tuple[str, str]], title: str
) -> None:
    """Ties go to more grey cards won; a remaining tie shares the title 'The True BAM! Master'."""
    outcome, transcript, flow, events = play(tmp_path, realizer, bot=judge_bot(plan), decks=(SINGLE,))
    assert outcome.finished and events[-1]["type"] == "game_over"
    last = table_lines(transcript)[-1]
    assert title in last
    assert last.startswith("host: That was the last round.")


def test_my_hand_help_score_repeat_and_read_again(tmp_path: Path, realizer: Realizer) -> None:
    """'my hand' repeats the hand privately; help fits the player's role; score, repeat and 'read two' answer."""
    script = [
        "Dan: repeat",
        "Ben: my hand",
        "Ben: help",
        "Anna: help",
        "Cem: score",
        "Ben: seven",
        "Ben: help",
        "Cem: one",
        "Dan: one",
        "Anna: repeat",
        "Anna: help",
        "Cem: help",
        "Anna: read two",
        "Anna: my hand",
    ]
    lines = "".join(f"{i} {line}\n" for i, line in enumerate(script, start=1))
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, decks=(SINGLE,))
    all_lines = transcript.splitlines()
    assert sum(line.startswith("host → Ben: Ben, your cards: one, ") for line in all_lines) == 2
    assert any(
        line.startswith("host → Anna: Anna, your cards: one, ") and line.endswith("You are the BAM! Master this round.")
        for line in all_lines
    )
    said = table_lines(transcript)
    assert any(line.startswith("host: Say the number of the card you play, for example seven.") for line in said)
    assert any(line.startswith("host: You are the BAM! Master: when all cards are in") for line in said)
    assert "host: Scores: Anna 0, Ben 0, Cem 0 and Dan 0." in said
    assert (
        sum(line.startswith("host → Dan: Dan, your cards: one, ") for line in all_lines) == 2
    )  # Dan's repeat: his last line
    assert any(line.startswith("host: Your card is in. Wait for the sentences.") for line in said)
    assert any(
        line.startswith("host: Say best and worst, for example best two, worst one. Say read and a number")
        for line in said
    )
    assert any(line.startswith("host: Anna is choosing the best and the worst.") for line in said)
    assert f"host: Two: {flow.sentences[1]}" in said
    reading = next(line for line in said if "All cards are in." in line)
    assert said.count(reading) == 2  # 'repeat' reads the sentences again


def test_reminder_names_who_is_still_expected(tmp_path: Path, realizer: Realizer) -> None:
    """Without answers the host reminds the players still to submit (a limited number of times)."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines="1 Ben: seven\n60 Anna: score\n", decks=(SINGLE,), remind_after=2.0, reminders=2
    )
    said = table_lines(transcript)
    assert said.count("host: Still waiting for Cem and Dan: say the number of your card.") == 2


def test_phrases_follow_the_phase(tmp_path: Path, realizer: Realizer) -> None:
    """The microphones' phrases: hand numbers (and 'X then Y' on double cards) while submitting,
    'best N worst M' while judging, and the global commands."""
    outcome, transcript, flow, events = play(
        tmp_path / "a", realizer, lines="1 Ben: seven then three\n", decks=(DOUBLE,)
    )
    phrases = flow.phrases()
    assert {"seven", "ten", "seven then three", "then", "my hand", "score", "help", "repeat"} <= set(phrases)
    assert "eleven" not in phrases
    lines = "1 Ben: one\n2 Cem: one\n3 Dan: one\n"
    outcome, transcript, flow, events = play(tmp_path / "b", realizer, lines=lines, decks=(SINGLE,))
    phrases = flow.phrases()
    assert {"best two worst one", "best three", "worst one", "read two", "quit"} <= set(phrases)
    assert "best four worst one" not in phrases and "best two worst two" not in phrases


def test_only_the_one_asked_is_listened_to_for_a_lone_number(tmp_path: Path, realizer: Realizer) -> None:
    """seat_grammar: while the cards come in, the master's microphone leaves out card numbers;
    while the master judges, the others' leave out a number, "best" or "worst" alone, not a whole
    judgement, "read two" or the commands; typed lines keep the whole grammar."""
    from voicehost.host.session import microphone_grammar, seat_grammar

    players = ["Anna", "Ben", "Cem", "Dan"]
    outcome, transcript, flow, events = play(tmp_path / "a", realizer, lines="1 Ben: seven\n", decks=(SINGLE,))
    master = flow.state.master
    seats = seat_grammar(flow, players)
    assert set(seats) == {master}
    assert {"seven", "ten"} <= set(microphone_grammar(flow)) - set(seats[master])
    assert {"score", "repeat", "help"} <= set(seats[master])
    lines = "1 Ben: one\n2 Cem: one\n3 Dan: one\n"
    outcome, transcript, flow, events = play(tmp_path / "b", realizer, lines=lines, decks=(SINGLE,))
    master = flow.state.master
    seats = seat_grammar(flow, players)
    assert set(seats) == set(players) - {master}
    for own in seats.values():
        assert set(microphone_grammar(flow)) - set(own) == {"one", "two", "three", "best", "worst"}
        assert {"best two worst one", "read two", "quit"} <= set(own)


def test_quit_asks_the_table_and_stops_with_scores(tmp_path: Path, realizer: Realizer) -> None:
    """'quit' asks the table; another player's yes stops the game with the standings, unfinished (no
    game_over: it can be resumed)."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines="1 Ben: seven\n2 Cem: quit\n3 Cem: yes\n4 Dan: yes\n", decks=(SINGLE,)
    )
    assert outcome.reason == "quit" and not outcome.finished and events[-1]["type"] == "submit"
    said = table_lines(transcript)
    assert "host: Cem wants to stop the game." in " ".join(said)
    assert "host: Cem, someone else must say yes." in said
    assert said[-1].startswith("host: The game stops here. Scores: Anna 0, Ben 0, Cem 0 and Dan 0.")


def test_resume_continues_from_the_log(tmp_path: Path, realizer: Realizer) -> None:
    """A game stopped mid-round resumes from its log: hands and numbers as before, and it replays."""
    lines = "1 Ben: seven\n2 Cem: one\n"
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, seed=9, decks=(SINGLE,))
    assert not outcome.finished and [e["type"] for e in events].count("submit") == 2
    script = tmp_path / "more.txt"
    script.write_text("1 Dan: two\n3 Anna: best one worst two\n")
    base = PlaySettings("", (), f"script:{script}", 0, tmp_path / "game.jsonl", None, True, {"realizer": realizer})
    settings = settings_for_resume(events, tmp_path / "game.jsonl", base)
    import io

    out = io.StringIO()
    run_session(settings, resume=events, stdout=out)
    after = read_events(tmp_path / "game.jsonl")
    assert [e["type"] for e in after][len(events)] == "resumed"
    assert any(e["type"] == "best" for e in after)
    state = bam.replay(after)
    assert state.round == 2 and state.phase is bam.Phase.SUBMITTING
    resumed = out.getvalue()
    assert "host: Welcome back to BAM! Round one of four." in resumed
    assert (
        "host → Dan: Dan, your cards: one, " in resumed
        and "host → Ben: Ben, your cards" not in resumed.split("All cards")[0]
    )


def test_bad_deck_is_refused_before_the_game(tmp_path: Path, realizer: Realizer) -> None:
    """A deck that does not load stops the session with a deck error naming the file, before any event."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[[red]]\nid = "x1"\ntext = "No blank here."\n')
    from voicehost.decks import DeckError

    with pytest.raises(DeckError, match="bad.toml"):
        play(tmp_path, realizer, lines="1 Ben: seven\n", decks=(str(bad),))
    log = tmp_path / "game.jsonl"
    assert not log.exists() or log.read_text() == ""


def test_setup_lists_grey_cards_in_printed_order() -> None:
    """Printed card numbers (deck print) are the order of grey cards in the setup event."""
    deck = load_decks(["base"])
    state, events = bam.BamGame(random.Random(1)).start(["A", "B", "C"], deck.red, deck.grey, seed=1)
    setup = events[0].to_json()
    grey = [c for c, f in setup["cards"].items() if f["color"] == "grey"]
    assert list(enumerate(grey, start=1)) == [(n, c.id) for n, c in deck.numbered_grey()]


# ---- table cards ------------------------------------------------------------------------------


def play_without_earphones(
    tmp_path: Path, realizer: Realizer, lines: str, **options: Any
) -> tuple[Any, str, BamFlow, list[dict[str, Any]]]:
    """A game whose only output is the table speaker (no private routes at all)."""
    import io

    from voicehost.clock import SimClock
    from voicehost.eventlog import EventLogWriter
    from voicehost.host.build import transcript_printer
    from voicehost.host.flows.bam import make_flow
    from voicehost.host.inputs import ScriptInput, read_script
    from voicehost.host.mouth import Mouth
    from voicehost.host.session import Host, Session
    from voicehost.speak.output import TABLE, NullSink
    from voicehost.speak.service import SpeechService
    from voicehost.speak.voice import EspeakVoice

    players = tuple(PLAYERS.split(","))
    clock = SimClock()
    script = tmp_path / "script.txt"
    script.write_text(lines)
    out = io.StringIO()
    service = SpeechService(
        EspeakVoice(), {TABLE: NullSink()}, clock, transcript=transcript_printer(players, out, True)
    )
    log = EventLogWriter(tmp_path / "game.jsonl")
    host = Host(clock=clock, mouth=Mouth(service, players), players=players, rng=random.Random(1), log=log)
    flow = make_flow(host, 1, {"realizer": realizer, **options})
    try:
        outcome = Session(flow, ScriptInput(read_script(script, players), clock), host).run()
    finally:
        service.close()
        log.close()
    return outcome, out.getvalue(), flow, read_events(tmp_path / "game.jsonl")


def test_table_cards_is_automatic_without_private_outputs(tmp_path: Path, realizer: Realizer) -> None:
    """Without earphones the game plays with printed cards: 'seven' is the card printed seven."""
    lines = "1 Ben: seven\n2 Ben: my hand\n3 Cem: help\n"
    outcome, transcript, flow, events = play_without_earphones(tmp_path, realizer, lines, decks=(SINGLE,))
    assert events[0]["card_mode"] == "table" and events[0]["state"]["hands"] is None
    printed = dict(load_decks([SINGLE]).numbered_grey())
    assert next(e for e in events if e["type"] == "submit")["cards"] == [printed[7].id]
    said = table_lines(transcript)
    assert len(said) == len(transcript.splitlines())  # nothing private was even attempted
    assert "host: Ben's card is in." in said and "seven." not in " ".join(said[1:2])
    assert "host: Ben, I cannot tell you privately: you hold your own cards at this table." in said
    assert any(
        line.startswith("host: Say the number printed on the card you play, for example seven.") for line in said
    )
    assert "printed grey cards and deal ten to each player" in said[0]


def test_dealt_cards_need_earphones(tmp_path: Path, realizer: Realizer) -> None:
    """--cards dealt without private outputs is refused before the game starts."""
    with pytest.raises(bam.BadSetup, match="private earphone"):
        play_without_earphones(tmp_path, realizer, "1 Ben: seven\n", decks=(SINGLE,), cards="dealt")


def table_bot(seed: int) -> Any:
    """Players who play printed numbers not out of play (compound numbers spoken in words)."""
    rng = random.Random(seed)

    def decide(flow: Any, now: float) -> list[tuple[float, str, str]]:
        state: bam.BamState = flow.state
        if state.phase is bam.Phase.SUBMITTING:
            gone = state.out_of_play()
            free = [n for n, c in flow.printed.items() if c not in gone]
            picks = rng.sample(free, state.blanks * len(state.waiting_for))
            return [
                (1.0 + i, p, " then ".join(number_words(n) for n in picks[i * state.blanks : (i + 1) * state.blanks]))
                for i, p in enumerate(state.waiting_for)
            ]
        if state.phase is bam.Phase.JUDGING:
            best, worst = rng.sample(range(1, len(state.reading) + 1), 2)
            return [(2.0, state.master, f"best {number_phrase(best)} worst {number_phrase(worst)}")]
        return []

    return decide


def test_table_cards_whole_game_replays_and_tells_no_hands(tmp_path: Path, realizer: Realizer) -> None:
    """--cards table, base deck: four rounds by printed numbers (up to 240), chores announced, the log replays."""
    outcome, transcript, flow, events = play(tmp_path, realizer, bot=table_bot(2), seed=8, cards="table")
    assert outcome.finished and events[-1]["reason"] == "rounds_done"
    assert events[0]["card_mode"] == "table"
    assert bam.replay(events) == flow.state
    assert "your cards:" not in transcript
    said = table_lines(transcript)
    printed = {c.id: n for n, c in load_decks(["base"]).numbered_grey()}
    submits = [e for e in events if e["type"] == "submit"]
    assert len(submits) == 12 and any(printed[e["cards"][0]] > 100 for e in submits)
    for e in submits:
        spoken = " then ".join(number_words(printed[c]) for c in e["cards"])
        assert f"host: {e['player']} plays {spoken}." not in said  # never who played what before the reading
        assert f"host: {e['player']}'s {'cards are' if len(e['cards']) > 1 else 'card is'} in." in said
    assert sum("keep card" in line and "discard pile" in line for line in said) == 4
    assert sum("draw back to ten cards" in line for line in said) == 3  # no draws after the last round


def test_table_cards_refusals_name_the_card(tmp_path: Path, realizer: Realizer) -> None:
    """Printed cards: a number not in the deck, a card on the table, a won card and a discarded
    card are each refused with a re-prompt; play goes on."""

    def decide(flow: Any, now: float) -> list[tuple[float, str, str]]:
        state: bam.BamState = flow.state
        if state.round == 1 and state.phase is bam.Phase.SUBMITTING:
            return [
                (1, "Ben", "seven"),
                (2, "Cem", "seven"),
                (3, "Cem", "fifty"),
                (4, "Cem", "eight"),
                (5, "Dan", "nine"),
            ]
        if state.round == 1 and state.phase is bam.Phase.JUDGING:
            return [(1, "Anna", "best one worst two")]
        if state.round == 2 and state.phase is bam.Phase.SUBMITTING and not state.submitted:
            won = next(n for n, c in flow.printed.items() if any(c in stack for stack in state.won_grey.values()))
            thrown = next(n for n, c in flow.printed.items() if c in state.discard)
            return [
                (1, "Cem", number_phrase(won)),
                (2, "Dan", number_phrase(thrown)),
                (3, "Cem", "three"),
                (4, "Dan", "four"),
                (5, "Anna", "five"),
            ]
        return []

    outcome, transcript, flow, events = play(tmp_path, realizer, bot=decide, decks=(SINGLE,), cards="table")
    said = table_lines(transcript)
    state = flow.state
    assert state is not None
    won = next(n for n, c in flow.printed.items() if c in [c for s in state.won_grey.values() for c in s])
    assert "host: Cem, card seven is already on the table this round: play another." in said
    assert "host: Cem, there is no card fifty in this deck." in said
    assert f"host: Cem, card {number_phrase(won)} was won as a point: play another." in said
    assert any(
        line.startswith("host: Dan, card ") and line.endswith("is on the discard pile: play another.") for line in said
    )
    assert [e["player"] for e in events if e["type"] == "submit"] == ["Ben", "Cem", "Dan", "Cem", "Dan", "Anna"]
    assert state.round == 2 and state.phase is bam.Phase.JUDGING


def test_table_cards_resume_keeps_the_mode(tmp_path: Path, realizer: Realizer) -> None:
    """A table-cards game resumed on a session with private routes stays a table-cards game."""
    outcome, transcript, flow, events = play(
        tmp_path, realizer, lines="1 Ben: seven\n", seed=3, cards="table", decks=(SINGLE,)
    )
    script = tmp_path / "more.txt"
    script.write_text("1 Cem: twelve\n2 Dan: my hand\n")
    base = PlaySettings("", (), f"script:{script}", 0, tmp_path / "game.jsonl", None, True, {"realizer": realizer})
    import io

    out = io.StringIO()
    run_session(settings_for_resume(events, tmp_path / "game.jsonl", base), resume=events, stdout=out)
    after = read_events(tmp_path / "game.jsonl")
    printed = dict(load_decks([SINGLE]).numbered_grey())
    assert [e["cards"] for e in after if e["type"] == "submit"] == [[printed[7].id], [printed[12].id]]
    assert "your cards:" not in out.getvalue()
    assert "host → Dan: Dan, you hold printed cards in this game" in out.getvalue()


# ---- issue 14: the double-BAM! winner chooses the card to keep -------------------------------


def keep_bot(answer: str | None) -> Any:
    """Players submit their cards 7+3, 3+7, 1+2; the master says 'best one worst two'; the best
    player answers the keep question with ``answer`` (None: stays silent)."""
    said: set[str] = set()

    def decide(flow: Any, now: float) -> list[tuple[float, str, str]]:
        state: bam.BamState = flow.state
        if state.phase is bam.Phase.SUBMITTING and "submit" not in said:
            said.add("submit")
            return [(1.0, "Ben", "seven then three"), (2.0, "Cem", "three then seven"), (3.0, "Dan", "one then two")]
        if state.phase is bam.Phase.JUDGING and "judge" not in said:
            said.add("judge")
            winner = state.submissions[0].player
            return [(1.0, state.master, "best one worst two"), *([(3.0, winner, answer)] if answer else [])]
        if state.round > 1 and "quit" not in said:
            said.add("quit")
            return [(1.0, "Anna", "quit")]
        return []

    return decide


def test_double_bam_winner_is_asked_which_card_to_keep(tmp_path: Path, realizer: Realizer) -> None:
    """After 'best N worst M' on a double card the host asks the best player which of their two
    cards to keep; 'two' keeps the card of the second blank."""
    outcome, transcript, flow, events = play(tmp_path, realizer, bot=keep_bot("two"), decks=(DOUBLE,))
    submitted = {e["player"]: e["cards"] for e in events if e["type"] == "submit"}
    best = next(e for e in events if e["type"] == "best")
    assert best["card"] == submitted[best["player"]][1]
    assert any(f"{best['player']}, which card do you keep" in line for line in table_lines(transcript))


def test_double_bam_keep_question_defaults_to_the_first_card_after_a_few_seconds(
    tmp_path: Path, realizer: Realizer
) -> None:
    """Nobody answers the keep question: after a few seconds the host keeps the first blank's card and says so."""
    outcome, transcript, flow, events = play(tmp_path, realizer, bot=keep_bot(None), decks=(DOUBLE,))
    submitted = {e["player"]: e["cards"] for e in events if e["type"] == "submit"}
    best = next(e for e in events if e["type"] == "best")
    assert best["card"] == submitted[best["player"]][0]
    lines = table_lines(transcript)
    asked = next(i for i, line in enumerate(lines) if "which card do you keep" in line)
    assert any("keeps the first card" in line for line in lines[asked + 1 :])
    reading = next(e for e in events if e["type"] == "reading")["t"]
    assert 3.0 <= KEEP_WAIT <= 10.0 and best["t"] >= reading + KEEP_WAIT


def test_single_bam_judgement_asks_nothing(tmp_path: Path, realizer: Realizer) -> None:
    """One blank: 'best N worst M' is applied at once, without a keep question."""
    lines = "1 Ben: one\n2 Cem: one\n3 Dan: one\n5 Anna: best one worst two\n"
    outcome, transcript, flow, events = play(tmp_path, realizer, lines=lines, decks=(SINGLE,))
    assert "best" in [e["type"] for e in events] and "which card do you keep" not in transcript
