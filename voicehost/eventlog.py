"""The JSON Lines event log: appended and synced as the game goes, read back with line numbers.

One object per line; every object has "seq", "t" and "type". Each action's events go to disk in
one ``write`` of whole lines followed by ``fsync``, so a crash (even ``kill -9``) loses nothing
that was announced: the host speaks about an event only after it is on disk.

What can still go wrong, and what happens then:

- The disk fills up (ENOSPC) or the file stops being writable: a write that got only part of the
  way is cut back to the last whole line, the events are kept in memory (``pending``) and
  :class:`LogWriteError` says so; the next write (or :meth:`EventLogWriter.retry`) tries again.
  The file on disk always ends with a whole line, so the game can be resumed from it.
- A power cut or another program leaves half a line at the end (a *torn tail*): readers ignore
  it, and before appending :func:`repair_torn_tail` cuts it off, keeping a copy of what was cut
  next to the log, so that new events never get glued onto a broken line.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any, Iterable

from voicehost.errors import InputError, VoicehostError
from voicehost.files import LOG_LIMIT, FileFormatError, FileReadError, describe_os_error, parse_json, read_bytes
from voicehost.rules.base import JsonObject, LogError


class LogWriteError(VoicehostError, RuntimeError):
    """The event log cannot be written (disk full, read-only, not a regular file, ...).

    ``reason`` says why in a few plain words ("the disk is full"), for the host to say aloud."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


class LogPathError(InputError, LogWriteError):
    """The event log cannot even be opened where the user asked (a folder, a device, no permission): status 2."""


def _line(event: Any) -> bytes:
    obj = event.to_json() if hasattr(event, "to_json") else event
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")


def open_log_file(path: Path, *, new: bool = False) -> int:
    """A file descriptor appending to ``path`` (created if missing; ``new``: it must not exist)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | os.O_NONBLOCK
    if new:
        flags |= os.O_EXCL
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o644)
    except FileExistsError:
        raise LogPathError(f"cannot start the event log {path}: the file already exists") from None
    except IsADirectoryError:
        raise LogPathError(f"cannot write the event log {path}: it is a folder (give a file name inside it)") from None
    except OSError as error:
        raise LogPathError(f"cannot write the event log {path}: {describe_os_error(error)}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LogPathError(f"cannot write the event log {path}: it is a device, FIFO or socket, not a regular file")
    os.set_blocking(fd, True)
    return fd


class EventLogWriter:
    """Append events to a JSONL file, syncing each action's events to disk before returning."""

    def __init__(self, path: Path, *, new: bool = False) -> None:
        self.path = Path(path)
        self._fd: int | None = open_log_file(self.path, new=new)
        self.pending: list[bytes] = []
        """Lines that could not be written yet (after a :class:`LogWriteError`), oldest first."""

    def write(self, events: Iterable[Any]) -> None:
        """Append events (objects with ``to_json`` or plain dicts) and sync them to disk.

        On failure the events stay in :attr:`pending` (the file keeps only whole lines) and
        LogWriteError is raised; they are written first by the next successful call."""
        lines = [_line(e) for e in events]
        self.pending.extend(lines)
        self._flush()

    def retry(self) -> None:
        """Write what is pending (raises LogWriteError if it still cannot)."""
        self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        if self._fd is None:
            raise LogWriteError(f"the event log {self.path} is closed")
        data = b"".join(self.pending)  # one write per action: a crash does not split an action
        fd = self._fd
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as error:
            _cut_back(fd, size)
            reason = describe_os_error(error)
            raise LogWriteError(
                f"cannot write the event log {self.path}: {reason}; {len(self.pending)} event(s) are not saved yet",
                reason,
            ) from None
        self.pending.clear()

    def close(self) -> None:
        """Write what is pending and close the file (LogWriteError if events could not be saved)."""
        if self._fd is None:
            return
        try:
            self._flush()
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "EventLogWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut_back(fd: int, size: int) -> None:
    """Drop whatever part of a failed write reached the file (best effort: the disk may be gone)."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass


def _read(path: Path) -> bytes:
    try:
        return read_bytes(path, limit=LOG_LIMIT, what="event log")
    except FileReadError as error:
        raise LogError(str(error)) from None


def torn_tail(data: bytes) -> bytes:
    """What follows the last newline of a log's bytes: half a line left by a crash, or b""."""
    return data[data.rfind(b"\n") + 1 :]


def repair_torn_tail(path: Path) -> Path | None:
    """Cut a half-written last line off the log before new events are appended to it.

    What is cut is kept in ``LOG.torn-N`` next to the log; returns that file, or None when the
    log ends with a whole line."""
    path = Path(path)
    data = _read(path)
    tail = torn_tail(data)
    if not tail:
        return None
    n = 1
    while (backup := path.with_name(f"{path.name}.torn-{n}")).exists():
        n += 1
    try:
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            os.write(fd, tail)
            os.fsync(fd)
        finally:
            os.close(fd)
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            os.ftruncate(fd, len(data) - len(tail))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as error:
        raise LogWriteError(
            f"cannot repair the event log {path} (its last line is incomplete): {describe_os_error(error)}"
        ) from None
    return backup


def _check_event(obj: Any, where: str, seq: int) -> JsonObject:
    if not isinstance(obj, dict) or not {"seq", "t", "type"} <= obj.keys():
        raise LogError(f"{where}: event needs 'seq', 't' and 'type'")
    if type(obj["seq"]) is not int or obj["seq"] != seq:
        raise LogError(f"{where}: expected seq {seq}, found {obj['seq']!r}")
    t = obj["t"]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
        raise LogError(f"{where}: 't' must be seconds (a number from 0), not {t!r}")
    if not isinstance(obj["type"], str) or not obj["type"]:
        raise LogError(f"{where}: 'type' must be a name, not {obj['type']!r}")
    return obj


def read_events(path: Path) -> list[JsonObject]:
    """All events of a log, checked for "seq"/"t"/"type" and consecutive seq numbers.

    A torn last line (half written when the machine stopped; see :func:`repair_torn_tail`) is
    ignored; any other bad line is an error naming the file and line.
    """
    path = Path(path)
    data = _read(path)
    body = data[: len(data) - len(torn_tail(data))]
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = body[: error.start].count(b"\n") + 1
        raise LogError(f"{path}:{bad}: not UTF-8 text: not an event log") from None
    events: list[JsonObject] = []
    for number, line in enumerate(text.split("\n")[:-1], start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = parse_json(line, where)
        except FileFormatError as error:
            raise LogError(str(error)) from None
        except ValueError as error:
            reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
            raise LogError(f"{where}: not JSON ({reason})") from None
        events.append(_check_event(obj, where, len(events)))
    if not events:
        raise LogError(f"{path}: the event log is empty" + (" (only half a line)" if body != data else ""))
    return events
