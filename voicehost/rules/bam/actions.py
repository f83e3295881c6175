"""What players and the host can do in BAM!: submit cards, judge, let a player leave, quit.

Every action's last field is ``t``, the game-clock seconds chosen by the caller, required and
keyword-only (``Submit("Bob", ("g4",), t=12.5)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from voicehost.rules.bam.state import CardId
from voicehost.rules.base import PlayerName


@dataclass(frozen=True)
class Submit:
    """A player lays down grey cards for the current red card, in blank order."""

    player: PlayerName
    cards: tuple[CardId, ...]
    t: float = field(kw_only=True)
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
    t: float = field(kw_only=True)
    """Game-clock seconds."""


@dataclass(frozen=True)
class Leave:
    """The table says a player has left (or skips a player who does not answer): they are out of
    the game for good. Their cards leave the game; a round they were master of does not count."""

    player: PlayerName
    t: float = field(kw_only=True)
    """Game-clock seconds."""


@dataclass(frozen=True)
class Quit:
    """The table stops the game; scores are counted as they stand."""

    t: float = field(kw_only=True)
    """Game-clock seconds."""


Action: TypeAlias = Submit | Judge | Leave | Quit
