"""``voicehost simulate GAME``: bots play complete games at machine speed."""

from __future__ import annotations

import argparse

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One sub-parser per game of the registry: the driver's common options and the bot's own."""
    from voicehost import sim
    from voicehost.games import GAMES

    games = parser.add_subparsers(dest="game", metavar="GAME", required=True, parser_class=type(parser))
    for game, info in GAMES.items():
        module = info.bot_module()
        sub = games.add_parser(
            game, help=module.HELP, description=module.DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        sim.add_common_arguments(sub, module)
        module.add_arguments(sub)
        sub.set_defaults(_bots=module)


def run(args: argparse.Namespace) -> int:
    """Run the chosen game's bots through the one driver."""
    from voicehost import sim

    module = getattr(args, "_bots", None)
    if module is None:
        return ExitStatus.USAGE
    return sim.run(module, args.game, args)
