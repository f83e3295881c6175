"""The Bim Bam Bum! rules: ``apply(state, action) -> (state, events)``, pure and deterministic.

Randomness enters only through the Rng given to :func:`new_game` (the shuffle and, if the host
does not name one, the first player); time enters only with the actions. A rejected action raises
:class:`~voicehost.rules.base.IllegalAction` and changes nothing. Mistakes are not illegal: they
are events, and they end the round with a penalty.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from voicehost.rules.base import Event, IllegalAction, PlayerName, Resumed, Rng
from voicehost.rules.bimbambum.actions import Action, Play, Quit, Resume, SlapRace, Timeout
from voicehost.rules.bimbambum.cards import (
    CARDS_PER_PLAYER,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Card,
    SetupError,
    expected_phrase,
    game_cards,
    is_call,
    normalise_phrase,
    player_count_problem,
)
from voicehost.rules.bimbambum.events import (
    GAME_NAME,
    CardPlayed,
    Called,
    EndReason,
    GameEnded,
    Illegal,
    MistakeMade,
    MistakeReason,
    Penalised,
    Reversed,
    RoundStarted,
    Setup,
    Skipped,
    Slapped,
    TurnStarted,
    snapshot,
)
from voicehost.rules.bimbambum.replay import evolve
from voicehost.rules.bimbambum.state import PILES, Phase, Pile, Settings, State

_NO_PILES: tuple[Pile, ...] = ((), (), ())


def new_game(
    players: Sequence[PlayerName],
    rng: Rng,
    seed: int,
    *,
    first_player: PlayerName | None = None,
    settings: Settings = Settings(),
    extension: Sequence[Card] | None = None,
    t: float = 0.0,
    each: int | None = None,
) -> tuple[State, list[Event]]:
    """Shuffle, deal per the rulebook's table, box the excess, and start the first round.

    ``first_player`` is the host's choice (the loudest player); None picks one with ``rng``. ``seed``
    is only recorded in the setup event, so a log says how its deal was made. ``each`` deals
    fewer cards per player than the table says (the "quick game" house rule; the rest is boxed).
    """
    cards = game_cards(len(players), extension)
    rng.shuffle(cards)
    full = CARDS_PER_PLAYER[len(players)]
    if each is not None and not 1 <= each <= full:
        raise SetupError(f"a quick game deals 1 to {full} cards each to {len(players)} players, not {each}")
    each = each or full
    decks = {p: cards[i * each : (i + 1) * each] for i, p in enumerate(players)}
    if first_player is None:
        first_player = players[rng.randrange(len(players))]
    return start(
        players, decks, first_player=first_player, box=cards[len(players) * each :], settings=settings, seed=seed, t=t
    )


def start(
    players: Sequence[PlayerName],
    decks: Mapping[PlayerName, Sequence[Card]],
    *,
    first_player: PlayerName,
    piles: Sequence[Sequence[Card]] = _NO_PILES,
    box: Sequence[Card] = (),
    direction: int = 1,
    settings: Settings = Settings(),
    seed: int = 0,
    t: float = 0.0,
) -> tuple[State, list[Event]]:
    """Start from a given position (a fresh deal, a test's position or a log's setup).

    Emits "setup", then "round" and "turn" for ``first_player``, all at ``t``.
    """
    first = first_player
    check_setup(players, decks, first, piles, direction, t)
    state = State(
        players=tuple(players),
        decks=tuple(tuple(decks[p]) for p in players),
        piles=tuple(tuple(pile) for pile in piles),
        box=tuple(box),
        turn=first,
        direction=direction,
        settings=settings,
        seed=seed,
        t=t,
    )
    step = _Step(None, t)
    step.add(Setup(0, t, GAME_NAME, state.players, seed, snapshot(state), settings.rules))
    _new_round(step, first)
    return step.done()


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    """Apply one action; raise IllegalAction (state unchanged) if the rules forbid it now."""
    _check_time(state, action.t)
    if isinstance(action, Play):
        return _play(state, action)
    if isinstance(action, Timeout):
        return _timeout(state, action)
    if isinstance(action, SlapRace):
        return _slap_race(state, action)
    if isinstance(action, Quit):
        step = _Step(state, action.t)
        _end(step, None, EndReason.QUIT)
        return step.done()
    if isinstance(action, Resume):
        return _resume(state, action)
    raise IllegalAction(Illegal.UNKNOWN_ACTION, f"{action!r} is not a Bim Bam Bum! action")


class _Step:
    """The events of one action being decided, each folded into the state as it is made.

    Deciding reads ``state`` (the state after the events so far); only :func:`~.replay.evolve`
    changes it, so the live game and a replay of its log build their states the same way.
    """

    def __init__(self, state: State | None, t: float) -> None:
        self._state = state
        self.t = t
        self.events: list[Event] = []

    @property
    def state(self) -> State:
        assert self._state is not None, "the setup event comes first"
        return self._state

    def seq(self) -> int:
        return self.state.seq

    def add(self, event: Event) -> None:
        self._state = evolve(self._state, event)
        self.events.append(event)

    def done(self) -> tuple[State, list[Event]]:
        return self.state, self.events


def _play(state: State, action: Play) -> tuple[State, list[Event]]:
    if state.phase is Phase.SLAP:
        raise IllegalAction(
            Illegal.SLAP_RACE_OPEN,
            f"{action.player} cannot play: the slap race after {state.caller}'s BIM BAM BUM! is still open",
        )
    _check_seated(state, action.player)
    if not 0 <= action.pile < PILES:
        raise IllegalAction(Illegal.BAD_PILE, f"pile {action.pile} does not exist (piles are 0, 1 and 2)")
    _check_onset(action.onset, action.t, action.player)
    step = _Step(state, action.t)
    if action.player != state.turn:
        _mistake(step, action.player, MistakeReason.OUT_OF_TURN, action.onset)
    elif state.window_closes is not None and action.onset > state.window_closes:
        _mistake(step, action.player, MistakeReason.TIMEOUT, action.onset)
    else:
        _place(step, action)
    return step.done()


def _place(step: _Step, action: Play) -> None:
    """Put the player's top card on the pile, judge the yell, and pass the turn on."""
    state, player = step.state, action.player
    seat = state.seat(player)
    card, deck = state.decks[seat][0], state.decks[seat][1:]
    visible = tuple(card if i == action.pile else top for i, top in enumerate(state.visible))
    expected = expected_phrase(card, visible)
    said = normalise_phrase(action.said)
    ok = said == expected
    step.add(
        CardPlayed(step.seq(), step.t, player, card, action.pile, action.onset, visible, expected, said, ok, len(deck))
    )
    if not ok:
        _mistake(step, player, MistakeReason.WRONG_WORD, action.onset)
    elif not deck:
        _end(step, player, EndReason.LAST_CARD)
    elif is_call(visible):
        step.add(Called(step.seq(), step.t, player))
    else:
        _pass_turn(step, player, sum(1 for top in visible if top is card))


