"""Text that reaches the terminal from the user's files and options: names, card ids, card texts.

An id or name is printed on the terminal as it is, so an ESC in it could clear the screen or
retitle the window, a NUL or BEL upsets terminals and screen readers, and a bidi override makes a
line read differently from what it holds. Such characters have no place in a name or a card:
they are refused where the text comes in, and messages quote them escaped.
"""

from __future__ import annotations

import re
import unicodedata

BIDI_CONTROLS = frozenset("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Marks, embeddings, overrides and isolates that reorder how a line is displayed."""


def unsafe_characters(text: str) -> list[str]:
    """The control characters (C0, DEL, C1), line/paragraph separators and bidi controls in
    ``text``, each once, in order of appearance."""
    found: list[str] = []
    for char in text:
        if is_unsafe(char) and char not in found:
            found.append(char)
    return found


def is_unsafe(char: str) -> bool:
    """True for a control character, a line or paragraph separator, or a bidi control."""
    return unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in BIDI_CONTROLS


def describe_unsafe(chars: list[str]) -> str:
    """'ESC (U+001B), BEL (U+0007)': the characters :func:`unsafe_characters` found, by name."""
    names = {
        "\x1b": "ESC",
        "\x07": "BEL",
        "\x00": "NUL",
        "\x7f": "DEL",
        "\t": "TAB",
        "\n": "a line break",
        "\r": "a carriage return",
    }
    parts = []
    for char in chars:
        name = names.get(char) or unicodedata.name(char, "a control character")
        parts.append(f"{name} (U+{ord(char):04X})")
    return ", ".join(parts)


def shown(text: str) -> str:
    """``text`` with every unsafe character written as an escape, safe to print on a terminal."""
    return "".join(f"\\u{ord(c):04x}" if is_unsafe(c) else c for c in text)


_NOT_WORD = re.compile(r"[^\w'{}]|_")
"""Everything but letters, digits, apostrophes and placeholder braces: punctuation, hyphens, symbols."""


def normalise(text: str) -> str:
    """The one canonical form of a phrase: lower case, punctuation and hyphens as spaces, one space
    between words ("Two, BAM-bam!" → "two bam bam").

    Apostrophes stay inside words ("that's right") and vocabulary placeholders survive
    ("{player}"). Recognisers, typed lines, vocabulary packs and the rules (Bim Bam Bum!'s yell)
    all compare phrases in this form.
    """
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


MAX_NAME = 40
"""Characters in a player's name."""

NAME_FORBIDDEN = ":,#"
"""Characters a name cannot hold: ':' separates name and words in typed and scripted lines, ','
separates names in --players, '#' starts a comment in a script or table file."""


def name_problem(name: str) -> str | None:
    """Why ``name`` (already stripped) cannot be a player's name, or None if it can."""
    if not name:
        return "a name cannot be empty"
    bad = [c for c in NAME_FORBIDDEN if c in name]
    if bad:
        return f"the name {name!r} cannot contain {' or '.join(repr(c) for c in NAME_FORBIDDEN)}"
    if unsafe_characters(name):
        return (
            f"the name {name!r} contains {describe_unsafe(unsafe_characters(name))}: "
            "a name holds letters, digits, spaces and punctuation only"
        )
    if len(name) > MAX_NAME:
        return f"the name {name!r} is longer than {MAX_NAME} characters"
    return None


def players_problem(names: tuple[str, ...]) -> str | None:
    """Why these seated names cannot play together (a bad or repeated name), or None."""
    seen: set[str] = set()
    for name in names:
        problem = name_problem(name)
        if problem is not None:
            return problem
        if name.lower() in seen:
            return f"the list of players names {name!r} twice: every player needs their own name"
        seen.add(name.lower())
    return None
