"""English word knowledge: inflect for sound and number, lemminflect for parts of speech,
english-words (Webster's Second International headwords, capitals kept) for which words are
written with a capital.

Countability (is "jam" a mass noun?) comes from lemminflect's noun table, which is built from the
NIH SPECIALIST Lexicon: a noun listed with only a plural form is countable ("umbrella"), one listed
only as its own plural is uncountable ("furniture", "sarcasm"), and one listed with both is both
("jam": some jam, two jams). For those, and only there, corpus evidence decides: the unigram
log-probabilities of the singular and the plural in the CMU US-English language model that
pocketsphinx ships. A noun whose plural is much rarer than its singular is read as a mass noun
("butter": plural 17x rarer; "dog": 2x). The thresholds and the error counts they give are in
docs/rules.md ("BAM! readings").

Open word classes (nouns, verbs, adverbs, and whether a noun is its own singular) come from the
libraries' lexicons. Only closed classes are listed here: articles, determiners, pronouns,
prepositions, modal verbs and the irregular paradigms of "be", "have" and "do" — grammar words
that no morphology library treats as data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from voicehost.speak.realize.hints import Number

Person: TypeAlias = Literal["1s", "3s", "pl"]
"""Who a verb agrees with: "I", he/she/it/a singular noun, or we/you/they/a plural noun."""

ARTICLES = frozenset({"a", "an", "the"})
POSSESSIVE_DETERMINERS = frozenset({"my", "your", "his", "her", "its", "our", "their"})
SINGULAR_DETERMINERS = frozenset({"a", "an", "one", "this", "that", "every", "each", "another", "either", "neither"})
PLURAL_DETERMINERS = frozenset({"these", "those", "both", "many", "several", "few", "various"})
OTHER_DETERMINERS = frozenset({"the", "some", "any", "no", "all", "most", "such", "what", "which"})
DETERMINERS = SINGULAR_DETERMINERS | PLURAL_DETERMINERS | OTHER_DETERMINERS | POSSESSIVE_DETERMINERS
PRONOUN_PERSON: dict[str, Person] = {
    "i": "1s",
    "you": "pl",
    "we": "pl",
    "they": "pl",
    "he": "3s",
    "she": "3s",
    "it": "3s",
}
INDEFINITE_PRONOUNS = frozenset(
    {
        "anyone",
        "anybody",
        "anything",
        "someone",
        "somebody",
        "something",
        "everyone",
        "everybody",
        "everything",
        "nobody",
        "nothing",
        "none",
        "myself",
        "yourself",
        "himself",
        "herself",
        "itself",
        "ourselves",
        "themselves",
        "me",
        "us",
        "them",
        "him",
        "whatever",
        "whoever",
    }
)
"""Pronouns that never take an article ("nobody", "everything", "me")."""
QUANTIFIERS = frozenset({"less", "more", "much", "enough", "fewer", "little"})
"""Words that stand in for a determiner before a blank ("less BAM!, more wine")."""
PARTITIVES = frozenset(
    {
        "lot",
        "lots",
        "plenty",
        "bit",
        "bits",
        "pinch",
        "trace",
        "traces",
        "hint",
        "kind",
        "kinds",
        "sort",
        "sorts",
        "type",
        "types",
        "piece",
        "pieces",
        "slice",
        "slices",
        "bowl",
        "cup",
        "glass",
        "plate",
        "spoonful",
        "amount",
        "taste",
        "bag",
        "bucket",
        "tin",
        "jar",
        "dose",
    }
)
"""Nouns of quantity or kind: after "a pinch of", a grey card takes no article of its own."""
QUANTITY_NOUNS = frozenset({"lot", "lots", "plenty", "couple", "majority", "number", "handful"})
"""Nouns whose phrase takes its number from the "of" complement: "a lot of bees are"."""

PREPOSITIONS = frozenset(
    {
        "about",
        "above",
        "across",
        "against",
        "along",
        "among",
        "amongst",
        "around",
        "at",
        "behind",
        "below",
        "beneath",
        "beside",
        "besides",
        "between",
        "beyond",
        "by",
        "despite",
        "during",
        "except",
        "for",
        "from",
        "in",
        "inside",
        "into",
        "like",
        "near",
        "of",
        "off",
        "on",
        "onto",
        "outside",
        "over",
        "per",
        "through",
        "throughout",
        "to",
        "toward",
        "towards",
        "under",
        "underneath",
        "unto",
        "upon",
        "versus",
        "via",
        "with",
        "within",
        "without",
        "vs",
    }
)
"""Words after which a noun phrase is an object, never the subject of what follows."""
CLAUSE_PREPOSITIONS = frozenset({"after", "before", "since", "until", "till", "as", "once"})
"""Prepositions that also open a clause ("before BAM! arrives"): a noun after them may be a
subject, and they end a noun phrase."""
RELATIVES = frozenset({"who", "whom", "whose", "which", "that", "where", "when"})
MODALS = frozenset(
    {
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "did",
        "can't",
        "cannot",
        "couldn't",
        "won't",
        "wouldn't",
        "shan't",
        "shouldn't",
        "mightn't",
        "mustn't",
        "didn't",
        "ought",
    }
)
"""Verbs with one form for every person: nothing to agree."""

AUXILIARIES: dict[str, dict[Person, str]] = {
    "be": {"1s": "am", "3s": "is", "pl": "are"},
    "was": {"1s": "was", "3s": "was", "pl": "were"},
    "have": {"1s": "have", "3s": "has", "pl": "have"},
    "do": {"1s": "do", "3s": "does", "pl": "do"},
}
"""The irregular finite forms that change with the subject, by paradigm."""
AUXILIARY_FORMS: dict[str, str] = {form: paradigm for paradigm, forms in AUXILIARIES.items() for form in forms.values()}
NEGATED_FORMS: dict[Person, dict[str, str]] = {"1s": {"be": "am not"}, "3s": {}, "pl": {}}
"""Where English has no "n't" contraction ("I amn't"), the long form."""

DEMONYM_ENDING = re.compile(r"(?:man|men|woman|women|ian|ians|ean|eans|ese|ish)$", re.IGNORECASE)
"""Capitalised common nouns and adjectives of nationality ("Englishman", "Italian", "English"):
they keep their capital but take articles like any noun."""
ABBREVIATIONS = frozenset({"etc", "jr", "sr", "inc", "ltd", "co", "st", "mr", "mrs", "ms", "dr"})
"""Words whose final full stop is part of the word, not the end of a sentence."""
POSTMODIFIERS = frozenset(
    {
        "upstairs",
        "downstairs",
        "next",
        "abroad",
        "outside",
        "inside",
        "overseas",
        "nearby",
        "indoors",
        "outdoors",
        "downtown",
        "uptown",
        "here",
        "there",
        "full",
    }
)
"""Words that start a noun phrase's post-modifier ("the neighbours | upstairs", "the dogs | next
door", "a tin | full of buttons"): the noun before them is the head."""
BOTH_MASS_GAP = 20000
"""Log-units (base 1.0001, pocketsphinx's LogMath) by which the singular of a count-and-mass noun
must outscore its plural in the language model to be read as mass: ln ratio 2.0, the plural 7.4x
rarer. Set on the base deck's 49 count-and-mass heads, whose mass hints the deck authors wrote."""
COUNT_MASS_GAP = 35000
"""The same for a noun the lexicon lists as countable only (a medical lexicon lists "oils"): only
a plural 33x rarer overrides it ("oil"; no countable head of the deck or the case table does)."""
UNSEEN = -536870912
"""pocketsphinx's score for a word missing from the language model."""
NEGATION = "n't"
THIRD_SINGULAR: frozenset[Person] = frozenset({"3s"})
OTHER_PERSONS: frozenset[Person] = frozenset({"1s", "pl"})


