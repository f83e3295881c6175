"""BAM!: the judge game of red sentence cards and grey word cards (pure rules).

Start a game with :meth:`BamGame.start` (given a seeded RNG and already-loaded cards, e.g. from
:func:`voicehost.decks.load_decks`), then feed actions (:class:`Submit`, :class:`Judge`,
:class:`Leave`, :class:`Quit`) to :meth:`BamGame.apply`; each call returns the new :class:`BamState` and the events
to announce and append to the JSON Lines log. :func:`replay` rebuilds the state from such a log;
:meth:`BamGame.resume` marks the restart. :data:`GAME` is BAM! behind the shared ``Game``
interface; its bots live in :mod:`voicehost.sim.bam`.

``start(..., card_mode="table")`` plays with printed grey cards the host does not know; players
submit by printed number (:func:`card_for_number`).
"""

from voicehost.rules.base import Game
from voicehost.rules.bam.actions import Action, Judge, Leave, Quit, Submit
from voicehost.rules.bam.checks import Illegal, card_for_number, judge_problem, leave_problem, submit_problem
from voicehost.rules.bam.engine import BadSetup, BamGame
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
from voicehost.rules.bam.replay import evolve, replay
from voicehost.rules.bam.state import (
    GAME_NAME,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    BamState,
    CardFace,
    CardId,
    CardMode,
    EndReason,
    Phase,
    Result,
    Submission,
)

GAME: Game[BamState, Action] = BamGame()
"""The rules behind the shared Game interface (without an RNG: replay, judge, resume; see
:meth:`BamGame.seeded`)."""

__all__ = [
    "Action",
    "BadSetup",
    "BamGame",
    "BamGameOver",
    "BamState",
    "BestChosen",
    "CardFace",
    "CardId",
    "CardMode",
    "Discarded",
    "Drew",
    "EndReason",
    "GAME",
    "GAME_NAME",
    "GameSetup",
    "HAND_SIZE",
    "Illegal",
    "Inconsistent",
    "Judge",
    "Leave",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Phase",
    "PlayerLeft",
    "Quit",
    "ReadingOrder",
    "Reshuffled",
    "Result",
    "RoundStarted",
    "RoundVoided",
    "Submission",
    "Submit",
    "Submitted",
    "WorstChosen",
    "card_for_number",
    "evolve",
    "event_from_json",
    "judge_problem",
    "leave_problem",
    "replay",
    "submit_problem",
]
