"""The BAM! bots of ``voicehost simulate bam`` (the driver is :mod:`voicehost.sim`).

Every game's seed comes from the driver; the engine's RNG is ``Random(seed)``, the bots'
``Random("bots:SEED")`` and a table-cards deal ``Random("cards:SEED")``.
Bots submit random legal cards after a random thinking time and the master judges at random; with
probability ``--mistake-rate`` before each action a bot first tries an illegal action, which the
engine must reject.

With ``--cards table`` the engine knows no hand: the simulator deals the bots printed grey cards
(:class:`PrintedCards`, kept apart from the engine's state), bots submit from them, and the
players' own draws and reshuffles follow the engine's counts.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from voicehost.decks.cards import Deck
from voicehost import sim as driver
from voicehost.errors import InputError
from voicehost.rules.base import Event, IllegalAction
from voicehost.rules.bam import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    BamGame,
    BamState,
    CardFace,
    CardId,
    CardMode,
    Discarded,
    Drew,
    Judge,
    Phase,
    Reshuffled,
    Submit,
    Submitted,
    replay,
)
from voicehost.sim import SimulationError

HELP = "bots play BAM! (random legal submissions, random judgements, some illegal attempts)"
DESCRIPTION = f"""\
Bots play complete games of BAM! as fast as the machine allows and a summary is printed: games,
mean rounds per game, win rate by seat (shared titles count for every winner), how games ended,
reshuffles, mistakes per game and games per second.

Every player except the master submits random cards from their hand after a random thinking time
of 3 to 20 seconds of game time; the master then picks a random best and a different random worst
submission. With probability --mistake-rate a bot first tries an illegal action (a card not in
its hand, the wrong number of cards, submitting twice or as master, judging too early, best =
worst, a submission that does not exist); the engine must reject each one. The same --seed always
plays the same games. --log-dir writes one JSON Lines event log per game (bam-00001.jsonl, ...),
replayable like a real game's log. {MIN_PLAYERS} to {MAX_PLAYERS} players.

--cards table plays the table-cards mode (no private earphones): the bots hold printed grey cards
the host never learns and submit them by number; their illegal attempts then include cards
already on the table, won or discarded, and numbers not in the deck.

examples:
  voicehost simulate bam --players 6 --games 10000 --seed 3
  voicehost simulate bam --players 4 --games 100 --seed 1 --rounds-per-player 3 --log-dir logs/
  voicehost simulate bam --players 5 --games 500 --seed 2 --deck base --deck my_cards.toml --tag family
  voicehost simulate bam --players 6 --games 1000 --seed 4 --cards table