@dataclass(frozen=True)
class FiniteVerb:
    """A verb form that agrees with its subject."""

    kind: Literal["aux", "lexical"]
    lemma: str
    """The paradigm ("be", "was", "have", "do") for auxiliaries, the base form otherwise."""
    persons: frozenset[Person]
    """The subjects this form fits ("was": "1s" and "3s"; a base form: "1s" and "pl")."""
    negated: bool
    """Ends in "n't"."""


class Lexicon:
    """Look-ups into inflect and lemminflect, memoised.

    Building one loads the libraries (about two seconds); build it once and reuse
    it. Every look-up is read-only, so one lexicon can serve any number of sentences.
    """

    def __init__(self) -> None:
        import inflect  # heavy: loaded only when a lexicon is built
        import lemminflect
        from english_words import get_english_words_set

        self._inflect: Any = inflect.engine()
        self._get_lemmas: Any = lemminflect.getAllLemmas
        self._get_inflection: Any = lemminflect.getInflection
        self._get_all_inflections: Any = lemminflect.getAllInflections
        self._lemma_cache: dict[str, dict[str, tuple[str, ...]]] = {}
        self._headwords: frozenset[str] = frozenset(get_english_words_set(["web2"], lower=False, alpha=False))
        self._counts: Any = None
        self._logmath: Any = None
        """pocketsphinx's NGramModel, loaded on the first count-and-mass noun (memory-mapped, 40 ms)."""
        self._mass_cache: dict[str, bool] = {}

    def lemmas(self, word: str) -> dict[str, tuple[str, ...]]:
        """Part of speech → lemmas of ``word`` as the lexicon knows it ({} if unknown)."""
        found = self._lemma_cache.get(word)
        if found is None:
            found = dict(self._get_lemmas(word))
            self._lemma_cache[word] = found
        return found

    def knows(self, word: str) -> bool:
        """True if ``word`` (any case) is an ordinary English word, not a name."""
        lower = word.lower()
        if lower in DETERMINERS or lower in PREPOSITIONS or lower in CLAUSE_PREPOSITIONS:
            return True
        if lower in PRONOUN_PERSON or lower in INDEFINITE_PRONOUNS or lower.isdigit():
            return True
        return bool(self.lemmas(lower)) or lower in self._headwords

    def capitalised_only(self, word: str) -> bool:
        """True if the dictionary writes ``word`` (or its singular) only with a capital ("Paris",
        "Englishman", "Mondays"), and no lexicon knows it as a lowercase word."""
        if self.is_capitalised_headword(word):
            return True
        singular = self.regular_singular(word)
        return singular is not None and self.is_capitalised_headword(singular[:1].upper() + singular[1:])

    def regular_singular(self, word: str) -> str | None:
        """The singular of a word that looks like a regular plural ("smartphones"), else None."""
        lower = word.lower()
        if not lower.endswith("s") or lower.endswith(("ss", "us", "is", "as")):
            return None
        singular = self._inflect.singular_noun(lower)
        return str(singular) if singular and singular != lower else None

    def written_capitalised(self, word: str) -> bool:
        """True if the dictionary lists ``word`` with its capital ("Napoleon", "Iceland") and the
        parts-of-speech lexicon does not know it as an ordinary word: a name."""
        return word[:1].isupper() and word in self._headwords and not self.lemmas(word.lower())

    def is_mass(self, noun: str, modifier: str | None = None) -> bool:
        """True if the singular common noun ``noun`` is read without an article ("jam", "sarcasm").

        The SPECIALIST countability decides; for nouns it lists as both count and mass, or as
        countable only, the corpus evidence may make it mass (see the module docstring). With the
        word before it (``modifier``: "olive" oil), a collocation the corpus knows in the singular
        far more than in the plural is mass whatever the lexicon says of the noun alone."""
        key = f"{modifier or ''} {noun}".lower()
        found = self._mass_cache.get(key)
        if found is None:
            found = self._mass(noun.lower(), modifier.lower() if modifier else None)
            self._mass_cache[key] = found
        return found

    def _mass(self, lower: str, modifier: str | None) -> bool:
        plurals = self._get_all_inflections(lower, upos="NOUN").get("NNS", ())
        if not plurals:
            return False  # not a noun the lexicon knows: countable, as before
        others = [p for p in plurals if p != lower]
        if not others:
            return True  # listed only as its own plural: uncountable
        if modifier is not None and self._plural_gap([modifier], lower, others) >= BOTH_MASS_GAP:
            return True  # "olive oil", "chewing gum": a collocation used in the singular
        gap = self._plural_gap([], lower, others)
        if lower in plurals:
            return gap >= BOTH_MASS_GAP
        return COUNT_MASS_GAP <= gap < -UNSEEN // 2

    def _plural_gap(self, before: list[str], singular: str, plurals: list[str]) -> int:
        """How much likelier the singular is than its likeliest plural (after the words
        ``before``), in log-units; an unseen plural of a seen singular counts as very rare; an
        unseen singular gives 0.

        Note: PocketSphinx's ``NGramModel.prob(words)`` scores ``words[0]`` with the rest as its
        history, nearest first (checked: ``prob(["the", "of"])`` is far likelier than
        ``prob(["of", "the"])``). So with a modifier this compares P(modifier | noun before it),
        not P(noun | modifier). BOTH_MASS_GAP was tuned on what it does and the grammar tests pass
        with it; swapping the order would need retuning."""
        model = self._language_model()
        single = int(model.prob([*before, singular]))
        if single <= UNSEEN:
            return 0
        plural = max(int(model.prob([*before, p])) for p in plurals)
        return single - plural

    def _language_model(self) -> Any:
        if self._counts is None:
            from importlib.resources import files

            from pocketsphinx import Config, LogMath, NGramModel

            path = files("pocketsphinx") / "model" / "en-us" / "en-us.lm.bin"
            config = Config()
            config.set_string("-logfn", "/dev/null")  # the model loader logs to stderr otherwise
            # pocketsphinx's model keeps a bare pointer to its LogMath (no reference of its own):
            # a temporary one would be freed as soon as the model is built.
            self._logmath = LogMath()
            self._counts = NGramModel(config, self._logmath, str(path))
        return self._counts

    def is_capitalised_headword(self, word: str) -> bool:
        """True if the dictionary has ``word`` with its capital and not in lowercase."""
        return word in self._headwords and word.lower() not in self._headwords

    def indefinite_article(self, word: str) -> Literal["a", "an"]:
        """ "a" or "an" before ``word``, by how it sounds ("an hour", "a unicorn", "an MP")."""
        spoken = re.sub(r"^\d+(?:st|nd|rd|th)?", self._number_words, word)
        return "an" if self._inflect.a(spoken).lower().startswith("an ") else "a"

    def _number_words(self, match: re.Match[str]) -> str:
        return str(self._inflect.number_to_words(match.group(0))).replace(" ", "-")

    def noun_number(self, noun: str) -> Number:
        """Whether a common noun is singular or plural ("artists" plural, "circus" singular)."""
        lower = noun.lower()
        if "-" in lower and not self.lemmas(lower):
            lower = lower.rsplit("-", 1)[-1]  # "dinosaur-shaped nuggets": the nuggets decide
        nouns = self.lemmas(lower).get("NOUN", ())
        if nouns:
            if lower not in nouns or len(nouns) > 1:
                return "plural"
            singular = self._inflect.singular_noun(lower)
            if singular and singular != lower and "NOUN" in self.lemmas(singular):
                return "plural"  # "people" → "person": a plural the lexicon lists as a lemma
            return "singular"
        singular = self._inflect.singular_noun(lower)
        return "plural" if singular and singular != lower else "singular"

    def is_adverb(self, word: str) -> bool:
        """True if ``word`` can be an adverb ("always", "secretly", "still")."""
        return "ADV" in self.lemmas(word.lower())

    def is_activity(self, word: str) -> bool:
        """True for an -ing word the lexicon knows only as a verb form ("knitting", "skiing"):
        the name of an activity, used like a mass noun ("I love knitting")."""
        lower = word.lower().rsplit("-", 1)[-1]
        lemmas = self.lemmas(lower)
        return lower.endswith("ing") and "NOUN" not in lemmas and "VERB" in lemmas

    def is_adjective_only(self, word: str) -> bool:
        """True for a word the lexicon knows as an adjective and never as a verb ("big")."""
        lemmas = self.lemmas(word.lower())
        return "ADJ" in lemmas and "VERB" not in lemmas

    def is_gerund(self, word: str) -> bool:
        """True for a verb's -ing form ("feeding"), which makes the next noun its object."""
        lower = word.lower()
        return lower.endswith("ing") and any(v != lower for v in self.lemmas(lower).get("VERB", ()))

    def finite_verb(self, word: str) -> FiniteVerb | None:
        """The agreeing verb form ``word`` is, or None (a noun, a past tense, a modal …)."""
        lower = word.lower().replace("’", "'")
        negated = lower.endswith(NEGATION) and len(lower) > 3
        stem = _positive(lower) if negated else lower
        if stem in AUXILIARY_FORMS:
            paradigm = AUXILIARY_FORMS[stem]
            persons = frozenset(p for p, f in AUXILIARIES[paradigm].items() if f == stem)
            return FiniteVerb("aux", paradigm, persons, negated)
        if negated or lower in MODALS or lower in PRONOUN_PERSON:
            return None
        for lemma in self.lemmas(lower).get("VERB", ()):
            if lower in self._get_inflection(lemma, "VBZ"):
                return FiniteVerb("lexical", lemma, THIRD_SINGULAR, False)
            if lower == lemma:
                return FiniteVerb("lexical", lemma, OTHER_PERSONS, False)
        return None

    def agree(self, word: str, verb: FiniteVerb, person: Person) -> str:
        """``word`` (the form ``verb``) changed to agree with ``person``; same case as before."""
        if person in verb.persons:
            return word
        if verb.kind == "aux":
            if verb.negated and verb.lemma in NEGATED_FORMS[person]:
                return same_case(word, NEGATED_FORMS[person][verb.lemma])
            form = AUXILIARIES[verb.lemma][person]
            return same_case(word, form + (NEGATION if verb.negated else ""))
        if person == "3s":
            return same_case(word, self._get_inflection(verb.lemma, "VBZ")[0])
        return same_case(word, verb.lemma)

    def is_abbreviation(self, word: str) -> bool:
        """True if a full stop after ``word`` belongs to it ("etc.", "U.S.")."""
        bare = word.rstrip(".")
        return bare.lower() in ABBREVIATIONS or "." in bare


def _positive(negated: str) -> str:
    stem = negated[: -len(NEGATION)]
    return {"do": "do", "wo": "will", "ca": "can", "ai": "ain"}.get(stem, stem)


def same_case(model: str, word: str) -> str:
    """``word`` with ``model``'s capitalisation (first letter, or all capitals)."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
