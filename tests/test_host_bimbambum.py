"""Hosting Bim Bam Bum!: the flow chooses the first player, names cards, judges yells and slap
races, speaks, and logs."""

from __future__ import annotations

import argparse
import io
import random
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from tests.host_helpers import run_offline
from voicehost.clock import SimClock
from voicehost.eventlog import read_events
from voicehost.host.build import PlaySettings, build_offline, run_session, settings_for_resume
from voicehost.host.flows import bimbambum as flow_module
from voicehost.host.flows.bimbambum import YELLS, BimBamBumFlow, read_play
from voicehost.host.session import Outcome, Session
from voicehost.host.words import Heard
from voicehost.rules import bimbambum as bb
from voicehost.rules.base import JsonObject
from voicehost.speak.output import TABLE

pytestmark = pytest.mark.timeout(120)

PLAYERS = ("Anna", "Ben", "Cem")
PILE = ("one", "two", "three")


@dataclass(frozen=True)
class Say:
    """One thing a bot says: ``delay`` seconds after it was asked, lasting ``length`` seconds."""

    delay: float
    player: str
    phrase: str
    length: float = 0.5
    level_db: float | None = None
    keep: bool = False
    """Still said if the game changes before (a scripted line); otherwise the next decision replaces it."""


Decide = Callable[[BimBamBumFlow, float], list[Say]]


class TimedBot:
    """Players as a function of the flow, on the simulated clock.

    ``decide(flow, now)`` is asked whenever the game changed; its answer replaces what was still to
    be said (except items marked ``keep``). Each item reaches the host when it ends (as a recogniser
    delivers it) and carries its own onset, so arrival order and onset order can differ.
    """

    def __init__(self, clock: SimClock, flow: BimBamBumFlow, decide: Decide, *, limit: int = 5000) -> None:
        self.clock, self.flow, self.decide, self.limit = clock, flow, decide, limit
        self._asked: object = ()
        self._pending: list[tuple[Heard, bool]] = []

    def next(self, deadline: float | None) -> list[Heard] | None:
        self.limit -= 1
        if self.limit < 0:
            return None
        marker = (self.flow.state, len(self.flow.host.events))
        if marker != self._asked:
            self._asked = marker
            now = self.clock.now()
            kept = [(h, True) for h, keep in self._pending if keep]
            new = [
                (Heard(s.player, s.phrase, now + s.delay, now + s.delay + s.length, 1.0, "mic", s.level_db), s.keep)
                for s in self.decide(self.flow, now)
            ]
            self._pending = sorted(kept + new, key=lambda item: item[0].end)
        if not self._pending or (deadline is not None and self._pending[0][0].end > deadline):
            if deadline is None:
                return None
            self.clock.advance_to(deadline)
            return []
        end = self._pending[0][0].end
        heard = [h for h, _ in self._pending if h.end <= end + 1e-9]
        self._pending = self._pending[len(heard) :]
        self.clock.advance_to(end)
        return heard

    def close(self) -> None:
        pass


def host_bots(
    tmp: Path,
    decide: Decide,
    *,
    seed: int = 1,
    options: dict[str, object] | None = None,
    players: tuple[str, ...] = PLAYERS,
) -> tuple[Outcome, str, BimBamBumFlow]:
    """Run a game with bots; return (outcome, transcript, flow)."""
    settings = PlaySettings(
        "bimbambum", players, "script:/dev/null", seed, tmp / "game.jsonl", None, True, options or {}
    )
    out = io.StringIO()
    built = build_offline(settings, stdout=out)
    flow = built.flow
    assert isinstance(flow, BimBamBumFlow) and isinstance(built.host.clock, SimClock)
    try:
        outcome = Session(flow, TimedBot(built.host.clock, flow, decide), built.host).run()
    finally:
        built.close()
    return outcome, out.getvalue(), flow


def host_script(
    tmp: Path, lines: str, *, seed: int = 1, options: dict[str, object] | None = None
) -> tuple[Outcome, str, BimBamBumFlow]:
    """Run a game from timed script lines ('1.5 Anna: two bam')."""
    outcome, transcript, flow = run_offline(
        "bimbambum", ",".join(PLAYERS), seed=seed, lines=lines, tmp=tmp, options=options
    )
    assert isinstance(flow, BimBamBumFlow)
    return outcome, transcript, flow


def deal(seed: int, first: str = "Anna") -> bb.State:
    """The position the host deals with ``seed`` when the first player is given."""
    state, _ = bb.new_game(PLAYERS, random.Random(seed), seed, first_player=first)
    return state


def kinds(flow: BimBamBumFlow) -> list[str]:
    return [e.TYPE for e in flow.host.events]


def of_type(flow: BimBamBumFlow, kind: str) -> list[JsonObject]:
    return [e.to_json() for e in flow.host.events if e.TYPE == kind]


def play_right(state: bb.State, pile: int, now: float, reaction: float = 0.6) -> Say:
    """The current player, ``reaction`` seconds after hearing their card, puts it on ``pile`` and yells right."""
    return Say(max(0.0, state.window_opens - now) + reaction, state.turn, f"{PILE[pile]} {state.expected(pile)}")


def scripted(lines: list[tuple[float, str, str]], first: Decide | None = None) -> Decide:
    """Lines said at offsets (seconds) from when the first window opens, each once; ``first``
    decides before the deal."""
    sent = False

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        nonlocal sent
        if flow.state is None:
            return first(flow, now) if first else []
        if sent:
            return []
        sent = True
        base = flow.state.window_opens
        return [Say(base + offset - now, player, phrase, keep=True) for offset, player, phrase in lines]

    return decide


def count_pile(state: bb.State, pile: int) -> int:
    """How many times the current player's yell on ``pile`` repeats the word (4: a call)."""
    phrase = state.expected(pile)
    return 4 if phrase == bb.cards.CALL else len(phrase.split())


