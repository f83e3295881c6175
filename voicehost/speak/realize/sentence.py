"""The automatic fixer: fill each BAM! of a red card and repair the words around it.

A red card is split into tokens (words, spaces, punctuation, blanks, the possessive "'s"). Each
blank is filled from right to left, and only the tokens next to it change: the article before
it, the verb after it (or the auxiliary before it in a question), the "'s" after it and the
punctuation after it. :func:`finish` then writes the sentence out: capitals at sentence starts,
a closing full stop, single spaces and no space before punctuation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from voicehost.speak.realize.hints import MARKER
from voicehost.speak.realize.lexicon import (
    ARTICLES,
    DETERMINERS,
    MODALS,
    PARTITIVES,
    QUANTIFIERS,
    CLAUSE_PREPOSITIONS,
    OTHER_PERSONS,
    FiniteVerb,
    POSSESSIVE_DETERMINERS,
    PREPOSITIONS,
    Lexicon,
    Person,
    _same_case,
)
from voicehost.speak.realize.phrase import CARDINALS, Phrase, bare

TOKEN = re.compile(
    rf"(?P<blank>{re.escape(MARKER)})|(?P<clitic>['’]s\b)|(?P<word>[^\W_]+(?:[-'’][^\W_]+)*)"
    r"|(?P<space>\s+)|(?P<punct>.)"
)
SENTENCE_END = ".!?…"
CLOSERS = "\"'”’)]}"
NOT_SUBJECT_AFTER = PREPOSITIONS | {"and", "nor", "than"}
"""A noun after these is an object or part of a compound subject: its verb stays as printed."""
POSSESSIVE_WORD = re.compile(r"\w(?:'s|s')$")
CONTRACTIONS = frozenset({
    "it's", "that's", "what's", "there's", "here's", "he's", "she's", "who's", "where's",
    "let's", "how's", "when's", "why's",
})
"""Words ending in 's that are not possessives ("it's BAM!")."""
OBJECT_FORMS = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them"}
EXISTENTIAL = {"there's": "there are", "here's": "here are"}


@dataclass
class Token:
    """One piece of a card; ``kind`` is blank, clitic, word, space, punct, filler or gone."""

    kind: str
    text: str


def tokenize(text: str) -> list[Token]:
    """Split a card into tokens; "BAM!" is always a blank, its "!" never punctuation."""
    return [Token(str(m.lastgroup), m.group()) for m in TOKEN.finditer(text)]


def fill(red: str, phrases: Sequence[Phrase], lexicon: Lexicon) -> str:
    """The red card with each blank filled by the matching phrase, grammar repaired."""
    tokens = tokenize(red)
    blanks = [i for i, t in enumerate(tokens) if t.kind == "blank"]
    for index, phrase in reversed(list(zip(blanks, phrases))):
        _fill_blank(tokens, index, phrase, lexicon)
    return finish(tokens)


def _fill_blank(tokens: list[Token], i: int, phrase: Phrase, lexicon: Lexicon) -> None:
    possessive = i + 1 < len(tokens) and tokens[i + 1].kind == "clitic"
    phrase = _fix_articles(tokens, i, phrase, lexicon)
    if not possessive and _is_object(tokens, i, lexicon):
        phrase = _object_form(phrase)
    text = phrase.inline()
    if possessive:
        apostrophe = tokens[i + 1].text[0]
        plural_s = phrase.number == "plural" and text.endswith("s")
        text += apostrophe if plural_s else apostrophe + "s"
        tokens[i + 1] = Token("gone", "")
    else:
        _fix_agreement(tokens, i, phrase, lexicon)
    if _ends_card(tokens, i) and not phrase.final_mark and not phrase.final_stop:
        text += "!"  # the marker's own "!" closes a card that ends right after it
    tokens[i] = Token("filler", text)


def _is_object(tokens: list[Token], i: int, lexicon: Lexicon) -> bool:
    """True if the blank follows a preposition or a verb ("trust BAM!", "with BAM!")."""
    left = _word_before(tokens, i)
    if left is None:
        return False
    word = tokens[left].text.lower()
    if word in PREPOSITIONS:
        return True
    verb = lexicon.finite_verb(word)
    is_verb = "VERB" in lexicon.lemmas(word) and word not in MODALS
    return is_verb and (verb is None or verb.kind == "lexical")