"""

NAMES = (
    "Ann",
    "Bob",
    "Cid",
    "Dee",
    "Eve",
    "Fay",
    "Gus",
    "Hal",
    "Ida",
    "Jon",
    "Kim",
    "Lou",
    "Max",
    "Ned",
    "Oda",
    "Pam",
    "Quin",
    "Rex",
    "Sue",
    "Tom",
)
"""Bot names, in seating order."""

THINK = (3.0, 20.0)
"""Seconds of game time a bot takes to choose its cards."""

JUDGE_PER_SUBMISSION = (4.0, 10.0)
"""Seconds of game time the master spends on each submission before judging."""


@dataclass
class PrintedCards:
    """The printed grey cards of a table-cards game, which only the simulated players see.

    The players deal them, and follow the engine's events with them: a submission leaves the hand,
    the discarded cards go on the discard pile, a draw takes the logged count from the top of the
    pile, a reshuffle shuffles the discard pile (with the players' own RNG) into a new pile.
    """

    hands: dict[str, list[CardId]]
    pile: list[CardId]
    """Top first."""
    discard: list[CardId]
    rng: random.Random

    @classmethod
    def deal(cls, players: Sequence[str], grey: Sequence[CardId], hand_size: int, rng: random.Random) -> PrintedCards:
        """Shuffle the printed grey cards and deal ``hand_size`` to each player."""
        cards = list(grey)
        rng.shuffle(cards)
        hands = {p: cards[i * hand_size : (i + 1) * hand_size] for i, p in enumerate(players)}
        return cls(hands, cards[len(players) * hand_size :], [], rng)

    def follow(self, event: Event) -> None:
        """Do with the printed cards what one logged event says happened."""
        if isinstance(event, Submitted):
            self.hands[event.player] = [c for c in self.hands[event.player] if c not in event.cards]
        elif isinstance(event, Discarded):
            self.discard.extend(event.cards)
        elif isinstance(event, Drew) and event.count is not None:
            self.hands[event.player].extend(self.pile[: event.count])
            del self.pile[: event.count]
        elif isinstance(event, Reshuffled):
            self.pile, self.discard = self.discard, []
            self.rng.shuffle(self.pile)


@dataclass
class GameResult:
    """One finished game: its final state, every event, and counters for the summary."""

    seed: int
    state: BamState
    events: list[Event] = field(default_factory=list)
    mistakes: int = 0
    """Illegal actions tried (and rejected)."""
    printed: PrintedCards | None = None
    """The bots' printed cards in a table-cards game (None for dealt cards)."""


@dataclass
class Summary:
    """Totals over all games."""

    players: int
    card_mode: CardMode = CardMode.DEALT
    games: int = 0
    rounds: int = 0
    mistakes: int = 0
    reshuffles: int = 0
    shared: int = 0
    """Games whose title was shared."""
    wins: list[int] = field(default_factory=list)
    """Wins by seat (index 0 = first seat)."""
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    """Wall-clock seconds the simulation took."""

    def add(self, result: GameResult) -> None:
        state = result.state
        assert state.result is not None
        self.games += 1
        self.rounds += state.round
        self.mistakes += result.mistakes
        self.reshuffles += sum(e.TYPE == "reshuffle" for e in result.events)
        self.reasons[state.result.reason] += 1
        self.shared += len(state.result.winners) > 1
        for name in state.result.winners:
            self.wins[state.players.index(name)] += 1

    def lines(self) -> list[str]:
        """The printed summary."""
        games = max(self.games, 1)
        seats = "  ".join(f"{i + 1}: {100 * w / games:.1f}%" for i, w in enumerate(self.wins))
        reasons = ", ".join(f"{r} {100 * n / games:.1f}%" for r, n in self.reasons.most_common())
        return [
            f"games: {self.games} ({self.players} players"
            f"{', table cards' if self.card_mode is CardMode.TABLE else ''})",
            f"mean rounds per game: {self.rounds / games:.1f}",
            f"win rate by seat: {seats}",
            f"shared titles: {100 * self.shared / games:.1f}%",
            f"ended by: {reasons}",
            f"reshuffles per game: {self.reshuffles / games:.2f}",
            f"mistakes per game: {self.mistakes / games:.2f} (all rejected)",
            f"games per second: {self.games / max(self.seconds, 1e-9):.0f} ({self.seconds:.1f} s)",
        ]


def play_game(
    players: Sequence[str],
    deck: Deck | tuple[Sequence[CardFace], Sequence[CardFace]],
    seed: int,
    rounds_per_player: int = 1,
    mistake_rate: float = 0.05,
    card_mode: CardMode = CardMode.DEALT,
) -> GameResult:
    """Play one complete game with bots; the result holds every event for the log."""
    bots = random.Random(f"bots:{seed}")
    game = BamGame(random.Random(seed))
    red, grey = (deck.red, deck.grey) if isinstance(deck, Deck) else deck
    state, events = game.start(
        players,
        red,
        grey,
        seed=seed,
        rounds_per_player=rounds_per_player,
        first_master=bots.choice(list(players)),
        card_mode=card_mode,
    )
    printed = None
    if card_mode is CardMode.TABLE:
        printed = PrintedCards.deal(players, [c.id for c in grey], state.hand_size, random.Random(f"cards:{seed}"))
    result = GameResult(seed, state, list(events), printed=printed)
    t = 0.0
    while not game.over(state):
        if bots.random() < mistake_rate:
            _try_mistake(game, state, bots, t, printed)
            result.mistakes += 1
        t += _pause(bots, state)
        state, produced = game.apply(state, _choose(bots, state, t, printed.hands if printed else state.hands))
        result.events.extend(produced)
        if printed is not None:
            for event in produced:
                printed.follow(event)
    result.state = state
    return result


def _pause(bots: random.Random, state: BamState) -> float:
    """Game-clock seconds before the next action."""
    if state.phase is Phase.JUDGING:
        return sum(bots.uniform(*JUDGE_PER_SUBMISSION) for _ in state.reading)
    return bots.uniform(*THINK)


def _choose(bots: random.Random, state: BamState, t: float, hands: Mapping[str, Sequence[CardId]]) -> Action:
    """A random legal action: the next waiting player submits from ``hands``, or the master judges."""
    if state.phase is Phase.SUBMITTING:
        player = bots.choice(state.waiting_for)
        return Submit(player, tuple(bots.sample(list(hands[player]), state.blanks)), t=t)
    best, worst = bots.sample(range(1, len(state.reading) + 1), 2)
    return Judge(state.master, best, worst, keep=bots.randint(1, state.blanks), t=t)


def _mistakes(bots: random.Random, state: BamState, t: float) -> list[Action]:
    """Illegal actions that fit the moment."""
    n, blanks = len(state.reading), state.blanks
    others = [p for p in state.players if p != state.master]
    options: list[Action] = [
        Submit(state.master, tuple(state.hands[state.master][:blanks]), t=t),
        Judge(bots.choice(others), 1, 2, t=t),
    ]
    if state.phase is Phase.SUBMITTING:
        player = bots.choice(state.waiting_for)
        hand = state.hands[player]
        foreign = list(state.hands[state.master])
        options += [
            Submit(player, (bots.choice(foreign), *hand[: blanks - 1]), t=t),
            Submit(player, (*hand[:blanks], hand[0]), t=t),
            Judge(state.master, 1, 2, t=t),
        ]
        if blanks == 2:
            options.append(Submit(player, (hand[0], hand[0]), t=t))
        done = [p for p in state.submitted]
        if done:
            options.append(Submit(bots.choice(done), tuple(state.hands[done[0]][:blanks]), t=t))
    else:
        options += [
            Judge(state.master, 1, 1, t=t),
            Judge(state.master, 1, n + 1, t=t),
            Judge(state.master, 0, 1, t=t),
            Judge(state.master, 1, 2, keep=blanks + 1, t=t),
            Submit(state.reading[0], tuple(state.hands[state.reading[0]][:blanks]), t=t),
        ]
    return options


def _printed_mistakes(bots: random.Random, state: BamState, t: float, printed: PrintedCards) -> list[Action]:
    """Illegal actions with printed cards: the engine cannot see hands, but it knows which cards
    are out of play, which numbers exist, and every rule about who submits what when."""
    blanks, hands = state.blanks, printed.hands
    others = [p for p in state.players if p != state.master]
    options: list[Action] = [
        Submit(state.master, tuple(hands[state.master][:blanks]), t=t),
        Judge(bots.choice(others), 1, 2, t=t),
    ]
    if state.phase is not Phase.SUBMITTING:
        return options + [
            Judge(state.master, 1, 1, t=t),
            Judge(state.master, 0, 1, t=t),
            Submit(state.reading[0], tuple(hands[state.reading[0]][:blanks]), t=t),
        ]
    player = bots.choice(state.waiting_for)
    hand = hands[player]
    red = next(c for c, face in state.cards.items() if face.color == "red")
    options += [
        Submit(player, tuple(hand[: blanks + 1]), t=t),
        Judge(state.master, 1, 2, t=t),
        Submit(player, (red, *hand[: blanks - 1]), t=t),
        Submit(player, ("no-such-card", *hand[: blanks - 1]), t=t),
    ]
    known = [*state.table, *(c for w in state.won_grey.values() for c in w), *state.discard]
    if known:
        options.append(Submit(player, (bots.choice(known), *hand[: blanks - 1]), t=t))
    if blanks == 2 and hand:
        options.append(Submit(player, (hand[0], hand[0]), t=t))
    if state.submitted:
        done = bots.choice(list(state.submitted))
        options.append(Submit(done, tuple(hands[done][:blanks]), t=t))
    return options


def _try_mistake(
    game: BamGame, state: BamState, bots: random.Random, t: float, printed: PrintedCards | None = None
) -> None:
    """Try one illegal action; the engine must refuse it."""
    options = _printed_mistakes(bots, state, t, printed) if printed is not None else _mistakes(bots, state, t)
    action = bots.choice(options)
    try:
        game.apply(state, action)
    except IllegalAction:
        return
    raise SimulationError(f"the engine accepted an illegal action: {action} (seed {state.seed})")


DEFAULTS = {"players": 4, "games": 100, "mistake_rate": 0.05}


@dataclass
class BamSimulation:
    """BAM! bots for the driver: the deck's faces, the settings, the running totals."""

    players: tuple[str, ...]
    faces: tuple[Sequence[CardFace], Sequence[CardFace]]
    rounds_per_player: int
    mistake_rate: float
    card_mode: CardMode
    check_replay: bool = False
    summary: Summary = field(default_factory=lambda: Summary(0))

    def __post_init__(self) -> None:
        self.summary = Summary(len(self.players), self.card_mode, wins=[0] * len(self.players))

    def play(self, seed: int) -> GameResult:
        """One complete game from ``seed``; with ``check_replay`` its events must replay to its state."""
        result = play_game(self.players, self.faces, seed, self.rounds_per_player, self.mistake_rate, self.card_mode)
        if self.check_replay and replay([e.to_json() for e in result.events]) != result.state:
            raise SimulationError(f"the game of seed {seed} does not replay to the same state")
        return result

    def add(self, number: int, seed: int, played: GameResult) -> None:
        """Count one game."""
        self.summary.add(played)

    def lines(self, seconds: float) -> list[str]:
        """The printed summary."""
        self.summary.seconds = seconds
        return self.summary.lines()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """BAM!'s own simulator options."""
    parser.add_argument(
        "--rounds-per-player", type=int, default=1, metavar="K", help="each player is BAM! Master K times (default: 1)"
    )
    parser.add_argument(
        "--deck",
        action="append",
        metavar="DECK",
        help="deck to play with: 'base' or a deck file; repeat to combine (default: base)",
    )
    parser.add_argument(
        "--tag", action="append", metavar="T", help="only cards with this tag, e.g. family; repeat to allow several"
    )
    parser.add_argument(
        "--cards",
        choices=[m.value for m in CardMode],
        default=CardMode.DEALT.value,
        help="dealt: the host deals and tells hands privately (default); table: bots hold "
        "printed grey cards the host never sees and submit them by number",
    )
    parser.add_argument(
        "--check-replay", action="store_true", help="also replay every game from its events and compare the final state"
    )


def prepare(options: driver.Options, args: argparse.Namespace) -> BamSimulation:
    """Check BAM!'s own options, load the deck; the bots for this run."""
    from voicehost.decks.load import load_decks

    if args.rounds_per_player < 1:
        raise InputError(f"--rounds-per-player must be at least 1, not {args.rounds_per_player}")
    deck = load_decks(args.deck or ["base"], args.tag or ())
    faces = (
        [CardFace(c.id, c.text, "red", c.blanks) for c in deck.red],
        [CardFace(c.id, c.text, "grey") for c in deck.grey],
    )
    return BamSimulation(
        NAMES[: options.players],
        faces,
        args.rounds_per_player,
        options.mistake_rate,
        CardMode(args.cards),
        args.check_replay,
    )
