"""Bim Bamm!: the pure rules engine (state, actions, events, apply, replay).

Start with :func:`new_game`, then feed actions to :func:`apply`; each call returns the new
:class:`State` and the events to announce and append to the JSON Lines log. :func:`evolve`
applies one event (the engine decides an action's events, then folds them with it), and
:func:`replay`, a fold of evolve, rebuilds the state from such a log; :func:`resume` marks the
restart. :data:`GAME` is the same
behind the shared ``Game`` interface; the bots live in :mod:`voicehost.sim.bimbamm`.

``new_game(..., cards="table")`` starts a table-cards game (players hold physical cards the host
does not know); the host then reports false claims with :class:`Challenge`. :class:`Leave` takes
a player who has left out of the game.
"""

from voicehost.rules.base import Game, Rules
from voicehost.rules.bimbamm.actions import (
    Action,
    Call,
    Challenge,
    Flip,
    Leave,
    Quit,
    Refuted,
    ResolveRace,
    Resume,
    ScorerFlips,
    Shout,
    UseSpecial,
)
from voicehost.rules.bimbamm.engine import (
    GAME_NAME,
    SetupError,
    apply,
    legal_actions,
    new_game,
    next_claim,
    restricted_tile,
    resume,
    would_score,
)
from voicehost.rules.bimbamm.events import (
    ChallengeEvent,
    EndReason,
    ExchangeEvent,
    FlipEvent,
    FlipReason,
    GameOverEvent,
    Illegal,
    LeftEvent,
    MistakeEvent,
    MistakeReason,
    PointEvent,
    RaceEvent,
    SetupEvent,
    ShoutEvent,
    SwapEvent,
    TurnEvent,
    event_from_json,
)
from voicehost.rules.bimbamm.replay import evolve, replay, state_from_setup
from voicehost.rules.bimbamm.state import FIVE, WINNING_POINTS, Cards, Claim, Declaration, Phase, State
from voicehost.rules.bimbamm.tiles import (
    Animal,
    Side,
    Special,
    Tile,
    TileSetError,
    default_tiles,
    parse_tile_spec,
    parse_tile_toml,
)

GAME: Game[State, Action] = Rules[State, Action](
    GAME_NAME,
    "Bim Bamm!",
    deal=new_game,
    act=apply,
    resumed=lambda t: Resume(t=t),
    ended=lambda state: state.over,
    read_event=event_from_json,
    rebuild=replay,
    setup_error=SetupError,
)
"""The object the host drives through the shared Game interface."""

__all__ = [
    "Action",
    "Animal",
    "Call",
    "Cards",
    "Challenge",
    "ChallengeEvent",
    "Claim",
    "Declaration",
    "EndReason",
    "ExchangeEvent",
    "FIVE",
    "Illegal",
    "event_from_json",
    "evolve",
    "Flip",
    "FlipEvent",
    "FlipReason",
    "GAME",
    "GAME_NAME",
    "GameOverEvent",
    "Leave",
    "LeftEvent",
    "MistakeEvent",
    "MistakeReason",
    "Phase",
    "PointEvent",
    "Quit",
    "RaceEvent",
    "Refuted",
    "ResolveRace",
    "Resume",
    "ScorerFlips",
    "SetupError",
    "SetupEvent",
    "Shout",
    "ShoutEvent",
    "Side",
    "Special",
    "State",
    "SwapEvent",
    "Tile",
    "TileSetError",
    "TurnEvent",
    "UseSpecial",
    "WINNING_POINTS",
    "apply",
    "default_tiles",
    "legal_actions",
    "new_game",
    "next_claim",
    "parse_tile_spec",
    "parse_tile_toml",
    "replay",
    "restricted_tile",
    "resume",
    "state_from_setup",
    "would_score",
]
