"""``voicehost simulate bimbambum``: bots play complete games of Bim Bam Bum! at machine speed.

Bots put their top card on a random pile after a random reaction time and yell what the rules
ask, except that at every chance for a mistake they make it with the given rate: playing out of
turn, missing the time window (no play, or a late one), yelling the wrong words, not slapping in
a slap race, slapping on their own "BIM BAM BUM!". Games stopped by the turn cap are the ones
that might never end; they are counted and listed with their seeds.

This module is a driver, not rules: it may use ``random`` and ``time``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.errors import InputError, VoicehostError
from voicehost.rules.base import Event, IllegalAction
from voicehost.rules.bimbambum.actions import Action, Play, SlapRace, Timeout
from voicehost.rules.bimbambum.cards import CALL, MAX_PLAYERS, MIN_PLAYERS, Card, player_count_problem
from voicehost.rules.bimbambum.engine import apply, new_game
from voicehost.rules.bimbambum.events import EndReason, MistakeMade, RoundStarted
from voicehost.rules.bimbambum.state import PILES, Phase, Settings, State
from voicehost.status import ExitStatus

HELP = "Bim Bam Bum! bots with random piles, reaction times and mistakes"
DESCRIPTION = """\
Bots play complete games of Bim Bam Bum!: each puts the top card of their deck on a random pile
after a random reaction time and yells what the rules ask. At every chance for a mistake a bot
makes it with probability --mistake-rate: playing out of turn, missing the time window, yelling
the wrong words, not slapping after a "BIM BAM BUM!", slapping on its own call. A game still
running after --turn-cap turns is stopped and reported (it might never end). The summary gives
turns and rounds per game, win rate by seat counted from the first player, mistakes by reason,
and games per second. Same seed, same games.

examples:
  voicehost simulate bimbambum --players 5 --games 10000 --seed 7
  voicehost simulate bimbambum --players 8 --games 100 --seed 1 --mistake-rate 0.1 --log-dir logs/
  voicehost simulate bimbambum --players 3 --games 1000 --seed 2 --no-window
"""

PHRASES = tuple(" ".join([card.value] * n) for card in Card for n in (1, 2, 3)) + (CALL,)
"""Every phrase the rules can ask for; a wrong yell is one of the others."""
REACTION = (0.3, 0.9)
"""A play's voice onset after the window opens, as fractions of the window (3 s if none)."""
RECOGNITION = (0.15, 0.5)
"""Seconds from a voice onset to the action reaching the engine (the recogniser's delay)."""
SLAP_REACTION = (0.25, 1.5)
"""Seconds from the caller's voice onset to a slap."""
DEFAULT_TURN_CAP = 5000
PROGRESS_EVERY = 2.0
"""Seconds between progress lines on stderr."""


class SimulationError(VoicehostError):
    """A bot did something the rules reject: a bug in the simulator or the rules."""


@dataclass(frozen=True)
class SimSettings:
    """One simulation's choices."""

    players: int
    mistake_rate: float
    """Probability of each kind of mistake at each chance to make it."""
    rules: Settings


@dataclass
class Summary:
    """Totals over the simulated games."""

    players: int
    games: int = 0
    turns: int = 0
    rounds: int = 0
    max_turns: int = 0
    wins_by_seat: Counter[int] = field(default_factory=Counter)
    """Seat counted from the first player (0 = the first player)."""
    mistakes: Counter[str] = field(default_factory=Counter)
    endings: Counter[str] = field(default_factory=Counter)
    capped: list[tuple[int, int]] = field(default_factory=list)
    """(game number, seed) of games stopped by the turn cap."""
    seconds: float = 0.0

    def add(self, number: int, seed: int, state: State, events: list[Event]) -> None:
        """Count one finished game."""
        first = next(e.starter for e in events if isinstance(e, RoundStarted))
        self.games += 1
        self.turns += state.turns
        self.rounds += state.rounds
        self.max_turns = max(self.max_turns, state.turns)
        self.mistakes.update(e.reason.value for e in events if isinstance(e, MistakeMade))
        reason = getattr(events[-1], "reason", "?")
        self.endings[reason] += 1
        if state.winner is not None:
            self.wins_by_seat[(state.seat(state.winner) - state.seat(first)) % self.players] += 1
        if reason == EndReason.TURN_CAP:
            self.capped.append((number, seed))


def choose(state: State, rng: random.Random, rate: float) -> Action:
    """A bot table's next action for ``state`` (a play, a timeout or a slap race)."""
    if state.phase is Phase.SLAP:
        return _slaps(state, rng, rate)
    window = state.settings.window
    onset = state.window_opens + rng.uniform(*REACTION) * (window or 3.0)
    if rng.random() < rate:
        other = rng.choice([p for p in state.players if p != state.turn])
        early = rng.uniform(state.window_opens, onset)
        return Play(other, rng.randrange(PILES), rng.choice(PHRASES), early, early + rng.uniform(*RECOGNITION))
    closes = state.window_closes
    if closes is not None and rng.random() < rate:
        if rng.random() < 0.5:
            return Timeout(closes)
        onset = closes + rng.uniform(0.01, 1.0)
    pile = rng.randrange(PILES)
    said = state.expected(pile)
    if rng.random() < rate:
        said = rng.choice([p for p in PHRASES if p != said])
    return Play(state.turn, pile, said, onset, onset + rng.uniform(*RECOGNITION))


