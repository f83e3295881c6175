"""Bim Bam Bum!: the pure rules engine (deal, turns, yells, slap races, mistakes, penalties).

Use :func:`new_game` to deal, :func:`apply` for every action (:class:`Play`, :class:`Timeout`,
:class:`SlapRace`, :class:`Quit`, :class:`Resume`) and :func:`replay` to rebuild a game from its
log. :data:`RULES` is the same behind the shared ``Game`` interface. The simulator lives in
``voicehost.rules.bimbambum.sim`` (it may use ``random`` and ``time``; nothing else here does).
"""

from __future__ import annotations

from typing import Sequence

from voicehost.rules.base import Event, Game, JsonObject
from voicehost.rules.bimbambum.actions import Action, Play, Quit, Resume, SlapRace, Timeout
from voicehost.rules.bimbambum.cards import (
    CARDS_PER_PLAYER, DEFAULT_EXTENSION, Card, SetupError, expected_phrase, is_call,
    normalise_phrase,
)
from voicehost.rules.bimbambum.engine import apply, new_game, start
from voicehost.rules.bimbambum.events import (
    CardPlayed, Called, EndReason, GameEnded, MistakeMade, MistakeReason, Penalised, Reversed,
    RoundStarted, Setup, Skipped, Slapped, TurnStarted,
)
from voicehost.rules.bimbambum.replay import replay
from voicehost.rules.bimbambum.state import Phase, Settings, State


class BimBamBum:
    """The engine behind the shared :class:`~voicehost.rules.base.Game` interface."""

    name = "bimbambum"

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Apply one action; raise IllegalAction (state unchanged) if the rules forbid it."""
        return apply(state, action)

    def is_over(self, state: State) -> bool:
        """True once the game has ended (a winner, the turn cap, or a quit)."""
        return state.is_over

    def replay(self, log: Sequence[JsonObject]) -> State:
        """Rebuild the state from a log's events; raise LogError if they do not follow the rules."""
        return replay(log)


RULES: Game[State, Action] = BimBamBum()
"""The engine the host drives (mypy checks it against the shared interface)."""

__all__ = [
    "Action", "BimBamBum", "CARDS_PER_PLAYER", "Called", "Card", "CardPlayed", "DEFAULT_EXTENSION",
    "EndReason", "GameEnded", "MistakeMade", "MistakeReason", "Penalised", "Phase", "Play", "Quit",
    "RULES", "Resume", "Reversed", "RoundStarted", "Settings", "Setup", "SetupError", "Skipped",
    "SlapRace", "Slapped", "State", "Timeout", "TurnStarted", "apply", "expected_phrase", "is_call",
    "new_game", "normalise_phrase", "replay", "start",
]
