"""Installing, listing and removing models in the models folder.

A model is unpacked (or copied) into a hidden ``.partial-NAME-PID-…`` folder next to its final
place, checked, given a marker file, and only then renamed into place in one step. A crash or
Ctrl-C at any moment therefore leaves either no model or a complete one; hidden leftovers are
ignored by :func:`~voicehost.models.paths.installed_vosk_models` and swept by the next install.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from voicehost.models.archive import (
    MARKER_NAME,
    Archive,
    ProgressFn,
    copy_folder,
    file_digests,
    model_root,
    plan_folder,
)
from voicehost.models.catalog import (
    ARCHIVE_SUFFIXES,
    MAX_UNPACK_RATIO,
    Catalog,
    CatalogEntry,
    Engine,
    RecordedChecksums,
)
from voicehost.errors import InputError
from voicehost.files import CONFIG_LIMIT, parse_json, read_text
from voicehost.models.errors import ChecksumMismatch, ModelExists, NotAModel, UnknownModel
from voicehost.models.paths import installed_vosk_models
from voicehost.models.verify import missing_files

PARTIAL_PREFIX = ".partial-"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_LANG = re.compile(r"[a-z]{2,3}")
_GUESS_LANG = re.compile(r"vosk-model-(?:small-)?([a-z]{2,3})(?:-|$)")


@dataclass(frozen=True)
class InstalledModel:
    """A Vosk model folder in the models folder."""

    name: str
    path: Path
    vocab: str | None
    """Language code of the vocabulary pack it serves, if known."""
    entry: CatalogEntry | None
    marker: dict[str, Any]
    """What voicehost recorded when installing it (empty for folders put there by hand)."""


@dataclass(frozen=True)
class Identity:
    """What an archive or folder to install turned out to be."""

    name: str
    vocab: str
    entry: CatalogEntry | None
    how: str
    """How the name was found, for the user ("checksum matches the catalog", …)."""


def guess_language(name: str) -> str | None:
    """The language code in an official model name ("vosk-model-small-de-0.15" -> "de")."""
    match = _GUESS_LANG.match(name)
    return match.group(1) if match else None


def archive_stem(path: Path) -> str:
    """The file name without its archive suffix."""
    for suffix in ARCHIVE_SUFFIXES:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.stem


def read_marker(folder: Path) -> dict[str, Any]:
    """The install marker of a model folder, or {} if there is none or it is unreadable."""
    try:
        data = parse_json(read_text(folder / MARKER_NAME, limit=CONFIG_LIMIT, what="model marker"), folder / MARKER_NAME)
    except (InputError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def installed_models(folder: Path, catalog: Catalog) -> list[InstalledModel]:
    """Every complete Vosk model in ``folder``, with its language."""
    found = []
    for path in installed_vosk_models(folder):
        marker = read_marker(path)
        entry = catalog.get(path.name)
        vocab = marker.get("vocab") or (entry.vocab if entry else None) or guess_language(path.name)
        found.append(InstalledModel(path.name, path, vocab if isinstance(vocab, str) else None, entry, marker))
    return found


def folder_size(folder: Path) -> int:
    """Bytes of all files below ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def sweep_partials(folder: Path) -> list[Path]:
    """Delete leftovers of interrupted installs whose process is gone; returns what was removed."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for path in folder.iterdir():
        if not (path.name.startswith((PARTIAL_PREFIX, ".old-", ".removing-")) and path.is_dir()):
            continue
        match = re.search(r"-(\d+)-[0-9a-f]{8}$", path.name)
        if match and _alive(int(match.group(1))):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _scratch(folder: Path, prefix: str, name: str) -> Path:
    return folder / f"{prefix}{name}-{os.getpid()}-{secrets.token_hex(4)}"


def _check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise InputError(f"{name!r} is not a usable model name (letters, digits, '.', '_' and '-')")
    return name


def _identify(catalog: Catalog, folder: Path, *, given_name: str | None, given_lang: str | None,
              fallback: str, sha256: str = "", md5: str = "", tree: str = "") -> Identity:
    """Name and language of a model being installed (see ``voicehost models install --help``)."""
    recorded = {digest: name for name, digest in RecordedChecksums(folder).load().items()}
    entry, how = None, ""
    if sha256 and catalog.by_sha256(sha256):
        entry, how = catalog.by_sha256(sha256), "its SHA-256 matches the catalog"
    elif sha256 and sha256 in recorded and catalog.get(recorded[sha256]):
        entry, how = catalog.get(recorded[sha256]), "its SHA-256 matches the one recorded at download"
    elif md5 and catalog.by_md5(md5):
        entry, how = catalog.by_md5(md5), "its MD5 matches the catalog"
    elif tree and catalog.by_tree(tree):
        entry, how = catalog.by_tree(tree), "its files match the catalog"
    elif (named := catalog.get(given_name or fallback)) is not None:
        entry, how = named, "named like a catalog entry"
        _check_catalog_file(named, folder, sha256, md5, tree)
    name = _check_name(given_name or (entry.name if entry else fallback))
    if given_name and not how:
        how = "named by --name"
    if given_lang is not None and not _LANG.fullmatch(given_lang):
        raise InputError(f"--lang {given_lang!r}: give a language code of two or three lower-case letters, e.g. en")
    vocab = given_lang or (entry.vocab if entry else None) or guess_language(name)
    if not vocab:
        raise InputError(f"cannot tell which language {name!r} is for: add --lang CODE (for example --lang en)")
    return Identity(name, vocab, entry, how or "named after the file")


def _check_catalog_file(entry: CatalogEntry, folder: Path, sha256: str, md5: str, tree: str) -> None:
    """A file named like a catalog entry must also have its checksum when one is known."""
    expected = entry.sha256 or RecordedChecksums(folder).get(entry.name)
    if sha256 and expected and sha256 != expected:
        raise ChecksumMismatch(
            f"this file is named {entry.name} but its SHA-256 {sha256[:16]}… is not the expected {expected[:16]}…: "
            "it is not the official model (give --name OTHER to install it anyway under another name)"
        )
    if md5 and entry.md5 and not expected and md5 != entry.md5:
        raise ChecksumMismatch(f"this file is named {entry.name} but its MD5 does not match the catalog's")


def install_archive(archive: Path, folder: Path, catalog: Catalog, *, name: str | None = None,
                    lang: str | None = None, force: bool = False, digests: tuple[str, str] | None = None,
                    source: str | None = None,
                    progress: Callable[[str, int, int], ProgressFn] | None = None) -> InstalledModel:
    """Unpack ``archive`` safely and put the model in place; returns it.

    ``digests`` (SHA-256, MD5) skips re-hashing a file the downloader already checked, ``source``
    is where the file came from (the download URL; default: the file itself);
    ``progress(label, total, already)`` makes a callback for the long steps.
    """
    source = source or str(archive.resolve())
    shown = source.rsplit("/", 1)[-1]
    if not archive.exists():
        raise InputError(f"{archive}: no such file")
    if not archive.is_file():
        raise InputError(f"{archive}: not a regular file (a device, FIFO or socket); give a .zip or .tar.gz archive")
    size = archive.stat().st_size
    if digests is None:
        report = progress(f"checking {archive.name}", size, 0) if progress else None
        try:
            digests = file_digests(archive, (lambda done: report(done, size)) if report else None)
        except OSError as error:
            raise InputError(f"{archive}: cannot read the archive ({error.strerror or error})") from None
    sha256, md5 = digests
    folder.mkdir(parents=True, exist_ok=True)
    sweep_partials(folder)
    identity = _identify(catalog, folder, given_name=name, given_lang=lang, fallback=archive_stem(archive),
                         sha256=sha256, md5=md5)
    _refuse_existing(folder, identity.name, force)
    limit = identity.entry.unpack_limit(size) if identity.entry else size * MAX_UNPACK_RATIO
    with Archive(archive, limit) as checked:
        _check_space(folder, checked.total)
        scratch = _scratch(folder, PARTIAL_PREFIX, identity.name)
        scratch.mkdir()
        try:
            checked.extract(scratch, progress(f"unpacking {shown}", checked.total, 0) if progress else None)
            marker = {"source": source, "archive_sha256": sha256}
            return _finish(scratch, folder, identity, marker, force, origin=str(archive))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def install_folder(source: Path, folder: Path, catalog: Catalog, *, name: str | None = None,
                   lang: str | None = None, force: bool = False,
                   progress: Callable[[str, int, int], ProgressFn] | None = None) -> InstalledModel:
    """Copy the model folder ``source`` into the models folder (checked, then renamed into place)."""
    if not source.is_dir():
        raise InputError(f"{source}: no such folder")
    root = model_root(source)
    if missing_files(root):
        raise NotAModel(f"{source} is not a Vosk model folder: missing {', '.join(missing_files(root))}")
    if folder.resolve() == root.resolve().parent:
        raise InputError(f"{root} is already in the models folder")
    plan = plan_folder(root)
    folder.mkdir(parents=True, exist_ok=True)
    sweep_partials(folder)
    _check_space(folder, plan.total)
    fallback = root.name if root.name != "model" else root.parent.name
    scratch = _scratch(folder, PARTIAL_PREFIX, _check_name(name or fallback))
    scratch.mkdir()
    try:
        target = scratch / "model"
        tree = copy_folder(plan, target, progress(f"copying {fallback}", plan.total, 0) if progress else None)
        identity = _identify(catalog, folder, given_name=name, given_lang=lang, fallback=fallback, tree=tree)
        _refuse_existing(folder, identity.name, force)
        return _finish(scratch, folder, identity, {"source": str(root.resolve()), "tree_sha256": tree},
                       force, origin=str(source))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def install_path(path: Path, folder: Path, catalog: Catalog, **options: Any) -> InstalledModel:
    """Install from an archive file or a model folder, whichever ``path`` is."""
    if path.is_dir():
        return install_folder(path, folder, catalog, **options)
    return install_archive(path, folder, catalog, **options)


def _refuse_existing(folder: Path, name: str, force: bool) -> None:
    if (folder / name).exists() and not force:
        raise ModelExists(f"{name} is already installed in {folder} (add --force to replace it)")


def _check_space(folder: Path, needed: int) -> None:
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise InputError(f"not enough disk space in {folder}: the model needs {needed / 1e6:.0f} MB, {free / 1e6:.0f} MB are free")


def _finish(scratch: Path, folder: Path, identity: Identity, marker: dict[str, Any], force: bool,
            origin: str) -> InstalledModel:
    """Check the unpacked model, write its marker and rename it into place."""
    root = model_root(scratch)
    missing = missing_files(root)
    if missing:
        raise NotAModel(f"{origin} holds no complete Vosk model: missing {', '.join(missing)}")
    marker = {
        "name": identity.name,
        "vocab": identity.vocab,
        "engine": Engine.VOSK.value,
        "catalog": identity.entry.name if identity.entry else None,
        "identified": identity.how,
        **marker,
        "installed_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    (root / MARKER_NAME).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    target = folder / identity.name
    _place(root, target, force)
    return InstalledModel(identity.name, target, identity.vocab, identity.entry, marker)


def _place(root: Path, target: Path, force: bool) -> None:
    """Rename ``root`` to ``target`` atomically, replacing an existing model only with ``force``."""
    if not target.exists():
        os.rename(root, target)
        return
    if not force:
        raise ModelExists(f"{target.name} is already installed in {target.parent} (add --force to replace it)")
    old = _scratch(target.parent, ".old-", target.name)
    os.rename(target, old)
    try:
        os.rename(root, target)
    except OSError:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def remove_model(name: str, folder: Path) -> Path:
    """Delete the installed model ``name``; returns where it was.

    A model that is a link to a folder elsewhere loses only the link: what it points at (perhaps
    the only copy, or a Python package's model) is left alone."""
    target = folder / name
    if not _NAME.fullmatch(name) or not (target.is_dir() or target.is_symlink()):
        installed = ", ".join(p.name for p in installed_vosk_models(folder)) or "none"
        raise UnknownModel(f"no model {name!r} is installed in {folder} (installed: {installed})")
    if target.is_symlink():
        try:
            target.unlink()
        except OSError as error:
            raise InputError(f"cannot remove the link {target}: {error.strerror or error}") from None
        return target
    if not (read_marker(target) or (target / "am").is_dir() or (target / "conf").is_dir()):
        raise UnknownModel(f"{target} does not look like a speech model; not deleting it")
    doomed = _scratch(folder, ".removing-", name)
    try:
        os.rename(target, doomed)
        shutil.rmtree(doomed)
    except OSError as error:
        raise InputError(f"cannot remove {target}: {error.strerror or error}") from None
    return target
