"""The BAM! rules: a judge game of red sentence cards and grey word cards.

Each round the BAM! Master reveals a red card with one or two blanks; every other player submits
one grey card per blank; the master hears the combinations in a shuffled order and names the best
(its player keeps one played grey card as a victory point) and the worst (its player takes the red
card as a minus point). The master passes to the left. See docs/rules.md, "BAM!", for every choice
made where the rulebook is silent.

The engine is event-sourced: :meth:`BamGame.apply` validates an action and returns the events it
causes; :func:`evolve` is the only place that changes state, one event at a time; :func:`replay`
rebuilds a state from a log by folding :func:`evolve` over its events. Randomness (the deal, the
reading order, reshuffles) comes from the :class:`~voicehost.rules.base.Rng` given to
:class:`BamGame` and is written into the events, so replay needs none.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from typing import Any, Callable, ClassVar, Mapping, Protocol, Sequence, TypeAlias

from voicehost.errors import InputError
from voicehost.rules.base import (
    Event,
    GameOver,
    IllegalAction,
    JsonObject,
    LogError,
    PlayerName,
    Resumed,
    Rng,
    Seating,
)

CardId: TypeAlias = str
"""A card's id as in the deck file ("r001", "g017")."""

GAME = "bam"
HAND_SIZE = 10
"""Grey cards in each hand (the rulebook's deal)."""
MIN_PLAYERS = 3
MAX_PLAYERS = 20
"""Supported table sizes. The deal needs ``players × hand size`` grey cards (the base deck has
enough for 20 players with full hands all game as long as the deck holds ``players × 10 + rounds``)."""
MAX_BLANKS = 2


class Phase(Enum):
    """Where a round stands."""

    SUBMITTING = "awaiting_submissions"
    JUDGING = "awaiting_judgement"
    OVER = "over"


class EndReason(StrEnum):
    """Why a game ended."""

    ROUNDS_DONE = "rounds_done"
    """Every player has been master K times."""
    RED_CARDS_OUT = "red_cards_out"
    """No red card is left for the next round."""
    GREY_CARDS_OUT = "grey_cards_out"
    """Fewer than two players hold enough grey cards to fill the next red card."""
    QUIT = "quit"


class Illegal(StrEnum):
    """Reason codes of :class:`~voicehost.rules.base.IllegalAction` in BAM!."""

    GAME_OVER = "game_over"
    UNKNOWN_PLAYER = "unknown_player"
    MASTER_SUBMITS = "master_submits"
    SITTING_OUT = "sitting_out"
    ALREADY_SUBMITTED = "already_submitted"
    WRONG_NUMBER_OF_CARDS = "wrong_number_of_cards"
    SAME_CARD_TWICE = "same_card_twice"
    NOT_IN_HAND = "not_in_hand"
    NOT_MASTER = "not_master"
    NOT_ALL_SUBMITTED = "not_all_submitted"
    NO_SUCH_SUBMISSION = "no_such_submission"
    BEST_IS_WORST = "best_is_worst"
    NO_SUCH_BLANK = "no_such_blank"


class BadSetup(InputError):
    """A game cannot start with these players, cards or options."""


# ---------------------------------------------------------------------------------------- cards

class RedLike(Protocol):
    """What the engine needs of a red card (``voicehost.decks.RedCard`` has it)."""

    @property
    def id(self) -> CardId: ...
    @property
    def text(self) -> str: ...
    @property
    def blanks(self) -> int: ...


class GreyLike(Protocol):
    """What the engine needs of a grey card (``voicehost.decks.GreyCard`` has it)."""

    @property
    def id(self) -> CardId: ...
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class CardFace:
    """A card as the game and its log know it: text, colour and (red) number of blanks."""

    id: CardId
    text: str
    color: str
    """"red" or "grey"."""
    blanks: int = 0
    """Blanks on a red card (1 or 2); 0 for grey cards."""

    def to_json(self) -> JsonObject:
        out: JsonObject = {"text": self.text, "color": self.color}
        if self.color == "red":
            out["blanks"] = self.blanks
        return out


