"""Where the host's speech goes: the table speaker, one seat's earphone, or a WAV file.

A :class:`Route` says who may hear (everyone, or one seat); a :class:`Sink` is where the
sound goes. Two kinds of sink:

- real time (:class:`DeviceSink`): plays through sounddevice on one device and channel; it
  reports when the first and last samples reached the speaker (PortAudio's DAC times), so the
  speaking spans are what the microphones actually heard;
- timeline (:class:`RecordingSink`, :class:`WavSink`, :class:`NullSink`): places each buffer at
  a time on the session clock and computes its span from its duration, without waiting. With a
  simulated clock (replays, scripted games) nothing runs in real time; a WAV sink writes the
  whole timeline when closed (machines without a sound card, ``voicehost demo``).
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from voicehost.audio.buffer import Audio, check_writable, write_wav
from voicehost.audio.devices import DEFAULT_LATENCY, ChannelPlayer, DeviceInfo, PlaybackHandle, find_device, play
from voicehost.clock import Clock
from voicehost.errors import AudioDeviceError


@dataclass(frozen=True)
class Route:
    """Who may hear an utterance."""

    seat: int | None = None
    """None: the table speaker, everyone hears. A number (1-based): only that seat's earphone."""

    def __str__(self) -> str:
        return "table" if self.seat is None else f"seat {self.seat}"

    @property
    def private(self) -> bool:
        """True for one seat's earphone."""
        return self.seat is not None


TABLE = Route()
"""The table speaker."""


def seat(number: int) -> Route:
    """The private route to seat ``number`` (1-based)."""
    if number < 1:
        raise ValueError(f"seats count from 1, not {number}")
    return Route(number)


@dataclass(frozen=True)
class SpeakingSpan:
    """A time span during which the host makes sound on one output.

    Published twice for live outputs: when the sound starts (``final`` False, ``end`` is the
    planned end) and when it stops (``final`` True). Keep the latest version per ``id``.
    """

    id: int
    """Identifies the utterance; a later span with the same id replaces the earlier one."""
    route: Route
    """Which output: the table (heard by every microphone) or one seat's earphone."""
    start: float
    """Seconds on the session clock: the first sample reaches the speaker."""
    end: float
    """Seconds on the session clock: just after the last audible sample."""
    text: str
    """What was said, or '(sound: race open)' for an earcon."""
    interrupted: bool = False
    """True when cut short (``end`` is when it went silent) or dropped before it began."""
    final: bool = True
    """False while still playing."""

    @property
    def duration(self) -> float:
        """Seconds."""
        return self.end - self.start

    def covers(self, t: float) -> bool:
        """True if the host is audible at session time ``t``."""
        return self.start <= t < self.end


class Playback(Protocol):
    """One buffer on its way to a sink."""

    def started(self, timeout: float) -> float | None:
        """Session time of the first sample, waiting up to ``timeout`` s; None if not started."""

    def stop(self, at: float) -> None:
        """Cut the sound at session time ``at`` (a real-time sink cuts as soon as it can)."""

    def wait(self, timeout: float) -> bool:
        """Wait until the sound has ended; False on timeout."""

    @property
    def end(self) -> float | None:
        """Session time just after the last audible sample, once known."""

    @property
    def interrupted(self) -> bool:
        """True if :meth:`stop` cut it."""


class Sink(Protocol):
    """An output the speech service can send buffers to."""

    realtime: bool
    """True if buffers really play as time passes (a device); False for a timeline."""
    rate: int
    """Preferred sample rate, Hz (buffers at other rates are resampled)."""

    def open(self) -> object:
        """Get ready to play (a device starts its stream: the first sound then starts on time)."""

    def play(self, audio: Audio, not_before: float) -> Playback:
        """Play ``audio``: a real-time sink starts now, a timeline places it at ``not_before``
        or after what it already holds, whichever is later."""

    def close(self) -> None:
        """Release the device or write the file."""


def mono_at(audio: Audio, rate: int) -> np.ndarray:
    """Mono float32 samples of ``audio`` at ``rate`` Hz."""
    from voicehost.audio.resample import resample

    return resample(audio.samples if audio.samples.ndim == 1 else audio.samples.mean(axis=1), audio.rate, rate)


