"""The user's files, read and written safely: bounded reads, shallow parses, safe output paths.

Every file a user can hand voicehost (decks, catalogs, table configs, event logs, scripts,
session files) is read through :func:`read_text`: a regular file only (``/dev/zero`` or a FIFO
would fill memory or block for ever), at most a stated number of bytes, UTF-8 with the bad byte's
line and column named. TOML and JSON go through :func:`parse_toml` and :func:`parse_json`, which
turn the parsers' RecursionError on a deeply nested file into a one-line error and refuse
structures nested deeper than :data:`MAX_DEPTH` (no voicehost file needs more than four levels).

Every file voicehost writes for the user goes to a path checked by :func:`check_output_file`:
an existing target must be a regular file (``--out /dev/null`` run as root would otherwise
replace the device node with a WAV file), its folder must exist. :func:`atomic_write_bytes` writes
a sibling temporary file, syncs it and renames it into place.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
import tomllib
from pathlib import Path
from typing import Any, Callable

from voicehost.errors import InputError

MAX_DEPTH = 32
"""Deepest nesting of tables and arrays accepted in any TOML or JSON file voicehost reads."""

KB = 1024
MB = 1024 * KB

DECK_LIMIT = 16 * MB
"""Bytes: a deck file (10,000 cards of up to 500 characters are about 6 MB)."""
CONFIG_LIMIT = 1 * MB
"""Bytes: a table config, a model catalog, a session file, recorded checksums."""
LOG_LIMIT = 256 * MB
"""Bytes: an event log (a long BAM! evening writes well under 1 MB)."""
SCRIPT_LIMIT = 16 * MB
"""Bytes: a script for ``--input script:FILE``."""


class FileReadError(InputError):
    """A file cannot be read as the text it should be: missing, a folder, a device, too big, not UTF-8."""


class FileFormatError(InputError):
    """A TOML or JSON file is nested too deeply or holds a value its parser refuses."""


class OutputPathError(InputError):
    """A file cannot be written where the user asked (a folder, a device, a missing folder, …)."""


def _size(count: int) -> str:
    return f"{count / MB:.0f} MB" if count >= MB else f"{count / KB:.0f} KB"


def read_bytes(path: Path | str, *, limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, refusing folders, devices, FIFOs and files over ``limit``."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise FileReadError(f"{path}: no such {what}") from None
    except OSError as error:
        raise FileReadError(f"{path}: cannot read the {what} ({error.strerror or error})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileReadError(f"{path}: is a folder, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            if _is_devnull(info):
                return b""  # /dev/null is the customary empty file (an empty script)
            raise FileReadError(f"{path}: is not a regular file (a device, FIFO or socket), not a {what}")
        if info.st_size > limit:
            raise FileReadError(f"{path}: too large for a {what} (more than {_size(limit)})")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(MB, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as error:
        raise FileReadError(f"{path}: cannot read the {what} ({error.strerror or error})") from None
    finally:
        os.close(fd)
    if total > limit:
        raise FileReadError(f"{path}: too large for a {what} (more than {_size(limit)})")
    return b"".join(chunks)


def _is_devnull(info: os.stat_result) -> bool:
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and (info.st_rdev, info.st_dev) == (null.st_rdev, null.st_dev)


def decode_utf8(raw: bytes, path: Path | str, what: str) -> str:
    """``raw`` as UTF-8 text; a bad byte is named with its line and column."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise FileReadError(
            f"{path}:{line}: not UTF-8 text (byte 0x{raw[error.start]:02x} at column {column}); "
            f"save the {what} as UTF-8"
        ) from None


def read_text(path: Path | str, *, limit: int, what: str) -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_bytes`)."""
    return decode_utf8(read_bytes(path, limit=limit, what=what), path, what)


def depth(value: Any) -> int:
    """How deeply dicts and lists nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def _too_deep(where: str, kind: str) -> FileFormatError:
    return FileFormatError(f"{where}: not a usable {kind} file: nested more than {MAX_DEPTH} levels deep")


def parse_toml(text: str, where: Path | str) -> dict[str, Any]:
    """``tomllib.loads`` with nesting bounded; TOMLDecodeError is left for the caller to word."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise _too_deep(str(where), "TOML") from None
    except ValueError as error:  # e.g. an integer with more digits than Python converts
        raise FileFormatError(f"{where}: not valid TOML ({error})") from None
    if depth(data) > MAX_DEPTH:
        raise _too_deep(str(where), "TOML")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str, where: Path | str) -> Any:
    """``json.loads`` with nesting bounded and NaN/Infinity refused; JSONDecodeError (and the
    ValueError of a number Python cannot convert) is left for the caller to word."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise _too_deep(str(where), "JSON") from None
    if depth(data) > MAX_DEPTH:
        raise _too_deep(str(where), "JSON")
    return data


def check_output_file(path: Path | str, what: str = "file") -> Path:
    """``path`` if a ``what`` can be written there, else a one-line OutputPathError.

    An existing target must be a regular file (a link to one is followed): never a folder, a
    device node, a FIFO or a socket. Its folder must exist and be writable.
    """
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise OutputPathError(f"cannot write {path}: {error.strerror or error}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise OutputPathError(f"cannot write {path}: it is a directory (give a file name inside the folder)")
    if not str(path) or path.name in ("", ".", ".."):
        raise OutputPathError(f"cannot write {what} {str(path)!r}: give a file name")
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            raise OutputPathError(f"cannot write {path}: it is a device, FIFO or socket, not a regular file")
        if path.is_symlink():
            path = path.resolve()
        if not os.access(path, os.W_OK):
            raise OutputPathError(f"cannot write {path}: permission denied")
        return path
    parent = path.parent
    if not parent.is_dir():
        raise OutputPathError(f"cannot write {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputPathError(f"cannot write {path}: folder {parent} is not writable")
    return path


def describe_os_error(error: OSError) -> str:
    """A short, plain reason for a failed write ("the disk is full", "permission denied", …)."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if error.errno == errno.EROFS:
        return "the file system is read-only"
    return (error.strerror or str(error)).lower()


def atomic_write_with(path: Path | str, write: Callable[[Path], None], what: str = "file") -> Path:
    """Let ``write(tmp)`` fill a sibling temporary file, sync it and rename it onto ``path``
    (checked with :func:`check_output_file`): the target is written all at once or not at all."""
    path = check_output_file(path, what)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(3)}.part")
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as error:
        raise OutputPathError(f"cannot write {path}: {describe_os_error(error)}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


def atomic_write_bytes(path: Path | str, data: bytes, what: str = "file") -> Path:
    """Write ``data`` to ``path`` all at once or not at all (see :func:`atomic_write_with`)."""

    def write(tmp: Path) -> None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    return atomic_write_with(path, write, what)


def atomic_write_text(path: Path | str, text: str, what: str = "file") -> Path:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    return atomic_write_bytes(path, text.encode("utf-8"), what)
