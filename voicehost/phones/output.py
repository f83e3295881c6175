"""The host's private speech and lines, sent to the phone of their seat.

:class:`PhoneSink` is a real-time speech sink (the speech service's private route for a seat):
it sends the rendered audio to the phone, which plays it 50 ms after it arrives. Its spans are
estimates (arrival plus that margin); private spans are never used by the listener, only the
table speaker's are. :func:`phone_transcript` shows every table line on every phone and each
private line only on its own phone.
"""

from __future__ import annotations

import threading
from typing import Callable, Sequence

from voicehost.audio.buffer import Audio
from voicehost.clock import Clock
from voicehost.phones.server import PhoneServer
from voicehost.speak.output import mono_at
from voicehost.speak.service import Kind, TranscriptLine

PHONE_RATE = 16000
"""Hz at which speech is sent (the page's audio context runs at the listener's rate)."""
START_MARGIN = 0.05
"""Seconds the page schedules a sound after it arrived (phone.js plays at currentTime + 0.05)."""


class PhonePlayback:
    """One sound sent to a phone; times estimated on the session clock."""

    def __init__(self, start: float, duration: float, clock: Clock, hush: Callable[[], object]) -> None:
        self._start = start
        self._end = start + duration
        self._clock = clock
        self._hush = hush
        self._stopped = threading.Event()
        self._interrupted = False

    def started(self, timeout: float) -> float | None:
        """The planned start (the phone plays it then)."""
        return self._start

    def stop(self, at: float) -> None:
        """Silence the phone now."""
        if not self._stopped.is_set():
            self._interrupted = self._clock.now() < self._end
            self._end = min(self._end, max(self._start, self._clock.now()))
            self._stopped.set()
            self._hush()

    def wait(self, timeout: float) -> bool:
        """Wait until the sound has ended (or was stopped)."""
        remaining = self._end - self._clock.now()
        if remaining > 0:
            self._stopped.wait(min(timeout, remaining))
        return self._clock.now() >= self._end or self._stopped.is_set()

    @property
    def end(self) -> float | None:
        """Session time the sound ends (or was cut)."""
        return self._end

    @property
    def interrupted(self) -> bool:
        """True if cut short."""
        return self._interrupted


class PhoneSink:
    """The private earphone of one seat: its phone."""

    realtime = True
    rate = PHONE_RATE

    def __init__(self, server: PhoneServer, seat: str, clock: Clock) -> None:
        self.server = server
        self.seat = seat
        self.clock = clock
        self._count = 0
        self.sent = 0
        """Sounds the phone received."""
        self.missed = 0
        """Sounds that found no phone connected."""

    def open(self) -> "PhoneSink":
        """Nothing to open: the phone connects by itself."""
        return self

    def play(self, audio: Audio, not_before: float) -> PhonePlayback:
        """Send ``audio`` to the phone now."""
        samples = mono_at(audio, self.rate)
        self._count += 1
        if self.server.send_speech(self.seat, self._count, samples, self.rate):
            self.sent += 1
        else:
            self.missed += 1
        start = self.clock.now() + START_MARGIN
        return PhonePlayback(start, samples.shape[0] / self.rate, self.clock, lambda: self.server.send_hush(self.seat))

    def close(self) -> None:
        """Nothing to release."""


def phone_transcript(
    server: PhoneServer, seats: Sequence[str], also: Callable[[TranscriptLine], None] | None = None
) -> Callable[[TranscriptLine], None]:
    """A transcript callback: table lines on every phone, private lines on their seat's phone
    only (and everything to ``also``, the terminal)."""

    def show(line: TranscriptLine) -> None:
        if also is not None:
            also(line)
        if line.kind is Kind.EARCON:
            return
        if line.route.private:
            number = line.route.seat
            if number is not None and 1 <= number <= len(seats):
                server.send_line(seats[number - 1], line.text, private=True)
        else:
            for seat in server.seated():
                server.send_line(seat, line.text, private=False)

    return show