# -------------------------------------------------------------------------------------- actions

@dataclass(frozen=True)
class Submit:
    """A player lays down grey cards for the current red card, in blank order."""

    player: PlayerName
    cards: tuple[CardId, ...]
    t: float = 0.0
    """Game-clock seconds."""


@dataclass(frozen=True)
class Judge:
    """The master names the best and the worst submission by their reading numbers (from 1)."""

    player: PlayerName
    best: int
    worst: int
    keep: int = 1
    """For a double-BAM! card: which of the winner's two cards becomes the victory point (1 = the
    card that filled the first blank, 2 = the second). The host's rule is 1 unless it asks the winner."""
    t: float = 0.0
    """Game-clock seconds."""


@dataclass(frozen=True)
class Quit:
    """The table stops the game; scores are counted as they stand."""

    t: float = 0.0
    """Game-clock seconds."""


Action: TypeAlias = Submit | Judge | Quit


# --------------------------------------------------------------------------------------- events

@dataclass(frozen=True)
class SetupState:
    """The dealt table at the start, as logged in the setup event."""

    red_deck: tuple[CardId, ...]
    """Top first."""
    grey_deck: tuple[CardId, ...]
    """Top first, after the deal."""
    hands: Mapping[PlayerName, tuple[CardId, ...]]
    master: PlayerName

    def to_json(self) -> JsonObject:
        return {"red_deck": list(self.red_deck), "grey_deck": list(self.grey_deck),
                "hands": {p: list(h) for p, h in self.hands.items()}, "master": self.master}


@dataclass(frozen=True)
class GameSetup(Event):
    """The game starts: seating, options, the shuffled decks, the hands and every card's text."""

    TYPE: ClassVar[str] = "setup"
    game: str
    players: tuple[PlayerName, ...]
    seed: int
    rounds_per_player: int
    hand_size: int
    state: SetupState
    cards: Mapping[CardId, CardFace]


@dataclass(frozen=True)
class RoundStarted(Event):
    """The master reveals the top red card."""

    TYPE: ClassVar[str] = "round"
    master: PlayerName
    red: CardId
    blanks: int
    number: int
    """Round number from 1."""
    players: tuple[PlayerName, ...]
    """Who must submit this round, clockwise from the master's left."""


@dataclass(frozen=True)
class Submitted(Event):
    """A player laid down grey cards (in blank order)."""

    TYPE: ClassVar[str] = "submit"
    player: PlayerName
    cards: tuple[CardId, ...]


@dataclass(frozen=True)
class ReadingOrder(Event):
    """All submissions are in; the master will hear them in this order (first name: submission 1)."""

    TYPE: ClassVar[str] = "reading"
    order: tuple[PlayerName, ...]


@dataclass(frozen=True)
class BestChosen(Event):
    """The best submission's player keeps ``card`` as a victory point."""

    TYPE: ClassVar[str] = "best"
    player: PlayerName
    card: CardId
    submission: int
    """Its reading number."""


@dataclass(frozen=True)
class WorstChosen(Event):
    """The worst submission's player takes the red ``card`` as a minus point."""

    TYPE: ClassVar[str] = "worst"
    player: PlayerName
    card: CardId
    submission: int
    """Its reading number."""


@dataclass(frozen=True)
class Discarded(Event):
    """The other grey cards played this round go to the discard pile."""

    TYPE: ClassVar[str] = "discard"
    cards: tuple[CardId, ...]


@dataclass(frozen=True)
class Drew(Event):
    """A player drew from the top of the grey draw pile."""

    TYPE: ClassVar[str] = "draw"
    player: PlayerName
    cards: tuple[CardId, ...]


