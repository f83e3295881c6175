"""BAM! sentences: a red card with its grey cards filled in, read as grammatical English.

The rulebook leaves this to the BAM! Master ("BAM! has influenced my family planning" +
"Short-statured circus artists" is read "Short-statured circus artists have influenced my family
planning."). :func:`realize` does it, text in, text out, with no audio and no randomness.

What the automatic fixer repairs, blank by blank:

- **Agreement.** When a blank is the subject, the finite verb after it (adverbs such as "always"
  may stand between) agrees with the grey card: is/are, was/were, has/have, does/do, their "n't"
  forms, and any lexical verb (brings/bring). In a question ("Why is BAM! late?") and after
  "there is" the auxiliary before the blank agrees instead. A blank after a preposition
  ("the smell of BAM! is"), after "and" or after a gerund ("feeding BAM! is") is not the subject.
- **Articles.** The red card's "a"/"an" before a blank follows the grey card's sound ("an hour",
  "a unicorn", "an MP", "a one-legged …") and disappears before a plural, a mass noun, a proper
  name or a grey card with its own determiner; "the" + "The Pope" gives one "the"; "the" + "a
  unicorn" gives "the unicorn"; "the" disappears before a proper name (unless "of" follows).
  Grey cards are printed bare ("Rubber chicken"), so where the red card has no article a
  singular countable card gets one ("A rubber chicken has ruined …"), except after a
  determiner or possessive ("my BAM!"), a quantifier ("less BAM!"), a partitive ("a pinch of
  BAM!") and in a title ("BAM!: the musical"). Without hints every bare singular card counts as
  countable: mark mass nouns (``mass``) and names (``proper``) in the deck.
- **Pronouns.** "I" (he, she, we, they) after a verb or preposition becomes "me" ("Cats love
  me!"); as a subject it takes "am"/"have" ("I am always hungry").
- **Capitals.** A grey card starting a sentence is capitalised; inside a sentence its first word
  is lowercased unless it is a name or starts one ("Paris", "Angela Merkel", "Englishman"), "I",
  an acronym ("MP") or has inner capitals ("iPhone"). Capitals after the first word are kept.
- **Punctuation.** "BAM!" is the marker and its "!" belongs to it: "BAM!." gives "filler.",
  "BAM!," "filler,", "BAM!?" "filler?". A card ending right after a marker ends with "!"; any
  other card without closing punctuation gets a full stop. A grey card's closing full stop is
  dropped (unless it belongs to an abbreviation such as "etc."). Single spaces, none before
  punctuation.
- **Possessives.** "BAM!'s" gives "circus artists'" for a plural ending in s, "Paris's" and "the
  boss's" otherwise.
- **Several blanks.** The first grey card fills the first blank, the second the second, each
  with its own fixes.

Word knowledge comes from inflect (a/an by sound, plural verb forms, number words) and
lemminflect (parts of speech, whether a noun is its own singular). Grammar hints on a grey card
(:class:`Filler`: ``number``, ``mass``, ``proper``, ``article``) override every guess.

Templates. A red card may carry an explicit rendering for the cases the fixer cannot know. It is
the card's text with each blank written as a placeholder, and nothing is fixed around the
placeholders (capitals at sentence starts, spacing and a closing full stop still are):

- ``{1}``, ``{2}``: the first or second grey card as written inside a sentence;
- ``{1:a}``: the article the grey card takes where an indefinite one is wanted: "a"/"an" by
  sound, or nothing for a plural, mass noun, name or a card with its own determiner (the
  ``article`` hint wins);
- ``{1:'s}``: the grey card's possessive ("circus artists'", "Paris's");
- ``{1:has|have}``: the first form after a singular grey card, the second after a plural one
  (and after "you"); an optional third form is used after "I": ``{1:is|are|am}``;
- ``{{`` and ``}}``: literal braces.

Every blank of the red card must appear in the template at least once. Example: red card
"BAM! has lost its charm", template "{1} {1:has|have} lost {1:its|their} charm".
"""

from __future__ import annotations

import functools
from typing import Sequence

from voicehost.speak.realize.hints import (
    MARKER,
    Article,
    BadHint,
    BadTemplate,
    EmptyCard,
    Filler,
    MissingBlank,
    Number,
    RealizeError,
    WrongCardCount,
    as_filler,
)
from voicehost.speak.realize.lexicon import Lexicon

__all__ = [
    "MARKER",
    "Article",
    "BadHint",
    "BadTemplate",
    "EmptyCard",
    "Filler",
    "Lexicon",
    "MissingBlank",
    "Number",
    "RealizeError",
    "Realizer",
    "WrongCardCount",
    "count_blanks",
    "realize",
]


def count_blanks(red_text: str) -> int:
    """How many grey cards a red card takes: the number of "BAM!" in its text."""
    return red_text.count(MARKER)


class Realizer:
    """Turns red + grey cards into the sentence to read aloud.

    It holds a :class:`Lexicon` (two seconds to build, read-only afterwards), built on first
    use so that bad input is refused at once: build one realizer and reuse it.
    """

    def __init__(self, lexicon: Lexicon | None = None) -> None:
        self._lexicon = lexicon

    @property
    def lexicon(self) -> Lexicon:
        """The word knowledge, loaded on first use."""
        if self._lexicon is None:
            self._lexicon = Lexicon()
        return self._lexicon

    def realize(self, red_text: str, fillers: Sequence[str | Filler], template: str | None = None) -> str:
        """The sentence for ``red_text`` with ``fillers`` in its blanks, in order.

        Raises a :class:`RealizeError` subclass for a red card without BAM!, an empty card, a
        number of grey cards different from the number of blanks, or a malformed template.
        """
        from voicehost.speak.realize import phrase, sentence
        from voicehost.speak.realize import template as templates

        blanks = _check_red(red_text)
        cards = [as_filler(f) for f in fillers]
        _check_count(red_text, blanks, len(cards))
        for number, card in enumerate(cards, start=1):
            if not card.text.strip() or not card.text.strip(" .\t\n"):
                which = f"grey card {number}" if len(cards) > 1 else "the grey card"
                raise EmptyCard(f"{which} is empty: give the words printed on it")
        if template is not None:
            templates.check(template, blanks)
        phrases = [phrase.analyse(card, self.lexicon) for card in cards]
        if template is not None:
            return templates.render(template, phrases, self.lexicon)
        return sentence.fill(red_text, phrases, self.lexicon)


def realize(red_text: str, fillers: Sequence[str | Filler], template: str | None = None) -> str:
    """:meth:`Realizer.realize` with a lexicon built on first use and kept for the process."""
    return _shared_realizer().realize(red_text, fillers, template)


@functools.cache
def _shared_realizer() -> Realizer:
    # One read-only lexicon per process: building it costs about two seconds.
    return Realizer()


def _check_red(red_text: str) -> int:
    if not red_text.strip():
        raise EmptyCard("the red card is empty: give its text with BAM! for each blank")
    blanks = count_blanks(red_text)
    if blanks == 0:
        raise MissingBlank(
            f"the red card {red_text.strip()!r} has no blank: mark each blank with {MARKER} "
            "(in capitals, with the exclamation mark)"
        )
    return blanks


def _check_count(red_text: str, blanks: int, given: int) -> None:
    if given != blanks:
        raise WrongCardCount(
            f"the red card {red_text.strip()!r} has {blanks} blank{'s' if blanks != 1 else ''} "
            f"but {given} grey card{' was' if given == 1 else 's were'} given: "
            f"give one grey card per {MARKER}, in order"
        )
