"""``voicehost simulate bimbamm``: bots play complete games of Bim Bamm! at machine speed.

A driver around the pure engine (so it may use ``random`` and ``time``): every game gets its own
seed derived from ``--seed``, so the same command always plays the same games, and its own bot
RNG. Bots take random legal turns; in a race each holder of a racing animal shouts it (with a
random reaction time, and sometimes not at all), and every player may shout a wrong animal with
probability ``--mistake-rate``; outside races one player shouts by mistake with that probability
after a turn.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from voicehost.errors import InputError
from voicehost.eventlog import EventLogWriter
from voicehost.rules.base import Event
from voicehost.rules.bimbamm.actions import Action, Call, Quit, ResolveRace, Shout
from voicehost.rules.bimbamm.engine import apply, legal_actions, new_game
from voicehost.rules.bimbamm.state import MAX_PLAYERS, MIN_PLAYERS, Phase, State
from voicehost.rules.bimbamm.tiles import Animal, Tile, parse_tile_spec, parse_tile_toml
from voicehost.status import ExitStatus

HELP = "bots play Bim Bamm! (random legal turns, random reaction times, some wrong shouts)"
DESCRIPTION = """\
Bots play complete games of Bim Bamm! as fast as the machine allows and a summary is printed:
games, mean turns per game, win rate by seat, mistakes per game and games per second.

Bots flip random tiles or use the special tile at random. When a race opens, each player holding
that animal shouts it (most of the time) after a random reaction time of about a quarter to one
second; with probability --mistake-rate each player also shouts a wrong animal in a race, and
after a turn with no race one random player shouts by mistake with that probability. The same
--seed always plays the same games. --log-dir writes one JSON Lines event log per game
(bimbamm-00001.jsonl, ...), replayable like a real game's log. A game that reaches --max-turns
turns ends without a winner, reason "turn_limit" (with the default limit this happens when the
cards are stuck: with 8 players all 15 can end up as points with nobody holding one).

examples:
  voicehost simulate bimbamm --players 4 --games 10000 --seed 1
  voicehost simulate bimbamm --players 2 --games 100 --seed 7 --log-dir logs/ --mistake-rate 0.1
  voicehost simulate bimbamm --players 3 --games 50 --seed 2 --tiles my-tiles.toml
"""

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")
"""Bot names, in seating order."""

RACE_WINDOW = 1.5
"""Seconds the (simulated) host listens after a race opens."""

REACTION_MIN = 0.2
"""Fastest reaction to a five, seconds."""

SHOUT_CHANCE = 0.9
"""Chance that a player holding a racing animal notices and shouts in the window."""


class SimulationError(InputError):
    """The simulator's options cannot be used."""


@dataclass
class GameResult:
    """One finished game: its final state, every event, and counters for the summary."""

    seed: int
    state: State
    events: list[Event]
    turns: int = 0
    """Turn actions taken (flips and special-tile uses)."""
    mistakes: int = 0
    points: int = 0
    races: int = 0


@dataclass
class Summary:
    """Totals over all games."""

    players: int
    games: int = 0
    turns: int = 0
    mistakes: int = 0
    points: int = 0
    races: int = 0
    wins: list[int] = field(default_factory=list)
    """Wins by seat (index 0 = first seat)."""
    unfinished: int = 0
    """Games ended by the turn limit."""
    seconds: float = 0.0
    """Wall-clock seconds the simulation took."""

    def lines(self) -> list[str]:
        """The printed summary."""
        games = max(self.games, 1)
        seats = "  ".join(f"{i + 1}: {100 * w / games:.1f}%" for i, w in enumerate(self.wins))
        return [
            f"games: {self.games} ({self.players} players)",
            f"mean turns per game: {self.turns / games:.1f}",
            f"win rate by seat: {seats}" + (f"  (turn limit: {100 * self.unfinished / games:.1f}%)"
                                            if self.unfinished else ""),
            f"mistakes per game: {self.mistakes / games:.2f}",
            f"points per game: {self.points / games:.2f}, races per game: {self.races / games:.2f}",
            f"games per second: {self.games / max(self.seconds, 1e-9):.0f} ({self.seconds:.1f} s)",
        ]


