"""Each phone's acoustic delay, measured with setup-table's click (:mod:`voicehost.host.calibrate`).

A phone's path from air to the host has a delay of its own (the browser's capture buffers, its
resampler, the microphone's DSP): 20 to 200 ms, different per model and browser. The table
speaker plays the click of :func:`~voicehost.host.calibrate.make_click` several times with
irregular gaps, as one buffer (so the gaps are exact, whatever the speaker's scheduling); each
phone's recording, already on the session clock, is searched for the whole train (FFT matched
filter, so a phone whose delay is unknown to within a second is still found), then every click
is timed with :func:`~voicehost.host.calibrate.click_arrival` and the phones are compared click
by click with :func:`~voicehost.host.calibrate.relative_offsets`, exactly as for USB headsets.
The result is the seconds by which each phone's audio must be moved earlier to line up with the
earliest phone.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from voicehost.errors import AudioDeviceError
from voicehost.host.calibrate import (
    CLICK_GAP,
    CLICK_SEED,
    ClickPlayer,
    Offsets,
    SetupFailed,
    click_arrival,
    make_click,
    relative_offsets,
)
from voicehost.listen.messages import AudioBlock, SeatName

TRAIN_CLICKS = 6
"""Clicks in the train (the median of the per-click offsets is kept)."""
TRAIN_LEAD = 0.05
"""Seconds of silence before the first click."""
SEARCH = (-0.05, 1.0)
"""Seconds after the train started on the speaker where a phone may hear it start: phones'
capture paths lag by up to a few hundred ms (Bluetooth headsets more)."""
REFINE = (-0.01, 0.03)
"""Seconds around a click's expected place (from the train's arrival) searched for its onset."""


@dataclass(frozen=True)
class ClickTrain:
    """The calibration sound: clicks at irregular, seeded gaps."""

    samples: np.ndarray
    """float32 mono at :attr:`rate`."""
    rate: int
    """Hz."""
    times: tuple[float, ...]
    """Seconds from the buffer's first sample to each click's first sample."""


def click_train(rate: int, count: int = TRAIN_CLICKS, seed: int = CLICK_SEED) -> ClickTrain:
    """The train at ``rate`` Hz (the same seed gives the same train)."""
    rng = np.random.default_rng(seed)
    click = make_click(rate)
    times = [TRAIN_LEAD]
    for _ in range(count - 1):
        times.append(times[-1] + float(rng.uniform(*CLICK_GAP)))
    samples = np.zeros(int(round((times[-1] + 0.1) * rate)) + click.shape[0], dtype=np.float32)
    starts = [int(round(t * rate)) for t in times]
    for start in starts:
        samples[start : start + click.shape[0]] += click
    return ClickTrain(samples, rate, tuple(s / rate for s in starts))


def train_arrival(samples: np.ndarray, template: np.ndarray) -> int | None:
    """Index in ``samples`` where ``template`` matches best (FFT cross-correlation), or None when
    nothing stands out (peak under 8 times the median)."""
    magnitude = match_strength(samples, template)
    if magnitude.shape[0] <= 0:
        return None
    peak = int(np.argmax(magnitude))
    if magnitude[peak] <= 1e-9 or magnitude[peak] < 8.0 * float(np.median(magnitude)):
        return None
    return peak


def match_strength(samples: np.ndarray, template: np.ndarray) -> np.ndarray:
    """How strongly ``template`` matches ``samples`` at each index where it fits whole (absolute
    FFT cross-correlation; empty when the template is longer than the samples)."""
    n = samples.shape[0] + template.shape[0]
    size = 1 << (n - 1).bit_length()
    spectrum = np.fft.rfft(samples - samples.mean(), size) * np.conj(np.fft.rfft(template, size))
    correlation = np.fft.irfft(spectrum, size)[: max(0, samples.shape[0] - template.shape[0] + 1)]
    magnitude: np.ndarray = np.abs(correlation)
    return magnitude


class SeatRecorder:
    """The seats' audio on the session frame axis, for a while (:attr:`history` seconds).

    Either it drains a source with ``read(timeout)`` itself (:meth:`start`: before the game,
    when nothing else reads), or whoever reads the source hands it every block (:meth:`add`:
    during the game, when the listener must go on getting them too)."""

    def __init__(self, source: object, seats: Sequence[SeatName], rate: int, *, history: float = 60.0) -> None:
        self.source = source
        self.seats = tuple(seats)
        self.rate = rate
        self.history = history
        self._chunks: dict[SeatName, list[tuple[int, np.ndarray]]] = {s: [] for s in self.seats}
        self._ends: dict[SeatName, int] = {s: 0 for s in self.seats}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "SeatRecorder":
        """Start draining."""
        self._thread = threading.Thread(target=self._drain, name="voicehost-phone-recorder", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop draining (the source stays open)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def _drain(self) -> None:
        read: Callable[[float], list[AudioBlock]] = getattr(self.source, "read")
        while not self._stop.is_set():
            self.add(read(0.05))

    def add(self, blocks: Sequence[AudioBlock]) -> None:
        """Keep the recorded seats' columns of ``blocks`` (a microphone device's blocks hold
        several seats, a phone's one)."""
        for block in blocks:
            for column, seat in enumerate(block.seats):
                if seat in self._chunks:
                    self._keep(seat, block.start_frame, block.samples[:, column])

    def _keep(self, seat: SeatName, start: int, samples: np.ndarray) -> None:
        with self._lock:
            chunks = self._chunks[seat]
            chunks.append((start, samples))
            self._ends[seat] = max(self._ends[seat], start + samples.shape[0])
            keep = self._ends[seat] - int(self.history * self.rate)
            while chunks and chunks[0][0] + chunks[0][1].shape[0] < keep:
                chunks.pop(0)

    def wait_until(self, t: float, timeout: float) -> bool:
        """Wait until every seat's audio up to session time ``t`` has arrived."""
        target = int(np.ceil(t * self.rate))
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if all(end >= target for end in self._ends.values()):
                    return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def window(self, seat: SeatName, start: float, end: float) -> np.ndarray:
        """float32 mono of ``seat`` between session times ``start`` and ``end`` (zeros where none)."""
        first, last = int(round(start * self.rate)), int(round(end * self.rate))
        out = np.zeros(max(0, last - first), dtype=np.float32)
        with self._lock:
            for block_start, samples in self._chunks[seat]:
                lo, hi = max(first, block_start), min(last, block_start + samples.shape[0])
                if lo < hi:
                    out[lo - first : hi - first] = samples[lo - block_start : hi - block_start]
        return out