@dataclass(frozen=True)
class Reshuffled(Event):
    """The draw pile ran out: the discard pile, shuffled, is the new draw pile."""

    TYPE: ClassVar[str] = "reshuffle"
    cards: int
    deck: tuple[CardId, ...]
    """Top first."""


@dataclass(frozen=True)
class BamGameOver(GameOver):
    """The game ended; scores are victory points minus minus points."""

    scores: Mapping[PlayerName, int] = field(default_factory=dict)
    grey_won: Mapping[PlayerName, int] = field(default_factory=dict)
    winners: tuple[PlayerName, ...] = ()
    """Everyone sharing the best score and, among those, the most grey cards won."""


# ---------------------------------------------------------------------------------------- state

@dataclass(frozen=True)
class Submission:
    """One submission as the master hears it."""

    number: int
    """Reading number, from 1."""
    player: PlayerName
    cards: tuple[CardId, ...]
    """In blank order."""


@dataclass(frozen=True)
class Result:
    """The final standing."""

    reason: str
    scores: Mapping[PlayerName, int]
    grey_won: Mapping[PlayerName, int]
    winners: tuple[PlayerName, ...]


@dataclass(frozen=True)
class BamState:
    """Everything about a BAM! game at one moment. Every card is in exactly one place: a draw pile,
    a hand, the discard pile, a player's won stack, or on the table this round."""

    players: tuple[PlayerName, ...]
    """Seating, clockwise; 'left' is the next name."""
    seed: int
    rounds_per_player: int
    hand_size: int
    cards: Mapping[CardId, CardFace]
    red_deck: tuple[CardId, ...]
    """Top first."""
    grey_deck: tuple[CardId, ...]
    """Top first."""
    discard: tuple[CardId, ...]
    hands: Mapping[PlayerName, tuple[CardId, ...]]
    won_grey: Mapping[PlayerName, tuple[CardId, ...]]
    """Victory points."""
    won_red: Mapping[PlayerName, tuple[CardId, ...]]
    """Minus points."""
    master: PlayerName
    phase: Phase = Phase.SUBMITTING
    round: int = 0
    """Current round from 1 (0 before the first red card is revealed)."""
    red: CardId | None = None
    """The red card on the table, until the worst submission takes it."""
    round_players: tuple[PlayerName, ...] = ()
    """Who must submit this round, clockwise from the master's left."""
    submitted: Mapping[PlayerName, tuple[CardId, ...]] = field(default_factory=dict)
    """This round's submissions, in the order they came."""
    table: tuple[CardId, ...] = ()
    """Grey cards lying on the table this round."""
    reading: tuple[PlayerName, ...] = ()
    """Reading order once all submissions are in (first name: submission 1)."""
    result: Result | None = None
    seq: int = 0
    """Seq of the next event."""

    @property
    def seating(self) -> Seating:
        return Seating(self.players)

    @property
    def blanks(self) -> int:
        """Blanks on the current red card (0 between rounds)."""
        return self.cards[self.red].blanks if self.red else 0

    @property
    def waiting_for(self) -> tuple[PlayerName, ...]:
        """Players who still must submit this round, clockwise from the master's left."""
        if self.phase is not Phase.SUBMITTING:
            return ()
        return tuple(p for p in self.round_players if p not in self.submitted)

    @property
    def submissions(self) -> tuple[Submission, ...]:
        """The submissions in reading order, numbered from 1 (empty until all are in)."""
        return tuple(Submission(i, p, self.submitted[p]) for i, p in enumerate(self.reading, start=1))

    @property
    def scores(self) -> dict[PlayerName, int]:
        """Victory points minus minus points, now."""
        return {p: len(self.won_grey[p]) - len(self.won_red[p]) for p in self.players}

    @property
    def rounds_total(self) -> int:
        """Rounds in a full game: every player is master ``rounds_per_player`` times."""
        return self.rounds_per_player * len(self.players)


# ---------------------------------------------------------------------------------------- rules

