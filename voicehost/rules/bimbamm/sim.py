"""``voicehost simulate bimbamm``: bots play complete games of Bim Bamm! at machine speed.

A driver around the pure engine (so it may use ``random`` and ``time``): every game gets its own
seed derived from ``--seed``, so the same command always plays the same games, and its own bot
RNG. Bots take random legal turns; in a race each holder of a racing animal shouts it (with a
random reaction time, and sometimes not at all), and every player may shout a wrong animal with
probability ``--mistake-rate``; outside races one player shouts by mistake with that probability
after a turn.

With ``--cards table`` the engine knows no card: the simulator deals the bots "physical" cards
(:class:`TableCards`, kept apart from the engine's state), bots shout by the card they hold, and the
simulated table catches every false claim: the host submits a Challenge when a scorer's card is not
the animal, and for a would-be third point it asks first and passes the claim as refuted.
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
from voicehost.rules.bimbamm.actions import Action, Call, Challenge, Quit, Refuted, ResolveRace, Shout
from voicehost.rules.bimbamm.engine import apply, legal_actions, new_game, next_claim, would_score
from voicehost.rules.bimbamm.events import ExchangeEvent, MistakeEvent, PointEvent, SwapEvent
from voicehost.rules.bimbamm.state import MAX_PLAYERS, MIN_PLAYERS, WINNING_POINTS, Cards, Phase, State
from voicehost.rules.bimbamm.tiles import COPIES, Animal, Tile, parse_tile_spec, parse_tile_toml
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

--cards table plays the table-cards mode, as when nobody has a private earphone: the bots hold
physical cards that the host never learns, the host trusts the first shouter of a raced animal,
and the table catches every false claim (a challenge, or for a winning claim a refusal before the
race closes). The summary then also gives challenges per game.

examples:
  voicehost simulate bimbamm --players 4 --games 10000 --seed 1
  voicehost simulate bimbamm --players 2 --games 100 --seed 7 --log-dir logs/ --mistake-rate 0.1
  voicehost simulate bimbamm --players 3 --games 50 --seed 2 --tiles my-tiles.toml
  voicehost simulate bimbamm --players 5 --games 1000 --seed 3 --cards table
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
class TableCards:
    """The physical cards of a table-cards game, which only the simulated players see.

    It follows the engine's events as players would with real cards; a claim that turns out false
    takes nothing (the table catches it before the card is laid down).
    """

    players: tuple[str, ...]
    hands: list[Animal | None]
    deck: list[Animal]
    """The face-down pile, top first."""
    points: list[list[Animal]]
    false_claim: str | None = None
    """Who just scored with an animal they do not hold (the table will challenge)."""

    @classmethod
    def deal(cls, players: Sequence[str], rng: random.Random) -> TableCards:
        """Shuffle the 15 cards and deal one to each player."""
        cards = [a for a in Animal for _ in range(COPIES)]
        rng.shuffle(cards)
        n = len(players)
        return cls(tuple(players), list(cards[:n]), cards[n:], [[] for _ in players])

    def first_player(self) -> str | None:
        """The first cat holder in seating order (what the host asks the table), if any."""
        return next((p for p, h in zip(self.players, self.hands) if h is Animal.CAT), None)

    def holds(self, player: str, animal: Animal) -> bool:
        """Whether a player's physical card is this animal."""
        return self.hands[self.players.index(player)] is animal

    def follow(self, event: Event) -> None:
        """Do with the physical cards what one logged event says happened."""
        if isinstance(event, PointEvent):
            seat = self.players.index(event.player)
            self.false_claim = None if self.hands[seat] is event.animal else event.player
            if self.false_claim is None:
                self.points[seat].append(event.animal)
                self.hands[seat] = self.deck.pop(0) if self.deck else None
        elif isinstance(event, MistakeEvent) and event.returned is not None:
            self.deck.append(self.points[self.players.index(event.player)].pop())
        elif isinstance(event, SwapEvent):
            seat = self.players.index(event.player)
            held = self.hands[seat]
            if held is not None:
                self.deck.append(held)
            self.hands[seat] = self.deck.pop(0) if self.deck else None
        elif isinstance(event, ExchangeEvent):
            seat, other = self.players.index(event.player), self.players.index(event.with_)
            self.hands[seat], self.hands[other] = self.hands[other], self.hands[seat]


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
    challenges: int = 0
    """False claims the table caught after the point (table cards)."""
    table: TableCards | None = None
    """The physical cards of a table-cards game (None for dealt cards)."""


@dataclass
class Summary:
    """Totals over all games."""

    players: int
    games: int = 0
    turns: int = 0
    mistakes: int = 0
    points: int = 0
    races: int = 0
    challenges: int = 0
    cards: Cards = Cards.DEALT
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
        table = [f"challenges per game: {self.challenges / games:.2f}"] if self.cards is Cards.TABLE else []
        return [
            f"games: {self.games} ({self.players} players{', table cards' if table else ''})",
            f"mean turns per game: {self.turns / games:.1f}",
            f"win rate by seat: {seats}" + (f"  (turn limit: {100 * self.unfinished / games:.1f}%)"
                                            if self.unfinished else ""),
            f"mistakes per game: {self.mistakes / games:.2f}",
            f"points per game: {self.points / games:.2f}, races per game: {self.races / games:.2f}",
            *table,
            f"games per second: {self.games / max(self.seconds, 1e-9):.0f} ({self.seconds:.1f} s)",
        ]


