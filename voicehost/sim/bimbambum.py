"""The Bim Bam Bum! bots of ``voicehost simulate bimbambum`` (the driver is :mod:`voicehost.sim`).

Bots put their top card on a random pile after a random reaction time and yell what the rules
ask, except that at every chance for a mistake they make it with the given rate: playing out of
turn, missing the time window (no play, or a late one), yelling the wrong words, not slapping in
a slap race, slapping on their own "BIM BAM BUM!". Games stopped by the turn cap are the ones
that might never end; they are counted and listed with their seeds.

Bots, not rules: this module may use ``random``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from dataclasses import dataclass, field

from voicehost import sim as driver
from voicehost.rules.base import Event, IllegalAction
from voicehost.rules.bimbambum.actions import Action, Play, SlapRace, Timeout
from voicehost.rules.bimbambum.cards import CALL, MAX_PLAYERS, MIN_PLAYERS, Card  # noqa: F401  (the driver reads the limits here)
from voicehost.rules.bimbambum.engine import apply, new_game
from voicehost.rules.bimbambum.events import GAME_NAME, EndReason, MistakeMade, RoundStarted
from voicehost.rules.bimbambum.state import PILES, Phase, Settings, State
from voicehost.sim import SimulationError, game_seeds  # noqa: F401  (re-exported for callers)

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
        return Play(other, rng.randrange(PILES), rng.choice(PHRASES), early, t=early + rng.uniform(*RECOGNITION))
    closes = state.window_closes
    if closes is not None and rng.random() < rate:
        if rng.random() < 0.5:
            return Timeout(t=closes)
        onset = closes + rng.uniform(0.01, 1.0)
    pile = rng.randrange(PILES)
    said = state.expected(pile)
    if rng.random() < rate:
        said = rng.choice([p for p in PHRASES if p != said])
    return Play(state.turn, pile, said, onset, t=onset + rng.uniform(*RECOGNITION))


def _slaps(state: State, rng: random.Random, rate: float) -> SlapRace:
    """Each other player slaps after a reaction time unless they miss; the caller rarely slaps."""
    assert state.caller is not None and state.slap_opens is not None and state.slap_closes is not None
    slaps = [
        (p, state.slap_opens + rng.uniform(*SLAP_REACTION)) for p in state.after(state.caller) if rng.random() >= rate
    ]
    if rng.random() < rate:
        slaps.append((state.caller, state.slap_opens + rng.uniform(*SLAP_REACTION)))
    return SlapRace(tuple(slaps), t=state.slap_closes)


def play_game(seed: int, sim: SimSettings) -> tuple[State, list[Event]]:
    """One complete game from ``seed``: the deal and first player from ``Random(seed)``, every bot
    decision from ``Random("bots:SEED")`` (the driver's one seed scheme)."""
    bots = random.Random(f"bots:{seed}")
    names = [f"P{i + 1}" for i in range(sim.players)]
    state, events = new_game(names, random.Random(seed), seed, settings=sim.rules)
    while not state.over:
        action = choose(state, bots, sim.mistake_rate)
        try:
            state, more = apply(state, action)
        except IllegalAction as error:
            raise SimulationError(f"game seed {seed}: the rules reject the bots' {action}: {error}") from error
        events.extend(more)
    return state, events


DEFAULTS = {"players": 4, "games": 1000, "mistake_rate": 0.02}


@dataclass
class BimBamBumSimulation:
    """Bim Bam Bum! bots for the driver: one settings set, the running totals."""

    sim: SimSettings
    seed: int = 0
    """The simulation's seed (for the summary's first line)."""
    summary: Summary = field(default_factory=lambda: Summary(0))

    def __post_init__(self) -> None:
        self.summary = Summary(self.sim.players)

    def play(self, seed: int) -> Played:
        """One complete game from ``seed``."""
        return Played(*play_game(seed, self.sim))

    def add(self, number: int, seed: int, played: Played) -> None:
        """Count one game."""
        self.summary.add(number, seed, played.state, played.events)

    def lines(self, seconds: float) -> list[str]:
        """The printed summary."""
        self.summary.seconds = seconds
        return render(self.summary, self.sim, self.seed).splitlines()


@dataclass
class Played:
    """One finished game: its final state and every event."""

    state: State
    events: list[Event]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Bim Bam Bum!'s own simulator options."""
    parser.add_argument(
        "--window", type=float, default=3.0, metavar="SECONDS", help="time window to play a card (default 3)"
    )
    parser.add_argument("--no-window", action="store_true", help="the no-time-window variant")
    parser.add_argument(
        "--slap-window",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="time to slap after a BIM BAM BUM! (default 2)",
    )
    parser.add_argument(
        "--turn-cap",
        type=int,
        default=DEFAULT_TURN_CAP,
        metavar="TURNS",
        help=f"stop a game after this many turns as endless (default {DEFAULT_TURN_CAP})",
    )


def prepare(options: driver.Options, args: argparse.Namespace) -> BimBamBumSimulation:
    """Check Bim Bam Bum!'s own options; the bots for this run."""
    return BimBamBumSimulation(_settings(args), options.seed)


def run(args: argparse.Namespace) -> int:
    """``voicehost simulate bimbambum`` through the driver (tests call it with parsed options)."""
    return driver.run(sys.modules[__name__], GAME_NAME, args)


def _settings(args: argparse.Namespace) -> SimSettings:
    rules = Settings(
        window=None if args.no_window else args.window, slap_window=args.slap_window, turn_cap=args.turn_cap
    )
    return SimSettings(args.players, args.mistake_rate, rules)


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
