"""Words → meanings: numbers ("seven", "7"), player names, and the global voice commands.

Everything here works on normalised phrases: lower case, words separated by single spaces,
punctuation removed — the form both the recognisers and the text input produce.
"""

from __future__ import annotations

from enum import Enum
from typing import Sequence

from voicehost.listen.messages import Heard as Heard
from voicehost.text import normalise as normalise

NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
"""Number words 0-20, the numbers players say (tiles 1-15, piles 1-3, cards 1-10 or printed numbers)."""


def number(word: str) -> int | None:
    """The value of one number word or digit string, else None.

    Homophones ("for", "to", "won", "ate", "tree") are never numbers: "I'll go for eleven" must
    not flip tile four. The recognisers listen with the game's grammar, so they only ever report
    the number words themselves."""
    if word.isdigit():
        return int(word)
    if word in NUMBER_WORDS:
        return NUMBER_WORDS.index(word)
    return None


def numbers_in(phrase: str) -> list[int]:
    """Every number in a phrase, in order ("seven then three" → [7, 3]; "twenty one" → [20, 1])."""
    return [n for n in (number(w) for w in normalise(phrase).split()) if n is not None]


def number_phrase(n: int) -> str:
    """The spoken form of 0-20 ("seven"), digits beyond."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def find_player(phrase: str, players: Sequence[str]) -> str | None:
    """The one player whose name appears in the phrase (whole words, any case), else None."""
    words = normalise(phrase).split()
    found = [p for p in players if _contains(words, normalise(p).split())]
    return found[0] if len(found) == 1 else None


def _contains(words: list[str], name: list[str]) -> bool:
    return any(words[i : i + len(name)] == name for i in range(len(words) - len(name) + 1))


class Command(Enum):
    """Voice commands (and questions) any player can say at any time."""

    REPEAT = "repeat"
    SCORE = "score"
    HELP = "help"
    SLOWER = "slower"
    FASTER = "faster"
    PAUSE = "pause"
    RESUME = "resume"
    QUIT = "quit"
    TILES = "tiles"
    """Everything on the table in detail (Bim Bamm!: all fifteen tiles)."""
    TABLE = "table"
    """The table at a glance (Bim Bamm!: how many of each animal; Bim Bam Bum!: the piles; BAM!: the red card)."""
    WHOSE_TURN = "whose turn"
    MY_CARD = "my card"
    MY_HAND = "my hand"
    GOODBYE = "goodbye"


def _variants(*groups: tuple[Command, str]) -> dict[str, Command]:
    """Phrase → command from (command, "phrase | phrase | …") pairs."""
    return {phrase.strip(): what for what, phrases in groups for phrase in phrases.split("|")}


COMMAND_PHRASES: dict[str, Command] = _variants(
    (
        Command.REPEAT,
        "repeat | say again | say that again | again | repeat that | what did you say | come again | pardon "
        "| summary | the summary | summary again | repeat the summary | read the summary",
    ),
    (
        Command.SCORE,
        "score | scores | the score | what's the score | what is the score | standings | points "
        "| how many points | who is winning | who's winning",
    ),
    (Command.HELP, "help | what can i say | what can i do | what do i say | what do i do | help me"),
    (
        Command.SLOWER,
        "slower | slow down | speak slower | speak more slowly | more slowly | a bit slower | slower please",
    ),
    (Command.FASTER, "faster | speed up | speak faster | a bit faster | quicker | go faster"),
    (Command.PAUSE, "pause | pause the game | hold on"),
    (Command.RESUME, "resume | continue | go on | carry on"),
    (Command.QUIT, "quit | stop the game | end the game | quit the game"),
    (Command.TILES, "tiles | the tiles | read the tiles | read all tiles | all tiles | read the piles"),
    (
        Command.TABLE,
        "table | the table | what's on the table | what is on the table | what's showing "
        "| what is showing | how many of each | count | counts | piles | the piles "
        "| what are the piles | red card | the red card | what's the red card | what is the red card "
        "| read the red card | read the card again | read the red card again",
    ),
    (
        Command.WHOSE_TURN,
        "whose turn | whose turn is it | who's turn is it | who is next | who's next "
        "| is it my turn | who plays | who plays now",
    ),
    (
        Command.MY_CARD,
        "my card | what's my card | what is my card | which card do i have | what card do i have "
        "| my top card | what's my top card | what is my top card",
    ),
    (
        Command.MY_HAND,
        "my hand | my cards | what's in my hand | what is in my hand | what are my cards "
        "| read my cards | read my hand",
    ),
    (Command.GOODBYE, "goodbye | bye | good bye"),
)
"""Phrases that mean a command (normalised): the natural ways players ask."""

FILLERS = ("please", "um", "uh", "er", "erm", "okay", "ok", "well", "so", "i say", "and", "now")
"""Words a player may put around an allowed phrase that change nothing ("um, seven please").

