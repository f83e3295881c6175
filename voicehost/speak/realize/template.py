"""Explicit templates: a red card's own rendering, for sentences the automatic fixer gets wrong.

The syntax is described in :mod:`voicehost.speak.realize`.
"""

from __future__ import annotations

import re
from typing import Sequence

from voicehost.speak.realize.hints import MARKER, BadTemplate
from voicehost.speak.realize.lexicon import Lexicon
from voicehost.speak.realize.phrase import Phrase, bare
from voicehost.speak.realize.sentence import finish
from voicehost.speak.realize.tokens import Token, tokenize

PIECE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
PLACEHOLDER = re.compile(r"(\d+)(?::(.*))?", re.DOTALL)
HELP = "use {1}, {1:a}, {1:'s} or {1:singular form|plural form}"


def check(template: str, blanks: int) -> None:
    """Raise BadTemplate unless ``template`` is well formed and uses exactly blanks 1..``blanks``."""
    if MARKER in template:
        raise BadTemplate(f"template {template!r} contains {MARKER}: write its blanks as {{1}}, {{2}}")
    used = set()
    for match in PIECE.finditer(template):
        if match.group(0) in ("{{", "}}"):
            continue
        body = match.group(1)
        if body is None:
            raise BadTemplate(f"template {template!r} has an unmatched brace: write {{{{ or }}}} for a literal one")
        number, modifier = _parse(template, body)
        if not 1 <= number <= blanks:
            raise BadTemplate(
                f"template {template!r} uses {{{number}}} but the red card has {blanks} "
                f"blank{'s' if blanks != 1 else ''}"
            )
        used.add(number)
    missing = sorted(set(range(1, blanks + 1)) - used)
    if missing:
        raise BadTemplate(f"template {template!r} never uses grey card {missing[0]}: write {{{missing[0]}}}")


def render(template: str, phrases: Sequence[Phrase], lexicon: Lexicon) -> str:
    """The template with its placeholders filled (call :func:`check` first)."""
    tokens: list[Token] = []
    position = 0
    for match in PIECE.finditer(template):
        tokens += tokenize(template[position : match.start()])
        position = match.end()
        if match.group(0) in ("{{", "}}"):
            tokens.append(Token("punct", match.group(0)[0]))
            continue
        number, modifier = _parse(template, match.group(1))
        text = _placeholder(phrases[number - 1], modifier, lexicon)
        tokens.append(Token("filler" if modifier is None or modifier in ("'s", "’s") else "word", text))
    tokens += tokenize(template[position:])
    return finish(tokens)


def _parse(template: str, body: str) -> tuple[int, str | None]:
    match = PLACEHOLDER.fullmatch(body.strip())
    if match is None:
        raise BadTemplate(f"template {template!r} has a bad placeholder {{{body}}}: {HELP}")
    modifier = match.group(2)
    if modifier is not None and modifier not in ("a", "'s", "’s") and "|" not in modifier:
        raise BadTemplate(f"template {template!r} has an unknown placeholder {{{body}}}: {HELP}")
    if modifier is not None and "|" in modifier and len(modifier.split("|")) > 3:
        raise BadTemplate(f"template {template!r}: {{{body}}} has more than three forms")
    return int(match.group(1)), modifier


def _placeholder(phrase: Phrase, modifier: str | None, lexicon: Lexicon) -> str:
    if modifier is None:
        return phrase.inline()
    if modifier == "a":
        return _article(phrase, lexicon)
    if modifier in ("'s", "’s"):
        return phrase.possessive(modifier[0])
    forms = modifier.split("|")
    if phrase.person == "3s":
        return forms[0]
    if phrase.person == "1s" and len(forms) == 3:
        return forms[2]
    return forms[1]


def _article(phrase: Phrase, lexicon: Lexicon) -> str:
    """The article this grey card takes where the red card wants an indefinite one, or ""."""
    if phrase.article is not None:
        return "" if phrase.article == "none" else phrase.article
    if phrase.determiner is not None or not phrase.countable_singular:
        return ""
    return lexicon.indefinite_article(bare(phrase.words[0]))
