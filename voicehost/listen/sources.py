"""Audio sources: recorded tracks and live microphones, delivering :class:`AudioBlock` s on one
sample clock.

Both kinds feed the same downstream code. Every block carries ``start_frame`` on the session's
frame axis (frame 0 is t = 0) at the listener's rate (normally 16 kHz) and the seats its channels
belong to, so the listener never needs to know where the audio came from.

- Recorded: per-seat files (``--track NAME=PATH``) or one multichannel file, any format
  libsndfile reads (WAV 16/24/32-bit, float, FLAC, …) at 8 to 192 kHz, resampled with soxr. All
  tracks start at t = 0; shorter tracks are padded with silence at the end.
- Live: one sounddevice input stream per device. The callback only copies the block with its ADC
  capture time into a queue; conversion, resampling, anchoring on the session clock, and
  noticing a device that stopped (and reopening it) happen in :meth:`LiveSource.read`.
"""

from __future__ import annotations

import os
import queue
import select
import struct
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from voicehost.audio.resample import resample
from voicehost.clock import Clock, SimClock
from voicehost.errors import AudioDeviceError, AudioFormatError, InputError
from voicehost.listen.messages import AudioBlock, SeatName

LISTEN_RATE = 16000
"""Hz: the rate of everything after the sources (the recognisers' rate)."""
MIN_FILE_RATE = 8000
"""Hz: slowest file rate accepted (telephone quality)."""
MAX_FILE_RATE = 192000
"""Hz: fastest file rate accepted."""


class TrackSpecError(InputError):
    """A ``--track`` or ``--seats`` value is malformed (no file, no name, a seat twice)."""


@dataclass(frozen=True)
class Recording:
    """Recorded audio for every seat, on one time axis, at the listener's rate."""

    seats: tuple[SeatName, ...]
    samples: np.ndarray
    """float32, shape (frames, seats), values in [-1, 1]."""
    rate: int
    """Hz."""
    files: tuple[Path, ...]
    """The files read (one per seat, or one multichannel file)."""

    @property
    def duration(self) -> float:
        """Seconds."""
        return float(self.samples.shape[0] / self.rate)


def parse_track(spec: str) -> tuple[SeatName, Path]:
    """Split ``NAME=PATH`` into the seat name and the file path."""
    name, sep, path = spec.partition("=")
    name, path = name.strip(), path.strip()
    if not sep or not path:
        raise TrackSpecError(f"track {spec!r} has no file: write it as NAME=PATH, e.g. Anna=anna.wav")
    if not name:
        raise TrackSpecError(f"track {spec!r} has no player name: write it as NAME=PATH, e.g. Anna=anna.wav")
    return name, Path(path)


def parse_seats(spec: str) -> tuple[SeatName, ...]:
    """Split ``A,B,C`` into seat names (non-empty, distinct)."""
    names = tuple(part.strip() for part in spec.split(","))
    if not names or any(not n for n in names):
        raise TrackSpecError(f"--seats {spec!r} has an empty name: write it as NAME,NAME,...")
    check_distinct(names, {})
    return names


def check_distinct(names: Sequence[SeatName], files: dict[SeatName, list[Path]]) -> None:
    """Refuse a seat named twice, naming the files involved."""
    seen: set[SeatName] = set()
    for name in names:
        if name in seen:
            where = " and ".join(str(p) for p in files.get(name, []))
            raise TrackSpecError(
                f"seat {name!r} is given twice"
                + (f" ({where})" if where else "")
                + ": every player needs their own track"
            )
        seen.add(name)


def load_tracks(tracks: Sequence[tuple[SeatName, Path]], rate: int = LISTEN_RATE) -> Recording:
    """Read one file per seat (mono; several channels are mixed down), pad to the longest."""
    if not tracks:
        raise TrackSpecError("no tracks given: add --track NAME=PATH for every player")
    by_name: dict[SeatName, list[Path]] = {}
    for name, path in tracks:
        by_name.setdefault(name, []).append(path)
    check_distinct([name for name, _ in tracks], by_name)
    columns = []
    for _, path in tracks:
        samples, file_rate = read_audio(path)
        mono = samples.mean(axis=1) if samples.shape[1] > 1 else samples[:, 0]
        columns.append(resample(mono, file_rate, rate))
    return Recording(tuple(n for n, _ in tracks), pad_and_stack(columns), rate, tuple(p for _, p in tracks))