Only these, and only at the start or the end of a phrase: inside it, words must be the
phrase's own ("I think I'll go for eleven" is not "eleven")."""

_FILLER_WORDS = [f.split() for f in sorted(FILLERS, key=lambda f: -len(f.split()))]


def strip_fillers(phrase: str) -> str:
    """``phrase`` normalised without the :data:`FILLERS` at its start and end ("" if nothing else),
    typed digits up to twenty written as words ("flip 7" → "flip seven", the recognisers' form).

    A whole command phrase is kept as it is: "what can i say" ends with the filler "i say"."""
    words = [
        number_phrase(int(w)) if w.isdigit() and int(w) < len(NUMBER_WORDS) else w for w in normalise(phrase).split()
    ]
    changed = True
    while changed and words:
        changed = False
        for filler in _FILLER_WORDS:
            if " ".join(words) in COMMAND_PHRASES:
                return " ".join(words)
            n = len(filler)
            if words[:n] == filler:
                words, changed = words[n:], True
            elif len(words) >= n and words[-n:] == filler:
                words, changed = words[:-n], True
    return " ".join(words)


def contained(phrase: str, allowed: Sequence[str]) -> str | None:
    """The longest allowed phrase found inside ``phrase`` as whole words (for "did you mean …?")."""
    words = normalise(phrase).split()
    found = [a for a in allowed if a and _contains(words, a.split())]
    return max(found, key=lambda a: len(a.split()), default=None)


LEAVING_PHRASES = ("a player has left", "a player left", "someone has left", "somebody has left", "a player is gone")
"""Said by anyone during play: a player has left the table (each game rules what follows: Bim Bam
Bum! ends, BAM! asks whom to skip). They name nobody: player names in the recognisers' grammar
stop PocketSphinx when a name is not in its dictionary ("Cem")."""


def leaving_phrases(name: str) -> tuple[str, ...]:
    """Typed ways to say that ``name`` has left ("skip ben", "ben has left", "drop ben"): for
    typed and scripted lines only, never in a recogniser's grammar (see :data:`LEAVING_PHRASES`)."""
    low = normalise(name)
    return (f"skip {low}", f"drop {low}", f"{low} has left", f"{low} left", f"{low} is gone", f"{low} has gone")


YES_PHRASES = ("yes", "yeah", "yep", "right", "correct", "that's right")
"""Answers that confirm what the host asked back about."""
NO_PHRASES = ("no", "nope", "wrong", "no no")
"""Answers that deny it."""


def confirmation(answer: str, asked: str) -> bool | None:
    """True if ``answer`` confirms the phrase ``asked`` about (yes, or the phrase said again), False
    if it denies it, None if it is neither (something else was said)."""
    said = normalise(answer)
    if said in YES_PHRASES or said == normalise(asked):
        return True
    if said in NO_PHRASES:
        return False
    return None


def command(phrase: str) -> Command | None:
    """The command a whole phrase means (fillers aside), or None."""
    return COMMAND_PHRASES.get(strip_fillers(phrase))


READ_PREFIXES = (
    "read card",
    "what is card",
    "what's card",
    "read tile",
    "what is tile",
    "what's tile",
    "read pile",
    "what is on pile",
    "what's on pile",
    "read sentence",
    "read",
)
"""How a player asks for one numbered thing (a card of their hand, a tile, a pile, a sentence)."""


def read_request(phrase: str) -> int | None:
    """N of "read card N", "what is card N", "read tile N", "read N" …; None if the phrase is not one."""
    said = strip_fillers(phrase)
    for prefix in READ_PREFIXES:
        if said.startswith(prefix + " "):
            rest = said[len(prefix) + 1 :].split()
            if len(rest) == 1 and (n := number(rest[0])) is not None:
                return n
    return None


def read_phrases(top: int, *prefixes: str) -> list[str]:
    """The recogniser's phrases for read requests of 1..``top`` ("read card seven" …)."""
    return [f"{prefix} {number_phrase(n)}" for prefix in prefixes for n in range(1, top + 1)]
