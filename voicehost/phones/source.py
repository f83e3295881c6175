"""Phones as a live audio source: every phone's blocks placed on the session's frame axis.

The same interface as :class:`voicehost.listen.sources.LiveSource` (``read``, ``changes``,
``stats``, ``lost``, ``begin``, ``stop``), so the live session treats a phone like a microphone
device with one seat: one that stops delivering sound for :data:`STALL_SECONDS`, or whose
connection closes, is lost (the game pauses); when it delivers again — the same connection after
a stall, or the page reconnected — it is placed afresh and is back.

Placement, by sample count: within one phone its audio clock is the truth (a block's first
sample has a frame number; frame / rate is its time on the phone), so blocks are placed on a
straight line of their frame numbers: the line's start comes from the phone's ping-pong
:class:`~voicehost.phones.clocksync.ClockSync` when the stream begins, and its slope from the
drift fitted over minutes (at most 500 ppm). The clock exchanges are never followed block by
block: Chrome's answers step by 10 ms now and then, and following them moved the audio by tens
and then hundreds of milliseconds within two minutes. Only when the exchanges disagree with the
line by more than :data:`REANCHOR` for :data:`REANCHOR_HOLD` seconds (a phone whose audio was
suspended for a moment) is the line moved to them. Missing blocks are silence of exactly the
length their frame numbers say is missing; a gap longer than :data:`MAX_GAP` re-anchors, and a
new connection (a new audio clock) starts a new line. A per-seat ``shift`` (the click
calibration's relative delay) moves the audio earlier.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from voicehost.clock import Clock
from voicehost.errors import AudioDeviceError
from voicehost.listen.messages import AudioBlock, SeatName
from voicehost.listen.sources import FILL_LAG, LISTEN_RATE, STALL_SECONDS, DeviceChange, DeviceStats
from voicehost.phones.clocksync import ClockFit
from voicehost.phones.server import PhoneBlock, PhoneLink, PhoneServer

DEADBAND = 1.0
"""Listener frames the laid-end-to-end position may differ from the line before it is slewed."""
SLEW_FRAMES = 1
"""Listener frames the position may move per block: a 500 ppm drift is 0.16 frames a block."""
JUMP = 0.02
"""Seconds of difference between position and line beyond which the position jumps to the line."""
MAX_GAP = 10.0
"""Seconds of missing frames filled with silence; a longer gap re-anchors the line."""
REANCHOR = 0.04
"""Seconds the clock exchanges must disagree with the line before it is moved (more than the
10-20 ms steps of Chrome's answers, far less than a shout)."""
REANCHOR_HOLD = 5.0
"""Seconds of phone time the disagreement must last."""
RECENT = 15.0
"""Seconds of exchanges whose median is compared with the line."""


@dataclass
class PhoneStats:
    """Clock and placement figures of one seat's phone (for the bench and the summary)."""

    offset: float = 0.0
    """Host minus phone seconds at the last fit."""
    drift_ppm: float = 0.0
    """Fitted drift of the phone's audio clock, parts per million."""
    rtt_min: float = 0.0
    """Shortest ping round trip, seconds."""
    jitter: float = 0.0
    """Median round trip minus the shortest, seconds."""
    slewed: int = 0
    """Listener frames the placement was slewed by, in total (absolute)."""
    reanchors: int = 0
    """Times the line was moved to the clock exchanges (not counting new connections)."""
    lost_frames: int = 0
    """Listener frames of silence put in for blocks that never came."""
    error: float = 0.0
    """Seconds the clock exchanges (median of the last 15 s) put the audio later than the line."""
    errors: list[tuple[float, float]] = field(default_factory=list)
    """(session seconds, error seconds) once a second: how the exchanges wandered around the line."""


class _Track:
    """One seat: its current link and where its frames go (reader side only)."""

    def __init__(self, seat: SeatName) -> None:
        self.seat = seat
        self.link: PhoneLink | None = None
        self.generation = 0
        self.anchored = False
        self.origin = 0.0
        """Session frame (listener rate, fractional) of phone frame :attr:`base`."""
        self.base = 0
        self.next_frame = 0
        """The phone frame the next block should start at."""
        self.out = 0
        """Listener frames produced since the anchor."""
        self.line: ClockFit | None = None
        """Where this link's frames belong: the mapping anchored at :attr:`anchor` (None until
        the stream starts)."""
        self.anchor = 0.0
        """Phone seconds where this link's line was anchored on the clock exchanges."""
        self.disagree_since: float | None = None
        """Phone seconds since when the exchanges disagree with the line by more than REANCHOR."""
        self.checked_at = -1.0
        """Phone seconds of the last check against the exchanges."""
        self.resampler: Any = None
        self.end = 0
        """Session frame up to which this seat has been delivered (or filled)."""
        self.last_block_at = 0.0
        self.lost_at: float | None = None
        self.reason = ""
        self.stats = DeviceStats(f"{seat}'s phone", (seat,))
        self.phone = PhoneStats()


class PhoneSource:
    """Every seat's phone, read as :class:`AudioBlock` s on the session clock."""

    def __init__(
        self,
        server: PhoneServer,
        seats: Sequence[SeatName],
        clock: Clock,
        rate: int = LISTEN_RATE,
        *,
        stall_seconds: float = STALL_SECONDS,
        shifts: Mapping[SeatName, float] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        self.monotonic = monotonic
        """The host clock the server stamps exchanges with (a test passes a simulated one)."""
        self.clock = clock
        self.rate = rate
        self.stall_seconds = stall_seconds
        self._tracks = {seat: _Track(seat) for seat in seats}
        self.shifts: dict[SeatName, float] = {seat: 0.0 for seat in seats}
        """Seconds each phone's audio is moved earlier (relative acoustic delays from the clicks)."""
        self.shifts.update(shifts or {})
        self._changes: list[DeviceChange] = []

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Every seat, in order."""
        return tuple(self._tracks)

    @property
    def stats(self) -> list[DeviceStats]:
        """Lost blocks and outages so far, phone by phone (an outage going on counts up to now)."""
        now = self.clock.now()
        out = []
        for track in self._tracks.values():
            stats = replace(track.stats)
            if track.lost_at is not None:
                stats.down_seconds += now - track.lost_at
            out.append(stats)
        return out

    def phone_stats(self, seat: SeatName) -> PhoneStats:
        """Clock and placement figures of ``seat``'s phone."""
        return self._tracks[seat].phone

    @property
    def lost(self) -> tuple[SeatName, ...]:
        """Seats whose phone is lost right now."""
        return tuple(t.seat for t in self._tracks.values() if t.lost_at is not None)

    def changes(self) -> list[DeviceChange]:
        """Phones lost or back since the last call, in the order noticed."""
        changes, self._changes = self._changes, []
        return changes

    def set_shifts(self, shifts: Mapping[SeatName, float]) -> None:
        """Move each phone's audio earlier by ``shifts[seat]`` seconds from now on (at once; the
        line stays, so what the calibration measured still holds). Phones not named, or whose
        shift does not change, stay where they are."""
        for seat, shift in shifts.items():
            if seat in self._tracks and self.shifts.get(seat) != shift:
                self.shifts[seat] = shift
                self._tracks[seat].anchored = False

    def start(self, timeout: float = 10.0) -> "PhoneSource":
        """Wait until every seat's phone is connected, its clock is known and its sound flows."""
        deadline = time.monotonic() + timeout
        while any(not t.anchored for t in self._tracks.values()):
            if time.monotonic() >= deadline:
                waiting = ", ".join(t.seat for t in self._tracks.values() if not t.anchored)
                raise AudioDeviceError(f"no sound came from the phones of {waiting} within {timeout:.0f} s")
            self.read(0.05)
        self.begin()
        return self

    def begin(self) -> None:
        """Forget what was captured so far: frames from now on are placed on the session clock as
        it reads now (call it right after the clock was restarted). Each phone keeps its line: the
        line is on the host's clock, so the calibration made before still holds."""
        floor = max(0, int(round(self.clock.now() * self.rate)))
        self._changes = []
        for track in self._tracks.values():
            if track.link is not None:
                _drain(track.link)
            track.anchored = False
            track.end = floor
            track.last_block_at = self.clock.now()
            track.stats = DeviceStats(track.stats.device, track.stats.seats)
            if track.lost_at is not None:
                track.lost_at = self.clock.now()
                track.stats.outages = 1

    def read(self, timeout: float = 0.5) -> list[AudioBlock]:
        """Blocks received since the last call (waits up to ``timeout`` s for the first); silence
        for the seats of lost phones; lost and returning phones noted for :meth:`changes`."""
        out: list[AudioBlock] = []
        deadline = time.monotonic() + timeout
        while True:
            now = self.clock.now()
            for track in self._tracks.values():
                out.extend(self._poll(track, now))
            out.extend(self._fill(now))
            if out or time.monotonic() >= deadline:
                return out
            time.sleep(0.005)

    def stop(self) -> None:
        """Nothing to close here: the server owns the connections."""

    # -- one seat --

    def _poll(self, track: _Track, now: float) -> list[AudioBlock]:
        link = self.server.link(track.seat)
        if link is not track.link:
            track.link, track.anchored, track.line = link, False, None
            if link is not None and track.generation and track.lost_at is None:
                self._lose(track, now, "the phone connected again")
            track.generation = link.generation if link is not None else 0
            track.last_block_at = now
        if link is None:
            return []
        out: list[AudioBlock] = []
        while True:
            try:
                block = link.blocks.get_nowait()
            except queue.Empty:
                break
            track.last_block_at = now
            out.extend(self._place(track, link, block, now))
        if not link.connected and link.blocks.empty():
            self._lose(track, now, "its page closed or the network dropped it")
        elif now - track.last_block_at > self.stall_seconds:
            self._lose(track, now, f"no sound for {self.stall_seconds:g} s")
        return out

    def _session_frame(self, host: float, seat: SeatName) -> float:
        """Session frame (fractional) of host seconds ``host``, moved earlier by the seat's shift."""
        session = host + (self.clock.now() - self.monotonic())
        return (session - self.shifts.get(seat, 0.0)) * self.rate

    def _place(self, track: _Track, link: PhoneLink, block: PhoneBlock, now: float) -> list[AudioBlock]:
        with link.lock:
            ready = link.sync.ready
        if not ready:
            return []
        ratio = self.rate / link.rate
        samples = block.samples
        if not track.anchored or block.frame - track.next_frame > MAX_GAP * link.rate:
            self._anchor(track, link, block.frame, now)
        elif block.frame < track.next_frame:
            samples = samples[track.next_frame - block.frame :]
        elif block.frame > track.next_frame:
            gap = block.frame - track.next_frame
            track.phone.lost_frames += int(round(gap * ratio))
            track.stats.overflows += 1
            samples = np.concatenate([np.zeros(gap, np.float32), samples])
        if samples.shape[0] == 0 or track.line is None:
            return []
        first = track.next_frame
        self._check(track, link, first, now)
        counted = track.origin + (first - track.base) * ratio
        self._slew(track, self._session_frame(track.line.to_host(first / link.rate), track.seat) - counted)
        track.next_frame = first + samples.shape[0]
        converted = samples if track.resampler is None else track.resampler.resample_chunk(samples)
        start = int(round(track.origin)) + track.out
        track.out += converted.shape[0]
        return self._deliver(track, converted, start)

    def _anchor(self, track: _Track, link: PhoneLink, frame: int, now: float) -> None:
        """Start laying blocks end to end at ``frame``: on the line (a new one from the clock
        exchanges when this link has none yet)."""
        if track.line is None:
            track.anchor = frame / link.rate
            with link.lock:
                track.line = link.sync.anchored(track.anchor)
            track.disagree_since, track.checked_at = None, -1.0
        track.base, track.next_frame = frame, frame
        track.origin = self._session_frame(track.line.to_host(frame / link.rate), track.seat)
        track.out = 0
        track.anchored = True
        track.resampler = None
        if link.rate != self.rate:
            import soxr

            track.resampler = soxr.ResampleStream(link.rate, self.rate, 1, dtype="float32", quality="HQ")
        if track.lost_at is not None:
            track.stats.down_seconds += now - track.lost_at
            track.lost_at = None
            self._changes.append(DeviceChange(track.stats.device, (track.seat,), False, now))

    def _check(self, track: _Track, link: PhoneLink, frame: int, now: float) -> None:
        """Once a second of phone time: refit the line (the drift, and the anchor's offset during
        its first minute), and re-anchor it on the clock exchanges when they have disagreed with
        it by more than REANCHOR for REANCHOR_HOLD seconds."""
        remote = frame / link.rate
        if track.line is None or remote - track.checked_at < 1.0:
            return
        track.checked_at = remote
        with link.lock:
            line = link.sync.anchored(track.anchor)
            recent = link.sync.recent_offset(RECENT)
            jitter = link.sync.jitter()
        error = remote + recent - line.to_host(remote)
        if abs(error) <= REANCHOR:
            track.disagree_since = None
        elif track.disagree_since is None:
            track.disagree_since = remote
        elif remote - track.disagree_since >= REANCHOR_HOLD:
            track.anchor, track.disagree_since = remote, None
            with link.lock:
                line = link.sync.anchored(track.anchor)
            track.phone.reanchors += 1
        track.line = line
        stats = track.phone
        stats.error, stats.offset, stats.drift_ppm = error, line.offset, line.drift * 1e6
        stats.rtt_min, stats.jitter = line.rtt, jitter
        stats.errors.append((now, error))

    def _slew(self, track: _Track, error: float) -> None:
        """Move the laid-end-to-end position towards the line (``error`` frames away): at once
        beyond JUMP, else by at most SLEW_FRAMES a block."""
        if abs(error) > JUMP * self.rate:
            track.origin += error
            track.phone.slewed += int(abs(error))
        elif abs(error) > DEADBAND:
            step = float(np.clip(error, -SLEW_FRAMES, SLEW_FRAMES))
            track.origin += step
            track.phone.slewed += int(round(abs(step)))

    def _deliver(self, track: _Track, samples: np.ndarray, start: int) -> list[AudioBlock]:
        """``samples`` at session frame ``start``, after what was already delivered (a gap before
        it is silence, an overlap is cut off)."""
        if start > track.end:
            samples = np.concatenate([np.zeros(start - track.end, np.float32), samples])
            start = track.end
        skip = track.end - start
        if skip >= samples.shape[0]:
            return []
        if skip > 0:
            samples, start = samples[skip:], track.end
        track.end = start + samples.shape[0]
        column = np.ascontiguousarray(samples.reshape(-1, 1), dtype=np.float32)
        return [AudioBlock(column, start, self.rate, capture_time=start / self.rate, seats=(track.seat,))]

    def _lose(self, track: _Track, now: float, reason: str) -> None:
        track.anchored, track.line = False, None
        if track.lost_at is None:
            track.lost_at = now
            track.reason = reason
            track.stats.outages += 1
            self._changes.append(DeviceChange(track.stats.device, (track.seat,), True, now, reason))

    def _fill(self, now: float) -> list[AudioBlock]:
        """Silence for lost phones' seats up to where the others are (or the clock minus
        :data:`FILL_LAG` when none is running), so nobody waits for them."""
        lost = [t for t in self._tracks.values() if t.lost_at is not None]
        if not lost:
            return []
        running = [t.end for t in self._tracks.values() if t.lost_at is None and t.anchored]
        target = max(running) if running else int((now - FILL_LAG) * self.rate)
        out = []
        for track in lost:
            if target > track.end:
                silence = np.zeros((target - track.end, 1), dtype=np.float32)
                out.append(
                    AudioBlock(silence, track.end, self.rate, capture_time=track.end / self.rate, seats=(track.seat,))
                )
                track.end = target
        return out


def _drain(link: PhoneLink) -> None:
    while not link.blocks.empty():
        try:
            link.blocks.get_nowait()
        except queue.Empty:
            return
