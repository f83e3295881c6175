"""Vocabulary packs: per language, the phrases each game allows and how they are said.

A pack is a TOML file in ``voicehost/listen/vocab/<lang>.toml`` (data, not code). Phrase ids are
canonical and language-neutral (``"cat"``, ``"bam bam"``): the rules and ``voicehost rank --json``
use them in every language, and the ``[say]`` table maps an id to what is said in that language.
Packs are validated when loaded; a mistake names the file, the line and the field.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from voicehost.errors import InputError
from voicehost.games import SHOUTED
from voicehost.text import normalise

PACK_DIR = Path(__file__).with_name("vocab")
"""Where the packs shipped with voicehost live."""

GAMES = SHOUTED
"""Games every pack must define (``commands`` is optional)."""

SLOTS = ("{player}", "{number}")
"""Placeholders a command phrase may contain, filled in by :func:`phrases_for`."""

ARPABET = frozenset(
    "AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH".split()
)
"""The phone set of PocketSphinx's bundled US-English model (stress marks are not used)."""

_TOP_KEYS = {"lang", "name", "games", "say", "pronunciations", "decoys"}
_GAME_KEYS = {"phrases", "events"}


class VocabError(InputError):
    """A vocabulary pack is missing, malformed or inconsistent."""


normalize = normalise
"""Canonical spelling of a phrase (:func:`voicehost.text.normalise`, the one normaliser): "Bam-bam!"
and " BAM  bam " both become "bam bam"; placeholders like ``{player}`` survive."""


@dataclass(frozen=True)
class VocabPack:
    """One language's vocabulary, validated."""

    lang: str
    """Language code, e.g. 'en'."""
    name: str
    """Human-readable language name."""
    games: Mapping[str, tuple[str, ...]]
    """Game (or 'commands') → canonical phrase ids it allows."""
    events: Mapping[str, tuple[str, ...]]
    """Game → ids heard from the signal rather than from speech (e.g. 'slap')."""
    say: Mapping[str, tuple[str, ...]]
    """Canonical id (phrase or word) → what is said, one or more alternatives, normalised."""
    pronunciations: Mapping[str, Mapping[str, tuple[str, ...]]]
    """Engine → spoken word → phone strings."""
    decoys: tuple[str, ...]
    """Spoken words of everyday chatter, used by recognisers to reject out-of-grammar speech."""
    source: Path = field(default=PACK_DIR, compare=False)
    """The file the pack was read from (for error messages)."""

    def spoken_forms(self, phrase: str) -> tuple[str, ...]:
        """Every way ``phrase`` (a canonical id) is said in this language, normalised.

        A phrase with its own ``[say]`` entry uses it; otherwise each word is looked up (falling
        back to the word itself) and the alternatives are combined.
        """
        key = normalize(phrase)
        if key in self.say:
            return self.say[key]
        templated = self._templated(key)
        if templated:
            return templated
        forms: list[str] = [""]
        for word in key.split():
            options = self.say.get(word, (word,))
            forms = [f"{prefix} {option}".strip() for prefix in forms for option in options]
        return tuple(dict.fromkeys(forms))

    def _templated(self, key: str) -> tuple[str, ...]:
        """Spoken forms of an expanded phrase ('exchange with anna') via its template's [say]."""
        for template, options in self.say.items():
            if "{" not in template:
                continue
            pattern = re.escape(template)
            for slot in SLOTS:
                pattern = pattern.replace(re.escape(slot), "(?P<%s>.+)" % slot.strip("{}"))
            match = re.fullmatch(pattern, key)
            if match:
                values = match.groupdict()
                return tuple(o.format(**{k: values.get(k, "{%s}" % k) for k in ("player", "number")}) for o in options)
        return ()

    def spoken_words(self, phrases: Iterable[str]) -> set[str]:
        """All spoken words needed to say ``phrases``."""
        return {word for phrase in phrases for form in self.spoken_forms(phrase) for word in form.split()}

    def canonical(self, spoken: str, phrases: Iterable[str] | None = None) -> str | None:
        """The canonical id whose spoken form is ``spoken`` (among ``phrases``, default: all)."""
        said = normalize(spoken)
        candidates = phrases if phrases is not None else self.all_phrases()
        for phrase in candidates:
            if said in self.spoken_forms(phrase):
                return normalize(phrase)
        return None

    def all_phrases(self) -> tuple[str, ...]:
        """Every phrase id of every game, in pack order, without duplicates."""
        return tuple(dict.fromkeys(p for phrases in self.games.values() for p in phrases))


