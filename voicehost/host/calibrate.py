"""Setting up a table by ear: which microphone hears whom, and how late each microphone is.

Two measurements, and the spoken walk-through that uses them (``voicehost setup-table``):

- **Loudest channel.** A player says their name; the channel where it arrived loudest is theirs.
  Every channel is compared over the same frames (those where someone is clearly talking), so
  crosstalk into a neighbour's microphone counts against the neighbour, and a decision needs a
  margin (:data:`MARGIN_DB`) over the runner-up: a voice heard about equally on two channels
  is asked for again rather than guessed.
- **Input latency.** Seats on different devices (several USB headsets) are heard with different
  delays, which would bias who-was-first. The table speaker plays a click (a 4 ms burst of
  seeded noise: broadband, so its arrival is sharp); on each device the arrival is where the
  recording best matches the click (matched filter, first strong peak, sub-sample refined).
  Devices are compared click by click, so when exactly the speaker started cancels out; the
  median over several clicks is kept. Times are on the listening pipeline's own frame axis
  (:class:`~voicehost.listen.sources.LiveSource`), so the offsets are exactly what the pipeline
  has to subtract. Channels of one device share its clock and get one offset.

What a click cannot tell: sound travels about 3 ms per metre, so a player sitting one metre
further from the speaker than another gets 3 ms of bias in their latency (see docs/table.md).
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Hashable, Mapping, Protocol, Sequence, TypeVar

import numpy as np

from voicehost.audio.resample import resample
from voicehost.clock import Clock
from voicehost.errors import AudioDeviceError, VoicehostError
from voicehost.host.table import Channel, DeviceSpec, Seat, Table

if TYPE_CHECKING:
    from voicehost.listen.sources import LiveSource
    from voicehost.speak.output import DeviceSink, Route
    from voicehost.speak.service import SpeechService

FRAME = 0.02
"""Seconds per analysis frame for levels."""
FLOOR_DB = -100.0
"""dBFS given to digital silence (so that levels stay finite)."""
MARGIN_DB = 6.0
"""dB the loudest channel must lead the runner-up by: a close microphone leads its neighbours by
10-25 dB; a smaller lead means two microphones are close together or one is badly placed."""
MIN_SNR_DB = 12.0
"""dB above a channel's noise floor for a frame to count as someone talking."""
MIN_SPEECH_DB = -55.0
"""dBFS: quieter frames never count as talking, whatever the noise floor (digital silence)."""
MIN_SPEECH = 0.1
"""Seconds of talking needed before a take is judged."""

CLICK_SECONDS = 0.004
"""Length of the click, seconds."""
CLICK_SEED = 20240
"""Seed of the click's noise: the same click every time."""
CLICK_LEVEL = 0.7
"""Peak amplitude of the click (full scale = 1)."""
CLICK_MIN_SNR = 8.0
"""How many times above the median of the matched-filter envelope a click's peak must be."""
FIRST_PEAK = 0.5
"""A reflection can be stronger than the direct sound: the first peak above this fraction of the
strongest one is the arrival."""
CLICK_SEARCH = (-0.05, 0.6)
"""Seconds around the moment a click was played where its arrival is looked for."""
START_TIMEOUT = 5.0
"""Seconds a microphone may take to deliver its first sound."""


class SetupFailed(VoicehostError, RuntimeError):
    """The table could not be set up (a player's microphone could not be told, no click heard)."""


# ---- levels: which channel hears a voice loudest ---------------------------------------------


def to_db(energy: np.ndarray | float) -> np.ndarray:
    """Mean-square energy → dBFS, with digital silence at :data:`FLOOR_DB`."""
    return np.maximum(10.0 * np.log10(np.maximum(np.asarray(energy, dtype=np.float64), 1e-30)), FLOOR_DB)


def frame_energy(samples: np.ndarray, rate: int, frame: float = FRAME) -> np.ndarray:
    """Mean-square energy per frame and channel, shape (frames, channels), DC removed."""
    x = samples if samples.ndim == 2 else samples[:, np.newaxis]
    n = max(1, int(round(rate * frame)))
    frames = x.shape[0] // n
    if frames == 0:
        return np.zeros((0, x.shape[1]))
    blocks = x[: frames * n].astype(np.float64).reshape(frames, n, x.shape[1])
    blocks = blocks - blocks.mean(axis=1, keepdims=True)
    energy: np.ndarray = np.mean(blocks**2, axis=1)
    return energy