def aiming(
    want: int,
    rng: random.Random,
    stop: Callable[[BimBamBumFlow], bool],
    slaps: Callable[[bb.State], list[Say]] | None = None,
) -> Decide:
    """Bots that play right, preferring a pile whose yell repeats ``want`` times, until ``stop``; then quit."""

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        state = flow.state
        if state is None:
            return [Say(0.2, p, "bim bam bum") for p in PLAYERS]
        if stop(flow):
            return [Say(0.1, "Anna", "quit")]
        if state.phase is bb.Phase.SLAP:
            assert state.caller is not None
            if slaps is not None:
                return slaps(state)
            return [Say(0.2 + 0.3 * k, p, "ship") for k, p in enumerate(state.after(state.caller))]
        piles = (
            [p for p in range(3) if count_pile(state, p) == want]
            or [p for p in range(3) if count_pile(state, p) != 4]
            or [0]
        )
        return [play_right(state, rng.choice(piles), now)]

    return decide


def perfect(rng: random.Random) -> Decide:
    """Bots who never make a mistake: a random pile, the right yell, quick slaps in random order."""

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        state = flow.state
        if state is None:
            return [Say(0.2 + 0.1 * k, p, "bim bam bum") for k, p in enumerate(PLAYERS)]
        if state.phase is bb.Phase.SLAP:
            assert state.caller is not None
            return [Say(0.2 + rng.random(), p, rng.choice(["ship", "slap"])) for p in state.after(state.caller)]
        return [play_right(state, rng.randrange(3), now, 0.3 + rng.random() * 1.5)]

    return decide


# ---- a whole game --------------------------------------------------------------------------


def test_a_whole_game_is_hosted_to_a_winner_and_its_log_replays(tmp_path: Path) -> None:
    """Bots play a full game through the flow: someone wins on their last card and the log replays to the same state."""
    outcome, transcript, flow = host_bots(tmp_path, perfect(random.Random(4)), seed=4)
    state = flow.state
    assert outcome.finished and state is not None and state.winner is not None
    assert f"{state.winner} wins Bim Bam Bum!" in transcript
    assert bb.replay(read_events(tmp_path / "game.jsonl")) == state
    reasons = {e["reason"] for e in of_type(flow, "mistake")}
    assert reasons == {"last_to_slap"}, reasons  # right plays, on time: only slap races end rounds
    assert {"skip", "reverse", "bimbambum", "slap", "penalty"} <= set(kinds(flow))
    assert "I cannot hear how loud typed words are, so I drew lots" in transcript


# ---- choosing the first player --------------------------------------------------------------


def shouts(levels: dict[str, float | None], delays: dict[str, float]) -> Decide:
    """Players shout BIM BAM BUM! with the given levels, then quit once the cards are dealt."""

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        if flow.state is None:
            return [Say(delays[p], p, "bim bam bum", 0.8, level) for p, level in levels.items()]
        return [Say(0.1, "Anna", "quit")]

    return decide


def test_the_loudest_shout_starts(tmp_path: Path) -> None:
    """The player whose BIM BAM BUM! was loudest (level_db) starts — not the first seat, not the first or last heard."""
    levels: dict[str, float | None] = {"Anna": -20.0, "Ben": -6.5, "Cem": -12.0}
    outcome, transcript, flow = host_bots(tmp_path, shouts(levels, {"Anna": 0.3, "Ben": 0.5, "Cem": 0.1}))
    setup = of_type(flow, "setup")[0]
    assert setup["state"]["turn"] == "Ben" and of_type(flow, "round")[0]["starter"] == "Ben"
    assert "Ben was the loudest!" in transcript and "Ben starts. Ben: " in transcript
    assert "I did not hear" not in transcript


def test_a_silent_microphone_is_named_when_the_loudest_is_chosen(tmp_path: Path) -> None:
    """A player not heard in the shout window is named (a level check); the loudest of the others starts."""
    levels: dict[str, float | None] = {"Anna": -9.0, "Cem": -15.0}
    outcome, transcript, flow = host_bots(tmp_path, shouts(levels, {"Anna": 0.4, "Cem": 0.2}))
    assert of_type(flow, "setup")[0]["state"]["turn"] == "Anna"
    assert "Anna was the loudest! I did not hear Ben: please check that microphone." in transcript


def test_without_levels_the_first_player_is_drawn_by_the_seed(tmp_path: Path) -> None:
    """Typed shouts have no level: the host says it draws lots; the same seed draws the same player,
    other seeds others."""
    firsts = {}
    for seed in (1, 2, 3, 4, 5, 6):
        folder = tmp_path / str(seed)
        folder.mkdir()
        outcome, transcript, flow = host_bots(
            folder, shouts({p: None for p in PLAYERS}, {p: 0.2 for p in PLAYERS}), seed=seed
        )
        firsts[seed] = of_type(flow, "setup")[0]["state"]["turn"]
        assert f"so I drew lots: it is {firsts[seed]}." in transcript
    again = tmp_path / "again"
    again.mkdir()
    outcome, transcript, flow = host_bots(again, shouts({p: None for p in PLAYERS}, {p: 0.2 for p in PLAYERS}), seed=3)
    assert of_type(flow, "setup")[0]["state"]["turn"] == firsts[3]
    assert len(set(firsts.values())) > 1


def test_first_option_skips_the_shout(tmp_path: Path) -> None:
    """--first NAME (any case) starts with that player without asking anyone to shout."""
    parser = argparse.ArgumentParser()
    flow_module.add_arguments(parser)
    options = flow_module.options_from_args(parser.parse_args(["--first", "cem"]))
    outcome, transcript, flow = host_bots(tmp_path, scripted([(0.5, "Ben", "quit")]), options=options)
    assert of_type(flow, "setup")[0]["state"]["turn"] == "Cem"
    assert "shout bim bam bum" not in transcript and "Cem starts." in transcript


# ---- the time window ------------------------------------------------------------------------