def play_game(players: Sequence[str], seed: int, mistake_rate: float = 0.05,
              tiles: Sequence[Tile] | None = None, max_turns: int = 2000) -> GameResult:
    """Play one complete game with bots; the result holds every event for the log."""
    bots = random.Random(f"bots:{seed}")
    state, events = new_game(players, random.Random(seed), seed, tiles=tiles,
                             first_player=bots.choice(list(players)))
    result = GameResult(seed, state, list(events))
    ms = 0
    while not state.over:
        ms += _pause(bots, state)
        action = _choose(bots, state, ms, mistake_rate, result, max_turns)
        state, produced = apply(state, action)
        result.events.extend(produced)
        _count(result, produced)
        if state.phase is Phase.TURN and not any(e.TYPE == "race" for e in produced):
            state = _stray_shout(bots, state, ms, mistake_rate, result)
    result.state = state
    return result


def _pause(bots: random.Random, state: State) -> int:
    """Milliseconds before the next action: thinking time, or the race window."""
    if state.phase is Phase.RACE:
        return int(RACE_WINDOW * 1000)
    return bots.randrange(600, 3000)


def _choose(bots: random.Random, state: State, ms: int, mistake_rate: float, result: GameResult,
            max_turns: int) -> Action:
    """The bots' next action at ``ms`` milliseconds."""
    t = ms / 1000
    if state.phase is Phase.RACE:
        return ResolveRace(t, _race_shouts(bots, state, t - RACE_WINDOW, mistake_rate))
    if state.phase is Phase.TURN:
        if result.turns >= max_turns:
            return Quit(t, None, "turn_limit")
        result.turns += 1
    return bots.choice(legal_actions(state, t))


def _race_shouts(bots: random.Random, state: State, opened: float, mistake_rate: float) -> tuple[Call, ...]:
    """Shouts heard in the window: holders of racing animals, and some wrong shouts."""
    calls = []
    for player, card in zip(state.players, state.hands):
        if card in state.race and bots.random() < SHOUT_CHANCE:
            reaction = REACTION_MIN + bots.gammavariate(2.0, 0.15)
            if reaction < RACE_WINDOW:
                calls.append(Call(player, card, round(opened + reaction, 3)))
        if bots.random() < mistake_rate:
            wrong = [a for a in Animal if not (a in state.race and a is card)]
            calls.append(Call(player, bots.choice(wrong), round(opened + bots.uniform(0.1, RACE_WINDOW), 3)))
    return tuple(calls)


def _stray_shout(bots: random.Random, state: State, ms: int, mistake_rate: float, result: GameResult) -> State:
    """With probability ``mistake_rate``, one player shouts an animal while no race is open."""
    if bots.random() >= mistake_rate:
        return state
    t = ms / 1000
    action = Shout(t, bots.choice(state.players), bots.choice(list(Animal)), t)
    state, produced = apply(state, action)
    result.events.extend(produced)
    _count(result, produced)
    return state


def _count(result: GameResult, produced: list[Event]) -> None:
    """Tally mistakes, points and races."""
    for event in produced:
        if event.TYPE == "mistake":
            result.mistakes += 1
        elif event.TYPE == "point":
            result.points += 1
        elif event.TYPE == "race":
            result.races += 1


def simulate(players: int, games: int, seed: int, mistake_rate: float = 0.05, log_dir: Path | None = None,
             tiles: Sequence[Tile] | None = None, max_turns: int = 2000,
             progress: Callable[[int], None] | None = None,
             keep: Callable[[GameResult], None] | None = None) -> Summary:
    """Play ``games`` games and total them; ``keep`` sees each game's result (tests use it)."""
    names = NAMES[:players]
    summary = Summary(players, wins=[0] * players)
    master = random.Random(seed)
    start = time.perf_counter()
    for number in range(1, games + 1):
        result = play_game(names, master.randrange(2**31), mistake_rate, tiles, max_turns)
        _add(summary, result, names)
        if log_dir is not None:
            _write_log(log_dir / f"bimbamm-{number:05d}.jsonl", result.events)
        if keep is not None:
            keep(result)
        if progress is not None:
            progress(number)
    summary.seconds = time.perf_counter() - start
    return summary