def noise_floor(samples: np.ndarray, rate: int) -> np.ndarray:
    """Each channel's noise level, dBFS: the median frame energy of a quiet moment."""
    energy = frame_energy(samples, rate)
    if energy.shape[0] == 0:
        return np.full(samples.shape[1] if samples.ndim == 2 else 1, FLOOR_DB)
    return to_db(np.median(energy, axis=0))


def talking_frames(energy: np.ndarray, noise_db: np.ndarray) -> np.ndarray:
    """Boolean per frame: someone is talking on at least one channel."""
    level = to_db(energy)
    above = (level - noise_db[np.newaxis, :] >= MIN_SNR_DB) & (level >= MIN_SPEECH_DB)
    result: np.ndarray = above.any(axis=1)
    return result


def speech_span(samples: np.ndarray, rate: int, noise_db: np.ndarray) -> tuple[float, float] | None:
    """(start, end) seconds of the talking in ``samples``, or None when nobody talks."""
    active = np.flatnonzero(talking_frames(frame_energy(samples, rate), noise_db))
    if active.size == 0:
        return None
    return float(active[0] * FRAME), float((active[-1] + 1) * FRAME)


class Verdict(Enum):
    """What one take of a player saying their name showed."""

    CLEAR = "clear"
    """One channel clearly loudest."""
    UNCLEAR = "unclear"
    """Two channels about equally loud."""
    SILENT = "silent"
    """Nobody talked (or too briefly)."""


@dataclass(frozen=True)
class ChannelChoice:
    """Which channel a voice arrived on loudest, and how sure that is."""

    verdict: Verdict
    channel: int | None
    """0-based index of the loudest channel (None when silent)."""
    runner_up: int | None
    """0-based index of the second loudest channel (None with one channel or when silent)."""
    margin_db: float
    """dB the loudest channel leads the runner-up by (infinite with one channel)."""
    levels_db: tuple[float, ...]
    """Each channel's level while the voice was heard, dBFS."""


def loudest_channel(
    samples: np.ndarray,
    rate: int,
    noise_db: np.ndarray,
    *,
    margin_db: float = MARGIN_DB,
    candidates: Sequence[int] | None = None,
) -> ChannelChoice:
    """Decide which channel (of ``candidates``, default all) heard the voice in ``samples`` loudest.

    Levels are compared over the frames where someone talks, the same frames for every channel.
    """
    energy = frame_energy(samples, rate)
    active = talking_frames(energy, noise_db) if energy.shape[0] else np.zeros(0, bool)
    if np.count_nonzero(active) * FRAME < MIN_SPEECH:
        return ChannelChoice(Verdict.SILENT, None, None, 0.0, tuple(FLOOR_DB for _ in range(energy.shape[1])))
    levels = to_db(energy[active].mean(axis=0))
    pool = list(range(levels.shape[0])) if candidates is None else list(candidates)
    ranked = sorted(pool, key=lambda c: -levels[c])
    best = ranked[0]
    runner_up = ranked[1] if len(ranked) > 1 else None
    margin = float("inf") if runner_up is None else float(levels[best] - levels[runner_up])
    verdict = Verdict.CLEAR if margin >= margin_db else Verdict.UNCLEAR
    return ChannelChoice(verdict, best, runner_up, margin, tuple(float(v) for v in levels))


def duplicate_channels(samples: np.ndarray, devices: Sequence[Hashable]) -> set[int]:
    """Channels that are copies of an earlier channel of the same device (``devices[c]`` is
    channel c's device): a sound server that spreads a mono microphone over every channel of
    the stream. They are the same microphone, so they must not compete for a player."""
    duplicates: set[int] = set()
    for j in range(samples.shape[1]):
        for i in range(j):
            if i in duplicates or devices[i] != devices[j]:
                continue
            reference = float(np.max(np.abs(samples[:, i]), initial=0.0))
            if reference > 1e-4 and float(np.max(np.abs(samples[:, j] - samples[:, i]))) <= 1e-3 * reference:
                duplicates.add(j)
                break
    return duplicates


# ---- clicks: when a sound arrived ------------------------------------------------------------