class BamGame:
    """The BAM! rules with the randomness they use; satisfies the ``Game`` interface."""

    name = GAME

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def start(
        self,
        players: Sequence[PlayerName],
        red_cards: Sequence[RedLike],
        grey_cards: Sequence[GreyLike],
        *,
        seed: int,
        rounds_per_player: int = 1,
        hand_size: int = HAND_SIZE,
        first_master: PlayerName | None = None,
        t: float = 0.0,
    ) -> tuple[BamState, list[Event]]:
        """Shuffle, deal and reveal the first red card. ``seed`` is only recorded (the caller seeded
        the RNG with it)."""
        faces = _faces(players, red_cards, grey_cards, rounds_per_player, hand_size, first_master)
        red = [c.id for c in red_cards]
        grey = [c.id for c in grey_cards]
        self.rng.shuffle(red)
        self.rng.shuffle(grey)
        hands = {p: tuple(grey[i * hand_size:(i + 1) * hand_size]) for i, p in enumerate(players)}
        setup = GameSetup(
            seq=0, t=t, game=GAME, players=tuple(players), seed=seed, rounds_per_player=rounds_per_player,
            hand_size=hand_size, cards=faces,
            state=SetupState(tuple(red), tuple(grey[len(players) * hand_size:]), hands,
                             first_master or players[0]),
        )
        state = evolve(None, setup)
        emit = _Emitter(state)
        _open_round(emit, t, state.master)
        return emit.state, [setup, *emit.events]

    def apply(self, state: BamState, action: Action) -> tuple[BamState, list[Event]]:
        """Apply one action; raise IllegalAction (state unchanged) if the rules forbid it."""
        emit = _Emitter(state)
        if isinstance(action, Submit):
            self._submit(emit, action)
        elif isinstance(action, Judge):
            self._judge(emit, action)
        else:
            if state.phase is Phase.OVER:
                raise IllegalAction(Illegal.GAME_OVER, "the game is already over")
            _end(emit, action.t, EndReason.QUIT)
        return emit.state, emit.events

    def is_over(self, state: BamState) -> bool:
        return state.phase is Phase.OVER

    def replay(self, log: Sequence[JsonObject]) -> BamState:
        return replay(log)

    def resume(self, state: BamState, t: float) -> tuple[BamState, list[Event]]:
        """Mark the restart of a saved game; play continues where the log stopped."""
        event = Resumed(seq=state.seq, t=t)
        return evolve(state, event), [event]

    def _submit(self, emit: _Emitter, action: Submit) -> None:
        problem = submit_problem(emit.state, action.player, action.cards)
        if problem is not None:
            raise problem
        emit(Submitted, action.t, player=action.player, cards=tuple(action.cards))
        state = emit.state
        if not state.waiting_for:
            order = list(state.submitted)
            self.rng.shuffle(order)
            emit(ReadingOrder, action.t, order=tuple(order))

    def _judge(self, emit: _Emitter, action: Judge) -> None:
        state = emit.state
        problem = judge_problem(state, action.player, action.best, action.worst, action.keep)
        if problem is not None:
            raise problem
        best = state.submissions[action.best - 1]
        worst = state.submissions[action.worst - 1]
        kept = best.cards[action.keep - 1]
        emit(BestChosen, action.t, player=best.player, card=kept, submission=best.number)
        emit(WorstChosen, action.t, player=worst.player, card=state.red, submission=worst.number)
        emit(Discarded, action.t, cards=emit.state.table)
        state = emit.state
        if state.round >= state.rounds_total:
            _end(emit, action.t, EndReason.ROUNDS_DONE)
        elif not state.red_deck:
            _end(emit, action.t, EndReason.RED_CARDS_OUT)
        else:
            self._draw_up(emit, action.t)
            _open_round(emit, action.t, state.seating.left_of(state.master))

    def _draw_up(self, emit: _Emitter, t: float) -> None:
        """Everyone (clockwise from the master's left) draws back to a full hand, reshuffling the
        discard pile into a new draw pile when the draw pile runs out."""
        state = emit.state
        for player in (state.seating.left_of(state.master, k) for k in range(1, len(state.players) + 1)):
            while len(emit.state.hands[player]) < state.hand_size:
                if not emit.state.grey_deck:
                    if not emit.state.discard:
                        break
                    deck = list(emit.state.discard)
                    self.rng.shuffle(deck)
                    emit(Reshuffled, t, cards=len(deck), deck=tuple(deck))
                need = state.hand_size - len(emit.state.hands[player])
                emit(Drew, t, player=player, cards=emit.state.grey_deck[:need])