def load_multichannel(path: Path, seats: Sequence[SeatName], rate: int = LISTEN_RATE) -> Recording:
    """Read one file whose channel i belongs to ``seats[i]`` (extra channels are ignored)."""
    check_distinct(seats, {})
    samples, file_rate = read_audio(path)
    if samples.shape[1] < len(seats):
        raise AudioFormatError(
            f"{path}: has {samples.shape[1]} channel(s) but {len(seats)} seats were named "
            f"({', '.join(seats)}); give one channel per seat"
        )
    columns = [resample(samples[:, i], file_rate, rate) for i in range(len(seats))]
    return Recording(tuple(seats), pad_and_stack(columns), rate, (Path(path),))


def read_audio(path: Path) -> tuple[np.ndarray, int]:
    """Read a whole audio file as float32 (frames, channels), refusing empty, truncated or
    unreadable files with a one-line reason naming the file."""
    import soundfile

    path = Path(path)
    if not path.exists():
        raise AudioFormatError(f"{path}: no such file")
    if path.is_dir():
        raise AudioFormatError(f"{path}: is a folder, not an audio file")
    if path.stat().st_size == 0:
        raise AudioFormatError(f"{path}: the file is empty")
    try:
        info = soundfile.info(str(path))
    except (RuntimeError, soundfile.LibsndfileError) as error:
        raise AudioFormatError(f"{path}: not a readable audio file ({_reason(error)})") from error
    if info.channels < 1:
        raise AudioFormatError(f"{path}: has no channels")
    if not MIN_FILE_RATE <= info.samplerate <= MAX_FILE_RATE:
        raise AudioFormatError(
            f"{path}: sample rate {info.samplerate} Hz is not supported (use {MIN_FILE_RATE} to {MAX_FILE_RATE} Hz)"
        )
    _check_not_truncated(path, info)
    try:
        samples, file_rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, soundfile.LibsndfileError) as error:
        raise AudioFormatError(f"{path}: cannot be decoded ({_reason(error)})") from error
    if samples.shape[0] == 0:
        raise AudioFormatError(f"{path}: contains no audio samples")
    if not np.all(np.isfinite(samples)):
        raise AudioFormatError(f"{path}: contains invalid (NaN or infinite) samples")
    return np.ascontiguousarray(samples), int(file_rate)


def _reason(error: Exception) -> str:
    text = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
    return text.split(": ", 1)[-1] if text.startswith("Error opening") else text


def _check_not_truncated(path: Path, info: Any) -> None:
    """libsndfile silently reads what is there; compare a WAV's declared data size to the file."""
    if info.format not in ("WAV", "WAVEX"):
        return
    declared = _wav_data_bytes(path)
    if declared is None:
        return
    offset, size = declared
    actual = path.stat().st_size - offset
    if size not in (0, 0xFFFFFFFF) and actual < size:
        raise AudioFormatError(
            f"{path}: is truncated ({actual} of {size} audio bytes present); re-export or re-copy the file"
        )


def _wav_data_bytes(path: Path) -> tuple[int, int] | None:
    """(offset, declared size) of a RIFF WAV's data chunk, or None if the header is unusual."""
    with open(path, "rb") as handle:
        head = handle.read(65536)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(head):
        chunk, size = head[pos : pos + 4], struct.unpack("<I", head[pos + 4 : pos + 8])[0]
        if chunk == b"data":
            return pos + 8, size
        pos += 8 + size + (size & 1)
    return None


def pad_and_stack(columns: Sequence[np.ndarray]) -> np.ndarray:
    """Stack channels into (frames, channels), padding shorter ones with silence at the end."""
    frames = max(len(c) for c in columns)
    out = np.zeros((frames, len(columns)), dtype=np.float32)
    for i, column in enumerate(columns):
        out[: len(column), i] = column
    return out