@dataclass(frozen=True)
class PhoneDelays:
    """What the clicks showed."""

    offsets: Offsets
    """Per seat: ``offsets`` = seconds behind the earliest phone (what to shift by), ``delays`` =
    median seconds from the speaker to the phone's placed audio, ``spread`` = how much single
    clicks disagreed."""
    played_at: float
    """Session seconds when the train's first sample left the speaker."""
    arrivals: dict[SeatName, float]
    """Session seconds where each phone heard the train begin (before shifting)."""


@dataclass(frozen=True)
class TrainHeard:
    """The click train, timed on every recorded seat."""

    played_at: float
    """Session seconds when the train's first sample left the speaker."""
    delays: dict[SeatName, list[float | None]]
    """Per seat, per click: seconds from the click leaving the speaker to its place in the
    seat's audio (None: not heard)."""
    arrivals: dict[SeatName, float]
    """Session seconds where each seat heard the train begin."""

    @property
    def clicks(self) -> int:
        """Clicks in the train."""
        return max((len(v) for v in self.delays.values()), default=0)


def measure_delays(
    recorder: SeatRecorder,
    player: ClickPlayer,
    *,
    search: tuple[float, float] = SEARCH,
    log: Callable[[str], None] = lambda line: None,
) -> PhoneDelays:
    """Play the click train and time it on every phone (raises SetupFailed when a phone heard
    fewer than half the clicks)."""
    heard = time_train(recorder, player, search=search, log=log)
    try:
        offsets = relative_offsets(heard.delays, min_clicks=min_clicks(heard.clicks))
    except SetupFailed as error:
        raise SetupFailed(
            f"phone calibration failed: {error}; turn the table speaker up, keep the room "
            "quiet and hold the phones still"
        ) from None
    return PhoneDelays(offsets, heard.played_at, heard.arrivals)


