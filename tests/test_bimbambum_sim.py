"""The Bim Bam Bum! simulator: complete bot games, their logs replayed, the summary, the turn cap."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from voicehost.eventlog import read_events
from voicehost.rules.bimbambum import replay
from voicehost import sim as driver
from voicehost.sim import bimbambum as sim
from voicehost.sim import game_seeds
from voicehost.sim.bimbambum import SimSettings, play_game


def options(**given: Any) -> argparse.Namespace:
    """The simulator's parsed options with ``given`` overrides, as the CLI would build them."""
    parser = argparse.ArgumentParser()
    driver.add_common_arguments(parser, sim)
    sim.add_arguments(parser)
    argv = []
    for key, value in given.items():
        flag = "--" + key.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return parser.parse_args(argv)


def summary_lines(text: str) -> list[str]:
    """The summary without the speed line (which depends on the machine)."""
    return [line for line in text.splitlines() if not line.startswith("speed:")]


@pytest.mark.parametrize("players, rate, window", [(3, 0.1, "3"), (5, 0.05, None), (8, 0.2, "1.5")])
def test_simulated_logs_replay_to_the_same_final_state(
    tmp_path: Path, players: int, rate: float, window: str | None
) -> None:
    """Every written log reads back and replays to the state the bots ended the game in."""
    args = options(
        players=players,
        games=25,
        seed=11,
        log_dir=tmp_path,
        mistake_rate=rate,
        **({"window": window} if window else {"no_window": True}),
    )
    assert sim.run(args) == 0
    settings = sim._settings(args)
    logs = sorted(tmp_path.glob("bimbambum-*.jsonl"))
    assert len(logs) == 25
    for log, seed in zip(logs, game_seeds(11, 25)):
        final, _ = play_game(seed, settings)
        assert replay(read_events(log)) == final, log.name


def test_simulate_command_prints_the_summary(voicehost_cli: Any) -> None:
    """`voicehost simulate bimbambum` prints games, turns, rounds, seats, mistakes and speed."""
    result = voicehost_cli(
        "simulate", "bimbambum", "--players", "5", "--games", "60", "--seed", "7", "--mistake-rate", "0.05"
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "60 games, 5 players, seed 7" in out
    for words in (
        "games ended by: last_card",
        "turns per game: mean",
        "rounds per game: mean",
        "win rate by seat (1 = first player",
        "5: ",
        "mistakes per game by reason:",
        "last_to_slap",
        "games/s",
    ):
        assert words in out


def test_same_seed_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    """A simulation is reproducible from its seed; another seed gives other games."""
    outputs = []
    for seed in (3, 3, 4):
        assert sim.run(options(players=4, games=40, seed=seed, mistake_rate=0.1)) == 0
        outputs.append(summary_lines(capsys.readouterr().out))
    assert outputs[0] == outputs[1] and outputs[0][1:] != outputs[2][1:]


def test_games_stopped_by_the_turn_cap_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A game still running at the cap ends with reason turn_cap and is listed with its seed."""
    assert sim.run(options(players=3, games=20, seed=5, mistake_rate=0.6, turn_cap=25, log_dir=tmp_path)) == 0
    out = capsys.readouterr().out
    assert "turn_cap" in out and "stopped by the turn cap, possibly endless: " in out
    capped = [log for log in sorted(tmp_path.glob("*.jsonl")) if read_events(log)[-1]["reason"] == "turn_cap"]
    assert capped and f"game {int(capped[0].stem.split('-')[1])} (seed " in out
    final = replay(read_events(capped[0]))
    assert final.over and final.winner is None and final.turns == 25


def test_mistake_rate_sets_how_often_bots_err() -> None:
    """With rate 0 the only mistakes are the unavoidable last slaps; with a rate, every kind appears."""
    clean = [play_game(seed, SimSettings(4, 0.0, sim.Settings(turn_cap=5000)))[1] for seed in range(20)]
    reasons = {e.to_json()["reason"] for events in clean for e in events if e.TYPE == "mistake"}
    assert reasons == {"last_to_slap"}
    sloppy = [play_game(seed, SimSettings(4, 0.2, sim.Settings(turn_cap=5000)))[1] for seed in range(20)]
    reasons = {e.to_json()["reason"] for events in sloppy for e in events if e.TYPE == "mistake"}
    assert reasons == {"out_of_turn", "timeout", "wrong_word", "slapped_own_call", "last_to_slap"}


@pytest.mark.parametrize(
    "flag, value, words",
    [
        ("--players", "2", "3 to 8"),
        ("--players", "9", "3 to 8"),
        ("--mistake-rate", "1.5", "probability"),
        ("--games", "0", "at least 1"),
    ],
)
def test_bad_options_give_one_clear_line(voicehost_cli: Any, flag: str, value: str, words: str) -> None:
    """Out-of-range options exit with status 2 and one line naming the option, no traceback."""
    result = voicehost_cli("simulate", "bimbambum", flag, value)
    assert result.returncode == 2
    assert words in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


SOAK_GAMES = 334
"""Games per table size here (2,004 in all, 10 s of one core); bench/bench_sim.py plays 10,000 per game."""


def test_two_thousand_games_run_without_error(capsys: pytest.CaptureFixture[str]) -> None:
    """2,004 games over every table size (3 to 8 players) finish without an engine error."""
    ended = 0
    for players in range(3, 9):
        assert sim.run(options(players=players, games=SOAK_GAMES, seed=players, mistake_rate=0.02)) == 0
        out = capsys.readouterr().out
        endings = out.split("games ended by: ")[1].splitlines()[0]
        ended += sum(int(part.split()[-1]) for part in endings.split(", "))
    assert ended == 6 * SOAK_GAMES
