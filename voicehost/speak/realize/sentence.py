"""The automatic fixer: fill each BAM! of a red card and repair the words around it.

A red card is split into tokens (words, spaces, punctuation, blanks, the possessive "'s"). Each
blank is filled from right to left, and only the tokens next to it change: the article before
it (:mod:`.articles`), the verb after it or the auxiliary before it (:mod:`.agreement`), the "'s"
after it and the punctuation after it. :func:`finish` then writes the sentence out: capitals at
sentence starts, a closing full stop, single spaces and no space before punctuation.
"""

from __future__ import annotations

import re
from typing import Sequence

from voicehost.speak.realize.agreement import fix_agreement, is_object, object_form
from voicehost.speak.realize.articles import fix_articles
from voicehost.speak.realize.lexicon import Lexicon
from voicehost.speak.realize.phrase import Phrase
from voicehost.speak.realize.tokens import CLOSERS, SENTENCE_END, Token, ends_card, tokenize

ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "st", "vs"})
"""Words whose full stop does not end a sentence (single letters too: "e.g.", "a.m.")."""


def fill(red: str, phrases: Sequence[Phrase], lexicon: Lexicon) -> str:
    """The red card with each blank filled by the matching phrase, grammar repaired."""
    tokens = tokenize(red)
    blanks = [i for i, t in enumerate(tokens) if t.kind == "blank"]
    for index, phrase in reversed(list(zip(blanks, phrases))):
        _fill_blank(tokens, index, phrase, lexicon)
    return finish(tokens)


def _fill_blank(tokens: list[Token], i: int, phrase: Phrase, lexicon: Lexicon) -> None:
    """Fill blank ``i`` with ``phrase`` and repair its neighbours."""
    possessive = i + 1 < len(tokens) and tokens[i + 1].kind == "clitic"
    phrase = fix_articles(tokens, i, phrase, lexicon)
    if not possessive and is_object(tokens, i, lexicon):
        phrase = object_form(phrase)
    text = phrase.inline()
    if possessive:
        text = phrase.possessive(tokens[i + 1].text[0])
        tokens[i + 1] = Token("gone", "")
    else:
        fix_agreement(tokens, i, phrase, lexicon)
    if ends_card(tokens, i) and not phrase.final_mark and not phrase.final_stop:
        text += "!"  # the marker's own "!" closes a card that ends right after it
    tokens[i] = Token("filler", text)


def finish(tokens: list[Token]) -> str:
    """Write the tokens out as one tidy sentence (or several)."""
    kept = [t for t in tokens if t.kind != "gone"]
    kept = _merge_filler_punctuation(kept)
    _capitalise_sentence_starts(kept)
    text = "".join(t.text for t in kept)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r" +([,.;:!?)\]}…])", r"\1", text)
    text = re.sub(r"([(\[{]) +", r"\1", text)
    if text.rstrip(CLOSERS)[-1:] not in SENTENCE_END:
        text += "."
    return text


def _merge_filler_punctuation(tokens: list[Token]) -> list[Token]:
    """A grey card's own "!", "?" or "etc." replaces the red card's "." or "!" after it."""
    merged: list[Token] = []
    for token in tokens:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and previous.kind == "filler"
            and token.kind == "punct"
            and token.text in ".!"
            and previous.text[-1:] in ".!?"
        ):
            continue
        merged.append(token)
    return merged


def _capitalise_sentence_starts(tokens: list[Token]) -> None:
    start = True
    previous_word = ""
    for token in tokens:
        if token.kind in ("word", "filler"):
            first_word = token.text.split(" ")[0]
            if start and first_word[:1].islower() and not any(c.isupper() for c in first_word):
                token.text = token.text[:1].upper() + token.text[1:]
            start = False
            previous_word = token.text
        elif token.kind == "punct" and token.text in SENTENCE_END:
            start = not _is_abbreviation(previous_word)


def _is_abbreviation(word: str) -> bool:
    return len(word) == 1 and word.isalpha() or word.lower() in ABBREVIATIONS