def _slaps(state: State, rng: random.Random, rate: float) -> SlapRace:
    """Each other player slaps after a reaction time unless they miss; the caller rarely slaps."""
    assert state.caller is not None and state.slap_opens is not None and state.slap_closes is not None
    slaps = [(p, state.slap_opens + rng.uniform(*SLAP_REACTION))
             for p in state.after(state.caller) if rng.random() >= rate]
    if rng.random() < rate:
        slaps.append((state.caller, state.slap_opens + rng.uniform(*SLAP_REACTION)))
    return SlapRace(tuple(slaps), state.slap_closes)


def play_game(seed: int, sim: SimSettings) -> tuple[State, list[Event]]:
    """One complete game from ``seed`` (deal, first player and every bot decision)."""
    rng = random.Random(seed)
    names = [f"P{i + 1}" for i in range(sim.players)]
    state, events = new_game(names, rng, seed, settings=sim.rules)
    while not state.over:
        action = choose(state, rng, sim.mistake_rate)
        try:
            state, more = apply(state, action)
        except IllegalAction as error:
            raise SimulationError(f"game seed {seed}: the rules reject the bots' {action}: {error}") from error
        events.extend(more)
    return state, events


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each game, drawn from the simulation's seed."""
    master = random.Random(seed)
    return [master.getrandbits(32) for _ in range(games)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The simulator's options."""
    parser.add_argument("--players", type=int, default=4, help="players at the table, 3 to 8 (default 4)")
    parser.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole simulation (default 0)")
    parser.add_argument("--log-dir", type=Path, help="write one JSONL event log per game into this folder "
                        "(bimbambum-00001.jsonl, …; files of the same name are replaced)")
    parser.add_argument("--mistake-rate", type=float, default=0.02, metavar="P",
                        help="chance of each kind of mistake at each chance to make it (default 0.02)")
    parser.add_argument("--window", type=float, default=3.0, metavar="SECONDS",
                        help="time window to play a card (default 3)")
    parser.add_argument("--no-window", action="store_true", help="the no-time-window variant")
    parser.add_argument("--slap-window", type=float, default=2.0, metavar="SECONDS",
                        help="time to slap after a BIM BAM BUM! (default 2)")
    parser.add_argument("--turn-cap", type=int, default=DEFAULT_TURN_CAP, metavar="TURNS",
                        help=f"stop a game after this many turns as endless (default {DEFAULT_TURN_CAP})")


def run(args: argparse.Namespace) -> int:
    """Simulate, print the summary, and return the exit status."""
    sim = _settings(args)
    if args.games < 1:
        raise InputError(f"--games must be at least 1, not {args.games}")
    summary = Summary(sim.players)
    began = last_report = time.monotonic()
    for number, seed in enumerate(game_seeds(args.seed, args.games), start=1):
        state, events = play_game(seed, sim)
        summary.add(number, seed, state, events)
        if args.log_dir is not None:
            _write_log(args.log_dir / f"bimbambum-{number:05d}.jsonl", events)
        now = time.monotonic()
        if now - last_report >= PROGRESS_EVERY:
            print(f"simulated {number}/{args.games} games…", file=sys.stderr, flush=True)
            last_report = now
    summary.seconds = time.monotonic() - began
    print(render(summary, sim, args.seed))
    return ExitStatus.OK


def _settings(args: argparse.Namespace) -> SimSettings:
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise InputError(f"--players: {player_count_problem(args.players)}")
    if not 0.0 <= args.mistake_rate <= 1.0:
        raise InputError(f"--mistake-rate is a probability from 0 to 1, not {args.mistake_rate}")
    rules = Settings(window=None if args.no_window else args.window, slap_window=args.slap_window,
                     turn_cap=args.turn_cap)
    return SimSettings(args.players, args.mistake_rate, rules)


def _write_log(path: Path, events: list[Event]) -> None:
    from voicehost.eventlog import EventLogWriter

    path.unlink(missing_ok=True)
    try:
        with EventLogWriter(path) as log:
            log.write(events)
    except OSError as error:
        raise InputError(f"cannot write the event log {path}: {error.strerror or error}") from error


def render(summary: Summary, sim: SimSettings, seed: int) -> str:
    """The printed summary."""
    n, rules = summary.games, sim.rules
    window = "none" if rules.window is None else f"{rules.window:g} s"
    seats = "  ".join(f"{k + 1}: {100 * summary.wins_by_seat[k] / n:.1f}%" for k in range(summary.players))
    mistakes = ", ".join(f"{reason} {count / n:.2f}" for reason, count in sorted(summary.mistakes.items()))
    endings = ", ".join(f"{reason} {count}" for reason, count in sorted(summary.endings.items()))
    lines = [
        f"Bim Bam Bum! simulation: {n} games, {summary.players} players, seed {seed}, "
        f"mistake rate {sim.mistake_rate:g}, window {window}, slap window {rules.slap_window:g} s, "
        f"turn cap {rules.turn_cap}",
        f"games ended by: {endings}",
        f"turns per game: mean {summary.turns / n:.1f}, max {summary.max_turns}; "
        f"rounds per game: mean {summary.rounds / n:.2f}",
        f"win rate by seat (1 = first player, then in turn order): {seats}",
        f"mistakes per game by reason: {mistakes or 'none'}",
    ]
    if summary.capped:
        listed = ", ".join(f"game {g} (seed {s})" for g, s in summary.capped[:10])
        more = f" and {len(summary.capped) - 10} more" if len(summary.capped) > 10 else ""
        lines.append(f"stopped by the turn cap, possibly endless: {len(summary.capped)} — {listed}{more}")
    else:
        lines.append("stopped by the turn cap, possibly endless: none")
    lines.append(f"speed: {n / max(summary.seconds, 1e-9):.1f} games/s ({summary.seconds:.2f} s)")
    return "\n".join(lines)
