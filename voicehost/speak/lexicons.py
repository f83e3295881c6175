"""Loading the realiser's word lists fast: ``voicehost bam render`` answers in well under a second.

Measured on this 2-core machine, a cold ``bam render`` spent 3.0 s before printing a sentence:

- 2.9 s importing inflect, which decorates its engine with ``typeguard.typechecked``; outside
  ``python -O`` that re-parses and recompiles inflect's source on every import. The checks only
  guard inflect's own arguments, which voicehost always passes as strings, so inflect is imported
  once with the decorator standing aside (every other user of typeguard keeps it): 0.1 s.
- 0.5 s decoding lemminflect's two gzipped CSV tables (lemmas, inflections) into dictionaries on
  their first look-up, for a sentence that needs a handful of words. They are compiled once into
  an SQLite file in the user's cache folder and handed to lemminflect as read-only mappings that
  look up one word at a time. Without a writable cache folder lemminflect loads its tables itself.

Nothing here changes what the realiser says: the mappings answer exactly what the tables hold
(``tests/test_speak_lexicons.py`` compares them word by word).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable

SCHEMA = 1
"""Bump when the cache file's layout changes."""


def _unchecked(target: Any = None, **_options: Any) -> Any:
    """``typechecked`` that changes nothing (with or without arguments)."""
    return target if target is not None else _unchecked


def preload_inflect() -> None:
    """Import inflect (once per process) without typeguard's import-time instrumentation."""
    if "inflect" in sys.modules:
        return
    try:
        import typeguard
    except ImportError:
        return
    original = typeguard.typechecked
    setattr(typeguard, "typechecked", _unchecked)
    try:
        import inflect  # noqa: F401  (cached in sys.modules for the realiser's lexicon)
    except ImportError:
        pass
    finally:
        setattr(typeguard, "typechecked", original)


class TableLookup:
    """One lemminflect table in SQLite, read a word at a time (what lemminflect calls: ``get``)."""

    def __init__(self, connection: sqlite3.Connection, table: str) -> None:
        self._connection = connection
        self._query = f"SELECT forms FROM {table} WHERE word = ?"
        self._cache: dict[str, dict[str, tuple[str, ...]]] = {}

    def get(self, word: str, default: Any = None) -> Any:
        """The table's entry for ``word`` (a fresh dict of tuples), or ``default``."""
        if word in self._cache:
            return self._cache[word]
        row = self._connection.execute(self._query, (word,)).fetchone()
        if row is None:
            return default
        found = {tag: tuple(forms) for tag, forms in json.loads(row[0]).items()}
        self._cache[word] = found
        return found

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.get(word) is not None

    def __getitem__(self, word: str) -> dict[str, tuple[str, ...]]:
        found = self.get(word)
        if found is None:
            raise KeyError(word)
        return found  # type: ignore[no-any-return]


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/voicehost`` (``~/.cache/voicehost``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "voicehost"


def _tables() -> dict[str, Callable[[], dict[str, dict[str, tuple[str, ...]]]]]:
    from lemminflect.codecs.InflectionLUCodec import InflectionLUCodec
    from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec
    from lemminflect.config import inflection_lu_fn, lemma_lu_fn

    return {
        "lemmas": lambda: LemmaLUCodec.load(lemma_lu_fn),
        "inflections": lambda: InflectionLUCodec.load(inflection_lu_fn),
    }


def compile_tables(path: Path) -> None:
    """Write lemminflect's tables into the SQLite file ``path`` (atomically: a temporary file renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    tmp.unlink(missing_ok=True)
    try:
        with sqlite3.connect(tmp) as connection:
            for name, load in _tables().items():
                connection.execute(f"CREATE TABLE {name} (word TEXT PRIMARY KEY, forms TEXT NOT NULL)")
                connection.executemany(
                    f"INSERT INTO {name} VALUES (?, ?)", ((word, json.dumps(forms)) for word, forms in load().items())
                )
        connection.close()
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def lexicon_file() -> Path | None:
    """The compiled tables for the installed lemminflect (compiled now if missing); None if it
    cannot be kept (no lemminflect, or no writable cache folder)."""
    try:
        release = version("lemminflect")
    except PackageNotFoundError:
        return None
    path = cache_folder() / f"lemminflect-{release}-v{SCHEMA}.sqlite"
    if not path.is_file():
        try:
            compile_tables(path)
        except (OSError, sqlite3.Error):
            return None
    return path


def preload_lemminflect() -> bool:
    """Hand lemminflect its tables as SQLite look-ups; False (lemminflect loads its own) if that
    cannot be done."""
    path = lexicon_file()
    if path is None:
        return False
    try:
        from lemminflect.core.Inflections import Inflections
        from lemminflect.core.Lemmatizer import Lemmatizer

        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        connection.execute("SELECT 1 FROM lemmas LIMIT 1").fetchone()
        connection.execute("SELECT 1 FROM inflections LIMIT 1").fetchone()
    except (ImportError, sqlite3.Error):
        return False
    lemmatizer, inflections = Lemmatizer(), Inflections()
    if not hasattr(lemmatizer, "lemma_dict"):
        lemmatizer.lemma_dict = TableLookup(connection, "lemmas")
    if not hasattr(inflections, "infl_dict"):
        inflections.infl_dict = TableLookup(connection, "inflections")
    return True


def preload_lexicons() -> None:
    """Everything above, before the realiser's lexicon is built."""
    preload_inflect()
    preload_lemminflect()
