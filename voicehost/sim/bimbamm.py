"""The Bim Bamm! bots of ``voicehost simulate bimbamm`` (the driver is :mod:`voicehost.sim`).

Every game's seed comes from the driver; the deal uses ``Random(seed)``, the bots
``Random("bots:SEED")`` and a table-cards deal ``Random("cards:SEED")``. Bots take random legal
turns; in a race each holder of a racing animal shouts it (with a random reaction time, and
sometimes not at all), and every player may shout a wrong animal with probability
``--mistake-rate``; outside races one player shouts by mistake with that probability after a turn.

With ``--cards table`` the engine knows no card: the simulator deals the bots "physical" cards
(:class:`TableCards`, kept apart from the engine's state), bots shout by the card they hold, and the
simulated table catches every false claim: the host submits a Challenge when a scorer's card is not
the animal, and for a would-be third point it asks first and passes the claim as refuted.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from voicehost import sim as driver
from voicehost.errors import InputError
from voicehost.rules.base import Event
from voicehost.rules.bimbamm.actions import Action, Call, Challenge, Quit, Refuted, ResolveRace, Shout
from voicehost.rules.bimbamm.engine import (
    GAME_NAME,
    cards_mode,
    apply,
    legal_actions,
    new_game,
    next_claim,
    would_score,
)
from voicehost.rules.bimbamm.events import ExchangeEvent, MistakeEvent, PointEvent, SwapEvent
from voicehost.rules.bimbamm.state import MAX_PLAYERS, MIN_PLAYERS, WINNING_POINTS, Cards, Phase, State  # noqa: F401  (the driver reads the limits here)
from voicehost.rules.bimbamm.tiles import COPIES, Animal, Tile, parse_tile_spec, parse_tile_toml

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
            f"win rate by seat: {seats}"
            + (f"  (turn limit: {100 * self.unfinished / games:.1f}%)" if self.unfinished else ""),
            f"mistakes per game: {self.mistakes / games:.2f}",
            f"points per game: {self.points / games:.2f}, races per game: {self.races / games:.2f}",
            *table,
            f"games per second: {self.games / max(self.seconds, 1e-9):.0f} ({self.seconds:.1f} s)",
        ]


def play_game(
    players: Sequence[str],
    seed: int,
    mistake_rate: float = 0.05,
    tiles: Sequence[Tile] | None = None,
    max_turns: int = 2000,
    cards: Cards | str = Cards.DEALT,
    variant2p: bool | None = None,
) -> GameResult:
    """Play one complete game with bots; the result holds every event for the log. ``cards``:
    a :class:`Cards` or its value ("dealt", "table"; anything else is a SetupError)."""
    cards = cards_mode(cards)
    bots = random.Random(f"bots:{seed}")
    chosen = bots.choice(list(players))
    table = TableCards.deal(players, random.Random(f"cards:{seed}")) if cards is Cards.TABLE else None
    first = (table.first_player() or chosen) if table is not None else chosen
    state, events = new_game(
        players, random.Random(seed), seed, tiles=tiles, first_player=first, cards=cards, variant2p=variant2p
    )
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
        state, more = apply(state, Challenge(table.false_claim, _refuse_false_next(state, table), t=action.t))
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


def _choose(
    bots: random.Random, state: State, ms: int, mistake_rate: float, result: GameResult, max_turns: int
) -> Action:
    """The bots' next action at ``ms`` milliseconds."""
    t = ms / 1000
    if state.phase is Phase.RACE:
        hands = tuple(result.table.hands) if result.table is not None else state.hands
        calls = _race_shouts(bots, state, hands, t - RACE_WINDOW, mistake_rate)
        return ResolveRace(calls, _refuse_false_wins(state, calls, result.table), t=t)
    if state.phase is Phase.TURN:
        if result.turns >= max_turns:
            return Quit(reason="turn_limit", t=t)
        result.turns += 1
    return bots.choice(legal_actions(state, t))


def _race_shouts(
    bots: random.Random, state: State, hands: Sequence[Animal | None], opened: float, mistake_rate: float
) -> tuple[Call, ...]:
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
    return _apply(state, Shout(bots.choice(state.players), bots.choice(list(Animal)), onset=t, t=t), result)[0]


