"""Bim Bam Bum!: the pure rules engine (deal, turns, yells, slap races, mistakes, penalties).

Use :func:`new_game` to deal, :func:`apply` for every action (:class:`Play`, :class:`Timeout`,
:class:`SlapRace`, :class:`Quit`, :class:`Resume`) and :func:`replay` to rebuild a game from its
log. :data:`GAME` is the same behind the shared ``Game`` interface; the bots live in
:mod:`voicehost.sim.bimbambum`.
"""

from __future__ import annotations


from voicehost.rules.base import Game, Rules
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


GAME: Game[State, Action] = Rules[State, Action](
    GAME_NAME,
    "Bim Bam Bum!",
    deal=new_game,
    act=apply,
    resumed=lambda t: Resume(t=t),
    ended=lambda state: state.over,
    read_event=event_from_json,
    rebuild=replay,
    setup_error=SetupError,
)
"""The rules behind the shared Game interface, as every rules package names them (mypy checks it)."""

RULES = GAME
"""The earlier name of :data:`GAME`."""


__all__ = [
    "Action",
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