class FileSource:
    """Replays a :class:`Recording` as blocks; with a :class:`SimClock` it moves the clock to the
    end of each block, so timers downstream see the same times as live, only faster."""

    def __init__(self, recording: Recording, block_frames: int = 1024, clock: Clock | None = None) -> None:
        if block_frames < 1:
            raise ValueError(f"block_frames must be positive, not {block_frames}")
        self.recording = recording
        self.block_frames = block_frames
        self.clock = clock

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Seat of each channel."""
        return self.recording.seats

    def blocks(self) -> Iterator[AudioBlock]:
        """Every block in order; the last one may be shorter."""
        rec = self.recording
        for start in range(0, rec.samples.shape[0], self.block_frames):
            chunk = rec.samples[start : start + self.block_frames]
            if isinstance(self.clock, SimClock):
                self.clock.advance_to((start + chunk.shape[0]) / rec.rate)
            yield AudioBlock(chunk, start, rec.rate, capture_time=start / rec.rate, seats=rec.seats)


@dataclass(frozen=True)
class LiveInput:
    """One input device and the seats on its channels."""

    device: str | int
    """PortAudio device: index or (part of) its name."""
    seats: tuple[SeatName, ...]
    """Seat of each used channel."""
    channels: tuple[int, ...] = ()
    """0-based device channel of each seat (default: 0, 1, 2, …)."""

    def channel_of(self) -> tuple[int, ...]:
        """The device channel of each seat."""
        return self.channels or tuple(range(len(self.seats)))


OPEN_SECONDS = 3.0
"""Seconds a freshly opened stream may take to deliver its first block (an idle PulseAudio source
takes 0.5 to 2 s, measured on PulseAudio 16.1)."""
STALL_SECONDS = 1.5
"""Seconds on the session clock without a block after which a running device counts as lost."""
RETRY_SECONDS = 1.0
"""Seconds between attempts to reopen a lost device."""
MAX_REPORTED_LATENCY = 0.3
"""Seconds: a stream reporting a longer input latency (callback time minus ADC time) at its first
block is not believed (PulseAudio's ALSA plugin reports 0.36 to 0.54 s on a stream that opened
on an idle source, whose audio in fact arrives in time); the block's arrival anchors it instead.
Bluetooth headsets report up to about 0.25 s, which is kept."""
PROBE_EVERY = 0.25
"""Seconds between a probe's tries to open a lost device (a failed try costs about 2 ms)."""
ANCHOR_BLOCKS = 5
"""Blocks a (re)opened stream delivers before it is placed on the session clock (0.1 s held back)."""
FILL_LAG = 0.1
"""Seconds behind the clock up to which a lost device's seats are filled with silence when no
other device is running (keeps the listener deciding without waiting for a device that is gone)."""


@dataclass(frozen=True)
class DeviceChange:
    """A microphone device stopped delivering sound, or delivers again."""

    device: str
    """The device as the table config names it."""
    seats: tuple[SeatName, ...]
    lost: bool
    """True: it stopped; False: it is back (re-anchored on the session clock)."""
    t: float
    """Seconds on the session clock when it was noticed."""
    reason: str = ""
    """Why it counts as lost: 'no sound for 1.5 s', 'the stream stopped', or the open error."""


@dataclass
class DeviceStats:
    """What happened to one device during a session (for the final summary)."""

    device: str
    seats: tuple[SeatName, ...]
    overflows: int = 0
    """Blocks PortAudio flagged as input overflow (audio was lost before them)."""
    outages: int = 0
    """Times the device stopped delivering sound."""
    down_seconds: float = 0.0
    """Seconds without sound from it (finished outages)."""
    arrival_anchors: int = 0
    """Times a stream's reported capture time was not believed (see MAX_REPORTED_LATENCY)."""


class _Phase(Enum):
    PRIMING = "priming"
    """Opened to wake the source up; closed and reopened as soon as sound flows."""
    RUNNING = "running"
    LOST = "lost"


class _Device:
    """One input device: its current stream and where its frames go (reader side only).

    Everything here runs in the thread that calls :meth:`LiveSource.read`; the stream's callback
    only puts ``(samples, adc_time, callback_time, overflow)`` into the queue of that stream.
    """

    def __init__(self, spec: LiveInput, index: int, channels: int, rate: int) -> None:
        self.spec = spec
        self.index = index
        self.channels = channels
        self.rate = rate
        """Device rate, Hz."""
        self.stream: Any = None
        self.blocks: queue.Queue[tuple[np.ndarray, float, float, bool]] = queue.Queue()
        self.phase = _Phase.LOST
        self.opened_at = 0.0
        """Session seconds when the current stream was opened."""
        self.last_block_at = 0.0
        """Session seconds when a block was last taken from the queue."""
        self.flowing = False
        """True once the current stream has delivered a block (before that it may take a while)."""
        self.next_try = 0.0
        self.resampler: Any = None
        self.origin: int | None = None
        """Session frame (listener rate) of the current stream's first frame; None until anchored."""
        self.delivered = 0
        """Frames (listener rate) the current stream has produced since its anchor."""
        self.end = 0
        """Session frame up to which this device's seats have been delivered (or filled)."""
        self.pending: list[tuple[np.ndarray, float, float, bool]] = []
        """The current stream's first blocks, held until there are enough to anchor it."""
        self.lost_at: float | None = None
        """Session seconds when it was lost (None while it delivers)."""
        self.probe: Any = None
        """While lost: the child process asking whether it is back (see :mod:`voicehost.audio.probe`)."""
        self.holder: Any = None
        """The probe whose flowing stream keeps the source awake until the reader's priming stream flows."""
        self.stats = DeviceStats(str(spec.device), spec.seats)