class DevicePlayback:
    """A buffer playing on a :class:`DeviceSink`; stream times converted to session time."""

    def __init__(self, handle: PlaybackHandle, offset: float) -> None:
        self._handle = handle
        self._offset = offset

    def started(self, timeout: float) -> float | None:
        """Session time of the first sample at the speaker."""
        if not self._handle.started(timeout) or self._handle.first_dac is None:
            return None
        return self._handle.first_dac + self._offset

    def stop(self, at: float) -> None:
        """Cut at the callback's next block (``at`` is ignored: this is real time)."""
        self._handle.stop()

    def wait(self, timeout: float) -> bool:
        """Wait until the last sample has sounded."""
        return self._handle.wait(timeout)

    @property
    def end(self) -> float | None:
        """Session time just after the last audible sample."""
        end = self._handle.end_dac
        return None if end is None else end + self._offset

    @property
    def interrupted(self) -> bool:
        """True if it was cut."""
        return self._handle.interrupted


class DeviceSink:
    """A sound device (and optionally one channel of it) through sounddevice, in real time."""

    realtime = True

    def __init__(
        self,
        device: DeviceInfo,
        channel: int | None,
        clock: Clock,
        *,
        rate: int | None = None,
        latency: float = DEFAULT_LATENCY,
    ) -> None:
        self.player = ChannelPlayer(device, channel, rate=rate, latency=latency)
        self.clock = clock
        self.rate = self.player.rate

    @property
    def name(self) -> str:
        """Device name and channel, for messages."""
        where = repr(self.player.device.name)
        return where if self.player.channel is None else f"{where}, channel {self.player.channel + 1}"

    def open(self) -> "DeviceSink":
        """Start the stream now, so the first utterance does not pay for it."""
        self.player.open()
        return self

    def play(self, audio: Audio, not_before: float) -> DevicePlayback:
        """Resample to the stream's rate and start at the next block."""
        samples = mono_at(audio, self.rate)
        self.player.open()
        offset = self.clock.now() - self.player.time()
        return DevicePlayback(self.player.play(samples), offset)

    def close(self) -> None:
        """Stop and release the stream."""
        self.player.close()


@dataclass
class Placed:
    """One buffer on a timeline."""

    start: float
    """Seconds on the session clock."""
    planned_end: float
    """Seconds: start + duration."""
    samples: np.ndarray | None
    """Mono float32 at the sink's rate (None when the sink keeps no audio)."""
    end: float = field(default=0.0)
    """Seconds: the actual end (earlier when cut)."""
    interrupted: bool = False

    def __post_init__(self) -> None:
        self.end = self.planned_end


class TimelinePlayback:
    """A buffer placed on a timeline: its times are known at once."""

    def __init__(self, placed: Placed, lock: threading.Lock) -> None:
        self._placed = placed
        self._lock = lock

    def started(self, timeout: float) -> float | None:
        """The planned start."""
        return self._placed.start

    def stop(self, at: float) -> None:
        """Cut at session time ``at`` (dropped entirely if it had not begun)."""
        with self._lock:
            placed = self._placed
            if at < placed.end:
                placed.end = max(placed.start, at)
                placed.interrupted = True

    def wait(self, timeout: float) -> bool:
        """Nothing to wait for: a timeline does not play in real time."""
        return True

    @property
    def end(self) -> float | None:
        """The end (cut or planned)."""
        return self._placed.end

    @property
    def interrupted(self) -> bool:
        """True if cut."""
        return self._placed.interrupted


