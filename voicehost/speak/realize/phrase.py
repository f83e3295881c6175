"""What the realizer needs to know about a grey card: its number, its determiner, whether it is
a name, and how its first word is written inside a sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass

from voicehost.speak.realize.hints import Article, Filler, Number
from voicehost.speak.realize.lexicon import (
    CLAUSE_PREPOSITIONS,
    DEMONYM_ENDING,
    DETERMINERS,
    INDEFINITE_PRONOUNS,
    PLURAL_DETERMINERS,
    POSTMODIFIERS,
    PREPOSITIONS,
    PRONOUN_PERSON,
    QUANTITY_NOUNS,
    RELATIVES,
    SINGULAR_DETERMINERS,
    Lexicon,
    Person,
)

CARDINALS = frozenset(
    {
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "hundred",
        "thousand",
        "million",
        "billion",
        "dozen",
        "dozens",
        "hundreds",
        "thousands",
        "millions",
    }
)
"""Number words above one: a determiner that makes any noun plural ("two sheep")."""
PLURAL_AFTER_A = frozenset({"few", "couple", "dozen", "hundred", "thousand", "million", "billion"})
"""'a few', 'a dozen' …: plural although they start with 'a'."""
POSSESSIVE_END = re.compile(r"(?:['’]s|s['’])$")
PUNCTUATION_EDGES = "\"'“”‘’()[]"
FINAL_MARKS = "!?"
COMMON_ENDING = re.compile(r"(?:ed|ing|ly|ous|ful|less|able|ible|ive)$")
"""Suffixes of ordinary adjectives and participles: an unknown word ending so is no name."""


@dataclass(frozen=True)
class Phrase:
    """A grey card analysed for realisation."""

    words: tuple[str, ...]
    """The card's words as printed, separated by single spaces, without a closing full stop."""
    number: Number
    person: Person
    """The person a verb agrees with when this phrase is its subject."""
    determiner: str | None
    """The card's own first word if it is a determiner, pronoun or possessive ("the", "my",
    "Grandma's"), lowercased; None for a bare noun phrase."""
    name: bool
    """A proper name: no article before it ("Paris", "Angela Merkel")."""
    mass: bool
    keeps_capital: bool
    """The first word stays capitalised inside a sentence ("Paris", "I", "MP", "Englishman")."""
    article: Article | None
    """The article hint from the deck, if any."""
    final_stop: bool
    """The card ends with an abbreviation's full stop ("etc."), kept in the sentence."""

    @property
    def text(self) -> str:
        """The card text as printed (cleaned)."""
        return " ".join(self.words)

    @property
    def countable_singular(self) -> bool:
        """A singular countable common noun: the only kind that takes "a"/"an" ("fish and
        chips", even when singular, is two nouns and takes none)."""
        coordinated = any(bare(w).lower() in ("and", "&") for w in _head_part(list(self.words))[1:])
        return self.number == "singular" and not self.mass and not self.name and not coordinated

    @property
    def final_mark(self) -> str:
        """ "!" or "?" if the card itself ends with one ("Yahoo!"), else ""."""
        return self.words[-1][-1] if self.words[-1][-1] in FINAL_MARKS else ""

    def inline(self) -> str:
        """The text as written inside a sentence: first word lowercased unless it keeps it."""
        first = self.words[0]
        if not self.keeps_capital:
            first = first[:1].lower() + first[1:]
        return " ".join((first, *self.words[1:]))

    def possessive(self, apostrophe: str = "'") -> str:
        """The inline text as a possessive: "circus artists'", "Paris's", "children's"."""
        text = self.inline()
        plural_s = self.number == "plural" and text.endswith("s")
        return text + apostrophe if plural_s else text + apostrophe + "s"

    def without_determiner(self) -> Phrase:
        """The phrase with its own first word (its determiner) removed."""
        rest = self.words[1:]
        return Phrase(
            rest,
            self.number,
            self.person,
            None,
            self.name,
            self.mass,
            _capitalised(rest[0]),  # capitals after the first word were printed on purpose
            self.article,
            self.final_stop,
        )

    def with_article(self, article: str) -> Phrase:
        """The phrase with an article put before it ("rubber chicken" → "a rubber chicken")."""
        return Phrase(
            (article, self.inline().split(" ")[0], *self.words[1:]),
            self.number,
            self.person,
            article,
            self.name,
            self.mass,
            False,
            self.article,
            self.final_stop,
        )

    def with_first_word(self, word: str) -> Phrase:
        """The phrase with its first word replaced (an article fixed to "a" or "an")."""
        return Phrase(
            (word, *self.words[1:]),
            self.number,
            self.person,
            self.determiner,
            self.name,
            self.mass,
            self.keeps_capital,
            self.article,
            self.final_stop,
        )


