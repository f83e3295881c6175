"""Phones as a live audio source: every phone's blocks placed on the session's frame axis.

The same interface as :class:`voicehost.listen.sources.LiveSource` (``read``, ``changes``,
``stats``, ``lost``, ``begin``, ``stop``), so the live session treats a phone like a microphone
device with one seat: one that stops delivering sound for :data:`STALL_SECONDS`, or whose
connection closes, is lost (the game pauses); when it delivers again — the same connection after
a stall, or the page reconnected — it is placed afresh and is back.

Placement: a block's first sample has a frame number on the phone's audio clock; the phone's
:class:`~voicehost.phones.clocksync.ClockSync` turns it into host time, and a per-seat ``shift``
(the click calibration's relative delay) moves it earlier. Blocks are laid end to end from an
anchor (so the audio is continuous whatever the network does), and the anchor is slewed by at
most :data:`SLEW_FRAMES` per block towards where the clock mapping says the block belongs when
the two differ by more than :data:`DEADBAND` — a phone's crystal running 50 ppm fast costs one
dropped sample every 1.25 s, inaudible to the onset detector. Lost blocks (a gap in the frame
numbers) become silence of their length; a gap longer than :data:`JUMP` re-anchors.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np

from voicehost.clock import Clock
from voicehost.errors import AudioDeviceError
from voicehost.listen.messages import AudioBlock, SeatName
from voicehost.listen.sources import FILL_LAG, LISTEN_RATE, STALL_SECONDS, DeviceChange, DeviceStats
from voicehost.phones.server import PhoneBlock, PhoneLink, PhoneServer

DEADBAND = 0.0005
"""Seconds the counted position may differ from the clock mapping before it is slewed."""
SLEW_FRAMES = 2
"""Listener frames the anchor may move per block (20 ms blocks: 100 frames = 6 ms a second)."""
JUMP = 0.05
"""Seconds of difference (or of lost audio) beyond which a stream is placed afresh."""


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
    lost_frames: int = 0
    """Listener frames of silence put in for blocks that never came."""
    error: float = 0.0
    """Seconds between the counted position and the clock mapping at the last block."""
    errors: list[tuple[float, float]] = field(default_factory=list)
    """(session seconds, error seconds) once a second: how placement and mapping wandered."""


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
        self.fed = 0
        """Phone frames fed since the anchor (blocks and the silence of lost blocks)."""
        self.out = 0
        """Listener frames produced since the anchor."""
        self.resampler: Any = None
        self.end = 0
        """Session frame up to which this seat has been delivered (or filled)."""
        self.last_block_at = 0.0
        self.lost_at: float | None = None
        self.reason = ""
        self.stats = DeviceStats(f"{seat}'s phone", (seat,))
        self.phone = PhoneStats()
        self.noted_at = -1.0


class PhoneSource:
    """Every seat's phone, read as :class:`AudioBlock` s on the session clock."""

    def __init__(self, server: PhoneServer, seats: Sequence[SeatName], clock: Clock, rate: int = LISTEN_RATE, *,
                 stall_seconds: float = STALL_SECONDS, shifts: Mapping[SeatName, float] | None = None) -> None:
        self.server = server
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
        """Move each phone's audio earlier by ``shifts[seat]`` seconds from now on (re-placed)."""
        self.shifts.update(shifts)
        for track in self._tracks.values():
            track.anchored = False

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
        it reads now (call it right after the clock was restarted)."""
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
            track.link, track.anchored = link, False
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

    def _session_frame(self, link: PhoneLink, frame: int, track: _Track) -> float:
        """Where phone frame ``frame`` belongs on the session's frame axis (fractional)."""
        with link.lock:
            fit = link.sync.fit()
        host = fit.to_host(frame / link.rate)
        session = host + (self.clock.now() - time.monotonic())
        return (session - self.shifts.get(track.seat, 0.0)) * self.rate

    def _place(self, track: _Track, link: PhoneLink, block: PhoneBlock, now: float) -> list[AudioBlock]:
        with link.lock:
            ready = link.sync.ready
        if not ready:
            return []
        ratio = self.rate / link.rate
        mapped = self._session_frame(link, block.frame, track)
        samples = block.samples
        if not track.anchored or abs(block.frame - track.next_frame) > JUMP * link.rate:
            self._anchor(track, link, block.frame, mapped, now)
        elif block.frame < track.next_frame:
            samples = samples[track.next_frame - block.frame :]
        elif block.frame > track.next_frame:
            gap = block.frame - track.next_frame
            track.phone.lost_frames += int(round(gap * ratio))
            track.stats.overflows += 1
            samples = np.concatenate([np.zeros(gap, np.float32), samples])
        if samples.shape[0] == 0:
            return []
        first = track.next_frame
        counted = track.origin + (first - track.base) * ratio
        error = (mapped if first == block.frame else self._session_frame(link, first, track)) - counted
        self._slew(track, error, now)
        track.anchored = True
        track.next_frame = first + samples.shape[0]
        track.fed += samples.shape[0]
        converted = samples if track.resampler is None else track.resampler.resample_chunk(samples)
        start = int(round(track.origin)) + track.out
        track.out += converted.shape[0]
        return self._deliver(track, converted, start)

    def _anchor(self, track: _Track, link: PhoneLink, frame: int, mapped: float, now: float) -> None:
        track.base, track.next_frame, track.origin = frame, frame, mapped
        track.fed = track.out = 0
        track.anchored = True
        track.resampler = None
        if link.rate != self.rate:
            import soxr

            track.resampler = soxr.ResampleStream(link.rate, self.rate, 1, dtype="float32", quality="HQ")
        if track.lost_at is not None:
            track.stats.down_seconds += now - track.lost_at
            track.lost_at = None
            self._changes.append(DeviceChange(track.stats.device, (track.seat,), False, now))

    def _slew(self, track: _Track, error: float, now: float) -> None:
        """Move the anchor towards the clock mapping (``error`` frames away)."""
        track.phone.error = error / self.rate
        if abs(error) > JUMP * self.rate:
            track.origin += error
            track.phone.slewed += int(abs(error))
        elif abs(error) > DEADBAND * self.rate:
            step = float(np.clip(error, -SLEW_FRAMES, SLEW_FRAMES))
            track.origin += step
            track.phone.slewed += int(round(abs(step)))
        if now - track.noted_at >= 1.0:
            track.noted_at = now
            track.phone.errors.append((now, error / self.rate))
            link = track.link
            if link is not None:
                with link.lock:
                    fit = link.sync.fit()
                    jitter = link.sync.jitter()
                track.phone.offset, track.phone.drift_ppm = fit.offset, fit.drift * 1e6
                track.phone.rtt_min, track.phone.jitter = fit.rtt, jitter

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
        track.anchored = False
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
                out.append(AudioBlock(silence, track.end, self.rate, capture_time=track.end / self.rate, seats=(track.seat,)))
                track.end = target
        return out


def _drain(link: PhoneLink) -> None:
    while not link.blocks.empty():
        try:
            link.blocks.get_nowait()
        except queue.Empty:
            return