class RecordingSink:
    """A timeline that keeps what it was given: for tests and for :class:`WavSink`."""

    realtime = False

    def __init__(self, rate: int = 22050, *, keep_audio: bool = True) -> None:
        self.rate = rate
        self.keep_audio = keep_audio
        self.placed: list[Placed] = []
        """Everything played, in order, with its (possibly cut) times."""
        self._lock = threading.Lock()

    @property
    def busy_until(self) -> float:
        """Session time when the last buffer that sounds ends (0 when none); dropped ones do not count.

        Each buffer starts after the one before it ends and a cut only ever moves ends earlier
        (dropping all that follow), so the last buffer still sounding ends last: looking back
        from the end keeps a long game linear."""
        with self._lock:
            for placed in reversed(self.placed):
                if placed.end > placed.start:
                    return placed.end
            return 0.0

    def play(self, audio: Audio, not_before: float) -> TimelinePlayback:
        """Place ``audio`` at ``not_before`` or after the last buffer, whichever is later."""
        samples = mono_at(audio, self.rate) if self.keep_audio else None
        start = max(not_before, self.busy_until)
        placed = Placed(start, start + audio.duration, samples)
        with self._lock:
            self.placed.append(placed)
        return TimelinePlayback(placed, self._lock)

    def open(self) -> "RecordingSink":
        """Nothing to open."""
        return self

    def mix(self, origin: float = 0.0) -> Audio:
        """The timeline from session time ``origin`` to the last end, cuts applied, as one buffer."""
        with self._lock:
            placed = [p for p in self.placed if p.samples is not None and p.end > p.start]
            end = max((p.end for p in placed), default=origin)
            out = np.zeros(max(0, int(round((end - origin) * self.rate))), dtype=np.float32)
            for p in placed:
                assert p.samples is not None
                first = int(round((p.start - origin) * self.rate))
                count = min(p.samples.shape[0], int(round((p.end - p.start) * self.rate)))
                if first < 0:
                    continue
                segment = p.samples[:count][: max(0, out.shape[0] - first)]
                out[first : first + segment.shape[0]] += segment
        return Audio(np.clip(out, -1.0, 1.0), self.rate)

    def close(self) -> None:
        """Nothing to release."""


class NullSink(RecordingSink):
    """A timeline that keeps only times, no audio (scripted games that only need the spans)."""

    def __init__(self, rate: int = 22050) -> None:
        super().__init__(rate, keep_audio=False)


class WavSink(RecordingSink):
    """A timeline written to a WAV file when closed (16-bit PCM, mono).

    The file starts at session time ``origin``, so a sound at t = 12.5 s is 12.5 s into the
    file: what a speaker at the table would have played, silences included.
    """

    def __init__(self, path: Path, rate: int = 22050, *, origin: float = 0.0) -> None:
        super().__init__(rate)
        self.path = check_writable(Path(path))
        self.origin = origin
        self.written: Audio | None = None
        """What was written, once closed."""

    def close(self) -> None:
        """Write the file (once)."""
        if self.written is None:
            self.written = self.mix(self.origin)
            write_wav(self.path, self.written)


def device_sink(
    device: str | int | None, channel: int | None, clock: Clock, *, latency: float = DEFAULT_LATENCY
) -> DeviceSink | None:
    """A sink on ``device`` (the default output when None), or None when there is no output.

    An explicitly named device that does not exist is an error; a machine without any default
    output (a server, CI) is not.
    """
    try:
        target = find_device(device, output=True)
    except AudioDeviceError:
        if device is not None:
            raise
        return None
    return None if target is None else DeviceSink(target, channel, clock, latency=latency)


def device_outputs(
    clock: Clock,
    *,
    table: str | int | None,
    phones: str | int | None = None,
    seats: int = 0,
    latency: float = DEFAULT_LATENCY,
) -> dict[Route, Sink]:
    """Sinks for a table: the speaker for :data:`TABLE`, and channel k-1 of ``phones`` for seat k.

    Seats get a private route only when an earphone device is given; a seat without one has no
    private route at all (the service refuses private speech to it rather than say it aloud).
    """
    outputs: dict[Route, Sink] = {}
    speaker = device_sink(table, None, clock, latency=latency)
    if speaker is not None:
        outputs[TABLE] = speaker
    if phones is not None:
        target = find_device(phones, output=True)
        assert target is not None
        if seats > target.max_output_channels:
            raise AudioDeviceError(
                f"earphone device {target.name!r} has {target.max_output_channels} channels, too few for {seats} seats"
            )
        for k in range(1, seats + 1):
            outputs[seat(k)] = DeviceSink(target, k - 1, clock, latency=latency)
    return outputs


def play_or_explain(audio: Audio, device: str | int | None, channel: int | None = None) -> bool:
    """Play on ``device`` (default output when None); say plainly why not if impossible.

    A machine without any output device is normal (a server, CI): that is reported, not raised.
    An explicitly requested device that fails is an error.
    """
    try:
        target = find_device(device, output=True)
    except AudioDeviceError:
        if device is not None:
            raise
        target = None
    if target is None:
        print("no sound output device found: nothing was played", file=sys.stderr)
        return False
    try:
        play(audio, target, channel)
    except AudioDeviceError as error:
        if device is not None:
            raise
        print(f"could not play on the default output ({error})", file=sys.stderr)
        return False
    print(
        f"played {audio.duration:.2f} s on {target.name!r}"
        + (f", channel {channel + 1}" if channel is not None else "")
    )
    return True
