"""Bim Bam Bum!: the pure rules engine (deal, turns, yells, slap races, mistakes, penalties).

Use :func:`new_game` to deal, :func:`apply` for every action (:class:`Play`, :class:`Timeout`,
:class:`SlapRace`, :class:`Quit`, :class:`Resume`) and :func:`replay` to rebuild a game from its
log. :data:`GAME` is the same behind the shared ``Game`` interface; the bots live in
:mod:`voicehost.sim.bimbambum`.
"""

from __future__ import annotations

from typing import Any, Sequence

from voicehost.rules.base import Event, Game, JsonObject, PlayerName, Rng
from voicehost.rules.bimbambum.actions import Action, Play, Quit, Resume, SlapRace, Timeout
from voicehost.rules.bimbambum.cards import (
    CARDS_PER_PLAYER,
    DEFAULT_EXTENSION,
    Card,
    SetupError,
    expected_phrase,
    is_call,
    normalise_phrase,
)
from voicehost.rules.bimbambum.engine import apply, new_game, start
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
    event_from_json,
)
from voicehost.rules.bimbambum.replay import evolve, replay
from voicehost.rules.bimbambum.state import Phase, Settings, State


class BimBamBum:
    """The engine behind the shared :class:`~voicehost.rules.base.Game` interface."""

    name = GAME_NAME

    def __init__(self, rng: Rng | None = None) -> None:
        self.rng = rng

    def seeded(self, rng: Rng) -> BimBamBum:
        """These rules dealing with ``rng``."""
        return BimBamBum(rng)

    def new_game(
        self,
        players: Sequence[PlayerName],
        seed: int,
        *,
        first_player: PlayerName | None = None,
        t: float = 0.0,
        **options: Any,
    ) -> tuple[State, list[Event]]:
        """Deal (see :func:`~.engine.new_game`; options: settings, extension, each)."""
        if self.rng is None:
            raise SetupError("Bim Bam Bum! needs a seeded RNG to deal: use RULES.seeded(rng)")
        return new_game(players, self.rng, seed, first_player=first_player, t=t, **options)

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Apply one action; raise IllegalAction (state unchanged) if the rules forbid it."""
        return apply(state, action)

    def over(self, state: State) -> bool:
        """True once the game has ended (a winner, the turn cap, or a quit)."""
        return state.over

    def resume(self, state: State, t: float) -> tuple[State, list[Event]]:
        """The "resumed" event of a loaded game; the open window starts again at ``t``."""
        return apply(state, Resume(t=t))

    def event_from_json(self, obj: JsonObject) -> Event:
        """The typed event of one log object."""
        return event_from_json(obj)

    def evolve(self, state: State | None, event: Event) -> State:
        """The state after one event (see :func:`~.replay.evolve`)."""
        return evolve(state, event)

    def replay(self, log: Sequence[JsonObject]) -> State:
        """Rebuild the state from a log's events; raise LogError if they do not follow the rules."""
        return replay(log)


GAME: Game[State, Action] = BimBamBum()
"""The rules behind the shared Game interface, as every rules package names them (mypy checks it)."""

RULES = GAME
"""The earlier name of :data:`GAME`."""


__all__ = [
    "Action",
    "BimBamBum",
    "CARDS_PER_PLAYER",
    "Called",
    "Card",
    "CardPlayed",
    "DEFAULT_EXTENSION",
    "EndReason",
    "GAME",
    "GAME_NAME",
    "GameEnded",
    "Illegal",
    "event_from_json",
    "MistakeMade",
    "MistakeReason",
    "Penalised",
    "Phase",
    "Play",
    "Quit",
    "RULES",
    "Resume",
    "Reversed",
    "RoundStarted",
    "Settings",
    "Setup",
    "SetupError",
    "Skipped",
    "SlapRace",
    "Slapped",
    "State",
    "Timeout",
    "TurnStarted",
    "apply",
    "evolve",
    "expected_phrase",
    "is_call",
    "new_game",
    "normalise_phrase",
    "replay",
    "start",
]