def test_the_window_opens_when_the_announcement_ends(tmp_path: Path) -> None:
    """The turn event's t is when the host finished naming the card; a play over 3 s after the
    action but inside the window is on time, one after it is a timeout."""
    delays: list[float] = []

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        state = flow.state
        if state is None:
            return []
        if of_type(flow, "mistake"):
            return [Say(0.1, "Anna", "quit")]
        if len(of_type(flow, "play")) < 2:  # on time, just: 0.2 s before the window closes
            delay = state.window_opens + 2.8 - now
        else:  # 0.2 s after it closed
            delay = state.window_opens + 3.2 - now
        delays.append(delay)
        pile = next(p for p in range(3) if count_pile(state, p) < 4)
        return [Say(delay, state.turn, f"{PILE[pile]} {state.expected(pile)}", 0.1)]

    outcome, transcript, flow = host_bots(tmp_path, decide, seed=2, options={"first_player": "Anna"})
    plays, turns = of_type(flow, "play"), of_type(flow, "turn")
    assert len(plays) == 2 and all(p["ok"] for p in plays)
    assert delays[1] > 3.0  # the second play came more than 3 s after the first play was heard: on time all the same
    spans = flow.host.mouth.service.spans(TABLE)
    for turn in turns[:3]:
        said = [
            s for s in spans if s.text.endswith(f"{turn['player']}: {turn['card']}.") and abs(s.end - turn["t"]) < 1e-3
        ]
        assert said, f"no announcement ends at the turn's t ({turn})"
    late = of_type(flow, "mistake")[0]  # the window closed before the late play was heard: the host's timeout
    assert late["reason"] == "timeout" and late["player"] == turns[2]["player"] and late["onset"] is None
    assert late["t"] >= turns[2]["t"] + 3.0 and f"Time's up, {late['player']}!" in transcript


def test_no_play_in_the_window_is_a_timeout_after_the_host_has_spoken(tmp_path: Path) -> None:
    """Silence for the whole window is a timeout mistake, counted from the end of the welcome, and
    the round restarts with the same player."""

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        return [Say(0.1, "Ben", "quit")] if of_type(flow, "mistake") else []

    outcome, transcript, flow = host_bots(tmp_path, decide, options={"first_player": "Anna"})
    turn, mistake = of_type(flow, "turn")[0], of_type(flow, "mistake")[0]
    spans = flow.host.mouth.service.spans(TABLE)
    rules_end = max(s.end for s in spans if "Welcome" in s.text)
    cue_end = max(s.end for s in spans if s.text.startswith("Anna starts. Anna: "))
    assert turn["t"] == pytest.approx(cue_end, abs=1e-3) and cue_end > rules_end + 0.5 and rules_end > 10
    assert mistake["reason"] == "timeout" and mistake["player"] == "Anna" and mistake["onset"] is None
    assert mistake["t"] >= turn["t"] + 3.0
    assert of_type(flow, "round")[-1]["starter"] == "Anna"
    assert "Time's up, Anna! The piles are empty, so Anna takes nothing. New round. Anna: " in transcript


def test_the_time_running_out_sound_plays_before_the_window_ends(tmp_path: Path) -> None:
    """A silent player hears "time running out" one second before their three-second window ends
    (sound and transcript line, both before the timeout); a play before then cancels it."""
    from voicehost.host.flows.bimbambum import WARN_BEFORE

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        return [Say(0.1, "Ben", "quit"), Say(0.6, "Cem", "yes")] if of_type(flow, "mistake") else []

    outcome, transcript, flow = host_bots(tmp_path, decide, options={"first_player": "Anna"})
    opens = of_type(flow, "turn")[0]["t"]
    closes = opens + of_type(flow, "setup")[0]["state"]["window"]
    spans = flow.host.mouth.service.spans(TABLE)
    warnings = [s for s in spans if s.text == "(sound: time running out)"]
    assert len(warnings) == 1
    assert warnings[0].start == pytest.approx(closes - WARN_BEFORE, abs=1e-3) and warnings[0].end < closes
    lines = transcript.splitlines()
    assert lines.index("host: (sound: time is running out)") < next(
        i for i, line in enumerate(lines) if line.startswith("host: Time's up, Anna!")
    )

    card = deal(1).top("Anna")
    assert card is not None
    outcome, transcript, flow = host_bots(
        tmp_path / "quick",
        scripted([(0.5, "Anna", f"one {card.value}"), (1.5, "Ben", "quit"), (2.0, "Cem", "yes")]),
        options={"first_player": "Anna"},
    )
    assert of_type(flow, "play")[0]["ok"]
    assert not [s for s in flow.host.mouth.service.spans(TABLE) if s.text == "(sound: time running out)"]


def test_no_window_variant_reminds_instead_of_a_timeout(tmp_path: Path) -> None:
    """With --no-window nothing times out: the host reminds the player, and a play a minute later is judged normally."""
    parser = argparse.ArgumentParser()
    flow_module.add_arguments(parser)
    options = flow_module.options_from_args(parser.parse_args(["--no-window", "--first", "Anna"]))
    assert options["window"] is None
    card = deal(1).top("Anna")
    assert card is not None
    outcome, transcript, flow = host_bots(
        tmp_path, scripted([(80, "Anna", f"one {card.value}"), (82, "Ben", "quit")]), options=options
    )
    setup = of_type(flow, "setup")[0]
    assert setup["state"]["window"] is None
    assert "mistake" not in kinds(flow)
    assert of_type(flow, "play")[0]["ok"] and of_type(flow, "play")[0]["onset"] == pytest.approx(setup["t"] + 80)
    assert transcript.count(f"Anna, your turn: {card.value}. Say a pile and the yell.") == 3  # limited reminders
    assert "There is no time limit." in transcript