def submit_problem(state: BamState, player: PlayerName, cards: Sequence[CardId]) -> IllegalAction | None:
    """Why ``player`` may not submit ``cards`` now, or None if they may."""
    if state.phase is Phase.OVER:
        return IllegalAction(Illegal.GAME_OVER, f"{player} cannot submit: the game is over")
    if player not in state.hands:
        return IllegalAction(Illegal.UNKNOWN_PLAYER, f"{player!r} is not playing")
    if player == state.master:
        return IllegalAction(Illegal.MASTER_SUBMITS,
                             f"{player} cannot submit: {player} is the BAM! Master this round")
    if player in state.submitted:
        return IllegalAction(Illegal.ALREADY_SUBMITTED, f"{player} has already submitted this round")
    if player not in state.round_players:
        return IllegalAction(Illegal.SITTING_OUT,
                             f"{player} sits out this round: too few grey cards left for {state.blanks} blanks")
    if len(cards) != state.blanks:
        kind = "this double-BAM! card" if state.blanks == 2 else "this card"
        return IllegalAction(Illegal.WRONG_NUMBER_OF_CARDS,
                             f"{player} must submit {state.blanks} card{'s' if state.blanks > 1 else ''} "
                             f"for {kind}, not {len(cards)}")
    if len(set(cards)) != len(cards):
        return IllegalAction(Illegal.SAME_CARD_TWICE, f"{player} cannot submit the same card twice")
    for card in cards:
        if card not in state.hands[player]:
            return IllegalAction(Illegal.NOT_IN_HAND, f"{player} cannot submit {card}: it is not in {player}'s hand")
    return None


def judge_problem(state: BamState, player: PlayerName, best: int, worst: int, keep: int) -> IllegalAction | None:
    """Why ``player`` may not judge this way now, or None if they may."""
    if state.phase is Phase.OVER:
        return IllegalAction(Illegal.GAME_OVER, "cannot judge: the game is over")
    if player != state.master:
        return IllegalAction(Illegal.NOT_MASTER, f"{player} cannot judge: {state.master} is the BAM! Master")
    if state.phase is Phase.SUBMITTING:
        waiting = ", ".join(state.waiting_for)
        return IllegalAction(Illegal.NOT_ALL_SUBMITTED, f"cannot judge yet: still waiting for {waiting}")
    count = len(state.reading)
    for number in (best, worst):
        if not 1 <= number <= count:
            return IllegalAction(Illegal.NO_SUCH_SUBMISSION,
                                 f"there is no submission {number} (submissions are 1 to {count})")
    if best == worst:
        return IllegalAction(Illegal.BEST_IS_WORST,
                             f"submission {best} cannot be both the best and the worst")
    if not 1 <= keep <= state.blanks:
        return IllegalAction(Illegal.NO_SUCH_BLANK,
                             f"the winner can keep card 1{' or 2' if state.blanks == 2 else ''}, not {keep}")
    return None


# ------------------------------------------------------------------------------------- internals

class _Emitter:
    """Numbers new events and folds them into the state as they are made."""

    def __init__(self, state: BamState) -> None:
        self.state = state
        self.events: list[Event] = []

    def __call__(self, kind: Callable[..., Event], t: float, **fields: Any) -> None:
        event = kind(seq=self.state.seq, t=t, **fields)
        self.state = evolve(self.state, event)
        self.events.append(event)


