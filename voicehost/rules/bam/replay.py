"""The projector and the log replay: the only code that changes a BAM! state.

:func:`evolve` applies one event, checking that it can happen in that state (the same legality
checks the engine uses for actions, plus card bookkeeping: draws come from the top of the pile,
discards are what is left on the table, a reshuffle holds exactly the discard pile). The live
engine builds its states with it too, so a replayed log reproduces the live state exactly.

With table cards (setup "card_mode": "table") hands and the draw pile are counts: a draw must not
take more than the pile holds or fill a hand past its size, and a reshuffle must come when the pile
is empty and hold exactly as many cards as the discard pile.

A player who leaves (``left``) takes no more part: their hand and any cards they played this round
are set aside, and a round that cannot be judged any more is voided (``void``: the red card goes
back under the red draw pile, then the usual ``discard``, draws and next ``round``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from voicehost.rules.bam.checks import leave_problem, submit_problem
from voicehost.rules.bam.events import (
    BamGameOver,
    BestChosen,
    Discarded,
    Drew,
    GameSetup,
    Inconsistent,
    PlayerLeft,
    ReadingOrder,
    Reshuffled,
    RoundStarted,
    RoundVoided,
    Submitted,
    WorstChosen,
    event_from_json,
)
from voicehost.rules.bam.state import BamState, CardMode, Phase, final_result, with_changes
from voicehost.rules.base import Event, JsonObject, LogError, Resumed

Changes = dict[str, Any]


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
    return with_changes(state, seq=state.seq + 1, **handler(state, event))


def replay(log: Sequence[JsonObject]) -> BamState:
    """Rebuild a game's state from its logged events (setup first); raise LogError if inconsistent."""
    state: BamState | None = None
    for obj in log:
        try:
            state = evolve(state, event_from_json(obj))
        except (Inconsistent, KeyError, TypeError, ValueError, AttributeError) as error:
            where = f"event {obj.get('seq', '?')} ({obj.get('type', '?')})"
            detail = f"missing field {error}" if isinstance(error, KeyError) else str(error)
            raise LogError(f"cannot replay BAM! log: {where}: {detail}") from error
    if state is None:
        raise LogError("cannot replay BAM! log: it has no events")
    return state


def _setup_state(event: GameSetup) -> BamState:
    setup = event.state
    players = event.players
    red_ids = sorted(c for c, face in event.cards.items() if face.color == "red")
    if event.seq != 0:
        raise Inconsistent("the setup event must be the first (seq 0)")
    if setup.master not in players:
        raise Inconsistent("the setup's hands or master do not match its players")
    if sorted(setup.red_deck) != red_ids:
        raise Inconsistent("the setup's decks and hands do not hold each card exactly once")
    mode = CardMode(event.card_mode)
    state = BamState(
        players=players,
        seed=event.seed,
        rounds_per_player=event.rounds_per_player,
        hand_size=event.hand_size,
        cards=event.cards,
        red_deck=setup.red_deck,
        grey_deck=(),
        discard=(),
        hands={p: () for p in players},
        won_grey={p: () for p in players},
        won_red={p: () for p in players},
        master=setup.master,
        seq=1,
        card_mode=mode,
    )
    grey_count = sum(face.color == "grey" for face in event.cards.values())
    if mode is CardMode.TABLE:
        if setup.hands is not None or setup.grey_deck is not None or setup.grey_pile is None:
            raise Inconsistent("a table-cards setup logs hands and grey_deck as null and a grey_pile count")
        if setup.grey_pile != grey_count - len(players) * event.hand_size:
            raise Inconsistent(f"the setup's grey_pile {setup.grey_pile} is not the grey cards left after the deal")
        return with_changes(state, grey_pile=setup.grey_pile, held={p: event.hand_size for p in players})
    if setup.hands is None or setup.grey_deck is None or set(setup.hands) != set(players):
        raise Inconsistent("the setup's hands or master do not match its players")
    dealt = [c for hand in setup.hands.values() for c in hand]
    grey_ids = sorted(c for c, face in event.cards.items() if face.color == "grey")
    if sorted([*dealt, *setup.grey_deck]) != grey_ids:
        raise Inconsistent("the setup's decks and hands do not hold each card exactly once")
    return with_changes(state, grey_deck=setup.grey_deck, hands={p: setup.hands[p] for p in players})


def _on_round(state: BamState, event: RoundStarted) -> Changes:
    expected = state.master if state.round == 0 else state.next_master
    if event.master != expected:
        raise Inconsistent(f"round master {event.master} but {expected} is next")
    if not state.red_deck or event.red != state.red_deck[0]:
        raise Inconsistent(f"round reveals {event.red}, which is not the top red card")
    if event.number != state.round + 1 or event.blanks != state.cards[event.red].blanks:
        raise Inconsistent("round number or blanks do not match")
    if not set(event.players) <= set(state.active) - {event.master}:
        raise Inconsistent("round players must be seated, still in the game and not the master")
    mastered = {**state.mastered, event.master: state.mastered.get(event.master, 0) + 1}
    return dict(
        master=event.master,
        red=event.red,
        red_deck=state.red_deck[1:],
        round=event.number,
        round_players=event.players,
        submitted={},
        table=(),
        reading=(),
        phase=Phase.SUBMITTING,
        mastered=mastered,
    )


def _on_submit(state: BamState, event: Submitted) -> Changes:
    problem = submit_problem(state, event.player, event.cards)
    if problem is not None:
        raise Inconsistent(str(problem))
    played = dict(submitted={**state.submitted, event.player: event.cards}, table=state.table + event.cards)
    if state.table_cards:
        return dict(held={**state.held, event.player: state.held[event.player] - len(event.cards)}, **played)
    hand = tuple(c for c in state.hands[event.player] if c not in event.cards)
    return dict(hands={**state.hands, event.player: hand}, **played)


