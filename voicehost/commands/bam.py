"""``voicehost bam``: tools for the game BAM! (a command group; ``render`` for now)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from voicehost.errors import InputError
from voicehost.status import ExitStatus
from voicehost.text import shown, unsafe_characters

NAME = "bam"
HELP = "BAM! tools: read a red card with grey cards filled in (bam render)"
DESCRIPTION = """\
Tools for the party game BAM!.

subcommands:
  render   print the sentence the host reads: a red card with its grey cards filled in,
           grammar fixed (verb agreement, a/an, capitals, punctuation, possessives)

Run 'voicehost bam render --help' for details.
"""

RENDER_HELP = "print a red card with grey cards filled in, as the host reads it"
RENDER_DESCRIPTION = """\
Print the sentence the host reads aloud for RED with the GREY card(s) in its blanks.

Give the cards exactly as printed: each blank on the red card is written BAM!, and there must be
one grey card per blank, in order. The grammar is fixed the way a careful reader would: the verb
agrees with the grey card ("has" becomes "have" after a plural), "a"/"an" follows the sound, a
name keeps its capitals, the marker's "!" is not left behind.

Where the automatic guess is wrong, give the grey card's grammar as the deck files do
(N counts the grey cards from 1): --plural N, --singular N, --mass N, --proper N,
--article N=the (or a, an, none); or give the red card's own --template.

examples:
  voicehost bam render "BAM! has influenced my family planning" "Short-statured circus artists"
  voicehost bam render "BAM! makes BAM! taste better." "Ketchup" "Broccoli" --mass 1 --mass 2
  voicehost bam render "BAM! has lost its charm" "Cats" \\
      --template "{1} {1:has|have} lost {1:its|their} charm"
"""


class BadCardOption(InputError):
    """A grammar option names a grey card that was not given, or has a bad value."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the subcommands of ``bam``."""
    subparsers = parser.add_subparsers(dest="bam_command", metavar="SUBCOMMAND")
    render = subparsers.add_parser(
        "render",
        help=RENDER_HELP,
        description=RENDER_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    render.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show full tracebacks instead of one-line errors",
    )
    render.add_argument("red", metavar="RED", help="the red card's text, each blank written BAM!")
    render.add_argument("grey", metavar="GREY", nargs="+", help="the grey card(s), one per blank, in order")
    render.add_argument(
        "--template",
        metavar="TEXT",
        help="the red card's explicit rendering: {1} is grey card 1, {1:a} its a/an, "
        "{1:'s} its possessive, {1:has|have} a word chosen by its number",
    )
    for flag, what in (
        ("plural", "is plural"),
        ("singular", "is singular"),
        ("mass", "is a mass noun (never 'a')"),
        ("proper", "is a proper name"),
    ):
        render.add_argument(f"--{flag}", metavar="N", type=int, action="append", default=[], help=f"grey card N {what}")
    render.add_argument(
        "--article",
        metavar="N=WORD",
        action="append",
        default=[],
        help="the article grey card N takes: a, an, the or none",
    )


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen subcommand."""
    if getattr(args, "bam_command", None) == "render":
        return _render(args)
    print(DESCRIPTION, end="")
    return ExitStatus.USAGE


def _render(args: argparse.Namespace) -> int:
    from voicehost.decks.cards import BLANK
    from voicehost.decks.load import MAX_BLANKS, MAX_TEXT
    from voicehost.speak.lexicons import preload_lexicons

    blanks = args.red.count(BLANK)
    if blanks > MAX_BLANKS:  # no blank, or a grey card too many or too few: the realiser says so
        raise BadCardOption(f"the red card has {blanks} BAM! blanks; a red card has 1 or {MAX_BLANKS}")
    for text in (args.red, *args.grey, *([args.template] if args.template else [])):
        if len(text) > MAX_TEXT or unsafe_characters(text):
            raise BadCardOption(f"{shown(text[:60])!r}: a card is printable text of at most {MAX_TEXT} characters")
    preload_lexicons()
    from voicehost.speak.realize import Filler, realize

    hints = _hints(args, len(args.grey))
    fillers = [Filler(text, **hints[n]) for n, text in enumerate(args.grey, start=1)]
    sys.stdout.write(realize(args.red, fillers, args.template) + "\n")
    return ExitStatus.OK


def _hints(args: argparse.Namespace, count: int) -> dict[int, dict[str, Any]]:
    """Grammar hints per grey card (numbered from 1) from the command-line options."""
    hints: dict[int, dict[str, Any]] = {n: {} for n in range(1, count + 1)}
    for flag, key, value in (
        ("plural", "number", "plural"),
        ("singular", "number", "singular"),
        ("mass", "mass", True),
        ("proper", "proper", True),
    ):
        for n in getattr(args, flag):
            _card(hints, n, f"--{flag} {n}")[key] = value
    for spec in args.article:
        number, _, word = spec.partition("=")
        if not number.strip().isdigit() or word not in ("a", "an", "the", "none"):
            raise BadCardOption(f"--article {spec}: write N=a, N=an, N=the or N=none (N counts grey cards from 1)")
        _card(hints, int(number), f"--article {spec}")["article"] = word
    return hints


def _card(hints: dict[int, dict[str, Any]], n: int, option: str) -> dict[str, Any]:
    if n not in hints:
        cards = f"{len(hints)} grey card{'s' if len(hints) != 1 else ''}"
        raise BadCardOption(f"{option}: there {'is' if len(hints) == 1 else 'are'} only {cards} (count from 1)")
    return hints[n]
