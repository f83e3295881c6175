"""``voicehost simulate GAME``: bots play complete games at machine speed."""

from __future__ import annotations

import argparse
import importlib

from voicehost.status import ExitStatus

NAME = "simulate"
HELP = "let bots play many complete games at machine speed and summarise them"
DESCRIPTION = """\
Bots play complete games with random legal actions and random reaction times, a given rate of
mistakes, and a fixed seed (same seed, same games). It prints a summary: games, turns per game,
win rate by seat, mistakes, games per second. With --log-dir it writes one JSONL event log per game,
which can be replayed and resumed like a real game's log.

examples:
  voicehost simulate bimbamm --players 4 --games 1000 --seed 1
  voicehost simulate bimbambum --players 5 --games 200 --seed 7 --mistake-rate 0.05 --log-dir logs/
  voicehost simulate bam --players 6 --games 100 --seed 3
"""

GAMES = {
    "bimbamm": "voicehost.rules.bimbamm.sim",
    "bimbambum": "voicehost.rules.bimbambum.sim",
    "bam": "voicehost.rules.bam.sim",
}
"""Game name → simulator module, which defines ``add_arguments(parser)`` and ``run(args) -> int``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One sub-parser per game, each with that game's simulator options."""
    games = parser.add_subparsers(dest="game", metavar="GAME", required=True, parser_class=type(parser))
    for game, module_name in GAMES.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        sub = games.add_parser(game, help=getattr(module, "HELP", f"simulate {game}"),
                               description=getattr(module, "DESCRIPTION", None),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(_simulate=module.run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen game's simulator."""
    simulate = getattr(args, "_simulate", None)
    if simulate is None:
        return ExitStatus.USAGE
    return int(simulate(args))