def analyse(filler: Filler, lexicon: Lexicon) -> Phrase:
    """Analyse one grey card; hints win over guesses. The text must not be empty."""
    words, final_stop = _clean(filler.text, lexicon)
    determiner = _determiner(words)
    keeps = _keeps_capital(words, filler.proper, lexicon)
    if filler.proper is not None:
        name = filler.proper
    else:
        name = determiner is None and keeps and _looks_like_name(words, lexicon)
    mass = filler.mass
    if mass is None:
        mass = (
            filler.number is None
            and determiner is None
            and not name
            and (_is_activity(words, lexicon) or _is_mass_noun(words, lexicon))
        )
    number = filler.number or ("singular" if mass else _number(words, name, lexicon))
    person = _person(words, number)
    return Phrase(tuple(words), number, person, determiner, name, mass, keeps, filler.article, final_stop)


def _is_activity(words: list[str], lexicon: Lexicon) -> bool:
    """ "Knitting", "Singing in the shower": an activity, used like a mass noun."""
    return lexicon.is_activity(bare(_head_part(words)[-1]))


def _is_mass_noun(words: list[str], lexicon: Lexicon) -> bool:
    """A singular head noun the countability lexicon reads as mass ("Homemade jam", "Olive oil")."""
    head_part = _head_part(words)
    if any(bare(w).lower() in ("and", "&") for w in head_part[1:]):
        return False  # a coordination takes no article anyway
    head = bare(head_part[-1])
    if not head or lexicon.noun_number(head) != "singular":
        return False
    modifier = bare(head_part[-2]) if len(head_part) > 1 else None
    return lexicon.is_mass(head, modifier)


def _clean(text: str, lexicon: Lexicon) -> tuple[list[str], bool]:
    """Words separated by single spaces; a closing full stop dropped unless it is part of an
    abbreviation (returned as True)."""
    words = text.split()
    last = words[-1]
    if last.endswith("...") or last.endswith("…"):
        return words, False
    if last.endswith(".") and len(last) > 1:
        if lexicon.is_abbreviation(last):
            return words, True
        words[-1] = last.rstrip(".")
    elif last == ".":
        words.pop()
    return words, False


def bare(word: str) -> str:
    """``word`` without quotes, brackets and final punctuation around it."""
    return word.strip(PUNCTUATION_EDGES).rstrip(",;:!?.").strip(PUNCTUATION_EDGES)


def _is_function(word: str) -> bool:
    lower = bare(word).lower()
    return lower in DETERMINERS or lower in PRONOUN_PERSON or lower in CARDINALS or lower in INDEFINITE_PRONOUNS


def _determiner(words: list[str]) -> str | None:
    first = bare(words[0])
    lower = first.lower()
    if _is_function(first) or lower.isdigit():
        return lower
    if len(words) > 1 and POSSESSIVE_END.search(first):
        return lower
    return None


def _capitalised(word: str) -> bool:
    return bare(word)[:1].isupper()


def _is_acronym(word: str) -> bool:
    """ "MP", "UFO", "MPs", "MP3"."""
    letters = re.sub(r"[^A-Za-z]", "", word)
    letters = letters[:-1] if letters.endswith("s") else letters
    return len(letters) > 1 and letters.isupper()


def _has_inner_capital(word: str) -> bool:
    core = bare(word)
    return any(c.isupper() for c in core[1:])


def _first_component(word: str) -> str:
    return re.split(r"[-'’]", bare(word))[0]