def _count(result: GameResult, produced: list[Event]) -> None:
    """Tally mistakes, points and races."""
    for event in produced:
        if event.TYPE == "mistake":
            result.mistakes += 1
        elif event.TYPE == "point":
            result.points += 1
        elif event.TYPE == "race":
            result.races += 1


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


# -- the driver's interface ------------------------------------------------------------------

DEFAULTS = {"players": 4, "games": 1000, "mistake_rate": 0.05}


@dataclass
class BimBammSimulation:
    """Bim Bamm! bots for the driver: one settings set, the running totals."""

    names: tuple[str, ...]
    mistake_rate: float
    tiles: Sequence[Tile] | None = None
    max_turns: int = 2000
    cards: Cards = Cards.DEALT
    variant2p: bool | None = None
    title: str = ""
    """The summary's first line (the command line's simulation and seed)."""
    summary: Summary = field(default_factory=lambda: Summary(0))

    def __post_init__(self) -> None:
        self.summary = Summary(len(self.names), wins=[0] * len(self.names), cards=self.cards)

    def play(self, seed: int) -> GameResult:
        """One complete game from ``seed``."""
        return play_game(self.names, seed, self.mistake_rate, self.tiles, self.max_turns, self.cards, self.variant2p)

    def add(self, number: int, seed: int, played: GameResult) -> None:
        """Count one game."""
        _add(self.summary, played, self.names)

    def lines(self, seconds: float) -> list[str]:
        """The printed summary."""
        self.summary.seconds = seconds
        return [self.title, *self.summary.lines()] if self.title else self.summary.lines()


def simulate(
    players: int,
    games: int,
    seed: int,
    mistake_rate: float = 0.05,
    log_dir: Path | None = None,
    tiles: Sequence[Tile] | None = None,
    max_turns: int = 2000,
    keep: Callable[[GameResult], None] | None = None,
    cards: Cards = Cards.DEALT,
    variant2p: bool | None = None,
) -> Summary:
    """Play ``games`` games through the driver and total them; ``keep`` sees each game's result (tests use it)."""
    simulation = BimBammSimulation(NAMES[:players], mistake_rate, tiles, max_turns, cards, variant2p)
    options = driver.Options(players, games, seed, mistake_rate, log_dir)
    simulation.summary.seconds = driver.simulate(simulation, GAME_NAME, options, keep=keep)  # type: ignore[arg-type]
    return simulation.summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Bim Bamm!'s own simulator options."""
    parser.add_argument(
        "--max-turns",
        type=int,
        default=2000,
        metavar="N",
        help="end a game without winner after this many turns (default 2000)",
    )
    parser.add_argument(
        "--tiles",
        metavar="SPEC|FILE.toml",
        help="your own tile set: 15 white/black pairs like 'cat/dog,dog/pig,...' or a TOML "
        "file of [[tile]] tables with white and black (default: a seeded arrangement)",
    )
    parser.add_argument(
        "--cards",
        choices=[c.value for c in Cards],
        default=Cards.DEALT.value,
        help="dealt: the host deals and knows every card (default); table: players hold "
        "physical cards the host never sees, and the table catches false claims",
    )
    parser.add_argument(
        "--no-2p-variant",
        dest="variant2p",
        action="store_false",
        default=None,
        help="with 2 players, play without the 2-player rule (on by default)",
    )


def prepare(options: driver.Options, args: argparse.Namespace) -> BimBammSimulation:
    """Check Bim Bamm!'s own options; the bots for this run."""
    if args.max_turns < 1:
        raise InputError(f"--max-turns must be at least 1, not {args.max_turns}")
    tiles = _load_tiles(args.tiles) if args.tiles else None
    return BimBammSimulation(
        NAMES[: options.players],
        options.mistake_rate,
        tiles,
        args.max_turns,
        Cards(args.cards),
        args.variant2p,
        title=f"bimbamm simulation, seed {options.seed}",
    )


def _load_tiles(value: str) -> tuple[Tile, ...]:
    """A tile set from a TOML file (if ``value`` names one) or from a spec string."""
    path = Path(value)
    if value.endswith(".toml") or path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"cannot read tile file {path}: {error}") from error
        return parse_tile_toml(text, str(path))
    return parse_tile_spec(value, "--tiles")