def _pass_turn(step: _Step, player: PlayerName, count: int) -> None:
    """Once: next player; twice: skip one; thrice: reverse, then next in the new direction."""
    state = step.state
    if count == 2:
        step.add(Skipped(step.seq(), step.t, state.next_player(player)))
        _begin_turn(step, state.next_player(player, 2))
        return
    if count == 3:
        step.add(Reversed(step.seq(), step.t, -state.direction))
    _begin_turn(step, step.state.next_player(player))


def _timeout(state: State, action: Timeout) -> tuple[State, list[Event]]:
    if state.phase is Phase.SLAP:
        raise IllegalAction(Illegal.SLAP_RACE_OPEN, "no play is awaited: a slap race is open (send its result)")
    closes = state.window_closes
    if closes is None:
        raise IllegalAction(Illegal.NO_WINDOW, "this game has no time window, so a turn cannot time out")
    if action.t < closes:
        raise IllegalAction(
            Illegal.WINDOW_OPEN, f"{state.turn}'s window is open until {closes:.3f} s, not closed at {action.t:.3f} s"
        )
    step = _Step(state, action.t)
    _mistake(step, state.turn, MistakeReason.TIMEOUT, None)
    return step.done()


def _slap_race(state: State, action: SlapRace) -> tuple[State, list[Event]]:
    if state.phase is not Phase.SLAP or state.caller is None:
        raise IllegalAction(Illegal.NO_SLAP_RACE, "there is no slap race: nobody has yelled BIM BAM BUM!")
    assert state.slap_opens is not None and state.slap_closes is not None
    first: dict[PlayerName, float] = {}
    for player, onset in action.slaps:
        _check_seated(state, player)
        _check_onset(onset, action.t, player)
        if state.slap_opens <= onset <= state.slap_closes and onset < first.get(player, math.inf):
            first[player] = onset
    caller, others = state.caller, state.after(state.caller)
    if action.t < state.slap_closes and caller not in first and not all(p in first for p in others):
        raise IllegalAction(
            Illegal.RACE_NOT_FINISHED,
            f"the slap window is open until {state.slap_closes:.3f} s and not everyone has slapped",
        )
    order = (caller,) + others
    step = _Step(state, action.t)
    for player, onset in sorted(first.items(), key=lambda item: (item[1], order.index(item[0]))):
        step.add(Slapped(step.seq(), step.t, player, onset))
    if caller in first:
        _mistake(step, caller, MistakeReason.SLAPPED_OWN_CALL, first[caller])
    else:
        loser = _last_to_slap(others, first)
        _mistake(step, loser, MistakeReason.LAST_TO_SLAP, first.get(loser))
    return step.done()


