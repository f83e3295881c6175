"""Red card texts as tokens, and how the fixers find their way around a blank."""

from __future__ import annotations

import re
from dataclasses import dataclass

from voicehost.speak.realize.hints import MARKER

TOKEN = re.compile(
    rf"(?P<blank>{re.escape(MARKER)})|(?P<clitic>['’]s\b)|(?P<word>[^\W_]+(?:[-'’][^\W_]+)*)"
    r"|(?P<space>\s+)|(?P<punct>.)"
)
SENTENCE_END = ".!?…"
CLOSERS = "\"'”’)]}"


@dataclass
class Token:
    """One piece of a card; ``kind`` is blank, clitic, word, space, punct, filler or gone."""

    kind: str
    text: str


def tokenize(text: str) -> list[Token]:
    """Split a card into tokens; "BAM!" is always a blank, its "!" never punctuation."""
    return [Token(str(m.lastgroup), m.group()) for m in TOKEN.finditer(text)]


def words_after(tokens: list[Token], i: int, limit: int) -> list[int]:
    """Indexes of up to ``limit`` words right after token ``i``, stopping at punctuation."""
    found: list[int] = []
    k = i + 1
    while k < len(tokens) and len(found) < limit:
        if tokens[k].kind == "word":
            found.append(k)
        elif tokens[k].kind not in ("space", "gone"):
            break
        k += 1
    return found


def word_before(tokens: list[Token], i: int) -> int | None:
    """Index of the word right before token ``i`` (spaces skipped), or None."""
    k = i - 1
    while k >= 0 and tokens[k].kind in ("space", "gone"):
        k -= 1
    return k if k >= 0 and tokens[k].kind == "word" else None


def word_after(tokens: list[Token], i: int) -> str:
    """The word right after token ``i``, lowercased ("" if punctuation or the end follows)."""
    words = words_after(tokens, i, limit=1)
    return tokens[words[0]].text.lower() if words else ""


def remove(tokens: list[Token], k: int) -> None:
    """Drop token ``k`` (kept in place as "gone" so that indexes stay valid)."""
    tokens[k] = Token("gone", "")


def is_question(tokens: list[Token], i: int) -> bool:
    """True if the sentence holding token ``i`` ends with a question mark."""
    for token in tokens[i + 1 :]:
        if token.kind == "punct" and token.text in SENTENCE_END:
            return token.text == "?"
    return False


def ends_card(tokens: list[Token], i: int) -> bool:
    """True if nothing but spaces follows token ``i``."""
    return all(t.kind in ("space", "gone") for t in tokens[i + 1 :])
