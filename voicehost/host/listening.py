"""Microphones (live) and recorded sessions (replay) as a session input.

:class:`AudioInput` feeds audio blocks to the listening pipeline's :class:`~voicehost.listen.
pipeline.Listener` with the phrases the game allows at that moment, and hands the shouts it
produces to the session as :class:`~voicehost.host.words.Heard` items. The host's own voice is
ignored: the speaking spans of the table speaker (published by the speech service live, or read
from a recording on replay) are passed to the listener.

:class:`SessionRecorder` keeps what ``--record DIR`` saves: every microphone channel in one
multichannel WAV (written as the game goes), the host's speaking spans, and the session's
settings; the event log goes to the same folder.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from voicehost.clock import Clock
from voicehost.host.words import Heard
from voicehost.listen.echo import Reference
from voicehost.listen.messages import AudioBlock, SeatName, Shout

MICS_FILE = "mics.wav"
"""What a live recording writes; a fixture may store mics.flac instead (smaller, same samples)."""
HOST_FILE = "host.wav"
"""What the table speaker played (the host's voice) from the recording's first frame: the echo
canceller's reference on replay. A fixture may store host.flac instead."""
SPANS_FILE = "spans.jsonl"
SESSION_FILE = "session.json"
EVENTS_FILE = "events.jsonl"


@dataclass(frozen=True)
class Span:
    """A time span during which the host was audible at the table."""

    start: float
    """Seconds on the session clock."""
    end: float
    """Seconds on the session clock."""
    text: str = ""
    key: object = field(default=None, compare=False)
    """The utterance (a later span with the same key replaces this one: it was cut short)."""


def heard_from(shout: Shout) -> Heard:
    """The session's view of a ranked shout: the same object (one class), marked as heard by a microphone."""
    return shout if shout.source == "mic" else replace(shout, source="mic")


class ReferenceTap:
    """A sink in front of the table speaker's sink that keeps what it plays: the echo
    canceller's reference (and, with ``--record``, host.wav).

    The speech service calls :meth:`play` from its output thread; :meth:`collect` (the listening
    thread) places every buffer that has started at its start time on the session's frame axis,
    and cuts it where it was stopped (barge-in)."""

    def __init__(self, sink: Any, rate: int = 16000) -> None:
        self.sink = sink
        self.realtime = sink.realtime
        self.rate = sink.rate
        self.listen_rate = rate
        self._lock = threading.Lock()
        self._playing: list[tuple[Any, Any, int | None]] = []

    def open(self) -> object:
        """Open the real sink."""
        return self.sink.open()

    def play(self, audio: Any, not_before: float) -> Any:
        """Play on the real sink and keep the buffer."""
        playback = self.sink.play(audio, not_before)
        with self._lock:
            self._playing.append((audio, playback, None))
        return playback

    def close(self) -> None:
        """Close the real sink."""
        self.sink.close()

    def collect(self, reference: Reference, now: float, recorder: "SessionRecorder | None" = None) -> None:
        """Add what has started playing to ``reference`` (and the recorder); cut what was
        stopped. A buffer is followed until it has ended before ``now``."""
        from voicehost.speak.output import mono_at

        with self._lock:
            playing, self._playing = self._playing, []
        keep: list[tuple[Any, Any, int | None]] = []
        for audio, playback, placed in playing:
            if placed is None:
                start = playback.started(0.0)
                if start is None:
                    keep.append((audio, playback, None))
                    continue
                placed = int(round(start * self.listen_rate))
                samples = mono_at(audio, self.listen_rate)
                reference.add(placed, samples, key=id(playback))
                if recorder is not None:
                    recorder.host(placed, samples)
            end = playback.end
            if end is not None and playback.interrupted:
                reference.stop(id(playback), int(round(end * self.listen_rate)))
                if recorder is not None:
                    recorder.host_stop(placed, int(round(end * self.listen_rate)))
                continue
            if end is None or end > now:
                keep.append((audio, playback, placed))
        with self._lock:
            self._playing = keep + self._playing


class AudioInput:
    """Heard items from audio blocks through the listening pipeline.

    ``read(timeout)`` returns the next blocks (possibly none yet) or None at the end of a
    recording. ``phrases()`` is asked before every block: the game's grammar of the moment.
    The host's voice: a ``tap`` on the table speaker gives the listener its reference signal as
    the host speaks (live); a recorded session's reference is given to the listener directly.
    ``live`` holds the microphones back until the reference is known up to the clock's now.
    """

    def __init__(
        self,
        listener: Any,
        read: Callable[[float], list[AudioBlock] | None],
        clock: Clock,
        phrases: Callable[[], Sequence[str]],
        *,
        recorder: "SessionRecorder | None" = None,
        spans: Sequence[Span] = (),
        idle_note: Callable[[float], None] | None = None,
        tap: ReferenceTap | None = None,
        live: bool = False,
        likely: Callable[[], Sequence[str]] | None = None,
        seat_phrases: Callable[[Sequence[str]], Mapping[str, Sequence[str]]] | None = None,
        racing: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        self.listener = listener
        self.likely = likely
        self.racing = racing
        self.seat_phrases = seat_phrases
        self._read = read
        self.clock = clock
        self.phrases = phrases
        self.recorder = recorder
        self._spans: list[Span] = list(spans)
        self._lock = threading.Lock()
        self._ended = False
        self._idle_note = idle_note
        self.tap = tap
        self.live = live
        if tap is not None and getattr(listener, "reference", None) is None:
            listener.use_reference(Reference(tap.listen_rate))
        self.blocks = 0
        """Blocks processed so far."""

    def _apply_reference(self) -> None:
        reference = getattr(self.listener, "reference", None)
        if self.tap is None or reference is None:
            return
        now = self.clock.now()
        self.tap.collect(reference, now, self.recorder)
        if self.live:
            reference.known_until = int(now * reference.rate)
            reference.forget_before(int((now - 30.0) * reference.rate))

    def add_span(self, span: Span) -> None:
        """The host is (or was) audible at the table during ``span`` (thread-safe)."""
        with self._lock:
            self._spans.append(span)

    def _apply_spans(self) -> None:
        with self._lock:
            spans, self._spans = self._spans, []
        for span in spans:
            self.listener.ignore(span.start, span.end, key=span.key)
            if self.recorder is not None:
                self.recorder.span(span)

    def next(self, deadline: float | None) -> list[Heard] | None:
        """Shouts heard up to ``deadline`` (block by block); None once a recording has ended."""
        if self._ended:
            return None
        while True:
            self._apply_spans()
            phrases = list(self.phrases())
            likely = list(self.likely()) if self.likely is not None else []
            seats = self.seat_phrases(phrases) if self.seat_phrases is not None else None
            racing = list(self.racing()) if self.racing is not None else []
            self.listener.set_phrases(phrases, likely, seats, racing)
            wait = 0.1 if deadline is None else max(0.0, min(0.1, deadline - self.clock.now()))
            blocks = self._read(wait)
            self._apply_reference()
            if blocks is None:
                reference = getattr(self.listener, "reference", None)
                if reference is not None:
                    reference.known_until = None
                self._ended = True
                return [heard_from(s) for s in self.listener.flush()] or None
            shouts: list[Shout] = []
            for block in blocks:
                self.blocks += 1
                if self.recorder is not None:
                    self.recorder.block(block)
                shouts.extend(self.listener.feed(block))
            if shouts:
                return [heard_from(s) for s in sorted(shouts, key=lambda s: (s.onset, s.player))]
            if deadline is not None and self.clock.now() >= deadline:
                return []

    def judging(self, before: float) -> bool:
        """True while the listener still judges a sound that began before ``before`` (session
        seconds): the session holds a timer due then until it is reported or dropped."""
        judging = getattr(self.listener, "judging", None)
        return bool(judging(before)) if judging is not None and not self._ended else False

    def close(self) -> None:
        """Finish the recording (if any) and stop the listener's helper process (if any)."""
        stop = getattr(self.listener, "close", None)
        if stop is not None:
            stop()
        if self.recorder is not None:
            self._apply_spans()
            self.recorder.close()


def file_reader(blocks: Any) -> Callable[[float], list[AudioBlock] | None]:
    """``read`` for :class:`AudioInput` over an iterator of blocks (a recording, on a SimClock)."""
    iterator = iter(blocks)

    def read(timeout: float) -> list[AudioBlock] | None:
        block = next(iterator, None)
        return None if block is None else [block]

    return read


class SessionRecorder:
    """Writes a session folder as the game goes: mics.wav, spans.jsonl, session.json, and at the
    end host.wav (what the table speaker played, aligned with mics.wav: replay's echo reference).

    Blocks from several devices arrive separately, each for its own seats and starting frame;
    the recorder lines them up on the session's frame axis and writes frames once every seat
    has delivered them (silence fills gaps), so the WAV is one multichannel file in seat order.
    """

    def __init__(self, folder: Path, seats: Sequence[SeatName], rate: int, settings: dict[str, Any]) -> None:
        import soundfile

        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.seats = tuple(seats)
        self.rate = rate
        self._wav = soundfile.SoundFile(
            str(self.folder / MICS_FILE), "w", samplerate=rate, channels=len(self.seats), subtype="PCM_16", format="WAV"
        )
        self._written = 0
        self._first: int | None = None
        self._pending: dict[SeatName, list[tuple[int, np.ndarray]]] = {s: [] for s in self.seats}
        self._spans = open(self.folder / SPANS_FILE, "a", encoding="utf-8")
        self._host = Reference(rate)
        self._host_heard = False
        self._last_flush = time.monotonic()
        (self.folder / SESSION_FILE).write_text(
            json.dumps({**settings, "seats": list(self.seats), "rate": rate}, indent=2) + "\n"
        )

    def block(self, block: AudioBlock) -> None:
        """Keep one block (any subset of seats)."""
        seats = block.seats or self.seats
        if self._first is None:
            self._first = block.start_frame
            self._set_origin(block.start_frame)
        for column, seat in enumerate(seats):
            if seat in self._pending:
                self._pending[seat].append((block.start_frame, block.samples[:, column].copy()))
        self._write_ready()
        if time.monotonic() - self._last_flush > 1.0:
            self._wav.flush()
            self._last_flush = time.monotonic()

    def _set_origin(self, frame: int) -> None:
        """The WAV starts at session frame ``frame``: noted so replay puts t = 0 where it belongs."""
        path = self.folder / SESSION_FILE
        data = json.loads(path.read_text())
        data["start_frame"] = frame
        path.write_text(json.dumps(data, indent=2) + "\n")
        self._written = frame

    def _available(self, seat: SeatName) -> int:
        chunks = self._pending[seat]
        return max((start + len(x) for start, x in chunks), default=self._written)

    def _write_ready(self) -> None:
        upto = min(self._available(s) for s in self.seats)
        if upto <= self._written:
            return
        out = np.zeros((upto - self._written, len(self.seats)), dtype=np.float32)
        for i, seat in enumerate(self.seats):
            keep = []
            for start, samples in self._pending[seat]:
                a, b = max(start, self._written), min(start + len(samples), upto)
                if b > a:
                    out[a - self._written : b - self._written, i] = samples[a - start : b - start]
                if start + len(samples) > upto:
                    keep.append((start, samples))
            self._pending[seat] = keep
        self._wav.write(np.clip(out, -1.0, 1.0))
        self._written = upto

    def host(self, start_frame: int, samples: np.ndarray) -> None:
        """The table speaker played ``samples`` from session frame ``start_frame`` (for host.wav)."""
        self._host.add(start_frame, samples, key=start_frame)
        self._host_heard = True

    def host_stop(self, start_frame: int, end_frame: int) -> None:
        """What started at ``start_frame`` was cut at ``end_frame``."""
        self._host.stop(start_frame, end_frame)

    def span(self, span: Span) -> None:
        """Note a speaking span of the host."""
        self._spans.write(
            json.dumps({"start": round(span.start, 4), "end": round(span.end, 4), "text": span.text}) + "\n"
        )
        self._spans.flush()

    def close(self) -> None:
        """Write what every seat delivered (padding the shorter ones) and close the files."""
        longest = max((self._available(s) for s in self.seats), default=self._written)
        for seat in self.seats:
            if self._available(seat) < longest:
                self._pending[seat].append(
                    (self._available(seat), np.zeros(longest - self._available(seat), np.float32))
                )
        self._write_ready()
        self._wav.close()
        self._spans.close()
        if self._host_heard and self._first is not None:
            import soundfile

            host = self._host.read(self._first, self._written)
            soundfile.write(
                str(self.folder / HOST_FILE), np.clip(host, -1.0, 1.0), self.rate, subtype="PCM_16", format="WAV"
            )


def mics_path(folder: Path) -> Path:
    """The microphones of a recorded session: mics.wav, else mics.flac."""
    for name in (MICS_FILE, "mics.flac"):
        if (Path(folder) / name).exists():
            return Path(folder) / name
    return Path(folder) / MICS_FILE


def host_path(folder: Path) -> Path | None:
    """The table speaker's audio of a recorded session (host.wav or host.flac), if it was kept."""
    for name in (HOST_FILE, "host.flac"):
        if (Path(folder) / name).exists():
            return Path(folder) / name
    return None


def read_spans(path: Path) -> list[Span]:
    """The host's speaking spans saved by a recording."""
    if not path.exists():
        return []
    spans = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            spans.append(Span(float(obj["start"]), float(obj["end"]), str(obj.get("text", ""))))
    return spans