def _open_round(emit: _Emitter, t: float, master: PlayerName) -> None:
    """Reveal the next red card, or end the game if it cannot be played."""
    state = emit.state
    if not state.red_deck:
        _end(emit, t, EndReason.RED_CARDS_OUT)
        return
    red = state.red_deck[0]
    blanks = state.cards[red].blanks
    players = tuple(p for p in (Seating(state.players).left_of(master, k) for k in range(1, len(state.players)))
                    if len(state.hands[p]) >= blanks)
    if len(players) < 2:
        _end(emit, t, EndReason.GREY_CARDS_OUT)
        return
    emit(RoundStarted, t, master=master, red=red, blanks=blanks, number=state.round + 1, players=players)


def _end(emit: _Emitter, t: float, reason: EndReason) -> None:
    result = final_result(emit.state, reason)
    emit(BamGameOver, t, reason=result.reason, scores=result.scores, grey_won=result.grey_won,
         winners=result.winners)


def final_result(state: BamState, reason: str) -> Result:
    """Scores, grey cards won and winners (ties: more grey cards won; still tied: shared title)."""
    scores = state.scores
    grey_won = {p: len(state.won_grey[p]) for p in state.players}
    top = max((scores[p], grey_won[p]) for p in state.players)
    winners = tuple(p for p in state.players if (scores[p], grey_won[p]) == top)
    return Result(str(reason), scores, grey_won, winners)