def pack_path(lang: str, folder: Path | None = None) -> Path:
    """The file of ``lang``'s pack."""
    return (folder or PACK_DIR) / f"{lang}.toml"


def available_languages(folder: Path | None = None) -> list[str]:
    """Language codes that have a pack."""
    return sorted(p.stem for p in (folder or PACK_DIR).glob("*.toml"))


def load_pack(lang: str, folder: Path | None = None) -> VocabPack:
    """Read and validate ``lang``'s vocabulary pack."""
    path = pack_path(lang, folder)
    if not path.is_file():
        known = ", ".join(available_languages(folder)) or "none"
        raise VocabError(f"no vocabulary pack for language '{lang}' ({path} missing; packs: {known})")
    return parse_pack(path.read_text(encoding="utf-8"), path)


def phrases_for(
    game: str,
    lang: str,
    players: Sequence[str] = (),
    numbers: Sequence[int] = (),
    pack: VocabPack | None = None,
) -> tuple[str, ...]:
    """Canonical phrase ids a game (or 'commands') allows in ``lang``.

    Phrases with ``{player}`` or ``{number}`` are expanded with ``players`` and ``numbers``
    (names and numbers are normalised); without values, those phrases are left out.
    """
    vocab = pack or load_pack(lang)
    if game not in vocab.games:
        raise VocabError(f"{vocab.source}: game '{game}' not in the {vocab.lang} pack (has: {', '.join(vocab.games)})")
    out: list[str] = []
    for phrase in vocab.games[game]:
        out.extend(_expand(phrase, [normalize(p) for p in players], [str(n) for n in numbers]))
    return tuple(dict.fromkeys(out))


def _expand(phrase: str, players: list[str], numbers: list[str]) -> list[str]:
    forms = [phrase]
    for slot, values in (("{player}", players), ("{number}", numbers)):
        if any(slot in f for f in forms):
            forms = [f.replace(slot, v) for f in forms for v in values]
    return forms


class _Checker:
    """Validation with positions: turns a problem into 'file:line: field: message'."""

    def __init__(self, text: str, path: Path) -> None:
        self.lines = text.splitlines()
        self.path = path

    def line_of(self, *needles: str) -> int:
        """First line containing the last needle after the line containing the previous ones."""
        start = 0
        for needle in needles:
            for i in range(start, len(self.lines)):
                if needle in self.lines[i]:
                    start = i
                    break
        return start + 1

    def fail(self, field_name: str, message: str, *needles: str) -> VocabError:
        line = self.line_of(*needles) if needles else 1
        return VocabError(f"{self.path}:{line}: {field_name}: {message}")