def _last_to_slap(others: tuple[PlayerName, ...], first: Mapping[PlayerName, float]) -> PlayerName:
    """The latest slapper; a player who did not slap is later than all; ties: first in turn order."""
    latest = max(first.get(p, math.inf) for p in others)
    return next(p for p in others if first.get(p, math.inf) == latest)


def _resume(state: State, action: Resume) -> tuple[State, list[Event]]:
    """Mark the restart; the open window (play or slap) starts again now."""
    step = _Step(state, action.t)
    step.add(Resumed(step.seq(), step.t))
    if state.phase is not Phase.SLAP:
        _begin_turn(step, state.turn, repeat=True)
    return step.done()


def _mistake(step: _Step, player: PlayerName, reason: MistakeReason, onset: float | None) -> None:
    step.add(MistakeMade(step.seq(), step.t, player, reason, onset))
    _penalise(step, player)
    _new_round(step, player)


def _penalise(step: _Step, player: PlayerName) -> None:
    """The largest pile goes under the player's deck in its order; the smallest goes to the box.

    Largest: most cards, ties to the lowest pile number. Smallest: "the smallest card pile", so
    the fewest cards among the other piles that hold any, ties to the lower number; with no other
    card pile nothing is boxed (pile number null). Rules version 1 also counted an empty spot.
    """
    state = step.state
    sizes = [len(pile) for pile in state.piles]
    largest = min(range(PILES), key=lambda i: (-sizes[i], i))
    others = [i for i in range(PILES) if i != largest and (sizes[i] or state.settings.rules == 1)]
    smallest = min(others, key=lambda i: (sizes[i], i)) if others else largest
    took_pile = largest if sizes[largest] else None
    boxed_pile = smallest if smallest != largest and sizes[smallest] else None
    boxed = len(state.piles[boxed_pile]) if boxed_pile is not None else 0
    cards = len(state.deck(player)) + sizes[largest]
    step.add(Penalised(step.seq(), step.t, player, took_pile, sizes[largest], boxed_pile, boxed, cards))


def _new_round(step: _Step, starter: PlayerName) -> None:
    if _cap_reached(step.state):
        _end(step, None, EndReason.TURN_CAP)
        return
    step.add(RoundStarted(step.seq(), step.t, starter))
    _begin_turn(step, starter)


def _begin_turn(step: _Step, player: PlayerName, repeat: bool = False) -> None:
    """Open ``player``'s window now, or stop the game at the turn cap."""
    state = step.state
    if not repeat and _cap_reached(state):
        _end(step, None, EndReason.TURN_CAP)
        return
    card = state.top(player)
    assert card is not None, "a player without cards has won already"
    step.add(TurnStarted(step.seq(), step.t, player, card))


def _cap_reached(state: State) -> bool:
    cap = state.settings.turn_cap
    return cap is not None and state.turns >= cap


def _end(step: _Step, winner: PlayerName | None, reason: EndReason) -> None:
    step.add(GameEnded(step.seq(), step.t, reason, winner, step.state.cards_left))


def _check_time(state: State, t: float) -> None:
    if state.phase is Phase.OVER:
        raise IllegalAction(Illegal.GAME_OVER, "the game is over")
    if not math.isfinite(t) or t < state.t:
        raise IllegalAction(Illegal.TIME_BACKWARDS, f"action time {t} s is before the last event ({state.t} s)")


def _check_seated(state: State, player: PlayerName) -> None:
    if player not in state.players:
        raise IllegalAction(Illegal.NOT_SEATED, f"{player!r} is not seated at this table ({', '.join(state.players)})")


def _check_onset(onset: float, t: float, player: PlayerName) -> None:
    if not math.isfinite(onset) or onset > t:
        raise IllegalAction(
            Illegal.BAD_ONSET, f"{player}'s onset {onset} s is not a time at or before the action ({t} s)"
        )


def check_setup(
    players: Sequence[PlayerName],
    decks: Mapping[PlayerName, Sequence[Card]],
    first: PlayerName,
    piles: Sequence[Sequence[Card]],
    direction: int,
    t: float,
) -> None:
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise SetupError(player_count_problem(len(players)))
    if len(set(players)) != len(players) or not all(isinstance(p, str) and p.strip() for p in players):
        raise SetupError(f"player names must be distinct and not blank: {list(players)}")
    if first not in players:
        raise SetupError(f"the first player {first!r} is not seated")
    for p in players:
        if not decks.get(p):
            raise SetupError(f"{p} needs a deck of at least one card")
    if len(piles) != PILES:
        raise SetupError(f"there are {PILES} piles, not {len(piles)}")
    if direction not in (1, -1):
        raise SetupError(f"direction is 1 (clockwise) or -1, not {direction}")
    if not math.isfinite(t):
        raise SetupError(f"the start time must be a number of seconds, not {t}")
