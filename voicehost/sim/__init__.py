"""``voicehost simulate GAME``: one driver that lets bots play complete games at machine speed.

The driver owns everything the three games share: the common options (``--players``,
``--games``, ``--seed``, ``--mistake-rate``, ``--log-dir``), one seed scheme (game seeds drawn
from ``--seed``, see :func:`game_seeds`), one progress line, the log files, the timing and the
errors. Each game brings a bot module (``voicehost.sim.bimbamm`` …, named in the game registry)
that plays one game from a seed and counts what it wants to report:

- ``HELP``, ``DESCRIPTION``, ``DEFAULTS`` (players, games, mistake rate), ``MIN_PLAYERS``,
  ``MAX_PLAYERS``;
- ``add_arguments(parser)``: the game's own options;
- ``prepare(options, args) -> Simulation``: checks those options (InputError, status 2).

This package is a driver, not rules: it may use ``random`` and ``time``; the rules it drives may not.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable, Protocol, Sequence

from voicehost.errors import InputError, VoicehostError
from voicehost.rules.base import Event
from voicehost.status import ExitStatus


class SimulationError(VoicehostError, RuntimeError):
    """A bot did something the rules reject, the rules accepted what they must refuse, or a game did
    not replay to its final state: a bug in a bot or in the rules (status 1)."""


@dataclass(frozen=True)
class Options:
    """The options every game's simulation has."""

    players: int
    games: int
    seed: int
    mistake_rate: float
    """Probability of a bot's mistake at each chance to make one (each game says what that is)."""
    log_dir: Path | None = None
    """Write one JSON Lines event log per game here (GAME-00001.jsonl …)."""


class Played(Protocol):
    """One finished game, as a bot module returns it."""

    @property
    def events(self) -> Sequence[Event]: ...


class Simulation(Protocol):
    """One game's bots for one run of ``voicehost simulate``."""

    def play(self, seed: int) -> Played:
        """Play one complete game from ``seed`` (raise SimulationError if the rules reject the bots)."""

    def add(self, number: int, seed: int, played: Played) -> None:
        """Count game ``number`` for the summary."""

    def lines(self, seconds: float) -> list[str]:
        """The printed summary; ``seconds``: the wall-clock time all games took."""


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each game, drawn from the simulation's seed: the same seed plays the same games."""
    master = random.Random(seed)
    return [master.getrandbits(32) for _ in range(games)]


def add_common_arguments(parser: argparse.ArgumentParser, module: ModuleType) -> None:
    """The options every simulation has, with the game's defaults."""
    defaults = module.DEFAULTS
    parser.add_argument(
        "--players",
        type=int,
        default=defaults["players"],
        metavar="N",
        help=f"players at the table, {module.MIN_PLAYERS} to {module.MAX_PLAYERS} (default {defaults['players']})",
    )
    parser.add_argument(
        "--games", type=int, default=defaults["games"], metavar="G", help=f"games to play (default {defaults['games']})"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        metavar="S",
        help="seed of the whole simulation: the same seed plays the same games (default 1)",
    )
    parser.add_argument(
        "--mistake-rate",
        type=float,
        default=defaults["mistake_rate"],
        metavar="P",
        help=f"chance of a bot's mistake at each chance to make one (default {defaults['mistake_rate']})",
    )
    parser.add_argument(
        "--log-dir",
        type=Path,
        metavar="DIR",
        help="write one JSON Lines event log per game into this folder (GAME-00001.jsonl, …; "
        "files of the same name are replaced)",
    )


def check_options(args: argparse.Namespace, module: ModuleType) -> Options:
    """The common options in range, or one clear line (status 2)."""
    low, high = module.MIN_PLAYERS, module.MAX_PLAYERS
    if not low <= args.players <= high:
        raise InputError(f"--players must be {low} to {high}, not {args.players}")
    if args.games < 1:
        raise InputError(f"--games must be at least 1, not {args.games}")
    if not 0.0 <= args.mistake_rate <= 1.0:
        raise InputError(f"--mistake-rate must be between 0 and 1 (a probability), not {args.mistake_rate}")
    if args.log_dir is not None:
        try:
            args.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"--log-dir {args.log_dir}: cannot create the folder: {error.strerror or error}") from None
    return Options(args.players, args.games, args.seed, args.mistake_rate, args.log_dir)


def simulate(
    simulation: Simulation,
    game: str,
    options: Options,
    *,
    progress: Callable[[int, int], None] | None = None,
    keep: Callable[[Played], None] | None = None,
) -> float:
    """Play every game, count it, write its log; return the wall-clock seconds it took."""
    started = time.perf_counter()
    for number, seed in enumerate(game_seeds(options.seed, options.games), start=1):
        played = simulation.play(seed)
        simulation.add(number, seed, played)
        if options.log_dir is not None:
            write_log(options.log_dir / f"{game}-{number:05d}.jsonl", played.events)
        if keep is not None:
            keep(played)
        if progress is not None:
            progress(number, options.games)
    return time.perf_counter() - started


def write_log(path: Path, events: Sequence[Event]) -> None:
    """One game's JSON Lines log (replacing an older file of the same name)."""
    from voicehost.eventlog import EventLogWriter

    try:
        path.unlink(missing_ok=True)
        with EventLogWriter(path) as log:
            log.write(events)
    except OSError as error:
        raise InputError(f"cannot write the event log {path}: {error.strerror or error}") from error


def progress_line(every: float = 2.0) -> Callable[[int, int], None]:
    """Rewrite one line on stderr at most every ``every`` seconds (only on a terminal)."""
    last = [time.monotonic()]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] >= every:
            last[0] = now
            print(f"\rsimulated {done}/{total} games", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def run(module: ModuleType, game: str, args: argparse.Namespace) -> int:
    """``voicehost simulate GAME``: check the options, play, print the summary."""
    options = check_options(args, module)
    simulation = module.prepare(options, args)
    progress = progress_line() if sys.stderr.isatty() else None
    seconds = simulate(simulation, game, options, progress=progress)
    print("\n".join(simulation.lines(seconds)))
    if options.log_dir is not None:
        print(f"logs: {options.games} files in {options.log_dir}")
    return ExitStatus.OK
