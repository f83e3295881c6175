"""The BAM! rules: a judge game of red sentence cards and grey word cards.

Each round the BAM! Master reveals a red card with one or two blanks; every other player submits
one grey card per blank; the master hears the combinations in a shuffled order and names the best
(its player keeps one played grey card as a victory point) and the worst (its player takes the red
card as a minus point). The master passes to the left. See docs/rules.md, "BAM!", for every choice
made where the rulebook is silent.

A player who leaves (:class:`~.actions.Leave`, e.g. the table skips a player who does not answer)
is out for good: their hand and any cards they played this round are set aside, they keep their
points but cannot win, and the round goes on without them. If they were the master, or fewer than
two players are left to submit, the round is void: nobody scores, the red card goes back under
the red pile, the played grey cards are discarded, everyone draws up and the next master (to the
left) opens a round. Fewer than :data:`~.state.MIN_PLAYERS` players left ends the game.

The engine is event-sourced: :meth:`BamGame.apply` validates an action and returns the events it
causes; :func:`evolve` is the only place that changes state, one event at a time; :func:`replay`
rebuilds a state from a log by folding :func:`evolve` over its events. Randomness (the deal, the
reading order, reshuffles) comes from the :class:`~voicehost.rules.base.Rng` given to
:class:`BamGame` and is written into the events, so replay needs none.

Table cards (``start(..., card_mode="table")``): the players hold printed grey cards and play them
by the printed number (:func:`~.checks.card_for_number` turns it into the card id). The host shuffles
the red deck itself and reads the red cards as usual; it deals no grey card, and tracks hands and
the draw pile as counts only, so draws and reshuffles are logged without card ids.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from voicehost.errors import InputError
from voicehost.rules.bam.actions import Action, Judge, Leave, Submit
from voicehost.rules.bam.checks import Illegal, judge_problem, leave_problem, submit_problem
from voicehost.rules.bam.events import (
    BamGameOver,
    BestChosen,
    Discarded,
    Drew,
    GameSetup,
    PlayerLeft,
    ReadingOrder,
    Reshuffled,
    RoundStarted,
    RoundVoided,
    SetupState,
    Submitted,
    WorstChosen,
    event_from_json,
    Inconsistent,
)
from voicehost.rules.bam.replay import evolve, replay
from voicehost.rules.bam.state import (
    GAME_NAME,
    HAND_SIZE,
    MAX_BLANKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    BamState,
    CardFace,
    CardId,
    CardMode,
    EndReason,
    GreyLike,
    Phase,
    RedLike,
    final_result,
)
from voicehost.rules.base import Event, IllegalAction, JsonObject, LogError, PlayerName, Resumed, Rng


class BadSetup(InputError):
    """A game cannot start with these players, cards or options."""


# ---------------------------------------------------------------------------------------- rules


class BamGame:
    """The BAM! rules with the randomness they use; satisfies the ``Game`` interface."""

    name = GAME_NAME

    def __init__(self, rng: Rng | None = None) -> None:
        self._rng = rng

    @property
    def rng(self) -> Rng:
        """The RNG that deals, orders the readings and reshuffles (BadSetup if none was given)."""
        if self._rng is None:
            raise BadSetup("BAM! needs a seeded RNG to deal and shuffle: use GAME.seeded(rng)")
        return self._rng

    def seeded(self, rng: Rng) -> BamGame:
        """These rules with their randomness from ``rng``."""
        return BamGame(rng)

    def new_game(
        self,
        players: Sequence[PlayerName],
        seed: int,
        *,
        first_player: PlayerName | None = None,
        t: float = 0.0,
        **options: Any,
    ) -> tuple[BamState, list[Event]]:
        """The shared interface's :meth:`start`: options ``red_cards`` and ``grey_cards`` (required),
        ``rounds_per_player``, ``hand_size``, ``card_mode``; ``first_player`` is the first BAM! Master."""
        red, grey = options.pop("red_cards"), options.pop("grey_cards")
        return self.start(players, red, grey, seed=seed, first_master=first_player, t=t, **options)

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
        card_mode: CardMode | str = CardMode.DEALT,
    ) -> tuple[BamState, list[Event]]:
        """Shuffle, deal and reveal the first red card. ``seed`` is only recorded (the caller seeded
        the RNG with it). With ``card_mode="table"`` only the red deck is shuffled: the players deal
        the printed grey cards themselves, ``hand_size`` each."""
        mode = _card_mode(card_mode)
        faces = _faces(players, red_cards, grey_cards, rounds_per_player, hand_size, first_master)
        red = [c.id for c in red_cards]
        self.rng.shuffle(red)
        dealt = len(players) * hand_size
        if mode is CardMode.TABLE:
            table = SetupState(tuple(red), None, None, first_master or players[0], len(grey_cards) - dealt)
        else:
            grey = [c.id for c in grey_cards]
            self.rng.shuffle(grey)
            hands = {p: tuple(grey[i * hand_size : (i + 1) * hand_size]) for i, p in enumerate(players)}
            table = SetupState(tuple(red), tuple(grey[dealt:]), hands, first_master or players[0])
        setup = GameSetup(
            seq=0,
            t=t,
            game=GAME_NAME,
            players=tuple(players),
            seed=seed,
            rounds_per_player=rounds_per_player,
            hand_size=hand_size,
            cards=faces,
            state=table,
            card_mode=mode.value,
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
        elif isinstance(action, Leave):
            self._leave(emit, action)
        else:
            if state.phase is Phase.OVER:
                raise IllegalAction(Illegal.GAME_OVER, "the game is already over")
            _end(emit, action.t, EndReason.QUIT)
        return emit.state, emit.events

    def evolve(self, state: BamState | None, event: Event) -> BamState:
        """The state after one event (see :func:`~.replay.evolve`; LogError if it cannot happen there)."""
        try:
            return evolve(state, event)
        except Inconsistent as error:
            raise LogError(f"event {event.seq} ({event.TYPE}): {error}") from error

    def over(self, state: BamState) -> bool:
        """True once the game has ended."""
        return state.over

    def event_from_json(self, obj: JsonObject) -> Event:
        """The typed event of one log object (LogError if it is not a BAM! event)."""
        try:
            return event_from_json(obj)
        except (Inconsistent, KeyError, TypeError, ValueError, AttributeError) as error:
            detail = f"missing field {error}" if isinstance(error, KeyError) else str(error)
            raise LogError(f"event {obj.get('seq', '?')} ({obj.get('type', '?')}): {detail}") from error

    def replay(self, log: Sequence[JsonObject]) -> BamState:
        """Rebuild the state from a log by folding :func:`evolve` over its events."""
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
        if not emit.state.waiting_for:
            self._reading_order(emit, action.t)

    def _reading_order(self, emit: _Emitter, t: float) -> None:
        """All submissions are in: shuffle them into the order the master hears them."""
        order = list(emit.state.submitted)
        self.rng.shuffle(order)
        emit(ReadingOrder, t, order=tuple(order))

    def _leave(self, emit: _Emitter, action: Leave) -> None:
        problem = leave_problem(emit.state, action.player)
        if problem is not None:
            raise problem
        emit(PlayerLeft, action.t, player=action.player)
        state = emit.state
        if len(state.active) < MIN_PLAYERS:
            _end(emit, action.t, EndReason.TOO_FEW_PLAYERS)
        elif state.void:
            assert state.red is not None
            emit(RoundVoided, action.t, red=state.red)
            if emit.state.table:
                emit(Discarded, action.t, cards=emit.state.table)
            self._next_round(emit, action.t)
        elif state.phase is Phase.SUBMITTING and not state.waiting_for:
            self._reading_order(emit, action.t)

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
        self._next_round(emit, action.t)

    def _next_round(self, emit: _Emitter, t: float) -> None:
        """After a judged or voided round: end the game, or draw up and pass the master role left."""
        state = emit.state
        if state.round >= state.rounds_total:
            _end(emit, t, EndReason.ROUNDS_DONE)
        elif not state.red_deck:
            _end(emit, t, EndReason.RED_CARDS_OUT)
        else:
            self._draw_up(emit, t)
            _open_round(emit, t, state.next_master)

    def _draw_up(self, emit: _Emitter, t: float) -> None:
        """Everyone (clockwise from the master's left) draws back to a full hand, reshuffling the
        discard pile into a new draw pile when the draw pile runs out."""
        state = emit.state
        if state.table_cards:
            _draw_up_printed(emit, t)
            return
        for player in state.clockwise_after(state.master):
            while len(emit.state.hands[player]) < state.hand_size:
                if not emit.state.grey_deck:
                    if not emit.state.discard:
                        break
                    deck = list(emit.state.discard)
                    self.rng.shuffle(deck)
                    emit(Reshuffled, t, cards=len(deck), deck=tuple(deck))
                need = state.hand_size - len(emit.state.hands[player])
                emit(Drew, t, player=player, cards=emit.state.grey_deck[:need])


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


def _draw_up_printed(emit: _Emitter, t: float) -> None:
    """Table cards: the same draws as counts (the players draw and reshuffle printed cards)."""
    state = emit.state
    for player in state.clockwise_after(state.master):
        while emit.state.held[player] < state.hand_size:
            if not emit.state.grey_pile:
                if not emit.state.discard:
                    break
                emit(Reshuffled, t, cards=len(emit.state.discard), deck=None)
            need = min(state.hand_size - emit.state.held[player], emit.state.grey_pile)
            emit(Drew, t, player=player, cards=None, count=need)


def _card_mode(mode: object) -> CardMode:
    """ "dealt" or "table"."""
    try:
        return CardMode(mode if isinstance(mode, str) else repr(mode))
    except ValueError:
        raise BadSetup(f"card_mode must be 'dealt' or 'table', not {mode!r}") from None


def _open_round(emit: _Emitter, t: float, master: PlayerName) -> None:
    """Reveal the next red card, or end the game if it cannot be played."""
    state = emit.state
    if not state.red_deck:
        _end(emit, t, EndReason.RED_CARDS_OUT)
        return
    red = state.red_deck[0]
    blanks = state.cards[red].blanks
    players = tuple(p for p in state.clockwise_after(master) if p != master and state.hand_count(p) >= blanks)
    if len(players) < 2:
        _end(emit, t, EndReason.GREY_CARDS_OUT)
        return
    emit(RoundStarted, t, master=master, red=red, blanks=blanks, number=state.round + 1, players=players)


def _end(emit: _Emitter, t: float, reason: EndReason) -> None:
    result = final_result(emit.state, reason)
    emit(BamGameOver, t, reason=result.reason, scores=result.scores, grey_won=result.grey_won, winners=result.winners)


def _faces(
    players: Sequence[PlayerName],
    red: Sequence[RedLike],
    grey: Sequence[GreyLike],
    rounds_per_player: int,
    hand_size: int,
    first_master: PlayerName | None,
) -> dict[CardId, CardFace]:
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
        raise BadSetup(
            f"{len(players)} players need at least {len(players) * hand_size} grey cards to deal "
            f"{hand_size} each; the deck has {len(grey)}"
        )
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
