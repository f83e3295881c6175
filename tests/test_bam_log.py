"""BAM! event log: replay equals live, resume appends to the same log, corrupt logs are refused; the simulator."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.conftest import run_voicehost
from tests.test_bam_rules import new_game, play_round
from voicehost.eventlog import EventLogWriter, read_events
from voicehost.rules.bam import BamGame, Phase, Submit, replay
from voicehost.sim.bam import NAMES, play_game
from voicehost.rules.base import Event, LogError
from voicehost.decks import load_decks

SPEC_FIELDS = {
    "setup": {"game", "players", "seed", "rounds_per_player", "state", "cards"},
    "round": {"master", "red", "blanks"},
    "submit": {"player", "cards"},
    "reading": {"order"},
    "best": {"player", "card"},
    "worst": {"player", "card"},
    "draw": {"player", "cards"},
    "reshuffle": {"cards", "deck"},
    "discard": {"cards"},
    "game_over": {"scores", "grey_won", "winners", "reason"},
    "resumed": set(),
}


def played_log(seed: int = 3, **options: object) -> tuple[BamGame, list[Event]]:
    """A complete game (with reshuffles: a small grey deck) and its events."""
    game, state, events = new_game(
        players=("Ann", "Bob", "Cid", "Dee"), grey=44, red=12, doubles=4, seed=seed, rounds_per_player=3, **options
    )
    while not game.over(state):
        state = play_round(game, state, best=2, worst=1, events=events)
    return game, events


def test_every_event_has_seq_t_type_and_the_documented_fields() -> None:
    """Each logged event carries seq (consecutive), t, type and the fields of its type."""
    _, events = played_log()
    objects = [e.to_json() for e in events]
    assert [o["seq"] for o in objects] == list(range(len(objects)))
    assert {o["type"] for o in objects} >= {
        "setup",
        "round",
        "submit",
        "reading",
        "best",
        "worst",
        "draw",
        "reshuffle",
        "discard",
        "game_over",
    }
    for obj in objects:
        assert SPEC_FIELDS[obj["type"]] <= obj.keys(), obj
        json.dumps(obj)


def test_replaying_a_log_reproduces_the_live_state(tmp_path: Path) -> None:
    """Writing the events as JSONL and replaying them gives exactly the live final state."""
    game, state, events = new_game(grey=45, red=10, doubles=3, seed=8, rounds_per_player=2)
    while not game.over(state):
        state = play_round(game, state, best=3, worst=2, events=events)
    path = tmp_path / "bam.jsonl"
    with EventLogWriter(path) as log:
        log.write(events)
    assert replay(read_events(path)) == state
    assert game.replay(read_events(path)) == state


def test_replay_of_a_partial_log_gives_the_state_at_that_point() -> None:
    """Every prefix of a log (after setup) replays to a coherent state with every card in one place."""
    _, events = played_log(seed=5)
    objects = [e.to_json() for e in events]
    for cut in range(1, len(objects) + 1):
        state = replay(objects[:cut])
        assert state.seq == cut
        grey = [
            *state.grey_deck,
            *state.discard,
            *state.table,
            *(c for h in state.hands.values() for c in h),
            *(c for w in state.won_grey.values() for c in w),
        ]
        assert len(grey) == len(set(grey)) == 44


def test_resume_appends_to_the_same_log_and_continues(tmp_path: Path) -> None:
    """A saved game resumes from its log: a 'resumed' event, seq and t continue, replay matches live."""
    path = tmp_path / "bam.jsonl"
    game, state, events = new_game(seed=11, rounds_per_player=2)
    state = play_round(game, state, events=events)
    state, more = game.apply(state, Submit("Cid", state.hands["Cid"][: state.blanks], t=30.0))
    events += more
    with EventLogWriter(path) as log:
        log.write(events)

    saved = replay(read_events(path))
    assert saved == state and saved.phase is Phase.SUBMITTING and "Cid" not in saved.waiting_for
    resumed_game = BamGame(random.Random(saved.seed + saved.seq))
    state, marker = resumed_game.resume(saved, t=31.0)
    assert marker[0].to_json() == {"seq": len(events), "t": 31.0, "type": "resumed"}
    tail = list(marker)
    while not resumed_game.over(state):
        state = play_round(resumed_game, state, events=tail)
    with EventLogWriter(path) as log:
        log.write(tail)
    logged = read_events(path)
    assert [o["seq"] for o in logged] == list(range(len(logged)))
    assert replay(logged) == state


@pytest.mark.parametrize(
    "tamper, words",
    [
        (lambda log: log[0].update(game="bimbamm"), "not of BAM!"),
        (
            lambda log: next(o for o in log if o["type"] == "draw" and len(o["cards"]) > 1)["cards"].reverse(),
            "top of the draw pile",
        ),
        (lambda log: next(o for o in log if o["type"] == "submit").update(player="Ann"), "Master"),
        (lambda log: next(o for o in log if o["type"] == "best").update(card="g999"), "best card"),
        (lambda log: next(o for o in log if o["type"] == "round" and o["seq"] > 2).update(master="Ann"), "is next"),
        (lambda log: log[-1]["scores"].update(Ann=99), "scores"),
        (lambda log: log[3].update(seq=7), "expected seq"),
        (lambda log: log.insert(3, dict(log[2], seq=3)), "already submitted"),
        (lambda log: log[2].update(colour="red"), "unknown field"),
        (lambda log: log[1].pop("red"), "missing field"),
        (lambda log: log[1].update(type="dance"), "unknown event type"),
    ],
)
def test_a_corrupt_log_is_refused_with_the_event_that_broke(tamper: object, words: str) -> None:
    """Replay checks each event against the rules and names the seq and type of the first bad one."""
    _, events = played_log(seed=6)
    objects = [e.to_json() for e in events]
    tamper(objects)  # type: ignore[operator]
    with pytest.raises(LogError, match=words):
        replay(objects)


def test_the_simulator_plays_many_games_without_error() -> None:
    """Bots play 108 games at 3 to 20 players with illegal attempts; each game replays to its final state."""
    deck = load_decks(["base"])
    reasons = set()
    for i in range(108):  # 3 cycles of every (players, K) pair
        players = NAMES[: 3 + i % 18]
        result = play_game(players, deck, seed=i, rounds_per_player=1 + i % 4, mistake_rate=0.3)
        assert result.state.phase is Phase.OVER and result.state.result is not None
        reasons.add(result.state.result.reason)
        if i % 20 == 0:
            assert replay([e.to_json() for e in result.events]) == result.state
    assert reasons >= {"rounds_done", "red_cards_out"}


def test_simulate_bam_command_prints_a_summary_and_writes_logs(tmp_path: Path) -> None:
    """`voicehost simulate bam` plays seeded games, prints the summary and writes replayable logs."""
    argv = [
        "simulate",
        "bam",
        "--players",
        "5",
        "--games",
        "30",
        "--seed",
        "2",
        "--log-dir",
        str(tmp_path),
        "--check-replay",
        "--tag",
        "family",
    ]
    first = run_voicehost(*argv)
    assert first.returncode == 0, first.stderr
    assert "games: 30 (5 players)" in first.stdout and "games per second" in first.stdout
    logs = sorted(tmp_path.glob("bam-*.jsonl"))
    assert len(logs) == 30
    assert replay(read_events(logs[0])).phase is Phase.OVER
    second = run_voicehost(*argv)
    strip = [line for line in first.stdout.splitlines() if "per second" not in line]
    assert strip == [line for line in second.stdout.splitlines() if "per second" not in line]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--players", "2"], "--players must be 3 to 20"),
        (["--mistake-rate", "2"], "--mistake-rate"),
        (["--deck", "missing.toml"], "no such deck file"),
    ],
)
def test_simulate_bam_bad_options_give_one_line(argv: list[str], words: str) -> None:
    """Bad simulator options: one line naming the problem, exit status 2, no traceback."""
    result = run_voicehost("simulate", "bam", *argv)
    assert result.returncode == 2 and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