def _faces(players: Sequence[PlayerName], red: Sequence[RedLike], grey: Sequence[GreyLike],
           rounds_per_player: int, hand_size: int, first_master: PlayerName | None) -> dict[CardId, CardFace]:
    """Check the setup and give every card's face by id."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadSetup(f"BAM! needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    if len(set(players)) != len(players) or not all(p.strip() for p in players):
        raise BadSetup("player names must be distinct and not empty")
    if first_master is not None and first_master not in players:
        raise BadSetup(f"the first BAM! Master {first_master!r} is not playing")
    if rounds_per_player < 1 or hand_size < 1:
        raise BadSetup("rounds per player and hand size must be at least 1")
    if not red:
        raise BadSetup("there are no red cards to play")
    if len(grey) < len(players) * hand_size:
        raise BadSetup(f"{len(players)} players need at least {len(players) * hand_size} grey cards to deal "
                       f"{hand_size} each; the deck has {len(grey)}")
    faces: dict[CardId, CardFace] = {}
    for card in red:
        if not 1 <= card.blanks <= MAX_BLANKS:
            raise BadSetup(f"red card {card.id} has {card.blanks} blanks; 1 or 2 are allowed")
        faces[card.id] = CardFace(card.id, card.text, "red", card.blanks)
    for grey_card in grey:
        faces[grey_card.id] = CardFace(grey_card.id, grey_card.text, "grey")
    if len(faces) != len(red) + len(grey):
        raise BadSetup("card ids must be unique across red and grey cards")
    return faces


# ---------------------------------------------------------------------------------- the projector

class Inconsistent(ValueError):
    """An event does not fit the state it is applied to (a corrupt or foreign log)."""


def evolve(state: BamState | None, event: Event) -> BamState:
    """The state after ``event``; raise :class:`Inconsistent` if the event cannot happen here."""
    if isinstance(event, GameSetup):
        if state is not None:
            raise Inconsistent("a second setup event")
        return _setup_state(event)
    if state is None:
        raise Inconsistent(f"'{event.TYPE}' before the setup event")
    if event.seq != state.seq:
        raise Inconsistent(f"expected seq {state.seq}, found {event.seq}")
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise Inconsistent(f"unknown event type '{event.TYPE}'")
    if state.phase is Phase.OVER and not isinstance(event, Resumed):
        raise Inconsistent(f"'{event.TYPE}' after the game ended")
    return replace(handler(state, event), seq=state.seq + 1)


def _setup_state(event: GameSetup) -> BamState:
    setup = event.state
    players = event.players
    dealt = [c for hand in setup.hands.values() for c in hand]
    red_ids = sorted(c for c, face in event.cards.items() if face.color == "red")
    grey_ids = sorted(c for c, face in event.cards.items() if face.color == "grey")
    if set(setup.hands) != set(players) or setup.master not in players:
        raise Inconsistent("the setup's hands or master do not match its players")
    if sorted(setup.red_deck) != red_ids or sorted([*dealt, *setup.grey_deck]) != grey_ids:
        raise Inconsistent("the setup's decks and hands do not hold each card exactly once")
    return BamState(
        players=players, seed=event.seed, rounds_per_player=event.rounds_per_player, hand_size=event.hand_size,
        cards=event.cards, red_deck=setup.red_deck, grey_deck=setup.grey_deck, discard=(),
        hands={p: setup.hands[p] for p in players}, won_grey={p: () for p in players},
        won_red={p: () for p in players}, master=setup.master, seq=1,
    )


def _on_round(state: BamState, event: RoundStarted) -> BamState:
    expected = state.master if state.round == 0 else state.seating.left_of(state.master)
    if event.master != expected:
        raise Inconsistent(f"round master {event.master} but {expected} is next")
    if not state.red_deck or event.red != state.red_deck[0]:
        raise Inconsistent(f"round reveals {event.red}, which is not the top red card")
    if event.number != state.round + 1 or event.blanks != state.cards[event.red].blanks:
        raise Inconsistent("round number or blanks do not match")
    return replace(state, master=event.master, red=event.red, red_deck=state.red_deck[1:], round=event.number,
                   round_players=event.players, submitted={}, table=(), reading=(), phase=Phase.SUBMITTING)


def _on_submit(state: BamState, event: Submitted) -> BamState:
    problem = submit_problem(state, event.player, event.cards)
    if problem is not None:
        raise Inconsistent(str(problem))
    hand = tuple(c for c in state.hands[event.player] if c not in event.cards)
    return replace(state, hands={**state.hands, event.player: hand},
                   submitted={**state.submitted, event.player: event.cards}, table=state.table + event.cards)


def _on_reading(state: BamState, event: ReadingOrder) -> BamState:
    if state.phase is not Phase.SUBMITTING or state.waiting_for:
        raise Inconsistent("reading order before all submissions are in")
    if sorted(event.order) != sorted(state.submitted):
        raise Inconsistent("the reading order does not list exactly the players who submitted")
    return replace(state, reading=event.order, phase=Phase.JUDGING)


def _on_best(state: BamState, event: BestChosen) -> BamState:
    if state.phase is not Phase.JUDGING or event.card not in state.submitted.get(event.player, ()):
        raise Inconsistent(f"best card {event.card} was not played by {event.player} this round")
    if event.card not in state.table:
        raise Inconsistent(f"best card {event.card} is no longer on the table")
    return replace(state, table=tuple(c for c in state.table if c != event.card),
                   won_grey={**state.won_grey, event.player: state.won_grey[event.player] + (event.card,)})


def _on_worst(state: BamState, event: WorstChosen) -> BamState:
    if state.phase is not Phase.JUDGING or event.player not in state.submitted or event.card != state.red:
        raise Inconsistent(f"worst: {event.player} cannot take {event.card}")
    return replace(state, red=None,
                   won_red={**state.won_red, event.player: state.won_red[event.player] + (event.card,)})


def _on_discard(state: BamState, event: Discarded) -> BamState:
    if sorted(event.cards) != sorted(state.table):
        raise Inconsistent("discarded cards are not the ones left on the table")
    return replace(state, table=(), discard=state.discard + event.cards)


def _on_draw(state: BamState, event: Drew) -> BamState:
    if not event.cards or state.grey_deck[:len(event.cards)] != event.cards:
        raise Inconsistent(f"{event.player} draws cards that are not on top of the draw pile")
    if len(state.hands[event.player]) + len(event.cards) > state.hand_size:
        raise Inconsistent(f"{event.player} draws more than a full hand")
    return replace(state, grey_deck=state.grey_deck[len(event.cards):],
                   hands={**state.hands, event.player: state.hands[event.player] + event.cards})


def _on_reshuffle(state: BamState, event: Reshuffled) -> BamState:
    if state.grey_deck or sorted(event.deck) != sorted(state.discard) or event.cards != len(event.deck):
        raise Inconsistent("reshuffle while cards remain, or of cards not on the discard pile")
    return replace(state, grey_deck=event.deck, discard=())


def _on_game_over(state: BamState, event: BamGameOver) -> BamState:
    result = final_result(state, event.reason)
    if dict(event.scores) != result.scores or tuple(event.winners) != result.winners:
        raise Inconsistent("game_over scores or winners do not match the cards won")
    return replace(state, phase=Phase.OVER, result=result)


def _on_resumed(state: BamState, event: Resumed) -> BamState:
    return state


_HANDLERS: dict[type[Event], Callable[[BamState, Any], BamState]] = {
    RoundStarted: _on_round, Submitted: _on_submit, ReadingOrder: _on_reading, BestChosen: _on_best,
    WorstChosen: _on_worst, Discarded: _on_discard, Drew: _on_draw, Reshuffled: _on_reshuffle,
    BamGameOver: _on_game_over, Resumed: _on_resumed,
}


# ---------------------------------------------------------------------------------------- replay

def replay(log: Sequence[JsonObject]) -> BamState:
    """Rebuild a game's state from its logged events (setup first); raise LogError if inconsistent."""
    state: BamState | None = None
    for obj in log:
        try:
            state = evolve(state, event_from_json(obj))
        except (Inconsistent, KeyError, TypeError, ValueError) as error:
            where = f"event {obj.get('seq', '?')} ({obj.get('type', '?')})"
            detail = f"missing field {error}" if isinstance(error, KeyError) else str(error)
            raise LogError(f"cannot replay BAM! log: {where}: {detail}") from error
    if state is None:
        raise LogError("cannot replay BAM! log: it has no events")
    return state