def test_the_window_keeps_running_while_the_host_answers_help(tmp_path: Path) -> None:
    """Ruling 1: the host's answer to "help" does not restart the window: a play after it has closed
    is a timeout, and nothing is "resumed"."""
    card = deal(1).top("Anna")
    assert card is not None
    lines = [(0.3, "Anna", "help"), (1.0, "Ben", "score"), (3.5, "Anna", f"two {card.value}"), (6.0, "Ben", "quit")]
    outcome, transcript, flow = host_bots(tmp_path, scripted(lines), options={"first_player": "Anna"})
    first_turn = of_type(flow, "turn")[0]
    assert "resumed" not in kinds(flow)
    assert kinds(flow)[3] == "mistake", kinds(flow)  # right after the first turn: nothing reopened it
    mistake = of_type(flow, "mistake")[0]
    assert mistake["player"] == "Anna" and mistake["reason"] == "timeout" and mistake["t"] > first_turn["t"] + 3.0
    assert bb.replay(read_events(tmp_path / "game.jsonl")) == flow.state


def test_help_on_your_turn_explains_the_yells_without_giving_the_answer(tmp_path: Path) -> None:
    """Ruling 1: "help" on one's own turn explains what kinds of yell exist and how to pause, but
    names no pile's yell."""
    state = deal(4)
    card = state.top("Anna")
    assert card is not None
    lines = [(0.3, "Anna", "help"), (2.0, "Ben", "quit")]
    outcome, transcript, flow = host_bots(tmp_path, scripted(lines), seed=4, options={"first_player": "Anna"})
    answer = next(line for line in transcript.splitlines() if "Anna, your card is" in line)
    assert "pause" in answer and "bim bam bum" in answer and "twice" in answer
    for pile in range(3):
        assert f"{PILE[pile]} {state.expected(pile)}" not in answer, answer


@pytest.mark.parametrize("times", [2, 3])
def test_the_wrong_number_of_repetitions_is_a_wrong_word(tmp_path: Path, times: int) -> None:
    """On empty piles the card is yelled once; yelling it twice or thrice is wrong_word, announced
    with the right yell."""
    card = deal(1).top("Anna")
    assert card is not None
    said = " ".join([card.value] * times)
    outcome, transcript, flow = host_script(
        tmp_path, f"1 Anna: two {said}\n2 Ben: quit\n", options={"first_player": "Anna"}
    )
    play, mistake = of_type(flow, "play")[0], of_type(flow, "mistake")[0]
    assert play["pile"] == 1 and play["said"] == said and play["expected"] == card.value and not play["ok"]
    assert mistake["reason"] == "wrong_word" and mistake["player"] == "Anna"
    assert f"Mistake, Anna: it was {card.value}, not {said}. Anna takes pile two: one card." in transcript


def test_the_wrong_word_is_a_wrong_word(tmp_path: Path) -> None:
    """Yelling another card's word is wrong_word; the card stays on its pile and comes back with the penalty."""
    card = deal(1).top("Anna")
    assert card is not None
    other = next(c for c in bb.Card if c is not card)
    outcome, transcript, flow = host_script(
        tmp_path, f"1 Anna: three {other.value}\n2 Ben: quit\n", options={"first_player": "Anna"}
    )
    assert of_type(flow, "mistake")[0]["reason"] == "wrong_word"
    assert of_type(flow, "penalty")[0]["took_pile"] == 2
    assert f"Mistake, Anna: it was {card.value}, not {other.value}." in transcript


@pytest.mark.parametrize(
    "phrase,answer",
    [
        ("two", "Anna: pile two, and the yell?"),
        ("bam bam", "Anna: which pile? Say it with the yell, like two "),
        ("banana split", "Sorry Anna, I did not understand."),
        ("four bam", "Anna: one pile, one, two or three, then the yell."),
        ("one two bim", "Anna: one pile, one, two or three, then the yell."),
        ("bim bam bum", "Anna: which pile?"),
    ],
)
def test_bad_and_ambiguous_phrases_get_a_re_prompt(tmp_path: Path, phrase: str, answer: str) -> None:
    """A pile without a yell, a yell without a pile, nonsense or a pile that does not exist is
    re-prompted; nothing is judged."""
    card = deal(1).top("Anna")
    assert card is not None
    lines = [(0.2, "Anna", phrase), (1.6, "Anna", f"one {card.value}"), (3.6, "Ben", "quit"), (3.8, "Cem", "yes")]
    outcome, transcript, flow = host_bots(tmp_path, scripted(lines), options={"first_player": "Anna"})
    assert answer in transcript
    plays = of_type(flow, "play")
    assert len(plays) == 1 and plays[0]["ok"]  # only the good phrase became a play, on time in the same window
    assert plays[0]["onset"] == pytest.approx(of_type(flow, "setup")[0]["t"] + 1.6)
    assert "mistake" not in kinds(flow)


def test_read_play_understands_piles_yells_and_fillers() -> None:
    """'two, bam bam!' is pile 1 and 'bam bam'; fillers are ignored; homophones of numbers do not
    count; missing parts are named."""
    assert read_play("Two, BAM bam!") == flow_module.PlayWords(1, "bam bam")
    assert read_play("on pile three bim bim bim") == flow_module.PlayWords(2, "bim bim bim")
    assert read_play("bum to").problem == "unknown"
    assert read_play("one bim bam bum") == flow_module.PlayWords(0, "bim bam bum")
    assert read_play("two").problem == "no_yell"
    assert read_play("bum bum").problem == "no_pile"
    assert read_play("zero bam").problem == "bad_pile"
    assert read_play("two bam boom").problem == "unknown"
    assert read_play("").problem == "unknown"


# ---- skip, reverse, slap races -----------------------------------------------------------------