def min_clicks(clicks: int) -> int:
    """Clicks a seat must have heard for its delay to count: half of them."""
    return max(1, (clicks + 1) // 2)


def time_train(
    recorder: SeatRecorder,
    player: ClickPlayer,
    *,
    search: tuple[float, float] = SEARCH,
    log: Callable[[str], None] = lambda line: None,
) -> TrainHeard:
    """Play the click train and time each click on every recorded seat (AudioDeviceError when
    the recorder's audio stops coming)."""
    from voicehost.audio.resample import resample as to_rate

    train = click_train(player.rate)
    template = to_rate(train.samples, train.rate, recorder.rate)
    click = to_rate(make_click(train.rate), train.rate, recorder.rate)
    played = player.play(train.samples)
    span = train.samples.shape[0] / train.rate
    # A phone already shifted earlier (by at most search[1]) delivers its audio that much later.
    if not recorder.wait_until(played + search[1] + span + 0.1, timeout=2 * search[1] + span + 5.0):
        raise AudioDeviceError("the phones stopped sending sound during the clicks")
    delays: dict[SeatName, list[float | None]] = {}
    arrivals: dict[SeatName, float] = {}
    for seat in recorder.seats:
        x = recorder.window(seat, played + search[0], played + search[1] + span)
        found = train_arrival(x, template)
        if found is None:
            delays[seat] = [None] * len(train.times)
            log(f"  {seat}'s phone: no clicks heard")
            continue
        begin = played + search[0] + found / recorder.rate
        arrivals[seat] = begin
        delays[seat] = [_click_delay(recorder, seat, begin + t, played + t, click) for t in train.times]
        shown = ", ".join("-" if d is None else f"{d * 1000:.1f}" for d in delays[seat])
        log(f"  {seat}'s phone heard the clicks after (ms): {shown}")
    return TrainHeard(played, delays, arrivals)


@dataclass(frozen=True)
class Alignment:
    """How to move the measured seats so that their clicks line up with the others'."""

    moves: dict[SeatName, float]
    """Seconds to add to each measured seat's shift (move its audio that much earlier; less
    than 0: later). Seats that heard too few clicks are missing."""
    spread: dict[SeatName, float]
    """Seconds: the largest deviation of one click from the seat's median."""
    reference: tuple[SeatName, ...]
    """The seats lined up with (none: the measured seats were lined up with the earliest of them)."""
    failed: dict[SeatName, str]
    """Measured seats that could not be placed, and why."""


def align(heard: TrainHeard, measured: Sequence[SeatName], fixed: Mapping[SeatName, float]) -> Alignment:
    """Line the ``measured`` seats up with the ``fixed`` ones, click by click.

    ``fixed`` maps each seat that stays where it is to the latency the listener subtracts from
    it (a microphone seat's table latency; 0 for a phone already shifted): its clicks, minus
    that, are where every seat should hear them. A click late on the speaker is late for every
    seat alike and cancels out. Fixed seats that heard fewer than half the clicks are left out;
    without any (a table of phones measured for the first time), the measured seats are lined
    up with the earliest of them, which keeps its place."""
    need = min_clicks(heard.clicks)
    reference = [s for s in fixed if sum(d is not None for d in heard.delays.get(s, [])) >= need]
    moves: dict[SeatName, float] = {}
    spread: dict[SeatName, float] = {}
    failed: dict[SeatName, str] = {}
    if reference:
        level = _level(heard, reference, fixed)
    else:
        best = max(measured, key=lambda s: sum(d is not None for d in heard.delays.get(s, [])), default=None)
        level = _level(heard, [best], {best: 0.0}) if best is not None and best in heard.delays else []
    for seat in measured:
        values = heard.delays.get(seat, [])
        pairs = [v - r for v, r in zip(values, level) if v is not None and r is not None]
        if len(pairs) < need:
            failed[seat] = f"heard only {sum(v is not None for v in values)} of {heard.clicks} clicks (need {need})"
            continue
        moves[seat] = float(np.median(pairs))
        spread[seat] = float(np.max(np.abs(np.asarray(pairs) - moves[seat])))
    if not reference and moves:
        earliest = min(moves.values())
        moves = {seat: value - earliest for seat, value in moves.items()}
    return Alignment(moves, spread, tuple(reference), failed)


def _level(heard: TrainHeard, reference: Sequence[SeatName], fixed: Mapping[SeatName, float]) -> list[float | None]:
    """Per click, where the seats should hear it: the median of the reference seats, each less
    its latency (None where none of them heard that click)."""
    level: list[float | None] = []
    for k in range(heard.clicks):
        values = [d - fixed[s] for s in reference if (d := heard.delays[s][k]) is not None]
        level.append(float(np.median(values)) if values else None)
    return level


def _click_delay(
    recorder: SeatRecorder, seat: SeatName, expected: float, played: float, click: np.ndarray
) -> float | None:
    x = recorder.window(seat, expected + REFINE[0], expected + REFINE[1])
    at = click_arrival(x, recorder.rate, click)
    return None if at is None else expected + REFINE[0] + at - played
