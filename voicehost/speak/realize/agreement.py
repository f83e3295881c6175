"""Subject-verb agreement around a blank, and "I" → "me" where the grey card is an object.

When the blank is the subject, the finite verb after it agrees with the grey card (adverbs may
stand between: "BAM! always brings"). In a question, or after "there", the auxiliary before the
blank agrees instead ("Why is BAM! late?", "There is a BAM!"). A blank after a preposition, "and"
or a gerund is not the subject ("the smell of BAM! is", "feeding BAM! is"), and after a verb the
next verb is a bare infinitive ("makes BAM! taste better").
"""

from __future__ import annotations

from voicehost.speak.realize.lexicon import (
    ARTICLES,
    CLAUSE_PREPOSITIONS,
    MODALS,
    OTHER_PERSONS,
    POSSESSIVE_DETERMINERS,
    PREPOSITIONS,
    FiniteVerb,
    Lexicon,
    Person,
    same_case,
)
from voicehost.speak.realize.phrase import Phrase, bare
from voicehost.speak.realize.tokens import Token, is_question, word_before, words_after

NOT_SUBJECT_AFTER = PREPOSITIONS | {"and", "nor", "than"}
"""A noun after these is an object or part of a compound subject: its verb stays as printed."""
OBJECT_FORMS = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them"}
EXISTENTIAL = {"there's": "there are", "here's": "here are"}


def fix_agreement(tokens: list[Token], i: int, phrase: Phrase, lexicon: Lexicon) -> None:
    """Make the verb agree when the blank is its subject."""
    left = _word_before_phrase(tokens, i, lexicon)
    left_word = tokens[left].text.lower().replace("’", "'") if left is not None else ""
    if left is not None and left_word in EXISTENTIAL:
        _fix_existential(tokens, left, phrase.person)  # "There's a BAM!"
    elif left is not None and left_word in ("there", "here"):
        _agree_auxiliary(tokens, word_before(tokens, left), phrase, lexicon)  # "Why is there BAM!?"
    elif left is not None and _is_auxiliary(left_word, lexicon):
        if is_question(tokens, i) or _existential_before(tokens, left):
            _agree_auxiliary(tokens, left, phrase, lexicon)  # "Why is BAM! late?"
        # otherwise the verb after the blank is an infinitive: "Why does BAM! smell?"
    elif left_word not in NOT_SUBJECT_AFTER and not (left_word and lexicon.is_gerund(left_word)):
        _agree_verb_after(tokens, i, left_word, phrase, lexicon)


def _word_before_phrase(tokens: list[Token], i: int, lexicon: Lexicon) -> int | None:
    """The word before the blank's noun phrase: "my BAM!", "an old BAM!" still start at BAM!."""
    left = word_before(tokens, i)
    for _ in range(3):
        if left is None:
            break
        word = tokens[left].text.lower()
        if word not in POSSESSIVE_DETERMINERS | ARTICLES and not lexicon.is_adjective_only(word):
            break
        left = word_before(tokens, left)
    return left


def _is_auxiliary(word: str, lexicon: Lexicon) -> bool:
    verb = lexicon.finite_verb(word)
    return word in MODALS or (verb is not None and verb.kind == "aux")


def _agree_auxiliary(tokens: list[Token], at: int | None, phrase: Phrase, lexicon: Lexicon) -> None:
    verb = lexicon.finite_verb(tokens[at].text) if at is not None else None
    if at is not None and verb is not None and verb.kind == "aux":
        tokens[at].text = lexicon.agree(tokens[at].text, verb, phrase.person)


def _agree_verb_after(tokens: list[Token], i: int, left_word: str, phrase: Phrase, lexicon: Lexicon) -> None:
    found = _verb_after(tokens, i, lexicon)
    if found is None:
        return
    k, verb = found
    if verb.kind == "lexical" and verb.persons == OTHER_PERSONS and _after_verb(left_word, lexicon):
        return  # "makes BAM! taste better": a bare infinitive, not a verb to agree
    tokens[k].text = lexicon.agree(tokens[k].text, verb, phrase.person)


def is_object(tokens: list[Token], i: int, lexicon: Lexicon) -> bool:
    """True if the blank follows a preposition or a verb ("trust BAM!", "with BAM!")."""
    left = word_before(tokens, i)
    if left is None:
        return False
    word = tokens[left].text.lower()
    if word in PREPOSITIONS:
        return True
    verb = lexicon.finite_verb(word)
    is_verb = "VERB" in lexicon.lemmas(word) and word not in MODALS
    return is_verb and (verb is None or verb.kind == "lexical")


def object_form(phrase: Phrase) -> Phrase:
    """ "I" → "me" (and he, she, we, they) where the grey card is an object."""
    word = bare(phrase.words[0])
    if len(phrase.words) == 1 and word.lower() in OBJECT_FORMS:
        return phrase.with_first_word(OBJECT_FORMS[word.lower()])
    return phrase


def _after_verb(word: str, lexicon: Lexicon) -> bool:
    return bool(word) and "VERB" in lexicon.lemmas(word) and word not in MODALS


def _fix_existential(tokens: list[Token], at: int, person: Person) -> None:
    """ "There's a BAM!" + "cats" → "There are cats"."""
    if person == "pl":
        word = tokens[at].text.lower().replace("’", "'")
        tokens[at].text = same_case(tokens[at].text, EXISTENTIAL[word])


def _existential_before(tokens: list[Token], verb_at: int) -> bool:
    k = word_before(tokens, verb_at)
    return k is not None and tokens[k].text.lower() in ("there", "here")


def _verb_after(tokens: list[Token], i: int, lexicon: Lexicon) -> tuple[int, FiniteVerb] | None:
    """The finite verb right after the blank, allowing adverbs between ("always brings")."""
    words = words_after(tokens, i, limit=3)
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