def test_a_double_yell_skips_the_next_player_and_is_announced(tmp_path: Path) -> None:
    """A right yell of the word twice is announced 'Skip NAME!' and the turn goes to the player after."""
    outcome, transcript, flow = host_bots(
        tmp_path, aiming(2, random.Random(1), lambda f: "skip" in kinds(f)), options={"first_player": "Anna"}
    )
    events = [e.to_json() for e in flow.host.events]
    i = kinds(flow).index("skip")
    player = events[i - 1]["player"]
    skipped, nxt = events[i]["player"], events[i + 1]
    seat = PLAYERS.index(player)
    assert skipped == PLAYERS[(seat + 1) % 3] and nxt["type"] == "turn" and nxt["player"] == PLAYERS[(seat + 2) % 3]
    assert f"Skip {skipped}! {nxt['player']}: {nxt['card']}." in transcript


def test_a_triple_yell_reverses_and_is_announced(tmp_path: Path) -> None:
    """A right yell of the word three times is announced 'Reverse!' and the turn goes the other way round."""
    outcome, transcript, flow = host_bots(
        tmp_path, aiming(3, random.Random(1), lambda f: "reverse" in kinds(f)), options={"first_player": "Anna"}
    )
    events = [e.to_json() for e in flow.host.events]
    i = kinds(flow).index("reverse")
    player, direction, nxt = events[i - 1]["player"], events[i]["direction"], events[i + 1]
    assert nxt["player"] == PLAYERS[(PLAYERS.index(player) + direction) % 3]
    assert direction == -1  # the first reverse of the game turns clockwise into counterclockwise
    assert f"Reverse! {nxt['player']}: {nxt['card']}." in transcript


def until_race(flow: BimBamBumFlow) -> bool:
    return "mistake" in kinds(flow)


def test_the_last_to_slap_is_ranked_by_onset_not_by_arrival(tmp_path: Path) -> None:
    """Of two slaps, the one heard first but begun later is the last slap: its player is penalised (last_to_slap)."""
    order: dict[str, str] = {}

    def slaps(state: bb.State) -> list[Say]:
        assert state.caller is not None
        early, late = state.after(state.caller)
        order.update(early=early, late=late)
        # 'late' begins 0.05 s later but is short, so it reaches the host first
        return [Say(0.50, late, "ship", 0.3), Say(0.45, early, "slap", 0.6)]

    outcome, transcript, flow = host_bots(
        tmp_path, aiming(4, random.Random(3), until_race, slaps), options={"first_player": "Anna"}
    )
    slapped = of_type(flow, "slap")
    assert [s["player"] for s in slapped] == [order["early"], order["late"]]
    mistake = of_type(flow, "mistake")[0]
    assert mistake["reason"] == "last_to_slap" and mistake["player"] == order["late"]
    assert f"{order['late']} slapped last! {order['late']} takes pile" in transcript
    call = of_type(flow, "bimbambum")[0]
    verdict = next(s for s in flow.host.mouth.service.spans(TABLE) if "slapped last!" in s.text)
    assert verdict.start < call["t"] + 1.5  # everyone had slapped: judged without waiting for the window to close
    assert bb.replay(read_events(tmp_path / "game.jsonl")) == flow.state


def test_a_player_who_does_not_slap_is_last_when_the_window_closes(tmp_path: Path) -> None:
    """Only one of two others slaps: when the slap window closes the other is last_to_slap, with no onset."""
    missing: list[str] = []

    def slaps(state: bb.State) -> list[Say]:
        assert state.caller is not None
        slapper, silent = state.after(state.caller)
        missing.append(silent)
        return [Say(0.4, slapper, "slap")]

    outcome, transcript, flow = host_bots(
        tmp_path, aiming(4, random.Random(3), until_race, slaps), options={"first_player": "Anna"}
    )
    mistake = of_type(flow, "mistake")[0]
    call = of_type(flow, "bimbambum")[0]
    assert mistake["reason"] == "last_to_slap" and mistake["player"] == missing[0] and mistake["onset"] is None
    assert mistake["t"] >= call["t"] + 2.0  # judged once the slap window closed
    assert f"{missing[0]} did not slap!" in transcript


def test_a_slap_begun_before_the_yell_does_not_count(tmp_path: Path) -> None:
    """A clap that began before the BIM BAM BUM! (heard only after it) is no slap: its player did
    not slap in the window."""
    early: list[str] = []

    def slaps(state: bb.State) -> list[Say]:
        assert state.caller is not None
        a, b = state.after(state.caller)
        early.append(a)
        return [Say(-0.8, a, "slap", 1.0), Say(0.5, b, "ship")]  # a's clap began 0.3 s before the yell did

    outcome, transcript, flow = host_bots(
        tmp_path, aiming(4, random.Random(3), until_race, slaps), options={"first_player": "Anna"}
    )
    mistake = of_type(flow, "mistake")[0]
    assert mistake["reason"] == "last_to_slap" and mistake["player"] == early[0] and mistake["onset"] is None
    assert [s["player"] for s in of_type(flow, "slap")] == [
        p for p in PLAYERS if p not in (early[0], of_type(flow, "bimbambum")[0]["player"])
    ]
    assert f"{early[0]} did not slap!" in transcript and "not everyone has slapped" not in transcript


def test_slapping_on_your_own_call_is_a_mistake(tmp_path: Path) -> None:
    """The yeller of BIM BAM BUM! who slaps too makes the slapped_own_call mistake, judged at once."""

    def slaps(state: bb.State) -> list[Say]:
        assert state.caller is not None
        return [Say(0.3, state.caller, "ship")]

    outcome, transcript, flow = host_bots(
        tmp_path, aiming(4, random.Random(3), until_race, slaps), options={"first_player": "Anna"}
    )
    call, mistake = of_type(flow, "bimbambum")[0], of_type(flow, "mistake")[0]
    assert mistake["reason"] == "slapped_own_call" and mistake["player"] == call["player"]
    assert f"Mistake, {call['player']}: no slapping on your own bim bam bum!" in transcript