def play_game(players: Sequence[str], seed: int, mistake_rate: float = 0.05,
              tiles: Sequence[Tile] | None = None, max_turns: int = 2000,
              cards: Cards = Cards.DEALT, variant2p: bool | None = None) -> GameResult:
    """Play one complete game with bots; the result holds every event for the log."""
    bots = random.Random(f"bots:{seed}")
    chosen = bots.choice(list(players))
    table = TableCards.deal(players, random.Random(f"cards:{seed}")) if cards is Cards.TABLE else None
    first = (table.first_player() or chosen) if table is not None else chosen
    state, events = new_game(players, random.Random(seed), seed, tiles=tiles, first_player=first, cards=cards,
                             variant2p=variant2p)
    result = GameResult(seed, state, list(events), table=table)
    ms = 0
    while not state.over:
        ms += _pause(bots, state)
        action = _choose(bots, state, ms, mistake_rate, result, max_turns)
        state, produced = _apply(state, action, result)
        if state.phase is Phase.TURN and not any(e.TYPE == "race" for e in produced):
            state = _stray_shout(bots, state, ms, mistake_rate, result)
    result.state = state
    return result


def _apply(state: State, action: Action, result: GameResult) -> tuple[State, list[Event]]:
    """Apply an action, record its events; with table cards the table checks the scorer's card."""
    state, produced = apply(state, action)
    _record(result, produced)
    table = result.table
    while table is not None and table.false_claim is not None and state.phase is Phase.SCORER:
        result.challenges += 1
        state, more = apply(state, Challenge(action.t, table.false_claim, _refuse_false_next(state, table)))
        _record(result, more)
        produced = produced + more
    return state, produced


def _record(result: GameResult, produced: list[Event]) -> None:
    """Keep the events, count them, and move the physical cards along."""
    result.events.extend(produced)
    _count(result, produced)
    if result.table is not None:
        for event in produced:
            result.table.follow(event)


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
        hands = tuple(result.table.hands) if result.table is not None else state.hands
        calls = _race_shouts(bots, state, hands, t - RACE_WINDOW, mistake_rate)
        return ResolveRace(t, calls, _refuse_false_wins(state, calls, result.table))
    if state.phase is Phase.TURN:
        if result.turns >= max_turns:
            return Quit(t, None, "turn_limit")
        result.turns += 1
    return bots.choice(legal_actions(state, t))


def _race_shouts(bots: random.Random, state: State, hands: Sequence[Animal | None], opened: float,
                 mistake_rate: float) -> tuple[Call, ...]:
    """Shouts heard in the window: holders of racing animals, and some wrong shouts."""
    calls = []
    for player, card in zip(state.players, hands):
        if card in state.race and bots.random() < SHOUT_CHANCE:
            reaction = REACTION_MIN + bots.gammavariate(2.0, 0.15)
            if reaction < RACE_WINDOW:
                calls.append(Call(player, card, round(opened + reaction, 3)))
        if bots.random() < mistake_rate:
            wrong = [a for a in Animal if not (a in state.race and a is card)]
            calls.append(Call(player, bots.choice(wrong), round(opened + bots.uniform(0.1, RACE_WINDOW), 3)))
    return tuple(calls)


def _refuse_false_wins(state: State, calls: tuple[Call, ...], table: TableCards | None) -> tuple[Refuted, ...]:
    """Table cards: the host asks a would-be winner to show the card; the table refuses false ones."""
    refuted: list[Refuted] = []
    while table is not None:
        call = would_score(state, calls, refuted)
        if call is None or state.score(call.player) < WINNING_POINTS - 1 or table.holds(call.player, call.animal):
            break
        refuted.append(Refuted(call.player, call.animal))
    return tuple(refuted)


def _refuse_false_next(state: State, table: TableCards) -> tuple[Refuted, ...]:
    """Table cards, before a challenge: the host asks each would-be winner among the next claims."""
    refuted: list[Refuted] = []
    while True:
        claim = next_claim(state, refuted)
        if claim is None or state.score(claim.player) < WINNING_POINTS - 1 or table.holds(claim.player, claim.animal):
            return tuple(refuted)
        refuted.append(Refuted(claim.player, claim.animal))


def _stray_shout(bots: random.Random, state: State, ms: int, mistake_rate: float, result: GameResult) -> State:
    """With probability ``mistake_rate``, one player shouts an animal while no race is open."""
    if bots.random() >= mistake_rate:
        return state
    t = ms / 1000
    return _apply(state, Shout(t, bots.choice(state.players), bots.choice(list(Animal)), t), result)[0]


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
             keep: Callable[[GameResult], None] | None = None, cards: Cards = Cards.DEALT,
             variant2p: bool | None = None) -> Summary:
    """Play ``games`` games and total them; ``keep`` sees each game's result (tests use it)."""
    names = NAMES[:players]
    summary = Summary(players, wins=[0] * players, cards=cards)
    master = random.Random(seed)
    start = time.perf_counter()
    for number in range(1, games + 1):
        result = play_game(names, master.randrange(2**31), mistake_rate, tiles, max_turns, cards, variant2p)
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
    summary.challenges += result.challenges
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
    parser.add_argument("--cards", choices=[c.value for c in Cards], default=Cards.DEALT.value,
                        help="dealt: the host deals and knows every card (default); table: players hold "
                             "physical cards the host never sees, and the table catches false claims")
    parser.add_argument("--no-2p-variant", dest="variant2p", action="store_false", default=None,
                        help="with 2 players, play without the 2-player rule (on by default)")


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
                       args.max_turns, progress, cards=Cards(args.cards), variant2p=args.variant2p)
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
