"""The Bim Bamm! simulator: complete games, per-game logs that replay to the live state, the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_voicehost
from tests.test_bimbamm import LAYOUT
from voicehost.eventlog import read_events
from voicehost.rules.bimbamm import replay
from voicehost.sim.bimbamm import GameResult, play_game, simulate


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_simulated_logs_replay_to_the_same_final_state(players: int, tmp_path: Path) -> None:
    """Simulate with --log-dir, reload every log and replay it: the same final state as the live game."""
    results: list[GameResult] = []
    summary = simulate(players, 40, seed=players, mistake_rate=0.1, log_dir=tmp_path, keep=results.append)
    files = sorted(tmp_path.glob("bimbamm-*.jsonl"))
    assert summary.games == len(files) == len(results) == 40
    for path, result in zip(files, results):
        events = read_events(path)
        assert events[0]["seed"] == result.seed and events[-1]["type"] == "game_over"
        assert replay(events) == result.state


def test_the_same_seed_plays_the_same_games() -> None:
    """Every RNG is seeded: one seed, one sequence of games."""
    a = play_game(["Ann", "Bob", "Cid"], 5)
    b = play_game(["Ann", "Bob", "Cid"], 5)
    assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]
    assert [e.to_json() for e in a.events] != [e.to_json() for e in play_game(["Ann", "Bob", "Cid"], 6).events]


def test_simulated_games_end_with_a_winner_at_three_points() -> None:
    """Bots play to the end: each game has a winner with exactly 3 points (none hit the turn limit here)."""
    results: list[GameResult] = []
    summary = simulate(4, 60, seed=9, keep=results.append)
    assert summary.unfinished == 0 and sum(summary.wins) == 60
    for result in results:
        assert result.state.winner is not None and result.state.score(result.state.winner) == 3


def test_a_turn_limit_ends_a_game_without_winner() -> None:
    """--max-turns stops a game that goes on too long: game_over with reason turn_limit."""
    result = play_game(["Ann", "Bob"], 1, max_turns=3)
    last = result.events[-1].to_json()
    assert result.turns == 3 and last["type"] == "game_over" and last["reason"] == "turn_limit"
    assert last["winner"] is None


def test_mistake_rate_zero_gives_no_mistakes_and_one_gives_many() -> None:
    """--mistake-rate is the chance of wrong shouts: 0 gives none, 1 gives several per game."""
    assert simulate(3, 20, seed=2, mistake_rate=0.0).mistakes == 0
    assert simulate(3, 4, seed=2, mistake_rate=1.0).mistakes > 4 * 5


def test_simulate_command_prints_the_summary_and_writes_logs(tmp_path: Path) -> None:
    """`voicehost simulate bimbamm` prints games, turns per game, win rate by seat, mistakes, games/s."""
    result = run_voicehost(
        "simulate",
        "bimbamm",
        "--players",
        "3",
        "--games",
        "25",
        "--seed",
        "4",
        "--log-dir",
        str(tmp_path / "logs"),
        "--mistake-rate",
        "0.1",
    )
    assert result.returncode == 0, result.stderr
    for words in (
        "games: 25",
        "mean turns per game:",
        "win rate by seat: 1:",
        "3:",
        "mistakes per game:",
        "games per second:",
    ):
        assert words in result.stdout
    assert len(list((tmp_path / "logs").glob("*.jsonl"))) == 25


def test_simulate_command_takes_an_explicit_tile_file(tmp_path: Path) -> None:
    """--tiles FILE.toml plays with the owner's tile set, written into every setup event."""
    tiles = tmp_path / "tiles.toml"
    tiles.write_text("\n".join(f'[[tile]]\nwhite = "{t.white}"\nblack = "{t.black}"' for t in LAYOUT))
    result = run_voicehost("simulate", "bimbamm", "--games", "3", "--tiles", str(tiles), "--log-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    setup = read_events(tmp_path / "bimbamm-00001.jsonl")[0]
    assert [(t["white"], t["black"]) for t in setup["state"]["tiles"]] == [(t.white, t.black) for t in LAYOUT]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--players", "1"], "--players must be 2 to 8"),
        (["--players", "9"], "--players must be 2 to 8"),
        (["--games", "0"], "--games must be at least 1"),
        (["--mistake-rate", "1.5"], "--mistake-rate must be between 0 and 1"),
        (["--tiles", "cat/dog"], "expected 15 tiles"),
        (["--tiles", "missing.toml"], "cannot read tile file"),
        (["--players", "many"], "invalid int value"),
    ],
)
def test_simulate_command_bad_options_give_one_line_and_status_2(argv: list[str], words: str) -> None:
    """Bad simulator options: one clear line on stderr, exit status 2, no traceback."""
    result = run_voicehost("simulate", "bimbamm", *argv)
    assert result.returncode == 2 and words in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_simulate_command_takes_no_2p_variant(tmp_path: Path) -> None:
    """Ruling 5: `voicehost simulate bimbamm --players 2 --no-2p-variant` plays without the 2-player rule."""
    result = run_voicehost(
        "simulate", "bimbamm", "--players", "2", "--games", "3", "--no-2p-variant", "--log-dir", str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert all(read_events(log)[0]["state"]["variant2p"] is False for log in tmp_path.glob("*.jsonl"))


def test_cards_given_as_a_string_play_that_mode() -> None:
    """``cards="table"`` plays table cards (the string once quietly played dealt games), and an
    unknown mode is one SetupError, not a dealt game."""
    from voicehost.rules.bimbamm.engine import SetupError
    from voicehost.rules.bimbamm.state import Cards

    played = play_game(("Anna", "Ben", "Cleo"), seed=3, cards="table")
    assert played.state.cards is Cards.TABLE and played.table is not None
    with pytest.raises(SetupError, match="cards must be 'dealt' or 'table'"):
        play_game(("Anna", "Ben", "Cleo"), seed=3, cards="tabel")
