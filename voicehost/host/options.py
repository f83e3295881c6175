"""Game options and session numbers, checked the same way wherever they come from.

Options reach a game from the command line, from the session file saved next to a log (for
``voicehost resume``) and from a recording's ``session.json`` (for ``voicehost replay``). The two
files can be edited, damaged or hostile, so every value is checked here before a game sees it: a
race window of NaN would hang the host, one of 1e9 seconds never closes, "soon" is no number.
The command line's own validators (:func:`seconds_type`, :func:`whole_type`) use the same ranges,
so argparse refuses ``--race-window nan`` with a usage error before anything starts.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from voicehost.errors import InputError
from voicehost.text import describe_unsafe, unsafe_characters

MAX_SEED = 2**63 - 1
"""Largest shuffle seed (seeds are whole numbers from 0)."""


class OptionError(InputError):
    """A game option or session number is missing, of the wrong type or out of range."""


@dataclass(frozen=True)
class Seconds:
    """A time in seconds: finite, above ``low``, at most ``high`` (None allowed if ``optional``)."""

    low: float
    high: float
    optional: bool = False
    low_allowed: bool = False
    """True: ``low`` itself is allowed (a tolerance of 0 s); False: only more than it."""

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise OptionError(f"{name}: {value!r} is not a number of seconds")
        above = value >= self.low if self.low_allowed else value > self.low
        if not math.isfinite(value) or not above or value > self.high:
            lowest = f"{self.low:g}" if self.low_allowed else f"more than {self.low:g}"
            raise OptionError(f"{name}: {value!r} is out of range: give {lowest} to {self.high:g} seconds")
        return float(value)


@dataclass(frozen=True)
class Whole:
    """A whole number from ``low`` to ``high`` (None allowed if ``optional``)."""

    low: int
    high: int
    optional: bool = False

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(f"{name}: {value!r} is not a whole number")
        if not self.low <= value <= self.high:
            raise OptionError(f"{name}: {value} is out of range: give {self.low} to {self.high}")
        return value


@dataclass(frozen=True)
class Choice:
    """One of a few words (or None if ``optional``)."""

    words: tuple[str, ...]
    optional: bool = False

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.optional:
            return None
        if value not in self.words:
            raise OptionError(f"{name}: {value!r} is not one of {', '.join(self.words)}")
        return value


@dataclass(frozen=True)
class Text:
    """A short printable text such as a player's name (or None if ``optional``)."""

    longest: int = 200
    optional: bool = True

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.optional:
            return None
        if not isinstance(value, str) or not value.strip() or len(value) > self.longest:
            raise OptionError(f"{name}: {value!r} is not a text of 1 to {self.longest} characters")
        if unsafe_characters(value):
            raise OptionError(f"{name}: {value!r} contains {describe_unsafe(unsafe_characters(value))}")
        return value


@dataclass(frozen=True)
class Texts:
    """A list of short texts (deck names, tags), kept as a tuple."""

    longest: int = 4096
    most: int = 100

    def check(self, name: str, value: Any) -> Any:
        if not isinstance(value, (list, tuple)) or len(value) > self.most:
            raise OptionError(f"{name}: {value!r} is not a list of at most {self.most} texts")
        return tuple(Text(self.longest, optional=False).check(name, v) for v in value)


@dataclass(frozen=True)
class Flag:
    """True, False (or None if ``optional``)."""

    optional: bool = True

    def check(self, name: str, value: Any) -> Any:
        if (value is None and self.optional) or isinstance(value, bool):
            return value
        raise OptionError(f"{name}: {value!r} is not true or false")


@dataclass(frozen=True)
class Anything:
    """A value only a program can give (a ready sentence realiser in tests): never from a file."""

    def check(self, name: str, value: Any) -> Any:
        return value


Check = Seconds | Whole | Choice | Text | Texts | Flag | Anything

RACE_WINDOW = Seconds(0.0, 600.0)
TIME_WINDOW = Seconds(0.0, 60.0, optional=True)
SLAP_WINDOW = Seconds(0.0, 30.0)
LONG_WAIT = Seconds(0.0, 600.0)


def game_options(game: str) -> Mapping[str, Check] | None:
    """Every option ``game`` knows, with what it accepts (its flow module's ``OPTIONS``, found in
    the game registry); None for a game the registry does not know."""
    from voicehost.games import GAMES

    info = GAMES.get(game)
    if info is None:
        return None
    options: Mapping[str, Check] = info.flow_module().OPTIONS
    return options


PROGRAM_ONLY = frozenset({"realizer"})


def check_options(game: str, options: Any, where: str, *, from_file: bool = False) -> dict[str, Any]:
    """``options`` checked for ``game`` (``where`` names the source in errors); returns a clean copy."""
    known = game_options(game)
    if known is None:
        raise OptionError(f"{where}: unknown game {game!r}")
    if not isinstance(options, Mapping):
        raise OptionError(f"{where}: options must be a table of names and values, not {type(options).__name__}")
    clean: dict[str, Any] = {}
    for name, value in options.items():
        check = known.get(name) if isinstance(name, str) else None
        if check is None or (from_file and name in PROGRAM_ONLY):
            raise OptionError(
                f"{where}: {game} has no option {name!r} (known: {', '.join(sorted(set(known) - PROGRAM_ONLY))})"
            )
        clean[name] = check.check(f"{where}: {name}", value)
    return clean


def check_seed(value: Any, where: str) -> int:
    """A shuffle seed: a whole number from 0 to :data:`MAX_SEED`."""
    return int(Whole(0, MAX_SEED).check(f"{where}: seed", value))


def _argument_type(check: Seconds | Whole, convert: Callable[[str], Any], noun: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None
        try:
            return check.check("value", value)
        except OptionError as error:
            raise argparse.ArgumentTypeError(str(error).removeprefix("value: ")) from None

    parse.__name__ = noun
    return parse


def seconds_type(check: Seconds) -> Callable[[str], Any]:
    """An argparse ``type`` for a number of seconds within ``check``'s range (NaN, inf refused)."""
    return _argument_type(check, float, "a number of seconds")


def whole_type(low: int, high: int) -> Callable[[str], Any]:
    """An argparse ``type`` for a whole number from ``low`` to ``high``."""
    return _argument_type(Whole(low, high), int, "a whole number")
