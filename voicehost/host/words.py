"""Words → meanings: numbers ("seven", "7"), player names, and the global voice commands.

Everything here works on normalised phrases: lower case, words separated by single spaces,
punctuation removed — the form both the recognisers and the text input produce.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Sequence

from voicehost.text import normalise as normalise

NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
"""Number words 0-20, the numbers players say (tiles 1-15, piles 1-3, cards 1-10 or printed numbers)."""

_EXTRA_NUMBERS = {"won": 1, "to": 2, "too": 2, "for": 4, "ate": 8, "tree": 3}
"""Homophones recognisers (and sloppy typists) produce for short number words."""


def number(word: str) -> int | None:
    """The value of one number word or digit string, else None."""
    if word.isdigit():
        return int(word)
    if word in NUMBER_WORDS:
        return NUMBER_WORDS.index(word)
    return _EXTRA_NUMBERS.get(word)


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
    """Voice commands any player can say at any time."""

    REPEAT = "repeat"
    SCORE = "score"
    HELP = "help"
    SLOWER = "slower"
    FASTER = "faster"
    PAUSE = "pause"
    RESUME = "resume"
    QUIT = "quit"
    TILES = "tiles"
    MY_CARD = "my card"
    MY_HAND = "my hand"


COMMAND_PHRASES: dict[str, Command] = {
    "repeat": Command.REPEAT, "say again": Command.REPEAT, "again": Command.REPEAT,
    "score": Command.SCORE, "scores": Command.SCORE,
    "help": Command.HELP, "what can i say": Command.HELP,
    "slower": Command.SLOWER, "faster": Command.FASTER,
    "pause": Command.PAUSE, "resume": Command.RESUME, "continue": Command.RESUME,
    "quit": Command.QUIT, "stop the game": Command.QUIT,
    "tiles": Command.TILES, "table": Command.TILES,
    "my card": Command.MY_CARD, "my hand": Command.MY_HAND, "my cards": Command.MY_HAND,
}
"""Phrases that mean a command (normalised)."""


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
    """The command a whole phrase means, or None."""
    return COMMAND_PHRASES.get(normalise(phrase))


@dataclass(frozen=True)
class Heard:
    """One thing a player said (or slapped), as the session's game flow receives it."""

    player: str
    phrase: str
    """Normalised ("two bam bam"); "slap" for a clap or table slap."""
    onset: float
    """Seconds on the session clock when the voice (or slap) began."""
    end: float
    """Seconds on the session clock when it ended."""
    confidence: float = 1.0
    """0..1 (typed and scripted lines: 1)."""
    source: str = "text"
    """'text', 'script' or 'mic'."""
    level_db: float | None = None
    """Peak level of the voice on its own microphone, dBFS (microphones only): "the loudest player"."""
    uncertain: bool = False
    """The recogniser was unsure of ``phrase`` (microphones only): the session asks the player
    back before the game sees it, and a confirmed shout keeps its onset."""
