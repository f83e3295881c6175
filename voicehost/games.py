"""The one registry of games: name → rules, host flow, simulator bot, words and demo.

Every command that takes a game name (``play``, ``simulate``, ``demo``, ``rank``, ``enrol``,
``resume``, ``replay``) and the vocabulary packs look the game up here, so a fourth game is one
entry plus its modules. Modules are named, not imported: ``voicehost --help`` stays fast and a
game's heavy imports (BAM!'s sentence grammar) happen only when that game is played.

What each named module provides:

- ``rules``: ``GAME``, an object satisfying :class:`voicehost.rules.base.Game`.
- ``flow``: ``HELP``, ``OPTIONS`` (every option and what it accepts, see
  :mod:`voicehost.host.options`), ``add_arguments(parser)``, ``options_from_args(args) -> dict`` and
  ``make_flow(host, seed, options) -> Flow`` (see :mod:`voicehost.host.session`).
- ``bot``: the simulator's bot for the game (see :mod:`voicehost.sim`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from voicehost.errors import InputError

if TYPE_CHECKING:
    from voicehost.rules.base import Game


class UnknownGame(InputError):
    """A game name that is not in the registry (status 2)."""


@dataclass(frozen=True)
class GameInfo:
    """One game: its names and where its parts live."""

    name: str
    """The name on the command line and in logs ("bimbamm")."""
    title: str
    """As players read it ("Bim Bamm!")."""
    rules: str
    """Module of the pure rules; its ``GAME`` satisfies the ``Game`` interface."""
    flow: str
    """Module of the host's flow (what the host says and asks)."""
    bot: str
    """Module of the simulator's bot."""
    demo: str
    """The session fixture ``voicehost demo --game NAME`` replays (audio_fixtures/sessions/)."""
    phrases: tuple[str, ...] = ()
    """The English phrases players shout, in the command-line contract of ``rank`` and ``enrol``;
    empty for a game played by numbers and sentences (BAM!), which has no shouting race."""

    @property
    def shouted(self) -> bool:
        """True for a game of shouted words: it has a vocabulary pack section and can be ranked."""
        return bool(self.phrases)

    def rules_game(self) -> Game[Any, Any]:
        """The rules behind the shared ``Game`` interface."""
        game: Game[Any, Any] = importlib.import_module(self.rules).GAME
        return game

    def flow_module(self) -> ModuleType:
        """The host flow's module."""
        return importlib.import_module(self.flow)

    def bot_module(self) -> ModuleType:
        """The simulator bot's module."""
        return importlib.import_module(self.bot)


GAMES: dict[str, GameInfo] = {
    info.name: info
    for info in (
        GameInfo(
            "bimbamm",
            "Bim Bamm!",
            "voicehost.rules.bimbamm",
            "voicehost.host.flows.bimbamm",
            "voicehost.sim.bimbamm",
            "bimbamm_two_players",
            ("cat", "dog", "pig", "donkey", "hen"),
        ),
        GameInfo(
            "bimbambum",
            "Bim Bam Bum!",
            "voicehost.rules.bimbambum",
            "voicehost.host.flows.bimbambum",
            "voicehost.sim.bimbambum",
            "bimbambum_quick",
            (
                "bim",
                "bim bim",
                "bim bim bim",
                "bam",
                "bam bam",
                "bam bam bam",
                "bum",
                "bum bum",
                "bum bum bum",
                "bim bam bum",
                "ship",
                "slap",
            ),
        ),
        GameInfo(
            "bam", "BAM!", "voicehost.rules.bam", "voicehost.host.flows.bam", "voicehost.sim.bam", "bam_three_players"
        ),
    )
}
"""Every game, in the order commands list them."""

NAMES: tuple[str, ...] = tuple(GAMES)
"""Every game's name."""

SHOUTED: tuple[str, ...] = tuple(name for name, info in GAMES.items() if info.shouted)
"""The games of shouted words (vocabulary packs, ``rank``, ``enrol``)."""


def game(name: object) -> GameInfo:
    """The registry entry of ``name``; UnknownGame (one line, status 2) if there is none."""
    info = GAMES.get(name) if isinstance(name, str) else None
    if info is None:
        raise UnknownGame(f"unknown game {name!r}: choose {', '.join(NAMES)}")
    return info