def parse_pack(text: str, path: Path) -> VocabPack:
    """Validate a pack's TOML text (``path`` is used in messages and for the language code)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise VocabError(f"{path}:{line.group(1) if line else 1}: not valid TOML: {exc}") from None
    check = _Checker(text, path)
    for key in data:
        if key not in _TOP_KEYS:
            raise check.fail(key, f"unknown field (allowed: {', '.join(sorted(_TOP_KEYS))})", key)
    lang = _string(data, "lang", check)
    if lang != path.stem:
        raise check.fail("lang", f"'{lang}' does not match the file name '{path.name}'", "lang")
    name = _string(data, "name", check)
    games, events = _games(data.get("games"), check)
    say = _say(data.get("say", {}), games, check)
    pronunciations = _pronunciations(data.get("pronunciations", {}), check)
    decoys = _word_list(data.get("decoys", {}).get("words", []), "decoys.words", check)
    return VocabPack(lang, name, games, events, say, pronunciations, tuple(decoys), path)


def _string(data: Mapping[str, object], key: str, check: _Checker) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise check.fail(key, "required text is missing or empty", key)
    return value.strip()


def _games(raw: object, check: _Checker) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    if not isinstance(raw, dict):
        raise check.fail("games", "a [games.<name>] table is required for " + ", ".join(GAMES))
    games: dict[str, tuple[str, ...]] = {}
    events: dict[str, tuple[str, ...]] = {}
    for game in GAMES:
        if game not in raw:
            raise check.fail(f"games.{game}", "missing (every pack defines this game)", "[games")
    for game, table in raw.items():
        where = f"games.{game}"
        if not isinstance(table, dict):
            raise check.fail(where, "must be a table with 'phrases'", f"games.{game}")
        for key in table:
            if key not in _GAME_KEYS:
                raise check.fail(f"{where}.{key}", "unknown field (allowed: phrases, events)", f"games.{game}", key)
        phrases = _phrase_list(table.get("phrases"), f"{where}.phrases", check, game)
        games[game] = tuple(phrases)
        events[game] = tuple(_phrase_list(table.get("events", []), f"{where}.events", check, game, allow_empty=True))
    return games, events


def _phrase_list(raw: object, where: str, check: _Checker, game: str, allow_empty: bool = False) -> list[str]:
    if not isinstance(raw, list) or (not raw and not allow_empty):
        raise check.fail(where, "must be a non-empty list of phrases", f"games.{game}")
    seen: set[str] = set()
    for item in raw:
        if not isinstance(item, str) or not item.strip():
            raise check.fail(where, f"{item!r} is not a phrase (text expected)", f"games.{game}", repr(item)[:20])
        if normalize(item) != item:
            raise check.fail(
                where, f"'{item}' is not in canonical form (write '{normalize(item)}')", f"games.{game}", item
            )
        for slot in re.findall(r"\{[^}]*\}", item):
            if slot not in SLOTS:
                raise check.fail(
                    where, f"'{item}': unknown placeholder {slot} (known: {', '.join(SLOTS)})", f"games.{game}", item
                )
        if item in seen:
            raise check.fail(where, f"'{item}' is listed twice", f"games.{game}", f'"{item}"')
        seen.add(item)
    return list(raw)


def _say(raw: object, games: Mapping[str, tuple[str, ...]], check: _Checker) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict):
        raise check.fail("say", 'must be a table of id = "spoken" or ["spoken", ...]', "[say]")
    known = {p for phrases in games.values() for p in phrases}
    known |= {w for p in known for w in p.split()}
    out: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        where = f"say.{key}"
        if normalize(key) != key:
            raise check.fail(where, f"id '{key}' is not in canonical form", "[say]", key)
        if key not in known:
            raise check.fail(where, f"'{key}' is not a phrase or word of any game in this pack", "[say]", key)
        options = [value] if isinstance(value, str) else value
        if (
            not isinstance(options, list)
            or not options
            or not all(isinstance(o, str) and normalize(o) for o in options)
        ):
            raise check.fail(where, "must be a non-empty text or list of texts", "[say]", key)
        for option in options:
            for slot in re.findall(r"\{[^}]*\}", option):
                if slot not in key:
                    raise check.fail(where, f"placeholder {slot} is not in the id '{key}'", "[say]", key)
        out[key] = tuple(dict.fromkeys(normalize(o) for o in options))
    return out


def _pronunciations(raw: object, check: _Checker) -> dict[str, dict[str, tuple[str, ...]]]:
    if not isinstance(raw, dict):
        raise check.fail("pronunciations", "must be tables [pronunciations.<engine>]", "pronunciations")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for engine, table in raw.items():
        if engine != "sphinx":
            raise check.fail(
                f"pronunciations.{engine}",
                "unknown engine (only 'sphinx' needs pronunciations)",
                "pronunciations",
                engine,
            )
        if not isinstance(table, dict):
            raise check.fail(f"pronunciations.{engine}", 'must be a table word = ["PHONES", ...]', "pronunciations")
        words: dict[str, tuple[str, ...]] = {}
        for word, prons in table.items():
            where = f"pronunciations.{engine}.{word}"
            if not isinstance(prons, list) or not prons or not all(isinstance(p, str) for p in prons):
                raise check.fail(where, "must be a non-empty list of phone strings", f"pronunciations.{engine}", word)
            for pron in prons:
                bad = [ph for ph in pron.split() if ph not in ARPABET]
                if bad or not pron.split():
                    raise check.fail(
                        where,
                        f"'{pron}': unknown phone(s) {', '.join(bad) or '(none given)'}",
                        f"pronunciations.{engine}",
                        word,
                    )
            words[normalize(word)] = tuple(" ".join(p.split()) for p in prons)
        out[engine] = words
    return out


def _word_list(raw: object, where: str, check: _Checker) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(w, str) and normalize(w) for w in raw):
        raise check.fail(where, "must be a list of words", "[decoys]")
    return list(dict.fromkeys(normalize(w) for w in raw))