def _object_form(phrase: Phrase) -> Phrase:
    """ "I" → "me" (and he, she, we, they) where the grey card is an object."""
    word = bare(phrase.words[0])
    if len(phrase.words) == 1 and word.lower() in OBJECT_FORMS:
        return phrase.with_first_word(OBJECT_FORMS[word.lower()])
    return phrase


def _fix_articles(tokens: list[Token], i: int, phrase: Phrase, lexicon: Lexicon) -> Phrase:
    """Settle the article before the blank: the red card's, the grey card's own, or a new one."""
    a = _word_before(tokens, i)
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
        phrase = phrase.with_first_word(_same_case(phrase.words[0], article))
    return phrase


def _settle_red_article(tokens: list[Token], a: int, i: int, phrase: Phrase,
                        lexicon: Lexicon) -> Phrase:
    """The red card has "a", "an" or "the" right before the blank."""
    red = tokens[a].text.lower()
    hint = phrase.article
    if hint is not None:
        if hint == "none":
            _remove(tokens, a)
        elif hint == "the" or red != "the":
            tokens[a].text = _same_case(tokens[a].text, hint)
        if hint != "none" and phrase.determiner in ARTICLES:
            phrase = phrase.without_determiner()
        return phrase
    if phrase.determiner in ("a", "an") and red == "the":
        return phrase.without_determiner()  # "the BAM!" + "a unicorn": the unicorn
    if phrase.determiner is not None and not (red == "the" and _numeral(phrase.determiner)):
        _remove(tokens, a)  # "the BAM!" + "The Pope": one article, the card's own
    elif red in ("a", "an"):
        if phrase.countable_singular:
            tokens[a].text = _same_case(tokens[a].text, lexicon.indefinite_article(bare(phrase.words[0])))
        else:
            _remove(tokens, a)  # "a BAM!" + "circus artists" / "sand" / "Paris"
    elif phrase.name and _word_after(tokens, i) != "of":
        _remove(tokens, a)  # "the BAM!" + "Angela Merkel" (but "the Paris of my dreams")
    return phrase


def _article_before_adjectives(tokens: list[Token], a: int, lexicon: Lexicon) -> int | None:
    """The red card's article when one or two adjectives stand between it and the blank."""
    k: int | None = a
    for _ in range(2):
        if k is None or not lexicon.is_adjective_only(tokens[k].text):
            return None
        k = _word_before(tokens, k)
        if k is not None and tokens[k].text.lower() in ARTICLES:
            return k
    return None


def _article_before_adjective(tokens: list[Token], a: int, phrase: Phrase, lexicon: Lexicon) -> None:
    k = _article_before_adjectives(tokens, a, lexicon)
    assert k is not None
    if tokens[k].text.lower() == "the":
        return
    if not phrase.countable_singular or phrase.determiner is not None:
        _remove(tokens, k)  # "a big BAM!" + "cats": big cats
        return
    after = _words_after(tokens, k, limit=1)[0]
    tokens[k].text = _same_case(tokens[k].text, lexicon.indefinite_article(tokens[after].text))


def _article_wanted(tokens: list[Token], i: int, a: int | None, left: str) -> bool:
    """False where the red card already gives the blank a determiner or makes it a title."""
    possessive = POSSESSIVE_WORD.search(left) and left not in CONTRACTIONS
    if left in DETERMINERS or left in QUANTIFIERS or possessive:
        return False  # "my BAM!", "less BAM!", "Grandma's BAM!"
    if a is None and i + 1 < len(tokens) and tokens[i + 1].text == ":" and not _has_words_before(tokens, i):
        return False  # "BAM!: the musical" is a title
    if left == "of" and a is not None:
        before = _word_before(tokens, a)
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


