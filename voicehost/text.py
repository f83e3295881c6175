"""Text that reaches the terminal from the user's files and options: names, card ids, card texts.

An id or name is printed on the terminal as it is, so an ESC in it could clear the screen or
retitle the window, a NUL or BEL upsets terminals and screen readers, and a bidi override makes a
line read differently from what it holds. Such characters have no place in a name or a card:
they are refused where the text comes in, and messages quote them escaped.
"""

from __future__ import annotations

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
    names = {"\x1b": "ESC", "\x07": "BEL", "\x00": "NUL", "\x7f": "DEL", "\t": "TAB", "\n": "a line break",
             "\r": "a carriage return"}
    parts = []
    for char in chars:
        name = names.get(char) or unicodedata.name(char, "a control character")
        parts.append(f"{name} (U+{ord(char):04X})")
    return ", ".join(parts)


def shown(text: str) -> str:
    """``text`` with every unsafe character written as an escape, safe to print on a terminal."""
    return "".join(f"\\u{ord(c):04x}" if is_unsafe(c) else c for c in text)