def test_the_host_is_silent_during_a_slap_race(tmp_path: Path) -> None:
    """Nothing is said between a right BIM BAM BUM! and the race's verdict, and plays in the race are not applied."""

    def slaps(state: bb.State) -> list[Say]:
        assert state.caller is not None
        a, b = state.after(state.caller)
        return [Say(0.3, a, "one bim"), Say(0.6, a, "slap"), Say(1.0, b, "ship")]

    outcome, transcript, flow = host_bots(
        tmp_path, aiming(4, random.Random(3), until_race, slaps), options={"first_player": "Anna"}
    )
    call, first_slap = of_type(flow, "bimbambum")[0], of_type(flow, "slap")[0]
    spans = flow.host.mouth.service.spans(TABLE)
    race_end = of_type(flow, "slap")[-1]["onset"]
    assert not [s for s in spans if call["t"] < s.start < race_end + 0.5]
    assert kinds(flow)[kinds(flow).index("bimbambum") + 1] == "slap"  # the play in the race was ignored
    assert first_slap["onset"] > call["t"] - 1


def test_a_pause_during_a_slap_race_reopens_it_after_resume(tmp_path: Path) -> None:
    """Pause in a slap race: after resume the host calls for slaps again, the slap window opens anew
    and the race is judged."""
    calls: list[str] = []

    def slaps(state: bb.State) -> list[Say]:
        assert state.caller is not None and state.slap_opens is not None
        a, b = state.after(state.caller)
        calls.append(a)
        if len(calls) == 1:
            return [Say(0.2, a, "pause", keep=True), Say(30.0, a, "resume", keep=True)]
        now = flow_clock[0].now()
        wait = max(0.0, state.slap_opens - now)
        return [Say(wait + 0.3, b, "ship"), Say(wait + 0.7, a, "slap")]

    flow_clock: list[SimClock] = []
    bots = aiming(4, random.Random(3), until_race, slaps)

    def decide(flow: BimBamBumFlow, now: float) -> list[Say]:
        if not flow_clock:
            flow_clock.append(flow.host.clock)  # type: ignore[arg-type]
        return bots(flow, now)

    outcome, transcript, flow = host_bots(tmp_path, decide, options={"first_player": "Anna"})
    names = kinds(flow)
    i = names.index("bimbambum")
    assert names[i + 1 : i + 5] == ["resumed", "slap", "slap", "mistake"]
    resumed = flow.host.events[i + 1].to_json()
    assert all(e["onset"] >= resumed["t"] for e in of_type(flow, "slap"))
    assert of_type(flow, "mistake")[0]["player"] == calls[0] and of_type(flow, "mistake")[0]["reason"] == "last_to_slap"
    caller = of_type(flow, "bimbambum")[0]["player"]
    assert f"{caller} yelled bim bam bum. Everybody else, get ready: slap!" in transcript
    assert bb.replay(read_events(tmp_path / "game.jsonl")) == flow.state


# ---- commands, phrases, options, resume ---------------------------------------------------------


def test_voice_commands_answer_in_this_game(tmp_path: Path) -> None:
    """score, help, table, my card, repeat, slower, faster and pause/resume work (the commands also
    while paused); a play during the pause is not applied."""
    card = deal(1).top("Anna")
    assert card is not None
    lines = [
        (0.3, "Cem", "my card"),
        (0.6, "Anna", "pause"),
        (1, "Ben", "score"),
        (2, "Anna", "help"),
        (3, "Ben", "help"),
        (4, "Cem", "table"),
        (7, "Ben", "slower"),
        (8, "Ben", "faster"),
        (100, "Anna", f"one {card.value}"),
        (200, "Anna", "resume"),
        (202, "Anna", f"one {card.value}"),
        (204, "Ben", "quit"),
        (204.5, "Cem", "yes"),
    ]
    outcome, transcript, flow = host_bots(tmp_path, scripted(lines), options={"first_player": "Anna"})
    start = of_type(flow, "setup")[0]["t"]
    c = card.value
    assert "Cards left: Anna 18, Ben 18 and Cem 18." in transcript
    assert f"Anna, your card is {c}. Put it on pile one, two or three" in transcript
    assert "Ben, wait for your turn: it is Anna's." in transcript
    assert "Piles: one empty, two empty and three empty." in transcript
    assert f"Cem, your top card is {deal(1).top('Cem').value}." in transcript  # type: ignore[union-attr]
    assert "I will speak more slowly." in transcript and "I will speak faster." in transcript
    assert "Paused." in transcript and "The game is paused. Say resume to go on." in transcript
    plays = of_type(flow, "play")
    assert (
        len(plays) == 1 and plays[0]["onset"] == pytest.approx(start + 202) and plays[0]["ok"]
    )  # on time: the window reopened after the pause
    assert "resumed" in kinds(flow) and "mistake" not in kinds(flow)
    assert outcome.reason == "quit" and not of_type(flow, "game_over") and "The game stops here." in transcript
    assert bb.replay(read_events(tmp_path / "game.jsonl")) == flow.state


def test_repeat_says_the_last_announcement_again(tmp_path: Path) -> None:
    """'repeat' says the host's last table announcement once more (here the first card)."""
    card = deal(1).top("Anna")
    assert card is not None
    outcome, transcript, flow = host_bots(
        tmp_path, scripted([(0.5, "Ben", "repeat"), (5, "Ben", "quit")]), options={"first_player": "Anna"}
    )
    lines = [line for line in transcript.splitlines() if line.startswith("host: ")]
    assert lines[1] == lines[2] == f"host: Anna starts. Anna: {card.value}."


def test_quit_before_the_deal_ends_the_game(tmp_path: Path) -> None:
    """'quit' (confirmed by another player) while the host waits for the loudest shout stops the
    session without dealing."""
    outcome, transcript, flow = host_script(tmp_path, "1 Ben: quit\n2 Anna: yes\n")
    assert outcome.reason == "quit" and flow.state is None and not flow.host.events
    assert "Ben wants to stop the game." in transcript and "The game stops here." in transcript