def make_click(
    rate: int, seconds: float = CLICK_SECONDS, level: float = CLICK_LEVEL, seed: int = CLICK_SEED
) -> np.ndarray:
    """The calibration click at ``rate`` Hz: a short burst of seeded white noise, tapered ends."""
    n = max(8, int(round(rate * seconds)))
    noise = np.random.default_rng(seed).uniform(-1.0, 1.0, n)
    taper = max(1, n // 8)
    ramp = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, taper))
    noise[:taper] *= ramp
    noise[-taper:] *= ramp[::-1]
    return np.asarray(level * noise / np.max(np.abs(noise)), dtype=np.float32)


def _envelope(x: np.ndarray) -> np.ndarray:
    """Magnitude of the analytic signal (Hilbert transform through the FFT)."""
    n = x.shape[0]
    spectrum = np.fft.fft(x)
    weights = np.zeros(n)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[n // 2] = 1.0
        weights[1 : n // 2] = 2.0
    else:
        weights[1 : (n + 1) // 2] = 2.0
    envelope: np.ndarray = np.abs(np.fft.ifft(spectrum * weights))
    return envelope


def click_arrival(
    samples: np.ndarray, rate: int, template: np.ndarray, *, min_snr: float = CLICK_MIN_SNR
) -> float | None:
    """Seconds from the start of mono ``samples`` to where ``template`` (the click, at ``rate``)
    begins, or None when no click stands out. The first strong peak wins over a louder echo."""
    x = np.asarray(samples, dtype=np.float64)
    t = np.asarray(template, dtype=np.float64)
    if x.shape[0] < t.shape[0] + 3:
        return None
    envelope = _envelope(np.correlate(x - x.mean(), t, mode="valid"))
    peak = float(envelope.max())
    if peak <= 1e-9 or peak < min_snr * float(np.median(envelope)):
        return None
    i = int(np.flatnonzero(envelope >= FIRST_PEAK * peak)[0])
    while i + 1 < envelope.shape[0] and envelope[i + 1] > envelope[i]:
        i += 1
    shift = 0.0
    if 0 < i < envelope.shape[0] - 1:
        a, b, c = envelope[i - 1], envelope[i], envelope[i + 1]
        denominator = a - 2 * b + c
        shift = 0.5 * (a - c) / denominator if denominator != 0 else 0.0
    return (i + shift) / rate


K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Offsets:
    """Input latencies of several devices, measured with clicks."""

    offsets: dict[Hashable, float]
    """Seconds each device lags behind the earliest one (which has 0)."""
    delays: dict[Hashable, float]
    """Median seconds from the click leaving the speaker to its arrival, per device (includes
    the playback latency; shown to users, not used)."""
    spread: dict[Hashable, float]
    """Seconds: the largest deviation of one click's offset from the median (how sure it is)."""
    heard: dict[Hashable, int]
    """How many clicks each device heard."""


def relative_offsets(delays: Mapping[K, Sequence[float | None]], *, min_clicks: int = 3) -> Offsets:
    """Offsets between devices from per-click delays (None: that click was not heard there).

    Devices are compared with one reference click by click, so a click that started late on
    the speaker shifts every device alike and cancels out. Raises :class:`SetupFailed` naming
    a device that heard fewer than ``min_clicks`` of the clicks the reference heard.
    """
    if not delays:
        return Offsets({}, {}, {}, {})
    heard = {k: sum(d is not None for d in v) for k, v in delays.items()}
    reference = max(delays, key=lambda k: heard[k])
    ref = delays[reference]
    relative: dict[Hashable, float] = {}
    spread: dict[Hashable, float] = {}
    for key, values in delays.items():
        pairs = [v - r for v, r in zip(values, ref) if v is not None and r is not None]
        if len(pairs) < min_clicks:
            raise SetupFailed(f"{key} heard only {heard[key]} of {len(values)} clicks (need {min_clicks})")
        relative[key] = float(np.median(pairs))
        spread[key] = float(np.max(np.abs(np.asarray(pairs) - relative[key])))
    earliest = min(relative.values())
    medians: dict[Hashable, float] = {k: float(np.median([d for d in v if d is not None])) for k, v in delays.items()}
    counts: dict[Hashable, int] = dict(heard.items())
    return Offsets({k: v - earliest for k, v in relative.items()}, medians, spread, counts)


# ---- the adapters the walk-through needs -----------------------------------------------------


class Recorder(Protocol):
    """Every microphone channel of the table, on the session clock."""

    rate: int
    """Hz."""
    channels: tuple[Channel, ...]
    """The channels recorded, in order ("microphone 1" is the first)."""

    def wait_until(self, t: float, timeout: float) -> bool:
        """Wait until audio up to session time ``t`` has arrived from every device."""

    def window(self, start: float, end: float) -> np.ndarray:
        """float32 (frames, channels) between session times ``start`` and ``end`` (zeros where
        nothing was recorded)."""


class ClickPlayer(Protocol):
    """The table speaker, for clicks."""

    rate: int
    """Hz of the samples :meth:`play` takes."""

    def play(self, samples: np.ndarray) -> float:
        """Play mono ``samples`` now; the session time its first sample left the speaker."""


@dataclass
class _DeviceBuffer:
    """Blocks captured from one device, on the session frame axis (listener rate)."""

    columns: list[int]
    """Which recorder channels this device fills."""
    blocks: list[tuple[int, np.ndarray]] = field(default_factory=list)
    end_frame: int = 0


class LiveRecorder:
    """Microphones through :class:`~voicehost.listen.sources.LiveSource` (one stream per
    device, capture times converted to the session clock), drained by a background thread into
    a history of the last :attr:`history` seconds."""

    def __init__(self, inputs: Sequence[tuple[DeviceSpec, int]], clock: Clock, *, history: float = 30.0) -> None:
        from voicehost.listen.sources import LISTEN_RATE, LiveInput

        self.rate = LISTEN_RATE
        self.clock = clock
        self.channels = tuple(Channel(device, k) for device, count in inputs for k in range(1, count + 1))
        self.history = history
        self._specs: list[LiveInput] = []
        self._buffers: dict[tuple[str, ...], _DeviceBuffer] = {}
        column = 0
        for device, count in inputs:
            labels = tuple(str(column + k) for k in range(1, count + 1))
            self._specs.append(LiveInput(device, labels, tuple(range(count))))
            self._buffers[labels] = _DeviceBuffer(list(range(column, column + count)))
            column += count
        self._source: LiveSource | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._error: queue.Queue[BaseException] = queue.Queue()
        self._thread: threading.Thread | None = None

    def _new_source(self) -> LiveSource:
        from voicehost.listen.sources import LiveSource

        return LiveSource(self._specs, self.clock, rate=self.rate)

    def prime(self, timeout: float = START_TIMEOUT) -> None:
        """Open every device until sound flows, then close it again.

        Measured on PulseAudio: the first stream on a source that was idle delivers nothing for
        about a second and its capture times are then wrong by 30 to 350 ms, for as long as it
        stays open; a stream opened after that is right to within a few milliseconds.
        """
        source = self._new_source().start()
        try:
            waiting = {spec.seats for spec in self._specs}
            deadline = time.monotonic() + timeout
            while waiting:
                if time.monotonic() >= deadline:
                    names = ", ".join(repr(s.device) for s in self._specs if s.seats in waiting)
                    raise AudioDeviceError(f"no sound came from {names} within {timeout:.0f} s")
                waiting -= {block.seats for block in source.read(timeout=0.1)}
        finally:
            source.stop()

    def start(self) -> "LiveRecorder":
        """Prime the devices, open them for good and start draining."""
        self.prime()
        self._source = self._new_source().start()
        self._thread = threading.Thread(target=self._drain, name="voicehost-setup-recorder", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop draining and close the devices."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        if self._source is not None:
            self._source.stop()

    def __enter__(self) -> "LiveRecorder":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _drain(self) -> None:
        assert self._source is not None
        try:
            while not self._stop.is_set():
                for block in self._source.read(timeout=0.1):
                    with self._lock:
                        buffer = self._buffers[block.seats]
                        buffer.blocks.append((block.start_frame, block.samples))
                        buffer.end_frame = max(buffer.end_frame, block.start_frame + block.samples.shape[0])
                        keep = buffer.end_frame - int(self.history * self.rate)
                        while buffer.blocks and buffer.blocks[0][0] + buffer.blocks[0][1].shape[0] < keep:
                            buffer.blocks.pop(0)
        except (VoicehostError, OSError, RuntimeError) as error:
            self._error.put(error)

    def _raise_if_failed(self) -> None:
        if not self._error.empty():
            error = self._error.get()
            raise AudioDeviceError(f"recording stopped: {error}") from error

    def wait_until(self, t: float, timeout: float) -> bool:
        """Wait until every device has delivered audio up to session time ``t``."""
        target = int(np.ceil(t * self.rate))
        deadline = time.monotonic() + timeout
        while True:
            self._raise_if_failed()
            with self._lock:
                if all(b.end_frame >= target for b in self._buffers.values()):
                    return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def window(self, start: float, end: float) -> np.ndarray:
        """float32 (frames, channels) of session time [start, end)."""
        first, last = int(round(start * self.rate)), int(round(end * self.rate))
        out = np.zeros((max(0, last - first), len(self.channels)), dtype=np.float32)
        with self._lock:
            for buffer in self._buffers.values():
                for block_start, samples in buffer.blocks:
                    lo, hi = max(first, block_start), min(last, block_start + samples.shape[0])
                    if lo < hi:
                        out[lo - first : hi - first, buffer.columns] = samples[lo - block_start : hi - block_start]
        return out


class SinkClicks:
    """Clicks on the table speaker's :class:`~voicehost.speak.output.DeviceSink` — the one the
    speech service speaks through (play only while the service is idle)."""

    def __init__(self, sink: DeviceSink, timeout: float = 2.0) -> None:
        self.sink = sink
        self.rate = sink.rate
        self.timeout = timeout

    def play(self, samples: np.ndarray) -> float:
        """Play the click; the session time its first sample reached the speaker."""
        from voicehost.audio.buffer import Audio

        playback = self.sink.play(Audio(samples, self.rate), 0.0)
        start = playback.started(self.timeout)
        if start is None:
            raise AudioDeviceError(f"the table speaker did not play the click within {self.timeout:.0f} s")
        playback.wait(self.timeout + samples.shape[0] / self.rate)
        return start


# ---- the spoken walk-through -----------------------------------------------------------------

GUARD = 0.15
"""Seconds after the host stops talking before listening starts, so that it does not mistake
its own voice for a player's: the sound's way to the microphones (3 ms per metre), the room's
echo (a living room's decays by 20 dB in about 0.1 s) and a few ms of timing error. Longer
would cut off a player who answers at once."""
QUIET = 1.0
"""Seconds of room noise recorded at the start to learn each channel's noise floor."""
MAX_LISTEN = 5.0
"""Seconds the host waits for a player to say their name."""
END_QUIET = 0.6
"""Seconds of quiet after talking that end a take."""
POLL = 0.1
"""Seconds between looks at the recording while listening."""
ATTEMPTS = 3
"""Takes per player before the host gives up and explains."""
CLICKS = 6
"""Clicks played to measure latencies (the median is kept)."""
CLICK_GAP = (0.35, 0.55)
"""Seconds between clicks, drawn from this range (a seeded RNG): irregular spacing keeps a late
echo of one click from being mistaken for the next."""
SPEECH_TIMEOUT = 30.0
ENROL_TAKES = 3
"""Takes of each word per player."""
ENROL_MIN = 0.12
"""Seconds: a shorter take is a click or a breath, asked for again."""
ENROL_MAX = 2.5
"""Seconds: a longer take is more than the word, asked for again."""
ENROL_PAD = 0.25
"""Seconds kept around a take's word."""
"""Seconds an announcement may take before the speaker counts as broken."""


@dataclass(frozen=True)
class Placement:
    """Where setup found a player."""

    name: str
    channel: int
    """0-based index into the recorder's channels."""
    margin_db: float
    """dB over the runner-up channel (infinite when there was only one channel)."""
    takes: int
    """How many times the player was asked."""


@dataclass(frozen=True)
class SetupResult:
    """What the walk-through found."""

    table: Table
    placements: tuple[Placement, ...]
    offsets: Offsets | None
    """None when every seat is on one device (nothing to measure)."""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnrolResult:
    """What an enrolment recorded."""

    takes: dict[str, list[Path]]
    """Player → the take files written."""
    seconds: dict[str, float]
    """Player → seconds their enrolment took."""
    total: float
    """Seconds the whole enrolment took."""


class TableSetup:
    """Walks the players through seating and latency measurement, by voice.

    Everything the host says also goes to ``log`` (the terminal) through the speech service's
    transcript; ``log`` additionally gets what the host hears and measures.
    """

    def __init__(
        self,
        host: SpeechService,
        recorder: Recorder,
        clock: Clock,
        *,
        clicks: ClickPlayer | None = None,
        log: Callable[[str], None] = print,
        seed: int = 0,
        attempts: int = ATTEMPTS,
        click_count: int = CLICKS,
    ) -> None:
        self.host = host
        self.recorder = recorder
        self.clock = clock
        self.clicks = clicks
        self.log = log
        self.seed = seed
        self.attempts = attempts
        self.click_count = click_count
        self.noise_db = np.full(len(recorder.channels), FLOOR_DB)

    # -- speaking and listening --

    def say(self, text: str, to: Route | None = None) -> float:
        """Say ``text`` and wait until it has been heard; the session time it ended."""
        from voicehost.speak.output import TABLE

        spoken = self.host.say(text, TABLE if to is None else to)
        if not spoken.wait(SPEECH_TIMEOUT):
            raise AudioDeviceError(f"the host's voice did not finish within {SPEECH_TIMEOUT:.0f} s")
        if spoken.error is not None:
            raise spoken.error
        return spoken.span.end if spoken.span is not None else self.clock.now()

    def _record_until(self, t: float) -> None:
        if not self.recorder.wait_until(t, timeout=max(2.0, t - self.clock.now() + 2.0)):
            raise AudioDeviceError("the microphones stopped delivering sound")

    def listen_to_room(self, after: float) -> np.ndarray:
        """Learn each channel's noise floor from a quiet moment; returns it (dBFS)."""
        start = after + GUARD
        self._record_until(start + QUIET)
        self.noise_db = noise_floor(self.recorder.window(start, start + QUIET), self.recorder.rate)
        return self.noise_db

    def take(self, after: float) -> np.ndarray:
        """Record one answer: from ``after`` (plus the guard) until the talking has stopped
        for :data:`END_QUIET` seconds, or :data:`MAX_LISTEN` seconds."""
        start = after + GUARD
        t = start
        while True:
            t = min(t + POLL, start + MAX_LISTEN)
            self._record_until(t)
            samples = self.recorder.window(start, t)
            span = speech_span(samples, self.recorder.rate, self.noise_db)
            if span is not None and (t - start) - span[1] >= END_QUIET:
                return samples
            if t >= start + MAX_LISTEN:
                return samples

    # -- seating --

    def mic(self, channel: int) -> str:
        """How the host names a channel aloud: 'microphone 3' (counting across devices)."""
        return f"microphone {channel + 1}"

    def place(self, name: str, taken: Mapping[int, str], may_share: bool) -> Placement:
        """Ask ``name`` to say their name until one channel is clearly theirs."""
        prompt = f"{name}, please say your name."
        last: ChannelChoice | None = None
        for attempt in range(1, self.attempts + 1):
            end = self.say(prompt)
            self.log(f"  listening for {name} (take {attempt} of {self.attempts}) ...")
            samples = self.take(end)
            devices = [c.device for c in self.recorder.channels]
            copies = duplicate_channels(samples, devices)
            candidates = [c for c in range(len(devices)) if c not in copies]
            choice = loudest_channel(samples, self.recorder.rate, self.noise_db, candidates=candidates)
            last = choice
            self.log("  " + self.describe(choice))
            if choice.verdict is Verdict.SILENT:
                prompt = f"{name}, I did not hear you. Please say your name again, a little louder."
            elif choice.verdict is Verdict.UNCLEAR:
                assert choice.channel is not None and choice.runner_up is not None
                prompt = (
                    f"{name}, you sounded the same on {self.mic(choice.channel)} and "
                    f"{self.mic(choice.runner_up)}. Please say your name again, close to your microphone."
                )
            elif choice.channel in taken and not may_share:
                assert choice.channel is not None
                prompt = (
                    f"{name}, that was loudest on {taken[choice.channel]}'s microphone. "
                    "Please say your name again, close to your own microphone."
                )
            else:
                assert choice.channel is not None
                return Placement(name, choice.channel, choice.margin_db, attempt)
        self.say(
            f"I could not find {name}'s microphone. Please check that every microphone is "
            "plugged in and close to its player, then start the setup again."
        )
        raise SetupFailed(
            f"could not tell which microphone is {name}'s after {self.attempts} tries "
            f"({self.describe(last) if last else 'nothing heard'}); check the microphones "
            "or write the table config by hand (see docs/table.md)"
        )

    def describe(self, choice: ChannelChoice) -> str:
        """One line for the terminal about a take."""
        if choice.verdict is Verdict.SILENT or choice.channel is None:
            return "heard nobody talking"
        levels = ", ".join(f"{i + 1}: {v:.0f}" for i, v in enumerate(choice.levels_db))
        lead = "" if choice.runner_up is None else f", {choice.margin_db:.1f} dB over microphone {choice.runner_up + 1}"
        return (
            f"loudest on microphone {choice.channel + 1} ({self.recorder.channels[choice.channel]}){lead}; "
            f"levels dBFS {levels}"
        )

    def seat_players(self, names: Sequence[str], after: float) -> list[Placement]:
        """Find every player's channel, in turn, confirming each aloud."""
        if len(self.recorder.channels) == 1:
            self.say(
                "There is one microphone, so everybody shares it. I can run the turns and "
                "judge what you say, but I cannot tell who shouted first in a race."
            )
            return [Placement(name, 0, float("inf"), 0) for name in names]
        self.listen_to_room(after)
        self.log("  noise floor dBFS: " + ", ".join(f"{i + 1}: {v:.0f}" for i, v in enumerate(self.noise_db)))
        may_share = len(self.recorder.channels) < len(names)
        placements: list[Placement] = []
        for name in names:
            taken = {p.channel: p.name for p in placements}
            placement = self.place(name, taken, may_share)
            placements.append(placement)
            sharing = taken.get(placement.channel)
            self.say(
                f"{name}, you share {self.mic(placement.channel)} with {sharing}."
                if sharing
                else f"{name}, you are on {self.mic(placement.channel)}."
            )
        return placements

    # -- latency --

    def measure_latency(self, devices: Mapping[DeviceSpec, Sequence[int]], after: float) -> Offsets:
        """Play clicks on the table speaker and compare their arrival on each device
        (``devices``: each device with the channels to look at)."""
        if self.clicks is None:
            raise SetupFailed("no table speaker to play the calibration clicks on")
        rng = np.random.default_rng(self.seed)
        click = make_click(self.clicks.rate)
        template = resample(click, self.clicks.rate, self.recorder.rate)
        self._record_until(after + GUARD)
        played = []
        for _ in range(self.click_count):
            played.append(self.clicks.play(click))
            self.clock.sleep(float(rng.uniform(*CLICK_GAP)))
        self._record_until(played[-1] + CLICK_SEARCH[1] + 0.05)
        delays: dict[DeviceSpec, list[float | None]] = {device: [] for device in devices}
        for t in played:
            window = self.recorder.window(t + CLICK_SEARCH[0], t + CLICK_SEARCH[1])
            for device, columns in devices.items():
                delays[device].append(self._arrival(window, columns, template))
        for device, values in delays.items():
            shown = ", ".join("-" if d is None else f"{d * 1000:.1f}" for d in values)
            self.log(f"  clicks heard on {device!r} after (ms): {shown}")
        try:
            return relative_offsets(delays, min_clicks=max(1, (self.click_count + 1) // 2))
        except SetupFailed as error:
            raise SetupFailed(
                f"latency measurement failed: {error}; turn the table speaker up and "
                "keep the room quiet, then run setup-table again"
            ) from None

    def _arrival(self, window: np.ndarray, columns: Sequence[int], template: np.ndarray) -> float | None:
        """Delay of the click on the best of ``columns`` (seconds after it was played)."""
        best: tuple[float, float] | None = None
        for column in columns:
            x = window[:, column]
            at = click_arrival(x, self.recorder.rate, template)
            if at is None:
                continue
            strength = float(np.max(np.abs(x)))
            if best is None or strength > best[0]:
                best = (strength, at)
        return None if best is None else best[1] + CLICK_SEARCH[0]

    # -- all of it --

    def run(self, names: Sequence[str], *, speaker: DeviceSpec | None, phones: DeviceSpec | None) -> SetupResult:
        """Seat every player, measure latencies when seats are on several devices, confirm the
        earphones, and say the summary; returns the table (not yet saved)."""
        end = self.say("Let's set up the table. Please stay quiet for a moment while I listen to the room.")
        placements = self.seat_players(names, end)
        channels = self.recorder.channels
        by_device: dict[DeviceSpec, list[int]] = {}
        for p in placements:
            by_device.setdefault(channels[p.channel].device, []).append(p.channel)
        offsets = None
        if len(by_device) > 1:
            end = self.say(
                "Now I will measure how late each microphone hears. Please stay quiet: you will hear a few clicks."
            )
            offsets = self.measure_latency(by_device, end)
        seats = tuple(
            Seat(
                p.name,
                channels[p.channel],
                None if phones is None else Channel(phones, k),
                0.0 if offsets is None else offsets.offsets[channels[p.channel].device],
            )
            for k, p in enumerate(placements, start=1)
        )
        table = Table(speaker, seats)
        if phones is not None:
            self.check_earphones(table)
        self.summarise(table, offsets)
        warnings = tuple(self.table_warnings(table, offsets))
        return SetupResult(table, tuple(placements), offsets, warnings)

    # -- enrolment --

    def enrol(
        self,
        seats: Sequence[tuple[str, int]],
        words: Sequence[str],
        folder: Path,
        *,
        takes: int = ENROL_TAKES,
        after: float | None = None,
    ) -> EnrolResult:
        """Ask every player (name, channel index of the recorder) to say every word ``takes``
        times; save each take as ``folder/NAME/WORD-N.wav`` (16 kHz mono, the word with 0.25 s
        around it). A take that is silent, too short or too long is asked for again."""
        started = self.clock.now()
        end = (
            after
            if after is not None
            else self.say(
                "Now each of you will say the game's words, so that I learn your voices. "
                "Please stay quiet for a moment."
            )
        )
        self.listen_to_room(end)
        saved: dict[str, list[Path]] = {}
        per_player: dict[str, float] = {}
        for name, channel in seats:
            begun = self.clock.now()
            self.say(f"{name}, it is your turn. Say each word when I ask, as you would shout it in the game.")
            for word in words:
                for k in range(1, takes + 1):
                    saved.setdefault(name, []).append(self._enrol_take(name, channel, word, k, takes, folder))
            per_player[name] = self.clock.now() - begun
        self.say("Thank you, I know your voices now.")
        return EnrolResult(saved, per_player, self.clock.now() - started)

    def _enrol_take(self, name: str, channel: int, word: str, k: int, takes: int, folder: Path) -> Path:
        import soundfile

        prompt = f"{word}." if k > 1 else f"{name}, say: {word}."
        for attempt in range(1, self.attempts + 1):
            end = self.say(prompt)
            self.log(f"  listening for {name} saying {word!r} (take {k} of {takes}) ...")
            samples = self.take(end)[:, channel]
            rate = self.recorder.rate
            span = speech_span(samples[:, np.newaxis], rate, self.noise_db[channel : channel + 1])
            if span is None:
                prompt = f"{name}, I did not hear you. Say {word}, a little louder."
                continue
            length = span[1] - span[0]
            if length < ENROL_MIN or length > ENROL_MAX:
                prompt = f"{name}, that was too {'short' if length < ENROL_MIN else 'long'}. Say just {word}, once."
                continue
            a = max(0, int((span[0] - ENROL_PAD) * rate))
            b = min(len(samples), int((span[1] + ENROL_PAD) * rate))
            path = folder / name / f"{word}-{k}.wav"
            path.parent.mkdir(parents=True, exist_ok=True)
            soundfile.write(str(path), resample(samples[a:b], rate, 16000), 16000, subtype="PCM_16")
            self.log(f"  saved {path} ({length:.2f} s of speech)")
            return path
        self.say(f"I could not hear {name} say {word}. Let's check the microphone and try again later.")
        raise SetupFailed(
            f"could not record {name} saying {word!r} after {self.attempts} tries; check {name}'s "
            "microphone and run 'voicehost enrol' again"
        )

    def check_earphones(self, table: Table) -> None:
        """Whisper to each seat on their own earphone, so a swapped cable is noticed now."""
        from voicehost.speak.output import seat as seat_route

        for k, s in enumerate(table.seats, start=1):
            self.say(f"{s.name}, this is your earphone.", seat_route(k))

    def summarise(self, table: Table, offsets: Offsets | None) -> None:
        """Say where everybody sits (and what the latencies are) in a few words."""
        channels = list(self.recorder.channels)
        parts = [f"{s.name} on {self.mic(channels.index(s.channel))}" for s in table.seats]
        text = "All set. " + ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] + "."
        if offsets is not None and offsets.offsets:
            slowest = max(offsets.offsets.values())
            text += f" The slowest microphone hears {slowest * 1000:.0f} milliseconds late; I will allow for it."
        if table.single_microphone and len(table.seats) > 1:
            text += " With one microphone, races cannot be ranked."
        self.say(text)

    def table_warnings(self, table: Table, offsets: Offsets | None) -> list[str]:
        """Plain-words notes about the result for the terminal."""
        notes = []
        if offsets is not None:
            for device, spread in offsets.spread.items():
                if spread > 0.002:
                    notes.append(
                        f"the clicks on {device!r} disagreed by up to {spread * 1000:.1f} ms: "
                        "its latency is uncertain (a noisy room?); consider running setup-table again"
                    )
        return notes
