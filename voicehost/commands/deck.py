"""``voicehost deck``: check deck files, list cards, print card sheets."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voicehost.decks.cards import Deck
from voicehost.status import ExitStatus
from voicehost.text import shown

NAME = "deck"
HELP = "check BAM! deck files, list their cards, or print them as paper cards (PDF)"
DESCRIPTION = """\
BAM! plays with red cards (sentences with one or two BAM! blanks) and grey word cards. voicehost
ships its own deck, 'base'; you can write more cards in a TOML deck file (see docs/rules.md) and
play with several decks at once: --deck base --deck my_cards.toml. --tag keeps only cards with
that tag (e.g. family); repeat it to allow several tags.

  check FILE...   validate deck files (every problem with file, line and card id) and count cards
  list            show the cards with the numbers printed on them
  print           write printable cards (9 per page, cut marks) to a PDF, for playing with paper
                  cards: players then submit a card by saying its number

examples:
  voicehost deck check my_cards.toml
  voicehost deck list --tag family
  voicehost deck list --deck base --deck my_cards.toml --color red
  voicehost deck print --deck base --tag family --out cards.pdf
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Sub-commands check, list and print."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=type(parser))
    check = actions.add_parser(
        "check",
        help="validate deck files and count their cards",
        description="Validate deck files: every problem is shown with its file, line and "
        "card id. Files given together must not share card ids.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="deck file (or 'base')")
    listing = actions.add_parser(
        "list",
        help="show the cards with their printed numbers",
        description="Show every card: colour, printed number, id, tags and text "
        "(grey cards also show their grammar hints).",
    )
    _deck_options(listing)
    listing.add_argument("--color", choices=("red", "grey"), help="only red or only grey cards")
    printing = actions.add_parser(
        "print",
        help="write printable cards to a PDF",
        description="Write the cards to a PDF: 9 poker-size cards (63 x 88 mm) per page, "
        "the number large in the top-left corner, cut marks in the margins. "
        "Print and play with the same --deck and --tag options, so the numbers "
        "match.",
    )
    _deck_options(printing)
    printing.add_argument("--out", type=Path, required=True, metavar="FILE.pdf", help="the PDF to write")
    printing.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default: a4)")


def _deck_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--deck", action="append", metavar="DECK", help="'base' or a deck file; repeat to combine decks (default: base)"
    )
    parser.add_argument(
        "--tag", action="append", metavar="T", help="only cards with this tag (e.g. family); repeat to allow several"
    )


def run(args: argparse.Namespace) -> int:
    """Dispatch to check, list or print."""
    if args.action == "check":
        return _check(args.files)
    if args.action == "list":
        return _list(args)
    return _print(args)


def _check(files: list[str]) -> int:
    from voicehost.decks.load import DeckError, load_deck, load_decks, tags_of

    status = ExitStatus.OK
    for name in files:
        try:
            deck = load_deck(name)
        except DeckError as error:
            for problem in error.problems:
                print(shown(problem), file=sys.stderr)
            status = ExitStatus.USAGE
            continue
        double = sum(c.blanks == 2 for c in deck.red)
        print(
            f"{deck.source}: ok: deck '{deck.name}' ({deck.language}): {_count(len(deck.red), 'red card')} "
            f"({double} with two blanks), {_count(len(deck.grey), 'grey card')}"
        )
        for colour, cards in (("red", deck.red), ("grey", deck.grey)):
            tags = tags_of(cards)
            if tags:
                print(f"  {colour} tags: " + ", ".join(f"{tag} {n}" for tag, n in tags.items()))
        _note_base_clash(name, deck)
    if status is ExitStatus.OK and len(files) > 1:
        try:
            combined = load_decks(files)
        except DeckError as error:
            for problem in error.problems:
                print(shown(problem), file=sys.stderr)
            return ExitStatus.USAGE
        print(f"together: ok: {_count(len(combined.red), 'red card')}, {_count(len(combined.grey), 'grey card')}")
    return status


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _note_base_clash(name: str, deck: Deck) -> None:
    """Tell the author when a deck cannot be combined with the base deck (it is only a note)."""
    from voicehost.decks.load import load_deck

    base = load_deck("base")
    if name == "base" or (
        deck.source is not None
        and base.source is not None
        and Path(deck.source).resolve() == Path(base.source).resolve()
    ):
        return
    ids = {c.id for c in base.red} | {c.id for c in base.grey}
    clash = [i for i in [c.id for c in deck.red] + [c.id for c in deck.grey] if i in ids]
    if clash:
        listed = ", ".join(clash[:5]) + (", ..." if len(clash) > 5 else "")
        print(
            f'  note: {len(clash)} id(s) also used by the base deck ({listed}): rename them (e.g. "my-r1") '
            "to play together with --deck base"
        )


def _list(args: argparse.Namespace) -> int:
    from voicehost.decks.load import load_decks

    deck = load_decks(args.deck or ["base"], args.tag or ())
    if args.color in (None, "red"):
        for number, red in deck.numbered_red():
            print(f"red  {number:>3}  {red.id:<10} {','.join(red.tags):<14} {red.text}")
    if args.color in (None, "grey"):
        for number, grey in deck.numbered_grey():
            hints = [
                h
                for h in (
                    grey.number,
                    "mass" if grey.mass else None,
                    "proper" if grey.proper else None,
                    f"article {grey.article}" if grey.article else None,
                )
                if h
            ]
            extra = f"  ({', '.join(hints)})" if hints else ""
            print(f"grey {number:>3}  {grey.id:<10} {','.join(grey.tags):<14} {grey.text}{extra}")
    if not deck.red and not deck.grey:
        print("no cards (check --deck and --tag)", file=sys.stderr)
        return ExitStatus.ERROR
    return ExitStatus.OK


def _print(args: argparse.Namespace) -> int:
    from voicehost.decks.load import load_decks
    from voicehost.decks.printer import print_deck

    deck = load_decks(args.deck or ["base"], args.tag or ())

    from voicehost.progress import terminal_bar

    pages = print_deck(deck, args.out, paper=args.paper, progress=terminal_bar("drawing cards", unit="card"))
    print(f"wrote {args.out}: {len(deck.red)} red and {len(deck.grey)} grey cards on {pages} pages")
    return ExitStatus.OK