def test_phrases_follow_the_phase() -> None:
    """The grammar offers the shout before the deal, pile-and-yell phrases on a turn, only slaps in
    a race; commands always."""
    from voicehost.host.session import Host

    flow = BimBamBumFlow(Host(clock=SimClock(), mouth=None, players=PLAYERS, rng=random.Random(1)), 1)  # type: ignore[arg-type]
    assert "bim bam bum" in flow.phrases() and "two bam bam" not in flow.phrases()
    flow.state = deal(1)
    on_turn = flow.phrases()
    assert {
        "one bim",
        "two bam bam",
        "three bum bum bum",
        "two bim bam bum",
        "bim bam bum",
        "ship",
        "slap",
        "repeat",
        "help",
        "quit",
    } <= set(on_turn)
    flow.state = bb.State(
        players=PLAYERS,
        decks=flow.state.decks,
        piles=((), (), ()),
        box=(),
        turn="Anna",
        phase=bb.Phase.SLAP,
        caller="Anna",
        slap_opens=0.0,
        slap_closes=2.0,
    )
    in_race = flow.phrases()
    assert {"ship", "slap", "score"} <= set(in_race) and "one bim" not in in_race
    assert flow.likely() == []


def test_a_lone_pile_is_never_listened_for_and_a_lone_yell_only_from_the_turn() -> None:
    """On a turn, a pile number alone is left out of every microphone and a yell alone out of the
    other players' (seat_grammar): whole plays (out of turn: the rulebook's mistake), slaps and
    commands stay. Nothing is left out before the deal or in a slap race, and typed lines keep
    the whole grammar."""
    from voicehost.host.session import Host, microphone_grammar, seat_grammar

    flow = BimBamBumFlow(Host(clock=SimClock(), mouth=None, players=PLAYERS, rng=random.Random(1)), 1)  # type: ignore[arg-type]
    assert seat_grammar(flow, PLAYERS) == {}
    flow.state = deal(1)
    turn = flow.state.turn
    seats = seat_grammar(flow, PLAYERS)
    assert set(seats) == set(PLAYERS)
    every = microphone_grammar(flow)
    for player, own in seats.items():
        yells = set() if player == turn else set(YELLS)
        assert set(every) - set(own) == {"one", "two", "three", *yells}
        assert {"two bam bam", "three bim bam bum", "ship", "slap", "repeat", "quit"} <= set(own)
        assert own == [p for p in every if p in own]
    assert {"bam", "bam bam", "bim bam bum"} <= set(seats[turn])
    assert "three" in every and "bam" in every
    flow.state = dataclasses.replace(flow.state, phase=bb.Phase.SLAP, caller=turn, slap_opens=0.0, slap_closes=2.0)
    assert seat_grammar(flow, PLAYERS) == {}


def test_the_microphones_listen_for_goodbye_only_once_the_game_is_over() -> None:
    """microphone_grammar: during the game no "bye"/"goodbye" (it would only earn "to stop the
    game, say quit"; typed lines keep it), and so no seat's grammar has it; once the game is over
    it is listened for (it ends the listening)."""
    from voicehost.host.session import GOODBYE_PHRASES, Host, grammar, microphone_grammar, seat_grammar

    flow = BimBamBumFlow(Host(clock=SimClock(), mouth=None, players=PLAYERS, rng=random.Random(1)), 1)  # type: ignore[arg-type]
    flow.state = deal(1)
    assert GOODBYE_PHRASES == {"bye", "goodbye", "good bye"}
    assert GOODBYE_PHRASES <= set(grammar(flow))
    assert not GOODBYE_PHRASES & set(microphone_grammar(flow))
    assert set(microphone_grammar(flow)) == set(grammar(flow)) - GOODBYE_PHRASES
    assert all(not GOODBYE_PHRASES & set(own) for own in seat_grammar(flow, PLAYERS).values())
    flow.state = dataclasses.replace(flow.state, phase=bb.Phase.OVER, winner="Anna")
    assert flow.over and GOODBYE_PHRASES <= set(microphone_grammar(flow))


def test_the_named_card_is_what_the_recogniser_expects_on_a_turn() -> None:
    """likely(): the yells of the player's top card (any count, any pile), and the call on a pile
    where it completes the three words."""
    from voicehost.host.session import Host
    from voicehost.rules.bimbambum.cards import Card

    flow = BimBamBumFlow(Host(clock=SimClock(), mouth=None, players=PLAYERS, rng=random.Random(1)), 1)  # type: ignore[arg-type]
    assert flow.likely() == []
    state = deal(1)
    card = state.top(state.turn)
    assert card is not None
    others = [c for c in Card if c is not card]
    flow.state = bb.State(
        players=PLAYERS, decks=state.decks, piles=((others[0],), (others[1],), ()), box=(), turn=state.turn
    )
    likely = flow.likely()
    word = card.value
    assert {
        word,
        f"{word} {word}",
        f"one {word} {word} {word}",
        f"three {word}",
        "bim bam bum",
        "three bim bam bum",
    } <= set(likely)
    assert "one bim bam bum" not in likely and not any(c.value in likely for c in others)
    assert set(likely) <= set(flow.phrases())


def test_options_become_settings_and_bad_ones_are_refused() -> None:
    """--window, --no-window, --slap-window and --first map to settings; both window options, an
    unknown name or 2 players are refused."""
    from voicehost.errors import InputError
    from voicehost.host.session import Host

    parser = argparse.ArgumentParser()
    flow_module.add_arguments(parser)
    assert flow_module.options_from_args(parser.parse_args(["--window", "4.5", "--slap-window", "1.5"])) == {
        "window": 4.5,
        "slap_window": 1.5,
    }
    with pytest.raises(SystemExit):
        parser.parse_args(["--window", "4", "--no-window"])
    host = Host(clock=SimClock(), mouth=None, players=PLAYERS, rng=random.Random(1))  # type: ignore[arg-type]
    assert flow_module.make_flow(host, 1, {"first_player": "BEN"}).settings.first_player == "Ben"
    with pytest.raises(InputError, match="Zed"):
        flow_module.make_flow(host, 1, {"first_player": "Zed"})
    with pytest.raises(InputError, match="time window"):
        flow_module.make_flow(host, 1, {"window": 0.0})
    two = Host(clock=SimClock(), mouth=None, players=("Anna", "Ben"), rng=random.Random(1))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="3 to 8 players"):
        flow_module.make_flow(two, 1, {})