class LiveSource:
    """Microphones: one sounddevice input stream per device, read as :class:`AudioBlock` s.

    The callback copies ``indata`` and the block's ADC capture time into a queue and returns.
    :meth:`read` converts capture times to the session clock (the injected clock), resamples to
    the listener's rate and places each device's frames on the session's frame axis.

    Devices come and go. A device that delivers nothing for :data:`STALL_SECONDS` (measured on
    the session clock when reading, never in the callback), or whose stream stopped, is *lost*:
    its stream is closed, a :class:`DeviceChange` is queued for :meth:`changes`, its seats are
    filled with silence so the listener keeps deciding for everybody else, and a probe process
    (:mod:`voicehost.audio.probe`) tries to open it every :data:`PROBE_EVERY` seconds (a new probe
    :data:`RETRY_SECONDS` after one that failed or crashed). Every opened stream is *primed*: the
    first stream on an idle PulseAudio source reports capture times off by 0.3 to 0.5 s (measured
    against a click's playback time; the second is right to within 6 ms), so the stream that is
    read is always a second one: the reader's first stream is closed as soon as sound flows and
    opened again at once. For a lost device the probe's stream is held open until the reader's
    first stream flows (so the idle source's wait for a first block, up to 2 s, is paid once).
    The first blocks then anchor the stream on the session clock again. Input overflows are
    counted (:attr:`stats`), never fatal.
    """

    def __init__(
        self,
        inputs: Sequence[LiveInput],
        clock: Clock,
        rate: int = LISTEN_RATE,
        device_rate: int | None = None,
        block_seconds: float = 0.02,
        *,
        stall_seconds: float = STALL_SECONDS,
        retry_seconds: float = RETRY_SECONDS,
        open_seconds: float = OPEN_SECONDS,
    ) -> None:
        if not inputs:
            raise InputError("no input devices given")
        check_distinct([s for i in inputs for s in i.seats], {})
        self.inputs = tuple(inputs)
        self.clock = clock
        self.rate = rate
        self.device_rate = device_rate
        self.block_seconds = block_seconds
        self.stall_seconds = stall_seconds
        self.retry_seconds = retry_seconds
        self.open_seconds = open_seconds
        self._devices: list[_Device] = []
        self._changes: list[DeviceChange] = []
        self._sd: Any = None

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Every seat, device by device."""
        return tuple(s for i in self.inputs for s in i.seats)

    @property
    def stats(self) -> list[DeviceStats]:
        """Overflows and outages so far, device by device (an outage still going on counts up to now)."""
        now = self.clock.now()
        out = []
        for device in self._devices:
            stats = replace(device.stats)
            if device.lost_at is not None:
                stats.down_seconds += now - device.lost_at
            out.append(stats)
        return out

    @property
    def lost(self) -> tuple[SeatName, ...]:
        """Seats whose device is lost right now."""
        return tuple(s for d in self._devices if d.lost_at is not None for s in d.spec.seats)

    def changes(self) -> list[DeviceChange]:
        """Devices lost or back since the last call, in the order noticed."""
        changes, self._changes = self._changes, []
        return changes

    def start(self, timeout: float = 5.0) -> "LiveSource":
        """Open every device's stream and wait until sound flows from each (primed, see above)."""
        from voicehost.audio.devices import find_device, sounddevice_module

        self._sd = sounddevice_module()
        try:
            for spec in self.inputs:
                info = find_device(spec.device, output=False)
                if info is None:
                    raise AudioDeviceError("no default input device: name one (see 'voicehost devices')")
                needed = max(spec.channel_of()) + 1
                if needed > info.max_input_channels:
                    raise AudioDeviceError(
                        f"device {info.name!r} has {info.max_input_channels} input channels;"
                        f" seat channel {needed} does not exist"
                    )
                device = _Device(spec, info.index, needed, int(self.device_rate or info.default_samplerate))
                self._devices.append(device)
                self._open(device, _Phase.PRIMING)
            deadline = time.monotonic() + timeout
            while any(d.phase is not _Phase.RUNNING or d.origin is None for d in self._devices):
                if time.monotonic() >= deadline:
                    names = ", ".join(
                        repr(d.spec.device) for d in self._devices if d.phase is not _Phase.RUNNING or d.origin is None
                    )
                    raise AudioDeviceError(f"no sound came from {names} within {timeout:.0f} s")
                for device in self._devices:
                    self._poll(device, self.clock.now())
                time.sleep(0.005)
        except BaseException:
            self.stop()
            raise
        self.begin()
        return self

    def begin(self) -> None:
        """Forget what was captured so far: frames from now on are placed on the session clock as
        it reads now (call it right after the clock was started; :meth:`start` calls it too)."""
        floor = max(0, int(round(self.clock.now() * self.rate)))
        self._changes = []
        for device in self._devices:
            _drain_queue(device.blocks)
            device.origin, device.delivered, device.end, device.pending = None, 0, floor, []
            device.last_block_at = device.opened_at = self.clock.now()
            device.stats = DeviceStats(str(device.spec.device), device.spec.seats)
            if device.lost_at is not None:
                device.lost_at = self.clock.now()
                device.stats.outages = 1
            if device.resampler is not None:
                device.resampler = self._resampler(device)

    def _resampler(self, device: _Device) -> Any:
        if device.rate == self.rate:
            return None
        import soxr

        return soxr.ResampleStream(device.rate, self.rate, len(device.spec.seats), dtype="float32", quality="HQ")

    def _open(self, device: _Device, phase: _Phase, *, quiet: bool = False) -> None:
        """Open a stream on ``device`` (raises AudioDeviceError); ``quiet`` keeps PortAudio's and
        ALSA's own complaints off the terminal (a lost device is retried every second)."""
        sd = self._sd
        blocks: queue.Queue[tuple[np.ndarray, float, float, bool]] = queue.Queue()

        def callback(indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
            blocks.put((indata.copy(), time_info.inputBufferAdcTime, time_info.currentTime, status.input_overflow))

        try:
            with _quiet_stderr(quiet):
                stream = sd.InputStream(
                    device=device.index,
                    channels=device.channels,
                    samplerate=device.rate,
                    dtype="float32",
                    blocksize=max(1, int(device.rate * self.block_seconds)),
                    callback=callback,
                )
                stream.start()
        except sd.PortAudioError as error:
            raise AudioDeviceError(f"cannot open input device {device.spec.device!r}: {error}") from error
        device.stream, device.blocks, device.phase = stream, blocks, phase
        device.opened_at, device.flowing = self.clock.now(), False
        device.origin, device.delivered, device.pending = None, 0, []
        device.resampler = self._resampler(device)

    def _close(self, device: _Device) -> None:
        """Abort, not stop: stopping a stream whose PulseAudio source vanished waits 40 s and more."""
        if device.stream is not None:
            try:
                device.stream.abort()
                device.stream.close()
            except self._sd.PortAudioError:
                pass
            device.stream = None

    def read(self, timeout: float = 0.5) -> list[AudioBlock]:
        """Blocks captured since the last call (waits up to ``timeout`` seconds for the first);
        silence for the seats of lost devices; lost and returning devices noted for :meth:`changes`."""
        out: list[AudioBlock] = []
        deadline = time.monotonic() + timeout
        while True:
            now = self.clock.now()
            for device in self._devices:
                out.extend(self._poll(device, now))
            out.extend(self._fill(now))
            if out or time.monotonic() >= deadline:
                return out
            time.sleep(0.005)

    def _poll(self, device: _Device, now: float) -> list[AudioBlock]:
        """Take the device's blocks and move its state along (priming → running → lost → priming)."""
        if device.phase is _Phase.LOST:
            self._retry(device, now)
            return []
        if device.phase is _Phase.PRIMING:
            if not device.blocks.empty():
                # The probe lets go now, not once the stream read flows: its stream closing under
                # the running one changed the source's latency and moved clicks 11 to 18 ms.
                self._release(device)
                self._close(device)
                try:
                    self._open(device, _Phase.RUNNING, quiet=device.lost_at is not None)
                except AudioDeviceError as error:
                    self._lose(device, now, str(error))
            elif now - device.opened_at > self.open_seconds:
                self._lose(device, now, f"no sound within {self.open_seconds:g} s of opening it")
            return []
        if not device.blocks.empty():
            device.last_block_at, device.flowing = now, True
            return self._take(device)
        if not device.stream.active:
            self._lose(device, now, "its stream stopped")
        elif device.flowing and now - device.last_block_at > self.stall_seconds:
            self._lose(device, now, f"no sound for {self.stall_seconds:g} s")
        elif not device.flowing and now - device.opened_at > self.open_seconds:
            self._lose(device, now, f"no sound within {self.open_seconds:g} s of opening it")
        return []

    def _retry(self, device: _Device, now: float) -> None:
        """A lost device: a probe process asks whether it opens and delivers again (opening a
        vanished device in this process crashed it now and then: see :mod:`voicehost.audio.probe`);
        once the probe says so, it is opened here."""
        probe = device.probe
        if probe is None:
            if now >= device.next_try:
                device.probe = self._start_probe(device)
                if device.probe is None:  # no child process possible: try it here, as before
                    self._reopen(device, now)
            return
        if select.select([probe.stdout], [], [], 0)[0] and probe.stdout.readline().strip() == "flowing":
            # Sound flows in the probe, whose stream keeps the source awake until the reader's flows:
            # the reader's own priming stream, opened beside it, then delivers at once (on an idle
            # source it would wait up to 2 s more). Skipping that priming placed a click 18 ms off.
            device.probe, device.holder = None, probe
            self._reopen(device, now)
            return
        if probe.poll() is not None:  # not listed now, or the probe itself crashed: another one after a pause
            self._stop_probe(device)
            device.next_try = now + self.retry_seconds

    def _reopen(self, device: _Device, now: float) -> None:
        try:
            self._open(device, _Phase.PRIMING, quiet=True)
        except AudioDeviceError:
            self._release(device)
            device.next_try = now + self.retry_seconds

    def _start_probe(self, device: _Device) -> Any:
        """``python -m voicehost.audio.probe`` for ``device`` (None if no process can be started)."""
        command = [sys.executable, "-m", "voicehost.audio.probe", "--device", str(device.spec.device)]
        command += ["--channels", str(device.channels), "--rate", str(device.rate)]
        command += ["--every", f"{PROBE_EVERY:g}", "--wait", f"{self.open_seconds:g}"]
        try:
            return subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
            )
        except OSError:
            return None

    @staticmethod
    def _stop_probe(device: _Device) -> None:
        """End the device's probe and the one holding its stream, if any."""
        for process in (device.probe, device.holder):
            if process is None:
                continue
            if process.poll() is None:
                process.kill()
            process.wait()
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()
        device.probe = device.holder = None

    @staticmethod
    def _release(device: _Device) -> None:
        """The reader's priming stream flows: the probe holding its own may close it and exit."""
        holder, device.holder = device.holder, None
        if holder is None:
            return
        try:
            holder.stdin.close()
            holder.wait(timeout=2.0)
        except (OSError, ValueError):
            pass
        except subprocess.TimeoutExpired:  # it hangs in the audio library
            holder.kill()
            holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()

    def _take(self, device: _Device) -> list[AudioBlock]:
        out: list[AudioBlock] = []
        while True:
            try:
                item = device.blocks.get_nowait()
            except queue.Empty:
                return out
            if device.origin is None:
                device.pending.append(item)
                if len(device.pending) < ANCHOR_BLOCKS:
                    continue
                self._anchor(device, device.pending)
                items, device.pending = device.pending, []
            else:
                items = [item]
                if item[3]:
                    self._jump(device, item)
            for data, _, _, overflow in items:
                if overflow:
                    device.stats.overflows += 1
                out.extend(self._place(device, data))

    def _place(self, device: _Device, data: np.ndarray) -> list[AudioBlock]:
        """The block's seats at the listener's rate, after the frames already delivered (or filled)."""
        assert device.origin is not None
        picked = np.ascontiguousarray(data[:, list(device.spec.channel_of())])
        if device.resampler is not None:
            picked = device.resampler.resample_chunk(picked)
        start = device.origin + device.delivered
        device.delivered += picked.shape[0]
        skip = device.end - start
        if skip >= picked.shape[0]:
            return []
        if skip > 0:
            picked, start = picked[skip:], device.end
        device.end = start + picked.shape[0]
        return [AudioBlock(picked, start, self.rate, capture_time=start / self.rate, seats=device.spec.seats)]

    def _stamp(self, device: _Device, frames: int, adc: float, current: float) -> tuple[float, bool]:
        """Stream time at which a block's first frame was captured, and whether its ADC time was believed."""
        if adc > 0 and 0.0 <= current - adc <= MAX_REPORTED_LATENCY:
            return adc, True
        return current - frames / device.rate, False

    def _anchor(self, device: _Device, items: list[tuple[np.ndarray, float, float, bool]]) -> None:
        """Place a (re)opened stream on the session's frame axis from its first blocks: the median
        of what each block's capture time says of the first frame (a fresh stream's very first
        stamp is often 5 to 20 ms early; the following ones agree with each other)."""
        offset = self.clock.now() - float(device.stream.time)
        starts, believed, before = [], 0, 0
        for data, adc, current, _ in items:
            t, ok = self._stamp(device, data.shape[0], adc, current)
            starts.append(t - before / device.rate)
            believed += ok
            before += data.shape[0]
        if believed * 2 < len(items):
            device.stats.arrival_anchors += 1
        device.origin = int(round((float(np.median(starts)) + offset) * self.rate))
        device.delivered = 0
        if device.lost_at is not None:
            device.stats.down_seconds += self.clock.now() - device.lost_at
            device.lost_at = None
            self._changes.append(DeviceChange(str(device.spec.device), device.spec.seats, False, self.clock.now()))

    def _jump(self, device: _Device, item: tuple[np.ndarray, float, float, bool]) -> None:
        """After an overflow (frames were lost), move the axis ahead if the block's capture time
        says it lies more than two blocks later than counted."""
        assert device.origin is not None
        data, adc, current, _ = item
        t, _ = self._stamp(device, data.shape[0], adc, current)
        frame = int(round((t + self.clock.now() - float(device.stream.time)) * self.rate))
        if frame > device.origin + device.delivered + int(2 * self.block_seconds * self.rate):
            device.origin = frame - device.delivered

    def _lose(self, device: _Device, now: float, reason: str) -> None:
        self._stop_probe(device)
        self._close(device)
        _drain_queue(device.blocks)
        device.phase, device.next_try = _Phase.LOST, now  # the probe starts at once (it takes a second to start)
        device.origin, device.pending = None, []
        if device.lost_at is None:
            device.lost_at = now
            device.stats.outages += 1
            self._changes.append(DeviceChange(str(device.spec.device), device.spec.seats, True, now, reason))

    def _fill(self, now: float) -> list[AudioBlock]:
        """Silence for the seats of lost devices, up to where the running devices are (or, with
        none running, up to the clock minus :data:`FILL_LAG`), so nobody waits for them."""
        lost = [d for d in self._devices if d.lost_at is not None]
        if not lost:
            return []
        running = [d.end for d in self._devices if d.lost_at is None and d.origin is not None]
        target = max(running) if running else int((now - FILL_LAG) * self.rate)
        out = []
        for device in lost:
            if target > device.end:
                silence = np.zeros((target - device.end, len(device.spec.seats)), dtype=np.float32)
                out.append(
                    AudioBlock(
                        silence, device.end, self.rate, capture_time=device.end / self.rate, seats=device.spec.seats
                    )
                )
                device.end = target
        return out

    def stop(self) -> None:
        """Stop and close every stream (safe to call twice)."""
        for device in self._devices:
            self._stop_probe(device)
            self._close(device)
        self._devices = []

    def __enter__(self) -> "LiveSource":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _drain_queue(blocks: "queue.Queue[Any]") -> None:
    while True:
        try:
            blocks.get_nowait()
        except queue.Empty:
            return


@contextmanager
def _quiet_stderr(quiet: bool) -> Iterator[None]:
    """Send the process's stderr to /dev/null while ``quiet``: PortAudio and ALSA print their own
    lines there when a device cannot be opened, and a lost device is retried every second.
    (Anything another thread writes to stderr in those few milliseconds is lost too.)"""
    if not quiet:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
