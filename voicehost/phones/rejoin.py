"""A phone that comes back is measured again before its seat is back in the game.

When a phone's page reconnects (the phone slept, the Wi-Fi dropped it, the player reloaded the
page), its audio comes on a new connection: the clock exchanges start afresh and its placement
gets a new line, and a reloaded page has a new audio context and a new microphone stream, whose
capture path may lag by another amount than before (how much on real phones is not measured
here; a reopened chromium's fake microphone starts its loop at a new moment, hundreds of
milliseconds to seconds away). Even a phone that only stalled gets a new line, whose error
differs from the one the first clicks absorbed. So the delay the clicks measured at the start
no longer holds, and a race would be ranked on the old one.

:class:`RejoinCalibration` wraps the session's live source: when a phone is back it holds the
"back" news (the game stays paused for that seat), says so, plays the click train on the table
speaker through the speech service (after what the host is saying, and known to the echo
canceller as the host's own sound), times it on that phone and on the seats that stayed, moves
the phone's audio to line up with theirs (:func:`~voicehost.phones.calibrate.align`), and then
lets the news through. The blocks go on to the listener meanwhile: the measuring only gets a
copy of them.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from voicehost.audio.buffer import Audio
from voicehost.errors import AudioDeviceError, VoicehostError
from voicehost.host.calibrate import ClickPlayer, SetupFailed
from voicehost.listen.messages import AudioBlock, SeatName
from voicehost.listen.sources import DeviceChange, DeviceStats
from voicehost.phones.calibrate import SEARCH, Alignment, SeatRecorder, align, time_train
from voicehost.phones.mixed import Source
from voicehost.phones.source import PhoneSource
from voicehost.speak.service import SpeechService

SETTLE = 2.0
"""Seconds after a phone is back before its clicks are played: its first twenty clock exchanges
(ten a second, :data:`voicehost.phones.server.FAST_PINGS`) have come back by then."""
TRIES = 3
"""Click trains played, at most, for phones that came back, before a phone that still could not be
timed goes back with its earlier shift (a lost buffer or a stray noise spoils one train now and
then; the game waits a few seconds more rather than rank races on a shift it knows is stale)."""
CLICKS_TIMEOUT = 60.0
"""Seconds the click train may wait behind what the host is saying."""


class SpeechClicks:
    """The table speaker for clicks during a game: queued on the speech service's table output
    (:meth:`~voicehost.speak.service.SpeechService.sound`), so that a click never cuts the host
    short and the echo canceller knows it."""

    def __init__(self, service: SpeechService, rate: int, timeout: float = CLICKS_TIMEOUT) -> None:
        self.service = service
        self.rate = rate
        self.timeout = timeout

    def play(self, samples: np.ndarray) -> float:
        """Queue the clicks, wait until they have sounded; the session time the first sample
        reached the speaker (AudioDeviceError when they were cut or never played)."""
        spoken = self.service.sound(Audio(np.asarray(samples, dtype=np.float32), self.rate), "calibration clicks")
        if not spoken.wait(self.timeout):
            raise AudioDeviceError(f"the calibration clicks did not play within {self.timeout:.0f} s")
        span = spoken.span
        if spoken.error is not None or spoken.dropped or span is None or span.interrupted:
            raise AudioDeviceError("the calibration clicks were cut short")
        return span.start


@dataclass
class _Measuring:
    """One click train for the phones that came back, timed in its own thread."""

    seats: tuple[SeatName, ...]
    recorder: SeatRecorder
    thread: threading.Thread | None = None
    result: Alignment | None = None
    error: str = ""
    done: threading.Event = field(default_factory=threading.Event)


class RejoinCalibration:
    """The session's live source, with every phone that comes back measured again (see the
    module's doc). Same interface as the source it wraps."""

    def __init__(
        self,
        source: Source,
        phones: PhoneSource,
        player: ClickPlayer,
        *,
        latencies: Mapping[SeatName, float] | None = None,
        search: tuple[float, float] = SEARCH,
        announce: Callable[[tuple[SeatName, ...]], None] = lambda seats: None,
        log: Callable[[str], None] = lambda line: None,
        settle: float = SETTLE,
        tries: int = TRIES,
    ) -> None:
        self.source = source
        self.phones = phones
        self.player = player
        self.latencies = dict(latencies or {})
        """The microphone seats and the latency the listener subtracts from each (they stay put)."""
        self.search = search
        self.announce = announce
        """Called (in the measuring thread) before the clicks, with the seats about to be
        measured; returns once the players have been told (the host said it)."""
        self.log = log
        self.settle = settle
        self.tries = max(1, tries)
        self._held: dict[SeatName, DeviceChange] = {}
        self._waiting: list[SeatName] = []
        self._measuring: _Measuring | None = None
        self.measured: list[tuple[SeatName, float | None]] = []
        """(seat, seconds its shift changed by, or None when it could not be measured), in order."""

    # -- the source's interface --

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Every seat."""
        return self.source.seats

    @property
    def stats(self) -> list[DeviceStats]:
        """The wrapped source's stats."""
        return self.source.stats

    @property
    def lost(self) -> tuple[SeatName, ...]:
        """Seats lost now, and phones back but not yet measured."""
        return (*self.source.lost, *(s for s in self._held if s not in self.source.lost))

    def read(self, timeout: float = 0.5) -> list[AudioBlock]:
        """The source's blocks (a copy goes to the measuring, while it runs)."""
        blocks = self.source.read(timeout)
        measuring = self._measuring
        if measuring is not None and not measuring.done.is_set():
            measuring.recorder.add(blocks)
        return blocks

    def changes(self) -> list[DeviceChange]:
        """The source's changes, a phone's return held back until it has been measured."""
        out: list[DeviceChange] = []
        for change in self.source.changes():
            phones = [s for s in change.seats if s in self.phones.seats]
            if not change.lost and phones:
                for seat in phones:
                    self._held[seat] = change
                    if seat not in self._waiting:
                        self._waiting.append(seat)
                self.log(f"{' and '.join(phones)}'s phone is back: measuring it with clicks before the seat is back")
                continue
            if change.lost:
                for seat in change.seats:
                    self._held.pop(seat, None)
                    if seat in self._waiting:
                        self._waiting.remove(seat)
            out.append(change)
        out.extend(self._finish())
        self._start()
        return out

    def begin(self) -> None:
        """Begin the source (news from before is void)."""
        self.source.begin()
        self._held.clear()
        self._waiting.clear()

    def stop(self) -> None:
        """Stop the source (a measurement still running ends on its own timeout)."""
        self.source.stop()

    # -- measuring --

    def _start(self) -> None:
        if self._measuring is not None or not self._waiting:
            return
        seats = tuple(s for s in self.phones.seats if s in self._waiting)
        self._waiting.clear()
        lost = set(self.source.lost)
        fixed = dict(self.latencies)
        fixed.update({s: 0.0 for s in self.phones.seats if s not in seats and s not in self._held and s not in lost})
        recorder = SeatRecorder(None, (*seats, *fixed), self.phones.rate)
        measuring = _Measuring(seats, recorder)
        measuring.thread = threading.Thread(
            target=self._measure, args=(measuring, fixed), name="voicehost-phone-rejoin", daemon=True
        )
        self._measuring = measuring
        measuring.thread.start()

    def _measure(self, measuring: _Measuring, fixed: Mapping[SeatName, float]) -> None:
        """In its own thread: tell the table, let the clock settle, play and time the clicks."""
        began = time.monotonic()
        try:
            self.announce(measuring.seats)
            time.sleep(max(0.0, self.settle - (time.monotonic() - began)))
        except VoicehostError as error:
            measuring.error = str(error)
            measuring.done.set()
            return
        try:
            for attempt in range(1, self.tries + 1):
                why = self._try(measuring, fixed)
                if not why:
                    return
                if attempt < self.tries:
                    self.log(f"  the clicks were not timed ({why}): playing them again")
        finally:
            measuring.done.set()

    def _try(self, measuring: _Measuring, fixed: Mapping[SeatName, float]) -> str:
        """Play and time one click train; why some measured seat could not be placed ("" when
        all were)."""
        try:
            heard = time_train(measuring.recorder, self.player, search=self.search, log=self.log)
            result = align(heard, measuring.seats, fixed)
            if fixed and not result.reference:
                raise SetupFailed("none of the other seats heard the clicks to compare with")
        except VoicehostError as error:
            measuring.error = str(error)
            return measuring.error
        measuring.result = result
        measuring.error = ""
        return "; ".join(f"{seat}: {why}" for seat, why in result.failed.items())

    def _finish(self) -> list[DeviceChange]:
        """Once the clicks are timed: move each measured phone, and let its return through
        (unless it was lost again meanwhile, or came back once more and waits for new clicks)."""
        measuring = self._measuring
        if measuring is None or not measuring.done.is_set():
            return []
        self._measuring = None
        result = measuring.result
        out: list[DeviceChange] = []
        for seat in measuring.seats:
            if seat not in self._held or seat in self._waiting:
                continue
            move = result.moves.get(seat) if result is not None else None
            if move is not None and result is not None:
                shift = self.phones.shifts.get(seat, 0.0) + move
                self.phones.set_shifts({seat: shift})
                against = ", ".join(result.reference) or "the other phones that came back"
                self.log(
                    f"{seat}'s phone measured again: moved {move * 1000:+.1f} ms (now {shift * 1000:.1f} ms "
                    f"earlier than it arrives; clicks agreed within {result.spread[seat] * 1000:.1f} ms; "
                    f"lined up with {against})"
                )
            else:
                why = measuring.error or (result.failed.get(seat, "") if result is not None else "")
                self.log(f"{seat}'s phone could not be measured again ({why}): it keeps its earlier shift")
            self.measured.append((seat, move))
            out.append(self._held.pop(seat))
        return out
