"""Articles around a blank: the red card's "a"/"an"/"the", the grey card's own, or a new one.

- "a BAM!" follows the grey card's sound ("an hour", "a unicorn") and disappears before a plural,
  a mass noun, a name or a card with its own determiner; "a big BAM!" follows "big".
- "the BAM!" + "The Pope" keeps one "the"; "the BAM!" + "a unicorn" gives "the unicorn"; "the"
  disappears before a name ("Angela Merkel") unless "of" follows ("the Paris of my dreams").
- Where the red card gives none, a bare singular countable card gets "a"/"an" ("BAM! has" +
  "Rubber chicken": "A rubber chicken has"), except after a determiner, a possessive, a
  quantifier ("less BAM!"), a partitive ("a pinch of BAM!") or in a title ("BAM!: the musical").
- The grey card's ``article`` hint decides whenever it is given.
"""

from __future__ import annotations

import re

from voicehost.speak.realize.lexicon import (
    ARTICLES,
    DETERMINERS,
    PARTITIVES,
    QUANTIFIERS,
    Lexicon,
    same_case,
)
from voicehost.speak.realize.phrase import CARDINALS, Phrase, bare
from voicehost.speak.realize.tokens import Token, remove, word_after, word_before, words_after

POSSESSIVE_WORD = re.compile(r"\w(?:'s|s')$")
CONTRACTIONS = frozenset(
    {
        "it's",
        "that's",
        "what's",
        "there's",
        "here's",
        "he's",
        "she's",
        "who's",
        "where's",
        "let's",
        "how's",
        "when's",
        "why's",
    }
)
"""Words ending in 's that are not possessives ("it's BAM!")."""


def fix_articles(tokens: list[Token], i: int, phrase: Phrase, lexicon: Lexicon) -> Phrase:
    """Settle the article before the blank: the red card's, the grey card's own, or a new one."""
    a = word_before(tokens, i)
    left = tokens[a].text.lower().replace("’", "'") if a is not None else ""
    if a is not None and left in ARTICLES:
        phrase = _settle_red_article(tokens, a, i, phrase, lexicon)
    elif a is not None and _article_before_adjectives(tokens, a, lexicon) is not None:
        _article_before_adjective(tokens, a, phrase, lexicon)  # "a big BAM!"
    elif _article_wanted(tokens, i, a, left):
        article = _own_article(phrase, lexicon)
        if article is not None:
            phrase = phrase.with_article(article)  # "BAM! has" + "Rubber chicken": a rubber chicken
    if phrase.determiner in ("a", "an") and len(phrase.words) > 1 and phrase.article is None:
        article = lexicon.indefinite_article(bare(phrase.words[1]))
        phrase = phrase.with_first_word(same_case(phrase.words[0], article))
    return phrase


def _settle_red_article(tokens: list[Token], a: int, i: int, phrase: Phrase, lexicon: Lexicon) -> Phrase:
    """The red card has "a", "an" or "the" right before the blank."""
    red = tokens[a].text.lower()
    hint = phrase.article
    if hint is not None:
        if hint == "none":
            remove(tokens, a)
        elif hint == "the" or red != "the":
            tokens[a].text = same_case(tokens[a].text, hint)
        if hint != "none" and phrase.determiner in ARTICLES:
            phrase = phrase.without_determiner()
        return phrase
    if phrase.determiner in ("a", "an") and red == "the":
        return phrase.without_determiner()  # "the BAM!" + "a unicorn": the unicorn
    if phrase.determiner is not None and not (red == "the" and _numeral(phrase.determiner)):
        remove(tokens, a)  # "the BAM!" + "The Pope": one article, the card's own
    elif red in ("a", "an"):
        if phrase.countable_singular:
            tokens[a].text = same_case(tokens[a].text, lexicon.indefinite_article(bare(phrase.words[0])))
        else:
            remove(tokens, a)  # "a BAM!" + "circus artists" / "sand" / "Paris"
    elif phrase.name and word_after(tokens, i) != "of":
        remove(tokens, a)  # "the BAM!" + "Angela Merkel" (but "the Paris of my dreams")
    return phrase


def _article_before_adjectives(tokens: list[Token], a: int, lexicon: Lexicon) -> int | None:
    """The red card's article when one or two adjectives stand between it and the blank."""
    k: int | None = a
    for _ in range(2):
        if k is None or not lexicon.is_adjective_only(tokens[k].text):
            return None
        k = word_before(tokens, k)
        if k is not None and tokens[k].text.lower() in ARTICLES:
            return k
    return None


def _article_before_adjective(tokens: list[Token], a: int, phrase: Phrase, lexicon: Lexicon) -> None:
    """Fix "a big BAM!": drop "a" before a plural or mass noun, else choose it by "big"."""
    k = _article_before_adjectives(tokens, a, lexicon)
    assert k is not None
    if tokens[k].text.lower() == "the":
        return
    if not phrase.countable_singular or phrase.determiner is not None:
        remove(tokens, k)  # "a big BAM!" + "cats": big cats
        return
    after = words_after(tokens, k, limit=1)[0]
    tokens[k].text = same_case(tokens[k].text, lexicon.indefinite_article(tokens[after].text))


def _article_wanted(tokens: list[Token], i: int, a: int | None, left: str) -> bool:
    """False where the red card already gives the blank a determiner or makes it a title."""
    possessive = POSSESSIVE_WORD.search(left) and left not in CONTRACTIONS
    if left in DETERMINERS or left in QUANTIFIERS or possessive:
        return False  # "my BAM!", "less BAM!", "Grandma's BAM!"
    if a is None and i + 1 < len(tokens) and tokens[i + 1].text == ":" and not _has_words_before(tokens, i):
        return False  # "BAM!: the musical" is a title
    if left == "of" and a is not None:
        before = word_before(tokens, a)
        if before is not None and tokens[before].text.lower() in PARTITIVES:
            return False  # "a pinch of BAM!"
    return True


def _has_words_before(tokens: list[Token], i: int) -> bool:
    return any(t.kind in ("word", "filler") for t in tokens[:i])


def _own_article(phrase: Phrase, lexicon: Lexicon) -> str | None:
    """The article a grey card needs where the red card gives it none, if any."""
    if phrase.article is not None:
        return None if phrase.article == "none" else phrase.article
    if phrase.determiner is not None or not phrase.countable_singular:
        return None
    return lexicon.indefinite_article(bare(phrase.words[0]))


def _numeral(word: str) -> bool:
    return word in CARDINALS or word.isdigit()
