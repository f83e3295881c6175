"""Input modes: where the session's :class:`~voicehost.host.words.Heard` items come from.

Every input answers one question, :meth:`Input.next`: "what was heard up to ``deadline``?" — it
returns the items heard (possibly none) once the clock reaches the deadline or something was
heard, and None when the input has ended. The session's timers and the input share one clock,
so live play, typed lines, scripts and replays all go through the same loop.
"""

from __future__ import annotations

import collections
import math
import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Protocol, Sequence, TextIO

from voicehost.clock import Clock, SimClock
from voicehost.errors import InputError
from voicehost.files import SCRIPT_LIMIT, FileReadError, read_text
from voicehost.host.words import Heard, normalise


class ScriptError(InputError):
    """A script file line cannot be understood; the message names the file and line."""


class Input(Protocol):
    """A source of heard items on the session clock."""

    def next(self, deadline: float | None) -> list[Heard] | None:
        """Items heard up to ``deadline`` (None: wait as long as needed); None when input ended."""

    def close(self) -> None:
        """Release devices and threads."""


MAX_SAID = 500
"""Characters a player may say in one script or typed line (a long BAM! answer has about 60)."""


def parse_line(line: str, players: Sequence[str], where: str) -> tuple[str, str] | None:
    """'Anna: flip seven' → ('Anna', 'flip seven'); blank lines and '#' comments → None.

    The name is matched case-insensitively against the seated players; a line without a known
    name raises ScriptError naming ``where``.
    """
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    name, sep, said = text.partition(":")
    if not sep:
        raise ScriptError(f"{where}: expected 'NAME: words', got {text!r}")
    matches = [p for p in players if p.lower() == name.strip().lower()]
    if not matches:
        raise ScriptError(f"{where}: {name.strip()!r} is not at the table ({', '.join(players)})")
    if len(said) > MAX_SAID:
        raise ScriptError(f"{where}: {matches[0]} says {len(said)} characters; a line holds at most {MAX_SAID}")
    phrase = normalise(said)
    if not phrase:
        raise ScriptError(f"{where}: {matches[0]} says nothing")
    return matches[0], phrase


@dataclass(frozen=True)
class ScriptLine:
    """One timed line of a script."""

    t: float
    """Seconds on the session clock when the player started speaking."""
    player: str
    phrase: str
    line: int
    """Line number in the file, for messages."""


MAX_SCRIPT_TIME = 1_000_000.0
"""Seconds: the latest time a script line may have (eleven days of game)."""


def read_script(path: Path, players: Sequence[str]) -> list[ScriptLine]:
    """Lines '1.250 Anna: cat' (seconds from 0, then NAME: words), times never decreasing."""
    try:
        text = read_text(path, limit=SCRIPT_LIMIT, what="script")
    except FileReadError as error:
        raise ScriptError(str(error)) from None
    out: list[ScriptLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{path}:{number}"
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        stamp, _, rest = stripped.partition(" ")
        try:
            t = float(stamp)
        except ValueError:
            raise ScriptError(f"{where}: a script line starts with seconds, e.g. '1.250 Anna: cat'") from None
        if not math.isfinite(t) or not 0.0 <= t <= MAX_SCRIPT_TIME:
            raise ScriptError(f"{where}: time {stamp!r} is not a number of seconds from 0 to {MAX_SCRIPT_TIME:.0f}")
        if out and t < out[-1].t:
            raise ScriptError(f"{where}: time {t} goes back before {out[-1].t}")
        parsed = parse_line(rest, players, where)
        if parsed:
            out.append(ScriptLine(t, parsed[0], parsed[1], number))
    return out


class ScriptInput:
    """Timed lines on a simulated clock: runs as fast as the machine allows, same result each time.

    Line times count from the clock's time when the input is made (0 for a new game; a resumed
    game's script counts from where its log stopped).
    """

    def __init__(
        self, lines: Iterable[ScriptLine], clock: SimClock, *, duration: float = 0.6, tail: float = 10.0
    ) -> None:
        origin = clock.now()
        self._lines = collections.deque(
            ScriptLine(line.t + origin, line.player, line.phrase, line.line) for line in lines
        )
        self._clock = clock
        self._duration = duration
        """Assumed length of a spoken line, seconds (its 'end')."""
        self._end = (self._lines[-1].t if self._lines else 0.0) + duration + tail
        """After the last line, timers still fire until this time (a race closing, say); then the input ends."""

    def next(self, deadline: float | None) -> list[Heard] | None:
        """The next line if it starts before ``deadline``; else advance the clock to the deadline."""
        if not self._lines:
            if deadline is None or deadline > self._end:
                return None
            self._clock.advance_to(deadline)
            return []
        first = self._lines[0]
        if deadline is not None and first.t > deadline:
            self._clock.advance_to(deadline)
            return []
        self._lines.popleft()
        self._clock.advance_to(first.t + self._duration)
        return [Heard(first.player, first.phrase, first.t, first.t + self._duration, 1.0, "script")]

    @property
    def remaining(self) -> int:
        """Lines not yet delivered."""
        return len(self._lines)

    def close(self) -> None:
        """Nothing to release."""


MAX_TYPED = 4096
"""Bytes of one typed line; a longer one is cut there (its rest is dropped)."""


def _typed_lines(stream: TextIO) -> Iterable[str]:
    """The lines of a terminal or pipe, each at most :data:`MAX_TYPED` bytes: bytes that are not
    valid in the stream's encoding become U+FFFD instead of ending the input."""
    raw = getattr(stream, "buffer", None)
    if raw is None:  # a text-only stream (StringIO in tests) is already decoded
        yield from stream
        return
    encoding = getattr(stream, "encoding", None) or "utf-8"
    while line := raw.readline(MAX_TYPED):
        if len(line) == MAX_TYPED and not line.endswith(b"\n"):
            while (rest := raw.readline(MAX_TYPED)) and not rest.endswith(b"\n"):
                pass
        yield line.decode(encoding, errors="replace")


class TextInput:
    """Players type 'Anna: seven' on a terminal; the wall clock stamps each line on arrival."""

    def __init__(self, stream: TextIO, players: Sequence[str], clock: Clock, *, echo: TextIO | None = None) -> None:
        self._players = list(players)
        self._clock = clock
        self._echo = echo
        self._lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
        self._ended = False
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True, name="text-input")
        self._thread.start()

    def _read(self, stream: TextIO) -> None:
        """Queue every typed line; whatever happens to the stream, the input then ends (never hangs)."""
        try:
            for line in _typed_lines(stream):
                self._lines.put((self._clock.now(), line))
        except (OSError, ValueError) as error:  # a closed or broken terminal ends the game's input
            if self._echo is not None:
                print(f"(the typed input stopped: {error})", file=self._echo)
        finally:
            self._lines.put(None)

    def next(self, deadline: float | None) -> list[Heard] | None:
        """Wait for a typed line until ``deadline``; bad lines are explained and skipped."""
        if self._ended:
            return None
        timeout = None if deadline is None else max(0.0, deadline - self._clock.now())
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            return []
        if item is None:
            self._ended = True
            return None
        t, line = item
        try:
            parsed = parse_line(line, self._players, "input")
        except ScriptError as error:
            if self._echo is not None:
                print(f"(not understood: {error}; type NAME: words, e.g. '{self._players[0]}: help')", file=self._echo)
            return []
        if parsed is None:
            return []
        return [Heard(parsed[0], parsed[1], t, t, 1.0, "text")]

    def close(self) -> None:
        """The reader thread is a daemon; it ends with the input stream."""