def _fix_agreement(tokens: list[Token], i: int, phrase: Phrase, lexicon: Lexicon) -> None:
    """Make the verb agree when the blank is its subject."""
    left = _word_before(tokens, i)
    for _ in range(3):  # "my BAM! is", "an old BAM!": the blank is still the subject
        if left is None:
            break
        word = tokens[left].text.lower()
        if word not in POSSESSIVE_DETERMINERS | ARTICLES and not lexicon.is_adjective_only(word):
            break
        left = _word_before(tokens, left)
    left_word = tokens[left].text.lower().replace("’", "'") if left is not None else ""
    if left is not None and left_word in EXISTENTIAL:
        _fix_existential(tokens, left, phrase.person)
        return
    if left is not None and left_word in ("there", "here"):
        verb_at = _word_before(tokens, left)  # "Why is there BAM! in the lasagne?"
        verb = lexicon.finite_verb(tokens[verb_at].text) if verb_at is not None else None
        if verb_at is not None and verb is not None and verb.kind == "aux":
            tokens[verb_at].text = lexicon.agree(tokens[verb_at].text, verb, phrase.person)
        return
    before = lexicon.finite_verb(left_word) if left_word else None
    if left is not None and (left_word in MODALS or (before is not None and before.kind == "aux")):
        if before is not None and (_is_question(tokens, i) or _existential_before(tokens, left)):
            tokens[left].text = lexicon.agree(tokens[left].text, before, phrase.person)
        return  # "Why does BAM! smell?": the verb after the blank is an infinitive
    if left_word in NOT_SUBJECT_AFTER or (left_word and lexicon.is_gerund(left_word)):
        return
    found = _verb_after(tokens, i, lexicon)
    if found is not None:
        k, verb = found
        if verb.kind == "lexical" and verb.persons == OTHER_PERSONS and _after_verb(left_word, lexicon):
            return  # "makes BAM! taste better": a bare infinitive, not a verb to agree
        tokens[k].text = lexicon.agree(tokens[k].text, verb, phrase.person)


def _after_verb(word: str, lexicon: Lexicon) -> bool:
    return bool(word) and "VERB" in lexicon.lemmas(word) and word not in MODALS


def _fix_existential(tokens: list[Token], at: int, person: Person) -> None:
    """ "There's a BAM!" + "cats" → "There are cats"."""
    if person == "pl":
        word = tokens[at].text.lower().replace("’", "'")
        tokens[at].text = _same_case(tokens[at].text, EXISTENTIAL[word])


def _existential_before(tokens: list[Token], verb_at: int) -> bool:
    k = _word_before(tokens, verb_at)
    return k is not None and tokens[k].text.lower() in ("there", "here")


def _verb_after(tokens: list[Token], i: int, lexicon: Lexicon) -> tuple[int, FiniteVerb] | None:
    """The finite verb right after the blank, allowing adverbs between ("always brings")."""
    words = _words_after(tokens, i, limit=3)
    for n, k in enumerate(words):
        word = tokens[k].text
        verb = lexicon.finite_verb(word)
        if verb is not None:
            following = tokens[words[n + 1]].text if n + 1 < len(words) else ""
            verb_follows = bool(following) and lexicon.finite_verb(following) is not None
            if not (lexicon.is_adverb(word) and verb_follows):  # "still has": "has" is the verb
                return k, verb
        elif not lexicon.is_adverb(word) or word.lower() in PREPOSITIONS | CLAUSE_PREPOSITIONS:
            return None
    return None


def _words_after(tokens: list[Token], i: int, limit: int) -> list[int]:
    found: list[int] = []
    k = i + 1
    while k < len(tokens) and len(found) < limit:
        if tokens[k].kind == "word":
            found.append(k)
        elif tokens[k].kind not in ("space", "gone"):
            break
        k += 1
    return found


def _word_before(tokens: list[Token], i: int) -> int | None:
    """Index of the word right before token ``i`` (spaces skipped), or None."""
    k = i - 1
    while k >= 0 and tokens[k].kind in ("space", "gone"):
        k -= 1
    return k if k >= 0 and tokens[k].kind == "word" else None


def _word_after(tokens: list[Token], i: int) -> str:
    words = _words_after(tokens, i, limit=1)
    return tokens[words[0]].text.lower() if words else ""


def _remove(tokens: list[Token], k: int) -> None:
    tokens[k] = Token("gone", "")


def _is_question(tokens: list[Token], i: int) -> bool:
    """True if the sentence holding token ``i`` ends with a question mark."""
    for token in tokens[i + 1:]:
        if token.kind == "punct" and token.text in SENTENCE_END:
            return token.text == "?"
    return False


def _ends_card(tokens: list[Token], i: int) -> bool:
    return all(t.kind in ("space", "gone") for t in tokens[i + 1:])


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
        if (previous is not None and previous.kind == "filler" and token.kind == "punct"
                and token.text in ".!" and previous.text[-1:] in ".!?"):
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
    return len(word) == 1 and word.isalpha() or word.lower() in ("mr", "mrs", "ms", "dr", "st", "vs")