def _on_reading(state: BamState, event: ReadingOrder) -> Changes:
    if state.phase is not Phase.SUBMITTING or state.waiting_for:
        raise Inconsistent("reading order before all submissions are in")
    if sorted(event.order) != sorted(state.submitted):
        raise Inconsistent("the reading order does not list exactly the players who submitted")
    return dict(reading=event.order, phase=Phase.JUDGING)


def _on_best(state: BamState, event: BestChosen) -> Changes:
    if state.phase is not Phase.JUDGING or event.card not in state.submitted.get(event.player, ()):
        raise Inconsistent(f"best card {event.card} was not played by {event.player} this round")
    if event.card not in state.table:
        raise Inconsistent(f"best card {event.card} is no longer on the table")
    return dict(
        table=tuple(c for c in state.table if c != event.card),
        won_grey={**state.won_grey, event.player: state.won_grey[event.player] + (event.card,)},
    )


def _on_worst(state: BamState, event: WorstChosen) -> Changes:
    if state.phase is not Phase.JUDGING or event.player not in state.submitted or event.card != state.red:
        raise Inconsistent(f"worst: {event.player} cannot take {event.card}")
    return dict(red=None, won_red={**state.won_red, event.player: state.won_red[event.player] + (event.card,)})


def _on_discard(state: BamState, event: Discarded) -> Changes:
    if sorted(event.cards) != sorted(state.table):
        raise Inconsistent("discarded cards are not the ones left on the table")
    return dict(table=(), discard=state.discard + event.cards)


def _on_draw(state: BamState, event: Drew) -> Changes:
    if event.player in state.gone:
        raise Inconsistent(f"{event.player} draws after leaving the game")
    if state.table_cards:
        return _on_table_draw(state, event)
    if not event.cards or state.grey_deck[: len(event.cards)] != event.cards:
        raise Inconsistent(f"{event.player} draws cards that are not on top of the draw pile")
    if len(state.hands[event.player]) + len(event.cards) > state.hand_size:
        raise Inconsistent(f"{event.player} draws more than a full hand")
    return dict(
        grey_deck=state.grey_deck[len(event.cards) :],
        hands={**state.hands, event.player: state.hands[event.player] + event.cards},
    )


def _on_table_draw(state: BamState, event: Drew) -> Changes:
    """Table cards: a count of cards from the physical pile, never more than it holds or a hand takes."""
    count = event.count
    if event.cards is not None or not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise Inconsistent(f"a table-cards draw logs cards as null and a count of at least 1, not {count!r}")
    if count > state.grey_pile or state.held[event.player] + count > state.hand_size:
        raise Inconsistent(f"{event.player} draws {count} cards: more than the pile holds or a full hand")
    return dict(grey_pile=state.grey_pile - count, held={**state.held, event.player: state.held[event.player] + count})


def _on_reshuffle(state: BamState, event: Reshuffled) -> Changes:
    if state.table_cards:
        if state.grey_pile or event.deck is not None or event.cards != len(state.discard) or not state.discard:
            raise Inconsistent(
                "a table-cards reshuffle comes when the pile is empty, logs deck as null and "
                "counts exactly the discard pile"
            )
        return dict(grey_pile=event.cards, discard=())
    if (
        state.grey_deck
        or event.deck is None
        or sorted(event.deck) != sorted(state.discard)
        or event.cards != len(event.deck)
    ):
        raise Inconsistent("reshuffle while cards remain, or of cards not on the discard pile")
    return dict(grey_deck=event.deck, discard=())


def _on_left(state: BamState, event: PlayerLeft) -> Changes:
    """The leaver's hand and any cards they played this round are set aside."""
    player = event.player
    problem = leave_problem(state, player)
    if problem is not None:
        raise Inconsistent(str(problem))
    withdrawn = state.submitted.get(player, ())
    changes: Changes = dict(
        gone=state.gone + (player,),
        round_players=tuple(p for p in state.round_players if p != player),
        submitted={p: cards for p, cards in state.submitted.items() if p != player},
        table=tuple(c for c in state.table if c not in withdrawn),
        reading=tuple(p for p in state.reading if p != player),
    )
    if state.table_cards:
        return dict(changes, held={**state.held, player: 0}, set_aside=state.set_aside + withdrawn)
    return dict(changes, hands={**state.hands, player: ()}, set_aside=state.set_aside + state.hands[player] + withdrawn)


def _on_void(state: BamState, event: RoundVoided) -> Changes:
    if not state.void or event.red != state.red:
        raise Inconsistent(
            f"round {state.round} cannot be voided: its master is still in the game "
            "and enough players are left to judge it"
        )
    return dict(red=None, red_deck=state.red_deck + (event.red,))


def _on_game_over(state: BamState, event: BamGameOver) -> Changes:
    result = final_result(state, event.reason)
    if dict(event.scores) != result.scores or tuple(event.winners) != result.winners:
        raise Inconsistent("game_over scores or winners do not match the cards won")
    return dict(phase=Phase.OVER, result=result)


def _on_resumed(state: BamState, event: Resumed) -> Changes:
    return {}


_HANDLERS: dict[type[Event], Callable[[BamState, Any], Changes]] = {
    RoundStarted: _on_round,
    Submitted: _on_submit,
    ReadingOrder: _on_reading,
    BestChosen: _on_best,
    WorstChosen: _on_worst,
    Discarded: _on_discard,
    Drew: _on_draw,
    Reshuffled: _on_reshuffle,
    PlayerLeft: _on_left,
    RoundVoided: _on_void,
    BamGameOver: _on_game_over,
    Resumed: _on_resumed,
}
