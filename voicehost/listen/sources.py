"""Audio sources: recorded tracks and live microphones, delivering :class:`AudioBlock` s on one
sample clock.

Both kinds feed the same downstream code. Every block carries ``start_frame`` on the session's
frame axis (frame 0 is t = 0) at the listener's rate (normally 16 kHz) and the seats its channels
belong to, so the listener never needs to know where the audio came from.

- Recorded: per-seat files (``--track NAME=PATH``) or one multichannel file, any format
  libsndfile reads (WAV 16/24/32-bit, float, FLAC, …) at 8 to 192 kHz, resampled with soxr. All
  tracks start at t = 0; shorter tracks are padded with silence at the end.
- Live: one sounddevice input stream per device. The callback only copies the block with its ADC
  capture time into a queue; conversion, resampling and everything else happen in :meth:`read`.
"""

from __future__ import annotations

import queue
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

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
            raise TrackSpecError(f"seat {name!r} is given twice" + (f" ({where})" if where else "") + ": every player needs their own track")
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
        columns.append(to_rate(mono, file_rate, rate))
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
    columns = [to_rate(samples[:, i], file_rate, rate) for i in range(len(seats))]
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
        raise AudioFormatError(f"{path}: sample rate {info.samplerate} Hz is not supported (use {MIN_FILE_RATE} to {MAX_FILE_RATE} Hz)")
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


def to_rate(samples: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    """Resample one channel with soxr (float32 out)."""
    if rate_in == rate_out:
        return np.ascontiguousarray(samples, dtype=np.float32)
    import soxr

    return np.asarray(soxr.resample(np.ascontiguousarray(samples, dtype=np.float32), rate_in, rate_out, quality="HQ"), dtype=np.float32)


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


@dataclass
class _Stream:
    """One open device: its PortAudio stream, queue and time bookkeeping (reader side only)."""

    spec: LiveInput
    rate: int
    """Device rate, Hz."""
    stream: Any
    blocks: "queue.Queue[tuple[np.ndarray, float]]"
    resampler: Any = None
    origin_frame: int | None = None
    """Session frame (listener rate) of this stream's first delivered frame."""
    delivered: int = 0
    """Frames (listener rate) delivered so far."""
    overflows: int = 0
    stream_t0: float = 0.0
    """PortAudio stream time when the session clock read ``clock_t0``."""
    clock_t0: float = 0.0
    pending: list[np.ndarray] = field(default_factory=list)


class LiveSource:
    """Microphones: one sounddevice input stream per device, read as :class:`AudioBlock` s.

    The callback copies ``indata`` and the block's ADC capture time into a queue and returns.
    :meth:`read` converts capture times to the session clock (the injected clock), resamples to
    the listener's rate and places each device's frames on the session's frame axis.
    """

    def __init__(self, inputs: Sequence[LiveInput], clock: Clock, rate: int = LISTEN_RATE,
                 device_rate: int | None = None, block_seconds: float = 0.02) -> None:
        if not inputs:
            raise InputError("no input devices given")
        check_distinct([s for i in inputs for s in i.seats], {})
        self.inputs = tuple(inputs)
        self.clock = clock
        self.rate = rate
        self.device_rate = device_rate
        self.block_seconds = block_seconds
        self._streams: list[_Stream] = []
        self._sd: Any = None

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Every seat, device by device."""
        return tuple(s for i in self.inputs for s in i.seats)

    def start(self) -> "LiveSource":
        """Open and start every device's stream."""
        from voicehost.audio.devices import find_device, sounddevice_module

        sd = self._sd = sounddevice_module()
        try:
            for spec in self.inputs:
                device = find_device(spec.device, output=False)
                if device is None:
                    raise AudioDeviceError("no default input device: name one (see 'voicehost devices')")
                needed = max(spec.channel_of()) + 1
                if needed > device.max_input_channels:
                    raise AudioDeviceError(f"device {device.name!r} has {device.max_input_channels} input channels; seat channel {needed} does not exist")
                self._streams.append(self._open(sd, device.index, needed, int(self.device_rate or device.default_samplerate), spec))
        except BaseException:
            self.stop()
            raise
        return self

    def _open(self, sd: Any, index: int, channels: int, rate: int, spec: LiveInput) -> _Stream:
        blocks: queue.Queue[tuple[np.ndarray, float]] = queue.Queue()

        def callback(indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
            blocks.put((indata.copy(), float(time_info.inputBufferAdcTime)))

        try:
            stream = sd.InputStream(device=index, channels=channels, samplerate=rate, dtype="float32",
                                    blocksize=max(1, int(rate * self.block_seconds)), callback=callback)
            state = _Stream(spec, rate, stream, blocks)
            state.stream_t0, state.clock_t0 = float(stream.time), self.clock.now()
            stream.start()
        except sd.PortAudioError as error:
            raise AudioDeviceError(f"cannot open input device {index}: {error}") from error
        if rate != self.rate:
            import soxr

            state.resampler = soxr.ResampleStream(rate, self.rate, len(spec.seats), dtype="float32", quality="HQ")
        return state

    def read(self, timeout: float = 0.5) -> list[AudioBlock]:
        """Blocks captured since the last call (waits up to ``timeout`` seconds for the first)."""
        out: list[AudioBlock] = []
        deadline = time.monotonic() + timeout
        while not out and time.monotonic() < deadline:
            for state in self._streams:
                out.extend(self._drain(state))
            if not out:
                time.sleep(0.005)
        return out

    def _drain(self, state: _Stream) -> list[AudioBlock]:
        out: list[AudioBlock] = []
        while True:
            try:
                data, adc_time = state.blocks.get_nowait()
            except queue.Empty:
                return out
            picked = np.ascontiguousarray(data[:, list(state.spec.channel_of())])
            if state.resampler is not None:
                picked = state.resampler.resample_chunk(picked)
            if state.origin_frame is None:
                session_t = adc_time - state.stream_t0 + state.clock_t0 if adc_time > 0 else self.clock.now()
                state.origin_frame = max(0, int(round(session_t * self.rate)))
            if picked.shape[0] == 0:
                continue
            start = state.origin_frame + state.delivered
            state.delivered += picked.shape[0]
            out.append(AudioBlock(picked, start, self.rate, capture_time=start / self.rate, seats=state.spec.seats))

    def stop(self) -> None:
        """Stop and close every stream (safe to call twice)."""
        for state in self._streams:
            try:
                state.stream.stop()
                state.stream.close()
            except self._sd.PortAudioError:
                pass
        self._streams = []

    def __enter__(self) -> "LiveSource":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