def _keeps_capital(words: list[str], proper: bool | None, lexicon: Lexicon) -> bool:
    first = bare(words[0])
    if first == "I" or re.match(r"I['’]", first):
        return True
    if _is_acronym(_first_component(first)) or _has_inner_capital(first):
        return True  # "MP", "iPhone", "McDonald's"
    if re.match(r"[A-Z]-", first):
        return True  # a letter named for its shape or sound: "X-ray", "T-shirt", "U-turn"
    if not first[:1].isupper():
        return False
    if proper is not None:
        return proper
    if _is_function(first):
        return False
    if len(words) > 1 and _capitalised(words[1]) and bare(words[1]) != "I":
        return True
    component = _first_component(first)
    if lexicon.capitalised_only(first) or lexicon.capitalised_only(component):
        return True  # "Paris", "Englishman", "Mondays"
    if len(words) == 1 and lexicon.written_capitalised(first):
        return True  # "Napoleon", "Iceland": the dictionary's capital, no ordinary word
    if lexicon.knows(component) or COMMON_ENDING.search(first):
        return False  # a known word, or an unknown one built like an adjective ("Overexcited")
    return lexicon.regular_singular(first) is None  # unknown: a name, unless it looks plural


def _looks_like_name(words: list[str], lexicon: Lexicon) -> bool:
    """A capitalised first word starts a name unless it is "I", an acronym, a demonym
    ("Englishman"), a plural ("Mondays") or an adjective before a lowercase noun ("European
    holiday")."""
    core = bare(words[0])
    if core == "I" or re.match(r"I['’]", core) or _is_acronym(_first_component(core)):
        return False
    plural = lexicon.regular_singular(core) is not None and not lexicon.is_capitalised_headword(core)
    if plural and len(_head_part(words)) == 1:
        return False  # "Mondays", but not "Mars" or "Athens"
    if DEMONYM_ENDING.search(_first_component(core)):
        return False
    if "-" in core and not all(part[:1].isupper() for part in core.split("-")):
        return False  # "X-ray" is a thing; "Coca-Cola" a name
    return len(_head_part(words)) == 1 or _capitalised(words[1])


def _head_part(words: list[str]) -> list[str]:
    """The words up to where the noun phrase's modifiers start ("a man | with a hat")."""
    for i in range(1, len(words)):
        lower = bare(words[i]).lower()
        if lower in PREPOSITIONS or lower in CLAUSE_PREPOSITIONS or lower in RELATIVES:
            return words[:i]
        if lower in POSTMODIFIERS:
            return words[:i]  # "the neighbours | upstairs"
        if words[i - 1].endswith(",") or words[i].startswith("("):
            return words[:i]
    return words


def _number(words: list[str], name: bool, lexicon: Lexicon) -> Number:
    lowers = [bare(w).lower() for w in words]
    if len(words) == 1 and lowers[0] in PRONOUN_PERSON:
        return "singular" if PRONOUN_PERSON[lowers[0]] != "pl" else "plural"
    if "of" in lowers[1:]:
        of = lowers.index("of", 1)
        if lowers[of - 1] in QUANTITY_NOUNS and of + 1 < len(words):
            if lowers[of - 1] == "couple":
                return "plural"
            return _number(words[of + 1 :], False, lexicon)
    first = lowers[0]
    if first in ("a", "an") and len(words) > 1 and lowers[1] in PLURAL_AFTER_A:
        return "plural"
    if first in DETERMINERS and any(
        lowers[k] in ("and", "&") and lowers[k + 1] in DETERMINERS for k in range(1, len(words) - 1)
    ):
        return "plural"  # "a cat and a dog": two noun phrases
    if first in SINGULAR_DETERMINERS:
        return "singular"
    if first in PLURAL_DETERMINERS or first in CARDINALS or (first.isdigit() and first != "1"):
        return "plural"
    head_part = _head_part(words)
    if any(bare(w).lower() in ("and", "&") for w in head_part[1:]):
        return "plural"
    head = POSSESSIVE_END.sub("", bare(head_part[-1])) or bare(head_part[-1])
    if name or (_capitalised(head) and not lexicon.knows(head) and _looks_like_name([head], lexicon)):
        plural = first == "the" and head.lower().endswith("s") and not head.endswith("ss")
        return "plural" if plural else "singular"
    return lexicon.noun_number(head)


def _person(words: list[str], number: Number) -> Person:
    if len(words) == 1 and bare(words[0]).lower() in PRONOUN_PERSON:
        return PRONOUN_PERSON[bare(words[0]).lower()]
    return "pl" if number == "plural" else "3s"