def _add(summary: Summary, result: GameResult, names: Sequence[str]) -> None:
    """Add one game to the totals."""
    summary.games += 1
    summary.turns += result.turns
    summary.mistakes += result.mistakes
    summary.points += result.points
    summary.races += result.races
    if result.state.winner is None:
        summary.unfinished += 1
    else:
        summary.wins[names.index(result.state.winner)] += 1


def _write_log(path: Path, events: list[Event]) -> None:
    """One game's JSON Lines log (replacing an older file of the same name)."""
    path.unlink(missing_ok=True)
    with EventLogWriter(path) as writer:
        writer.write(events)


# -- command line -----------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The simulator's options."""
    parser.add_argument("--players", type=int, default=4, metavar="N",
                        help=f"players at the table, {MIN_PLAYERS} to {MAX_PLAYERS} (default 4)")
    parser.add_argument("--games", type=int, default=1000, metavar="G", help="games to play (default 1000)")
    parser.add_argument("--seed", type=int, default=1, metavar="S",
                        help="seed: the same seed plays the same games (default 1)")
    parser.add_argument("--log-dir", type=Path, metavar="DIR", help="write one JSON Lines event log per game here")
    parser.add_argument("--mistake-rate", type=float, default=0.05, metavar="P",
                        help="chance of a wrong shout per player per race, and per turn (default 0.05)")
    parser.add_argument("--max-turns", type=int, default=2000, metavar="N",
                        help="end a game without winner after this many turns (default 2000)")
    parser.add_argument("--tiles", metavar="SPEC|FILE.toml",
                        help="your own tile set: 15 white/black pairs like 'cat/dog,dog/pig,...' or a TOML "
                             "file of [[tile]] tables with white and black (default: a seeded arrangement)")


def run(args: argparse.Namespace) -> int:
    """Check the options, simulate, print the summary."""
    _check(args)
    tiles = _load_tiles(args.tiles) if args.tiles else None
    if args.log_dir is not None:
        try:
            args.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SimulationError(f"cannot create the log folder {args.log_dir}: {error.strerror}") from error
    progress = _progress_printer(args.games) if sys.stderr.isatty() else None
    summary = simulate(args.players, args.games, args.seed, args.mistake_rate, args.log_dir, tiles,
                       args.max_turns, progress)
    print("\n".join(["bimbamm simulation, seed " + str(args.seed), *summary.lines()]))
    if args.log_dir is not None:
        print(f"logs: {args.games} files in {args.log_dir}")
    return ExitStatus.OK


def _check(args: argparse.Namespace) -> None:
    """Options in range, or one clear line."""
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise SimulationError(f"--players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {args.players}")
    if args.games < 1:
        raise SimulationError(f"--games must be at least 1, not {args.games}")
    if not 0.0 <= args.mistake_rate <= 1.0:
        raise SimulationError(f"--mistake-rate must be between 0 and 1, not {args.mistake_rate}")
    if args.max_turns < 1:
        raise SimulationError(f"--max-turns must be at least 1, not {args.max_turns}")


def _load_tiles(value: str) -> tuple[Tile, ...]:
    """A tile set from a TOML file (if ``value`` names one) or from a spec string."""
    path = Path(value)
    if value.endswith(".toml") or path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise SimulationError(f"cannot read tile file {path}: {error}") from error
        return parse_tile_toml(text, str(path))
    return parse_tile_spec(value, "--tiles")


def _progress_printer(total: int) -> Callable[[int], None]:
    """Rewrite one stderr line about every 2% of the games."""
    step = max(total // 50, 1)

    def show(done: int) -> None:
        if done % step == 0 or done == total:
            end = "\n" if done == total else ""
            print(f"\rsimulated {done}/{total} games", end=end, file=sys.stderr, flush=True)

    return show
