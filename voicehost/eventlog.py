"""The JSON Lines event log: appended and flushed as the game goes, read back with line numbers.

One object per line; every object has "seq", "t" and "type". Written with fsync after each
event, so a crash loses nothing that was announced.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, TextIO

from voicehost.rules.base import JsonObject, LogError


class EventLogWriter:
    """Append events to a JSONL file, flushing each one to disk."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO = open(self.path, "a", encoding="utf-8")

    def write(self, events: Iterable[Any]) -> None:
        """Append events (objects with ``to_json`` or plain dicts) and flush them to disk."""
        lines = [
            json.dumps(e.to_json() if hasattr(e, "to_json") else e, ensure_ascii=False, separators=(",", ":")) + "\n"
            for e in events
        ]
        self._file.write("".join(lines))  # one write per action: a crash does not split an action
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> "EventLogWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_events(path: Path) -> list[JsonObject]:
    """All events of a log, checked for "seq"/"t"/"type" and consecutive seq numbers.

    A truncated last line (a crash mid-write) is ignored; any other bad line is an error naming
    the file and line.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise LogError(f"{path}: cannot read event log ({error})") from error
    events: list[JsonObject] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            if number == len(lines):
                break  # half-written last line
            raise LogError(f"{path}:{number}: not JSON ({error.msg})") from error
        if not isinstance(obj, dict) or not {"seq", "t", "type"} <= obj.keys():
            raise LogError(f"{path}:{number}: event needs 'seq', 't' and 'type'")
        if obj["seq"] != len(events):
            raise LogError(f"{path}:{number}: expected seq {len(events)}, found {obj['seq']}")
        events.append(obj)
    if not events:
        raise LogError(f"{path}: the event log is empty")
    return events