def test_play_command_runs_the_game_from_a_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """'voicehost play bimbambum' with this game's options runs a scripted game and writes its log;
    a bad --first is one clear line."""
    from voicehost.cli import main

    card = deal(7).top("Ben")
    assert card is not None
    script = tmp_path / "game.txt"
    script.write_text(f"1 Ben: one {card.value}\n2 Cem: quit\n")
    log = tmp_path / "game.jsonl"
    status = main(
        [
            "play",
            "bimbambum",
            "--players",
            "Anna,Ben,Cem",
            "--input",
            f"script:{script}",
            "--seed",
            "7",
            "--first",
            "ben",
            "--slap-window",
            "1.5",
            "--log",
            str(log),
        ]
    )
    assert status == 0
    events = read_events(log)
    assert events[0]["state"]["slap_window"] == 1.5 and events[0]["state"]["turn"] == "Ben"
    assert [e for e in events if e["type"] == "play"][0]["ok"]
    status = main(
        [
            "play",
            "bimbambum",
            "--players",
            "Anna,Ben,Cem",
            "--input",
            f"script:{script}",
            "--first",
            "Zed",
            "--log",
            str(tmp_path / "bad.jsonl"),
        ]
    )
    err = capsys.readouterr().err
    assert status != 0 and "Zed" in err and len(err.strip().splitlines()) == 1


def test_a_stopped_game_resumes_from_its_log(tmp_path: Path) -> None:
    """A game whose input ended resumes from its log: the host welcomes back, the window reopens,
    and the whole log replays."""
    card = deal(1).top("Anna")
    assert card is not None
    outcome, transcript, flow = host_script(tmp_path, f"1 Anna: one {card.value}\n", options={"first_player": "Anna"})
    assert not outcome.finished
    log = tmp_path / "game.jsonl"
    events = read_events(log)
    state = bb.replay(events)
    second = state.turn
    top = state.top(second)
    assert top is not None
    resumed_script = tmp_path / "resume.txt"
    resumed_script.write_text(f"1 {second}: three {state.expected(2)}\n")  # times count from the resume
    base = PlaySettings("", (), f"script:{resumed_script}", 0, log, None, True, {})
    out = io.StringIO()
    result = run_session(settings_for_resume(events, log, base), resume=events, stdout=out)
    assert "Welcome back to Bim Bam Bum!" in out.getvalue()
    final = read_events(log)
    assert [e["type"] for e in final[len(events) :]][:3] == ["resumed", "turn", "play"]
    assert [e for e in final if e["type"] == "play"][-1]["ok"]
    assert not result.finished and not bb.replay(final).over  # the whole log, old and new, replays


def test_an_absent_player_is_asked_about_and_the_game_ends_instead_of_looping(tmp_path: Path) -> None:
    """Nobody answers (the player whose turn it is has left): after two missed windows the host
    asks whether they left, after four the game ends with a game-over event, long before the
    input gives up (before, "Time's up … New round" looped for ever)."""
    outcome, transcript, flow = run_offline("bimbambum", "Anna,Ben,Cem", seed=3, tmp=tmp_path, bot=lambda flow, now: [])
    events = read_events(tmp_path / "game.jsonl")
    assert events[-1]["type"] == "game_over", [e["type"] for e in events][-5:]
    first = flow.first  # type: ignore[attr-defined]
    assert f"{first} has missed two turns. If {first} has left the table, say: a player has left." in transcript
    assert (
        f"{first} has not played four times in a row: Bim Bam Bum! cannot go on without {first}'s cards" in transcript
    )
    assert sum(1 for e in events if e["type"] == "mistake" and e.get("reason") == "timeout") == 3, events


def test_a_player_who_left_ends_the_game_when_the_table_says_so(tmp_path: Path) -> None:
    """ "A player has left" (said by anyone, whole phrase) ends the game with the cards left; "I
    think Cem has left" is a stray sentence and changes nothing."""
    said: list[str] = []

    def bot(flow: object, now: float) -> list[tuple[float, str, str]]:
        state = getattr(flow, "state", None)
        if state is None or said:
            return []
        said.append("x")
        return [(0.5, "Anna", "i think cem has left"), (2.0, "Ben", "a player has left")]

    outcome, transcript, flow = run_offline("bimbambum", "Anna,Ben,Cem", seed=3, tmp=tmp_path, bot=bot)
    events = read_events(tmp_path / "game.jsonl")
    assert events[-1]["type"] == "game_over"
    assert "A player has left: Bim Bam Bum! cannot go on without their cards, so the game ends here." in transcript
    assert transcript.count("cannot go on without") == 1


def test_after_the_game_the_summary_can_be_asked_for_again_until_goodbye(tmp_path: Path) -> None:
    """The game is over, the host keeps listening: "summary" reads the closing summary again,
    "score" the cards left, "goodbye" ends the session at once."""
    asked: list[str] = []

    def bot(flow: object, now: float) -> list[tuple[float, str, str]]:
        if not getattr(flow, "over", False) or asked:
            return []
        asked.append("x")
        return [(1.0, "Ben", "summary"), (4.0, "Cem", "goodbye"), (6.0, "Anna", "summary")]

    outcome, transcript, flow = run_offline("bimbambum", "Anna,Ben,Cem", seed=3, tmp=tmp_path, bot=bot)
    closing = "The game is over. Cards left: Anna 18, Ben 18 and Cem 18."
    assert transcript.count(closing) == 2, transcript[-600:]
    assert transcript.rstrip().endswith("Goodbye, Cem. Thank you for playing!")