def event_from_json(obj: JsonObject) -> Event:
    """The typed event for one log object."""
    kind = obj["type"]
    seq, t = int(obj["seq"]), float(obj["t"])
    if kind == "setup":
        if obj["game"] != GAME:
            raise Inconsistent(f"this is a log of '{obj['game']}', not of BAM!")
        s = obj["state"]
        return GameSetup(
            seq=seq, t=t, game=GAME, players=tuple(obj["players"]), seed=int(obj["seed"]),
            rounds_per_player=int(obj["rounds_per_player"]), hand_size=int(obj.get("hand_size", HAND_SIZE)),
            state=SetupState(tuple(s["red_deck"]), tuple(s["grey_deck"]),
                             {p: tuple(h) for p, h in s["hands"].items()}, s["master"]),
            cards={c: CardFace(c, f["text"], f["color"], int(f.get("blanks", 0))) for c, f in obj["cards"].items()},
        )
    if kind == "game_over":
        return BamGameOver(seq=seq, t=t, reason=obj["reason"], scores=dict(obj["scores"]),
                           grey_won=dict(obj["grey_won"]), winners=tuple(obj["winners"]))
    if kind == "resumed":
        return Resumed(seq=seq, t=t)
    cls = _BY_TYPE.get(kind)
    if cls is None:
        raise Inconsistent(f"unknown event type '{kind}'")
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in obj.items() if k not in ("seq", "t", "type")}
    return cls(seq=seq, t=t, **fields)


_BY_TYPE: dict[str, Callable[..., Event]] = {
    cls.TYPE: cls for cls in (RoundStarted, Submitted, ReadingOrder, BestChosen, WorstChosen, Discarded, Drew,
                              Reshuffled)
}
