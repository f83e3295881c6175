"""What the voice host (or a bot, or a test) tells the engine happened.

Times are game-clock seconds chosen by the caller: ``t`` is when the action reaches the engine,
``onset`` when the player's voice (or slap) began. The engine never reads a clock. ``t`` is the last
field of every action, required and keyword-only (``Timeout(t=12.5)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from voicehost.rules.base import PlayerName


@dataclass(frozen=True)
class Play:
    """``player`` put their top card on ``pile`` (0, 1, 2) and yelled ``said``.

    Also for plays out of turn (a mistake: the card stays on the deck) and late plays (a timeout).
    ``said`` is the recognised phrase ("bam bam", "bim bam bum"); the engine normalises it again.
    """

    player: PlayerName
    pile: int
    said: str
    onset: float
    """Seconds: start of the player's voice."""
    t: float = field(kw_only=True)
    """Seconds: now."""


@dataclass(frozen=True)
class Timeout:
    """The time window closed without a play by the current player."""

    t: float = field(kw_only=True)
    """Seconds: now, at or after the window's close."""


@dataclass(frozen=True)
class SlapRace:
    """The slaps heard after a "BIM BAM BUM!", the caller's own included if it happened.

    Send it when the slap window has closed, or earlier once every other player (or the caller)
    has slapped. Slaps outside the window are ignored and not logged; a player's first slap counts.
    """

    slaps: tuple[tuple[PlayerName, float], ...]
    """(player, onset seconds) pairs, in any order."""
    t: float = field(kw_only=True)
    """Seconds: now."""


@dataclass(frozen=True)
class Quit:
    """The players stop the game; nobody wins."""

    t: float = field(kw_only=True)


@dataclass(frozen=True)
class Resume:
    """A saved game continues: the current window (play or slap) opens again at ``t``."""

    t: float = field(kw_only=True)


Action: TypeAlias = Play | Timeout | SlapRace | Quit | Resume
