"""Sound devices through sounddevice/PortAudio: listing, blocking playback, and interruptible,
routable playback on a stream kept open (:class:`ChannelPlayer`).

The sounddevice module is imported inside functions: importing it initialises PortAudio, which
reads the environment (PulseAudio server, ALSA configuration) at that moment.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from voicehost.audio.buffer import Audio
from voicehost.errors import AudioDeviceError


@dataclass(frozen=True)
class DeviceInfo:
    """One PortAudio device."""

    index: int
    """PortAudio device index."""
    name: str
    hostapi: str
    max_input_channels: int
    max_output_channels: int
    default_samplerate: float
    """Hz."""
    is_default_input: bool = False
    is_default_output: bool = False


_AlsaErrorHandler = ctypes.CFUNCTYPE(
    None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
)
"""ALSA's ``snd_lib_error_handler_t`` (file, line, function, errno, format, ...): the variadic
arguments are left unread."""


def _ignore_alsa_message(file: bytes, line: int, function: bytes, err: int, fmt: bytes) -> None:
    """ALSA's complaints do not reach the terminal: a device that cannot be opened still reaches
    the user as PortAudio's error, and a speaker's underruns are counted
    (:attr:`ChannelPlayer.underflows`), not printed mid-game."""


_drop_alsa_message = _AlsaErrorHandler(_ignore_alsa_message)


_alsa_quieted = False


def _quiet_alsa() -> None:
    """Keep ALSA's own lines ("ALSA lib pcm.c:8570:(snd_pcm_recover) underrun occurred", printed
    when a busy machine starves a stream) off the players' terminal (once per process).

    The handler is taken back at exit, before the interpreter goes (registered before
    sounddevice's own exit handler, so it runs after PortAudio is terminated).
    """
    global _alsa_quieted
    if _alsa_quieted:
        return
    _alsa_quieted = True
    name = ctypes.util.find_library("asound")
    if name is None:  # PortAudio without ALSA (or ALSA not installed): nothing prints
        return
    try:
        asound = ctypes.CDLL(name)
        set_handler = asound.snd_lib_error_set_handler
    except (OSError, AttributeError):
        return
    set_handler.argtypes = [_AlsaErrorHandler]
    set_handler.restype = ctypes.c_int
    set_handler(_drop_alsa_message)
    atexit.register(set_handler, _AlsaErrorHandler())


def sounddevice_module() -> ModuleType:
    """Import sounddevice, turning a missing PortAudio library into an AudioDeviceError."""
    _quiet_alsa()
    try:
        import sounddevice
    except OSError as error:  # raised when libportaudio2 is not installed
        raise AudioDeviceError(
            f"PortAudio is not available ({error}); fix: run scripts/setup (or: sudo apt-get install libportaudio2)"
        ) from error
    module: ModuleType = sounddevice
    return module


def list_devices() -> list[DeviceInfo]:
    """All devices PortAudio sees, with the defaults marked."""
    sd = sounddevice_module()
    try:
        raw = sd.query_devices()
        hostapis = sd.query_hostapis()
    except sd.PortAudioError as error:
        raise AudioDeviceError(f"cannot list sound devices: {error}") from error
    default_in, default_out = _default_indices(sd)
    return [
        DeviceInfo(
            index=int(d["index"]),
            name=str(d["name"]),
            hostapi=str(hostapis[d["hostapi"]]["name"]),
            max_input_channels=int(d["max_input_channels"]),
            max_output_channels=int(d["max_output_channels"]),
            default_samplerate=float(d["default_samplerate"]),
            is_default_input=int(d["index"]) == default_in,
            is_default_output=int(d["index"]) == default_out,
        )
        for d in raw
    ]


def _default_indices(sd: ModuleType) -> tuple[int, int]:
    try:
        pair = sd.default.device
        return int(pair[0]), int(pair[1])
    except (TypeError, ValueError, IndexError):
        return -1, -1


def find_device(spec: str | int | None, *, output: bool) -> DeviceInfo | None:
    """The device matching ``spec`` (index, exact name or unique name part), or the default.

    Returns None when ``spec`` is None and there is no default device of that direction.
    """
    devices = list_devices()
    usable = [d for d in devices if (d.max_output_channels if output else d.max_input_channels) > 0]
    kind = "output" if output else "input"
    if spec is None:
        default = [d for d in usable if (d.is_default_output if output else d.is_default_input)]
        return default[0] if default else None
    if isinstance(spec, int) or str(spec).isdigit():
        matches = [d for d in usable if d.index == int(spec)]
    else:
        matches = [d for d in usable if d.name == spec] or [d for d in usable if str(spec).lower() in d.name.lower()]
    if not matches:
        names = ", ".join(f"{d.index}: {d.name}" for d in usable) or "none"
        raise AudioDeviceError(f"no {kind} device matches {spec!r} (available: {names})")
    if len(matches) > 1:
        names = ", ".join(d.name for d in matches)
        raise AudioDeviceError(f"{kind} device {spec!r} is ambiguous: {names}")
    return matches[0]


def stream_channels(channel: int, device: DeviceInfo) -> int:
    """How many channels to open to reach 0-based ``channel`` without remapping surprises.

    PulseAudio and many drivers match channels by position name (front-left, front-right,
    rear-left, …) for 1, 2, 4, 6 and 8 channel streams; other counts may be remixed.
    """
    for n in (2, 4, 6, 8):
        if channel < n <= device.max_output_channels:
            return n
    return min(device.max_output_channels, max(channel + 1, 1))


def play(audio: Audio, device: DeviceInfo, channel: int | None = None) -> None:
    """Play ``audio`` on ``device`` and wait until it has been played.

    With ``channel`` (0-based) a mono buffer goes to that channel only and the device's other
    channels stay silent (a player's private earphone on a multi-channel output).
    """
    sd = sounddevice_module()
    samples = audio.samples if audio.samples.ndim == 2 else audio.samples[:, np.newaxis]
    if channel is not None:
        if not 0 <= channel < device.max_output_channels:
            raise AudioDeviceError(
                f"device {device.name!r} has {device.max_output_channels} output channels; "
                f"channel {channel + 1} does not exist"
            )
        routed = np.zeros((samples.shape[0], stream_channels(channel, device)), dtype=np.float32)
        routed[:, channel] = samples[:, 0]
        samples = routed
    try:
        sd.play(samples, audio.rate, device=device.index, blocking=True)
    except sd.PortAudioError as error:
        raise AudioDeviceError(f"cannot play on {device.name!r}: {error}") from error


DEFAULT_LATENCY = 0.05
"""Seconds of audio PortAudio keeps queued ahead of the speaker. Measured on PulseAudio (ALSA
pulse plugin): 'low' (8.5 ms) underruns and gives wrong timestamps; 35–50 ms plays cleanly and
the reported DAC times match what the sink's monitor records to within 1 ms. It also bounds how
long an interrupted buffer keeps sounding."""


START_TIMEOUT = 3.0
"""Seconds a fresh output stream may take before audio flows."""


class _Job:
    """One prepared buffer being played; written by the callback, read by other threads."""

    __slots__ = ("samples", "pos", "stop_requested", "first_dac", "end_dac", "interrupted", "done")

    def __init__(self, samples: np.ndarray) -> None:
        self.samples = samples
        self.pos = 0
        self.stop_requested = False
        self.first_dac: float | None = None
        self.end_dac: float | None = None
        self.interrupted = False
        self.done = threading.Event()


class PlaybackHandle:
    """A buffer handed to a :class:`ChannelPlayer`: wait for it, stop it, read when it sounded.

    Times are on the PortAudio stream clock (seconds, :meth:`ChannelPlayer.time`).
    """

    def __init__(self, player: "ChannelPlayer", job: _Job) -> None:
        self._player = player
        self._job = job

    @property
    def first_dac(self) -> float | None:
        """Stream time when the first sample reaches the speaker, once the callback took it."""
        return self._job.first_dac

    @property
    def end_dac(self) -> float | None:
        """Stream time just after the last audible sample (the stop point when interrupted)."""
        return self._job.end_dac

    @property
    def interrupted(self) -> bool:
        """True when :meth:`stop` cut the buffer before its end."""
        return self._job.interrupted

    @property
    def handed_over(self) -> bool:
        """True once the callback has passed the last sample on (or stopped): the buffer is free."""
        return self._job.done.is_set()

    def started(self, timeout: float) -> bool:
        """Wait until the first block has been handed to the device (True) or ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self._job.first_dac is None and not self._job.done.is_set():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.002)
        return True

    def stop(self) -> None:
        """Interrupt: the callback outputs silence from its next block on (no waiting here)."""
        self._job.stop_requested = True

    def wait(self, timeout: float) -> bool:
        """Wait until the buffer has finished *sounding* (not just been queued); False on timeout."""
        deadline = time.monotonic() + timeout
        if not self._job.done.wait(timeout):
            return False
        end = self._job.end_dac
        if end is None:
            return True
        remaining = end - self._player.time()
        if remaining > 0:
            if remaining > deadline - time.monotonic():
                return False
            time.sleep(remaining)
        return True


class ChannelPlayer:
    """One output stream kept open, playing prepared mono buffers on one channel (or all).

    Opening a PulseAudio stream costs a few milliseconds but its first buffers can start late,
    so the stream stays open between utterances and the callback outputs silence when idle. The
    callback only copies from the prepared buffer (no allocation of audio, no I/O, no locks);
    a stop request takes effect at its next block, and the block's DAC time records exactly when
    the sound ended.

    ``channel`` None plays on a 1-channel stream (the server spreads it to every speaker); a
    0-based channel opens the smallest 2/4/6/8-channel stream that contains it (see
    :func:`stream_channels`) and leaves every other channel silent: one seat's earphone.
    """

    def __init__(
        self,
        device: DeviceInfo,
        channel: int | None = None,
        *,
        rate: int | None = None,
        latency: float = DEFAULT_LATENCY,
    ) -> None:
        if channel is not None and not 0 <= channel < device.max_output_channels:
            raise AudioDeviceError(
                f"device {device.name!r} has {device.max_output_channels} output channels; "
                f"channel {channel + 1} does not exist"
            )
        self.device = device
        self.channel = channel
        self.rate = int(rate or device.default_samplerate)
        """Stream sample rate, Hz: buffers given to :meth:`play` must have this rate."""
        self.latency = latency
        self.underflows = 0
        """Blocks the device had to play without data (a sign of an overloaded machine)."""
        self._stream: Any = None
        self._job: _Job | None = None
        self._first_callback: float | None = None
        self._last_callback: float | None = None
        self._frames = 0
        self._column = 0 if channel is None else channel

    @property
    def is_open(self) -> bool:
        """True while the stream runs."""
        return self._stream is not None

    def open(self, timeout: float = START_TIMEOUT) -> "ChannelPlayer":
        """Open and start the stream and wait until audio flows (idempotent).

        A fresh PulseAudio stream takes its first few blocks at once and then often waits
        0.1–0.8 s (measured) before the server starts consuming; DAC times reported during
        that wait are wrong. Waiting here keeps every reported time true.
        """
        if self._stream is not None:
            return self
        sd = sounddevice_module()
        channels = 1 if self.channel is None else stream_channels(self.channel, self.device)
        try:
            stream = sd.OutputStream(
                device=self.device.index,
                channels=channels,
                samplerate=self.rate,
                dtype="float32",
                latency=self.latency,
                callback=self._callback,
            )
            stream.start()
        except sd.PortAudioError as error:
            raise AudioDeviceError(f"cannot open {self.device.name!r} for playback: {error}") from error
        self._stream = stream
        deadline = time.monotonic() + timeout
        while not self._flowing():
            if time.monotonic() >= deadline:
                self.close()
                raise AudioDeviceError(f"{self.device.name!r} did not start playing within {timeout:.0f} s")
            time.sleep(0.005)
        return self

    def _flowing(self) -> bool:
        """True once the device has consumed audio at the pace of playback for a while.

        The initial burst fills the buffer without the clock moving, then the callbacks may
        stop for a while. Flowing means: since the last pause longer than 0.1 s, callbacks
        over at least 0.2 s of stream time, handing over audio at (nearly) real-time pace.
        """
        first, last = self._first_callback, self._last_callback
        if first is None or last is None:
            return False
        elapsed = last - first
        return elapsed >= 0.2 and self._frames / self.rate >= 0.9 * elapsed

    def time(self) -> float:
        """Current time of the stream clock, seconds (the clock DAC times are given on)."""
        if self._stream is None:
            raise AudioDeviceError(f"playback on {self.device.name!r} is not open")
        return float(self._stream.time)

    @property
    def output_latency(self) -> float:
        """Seconds between the callback and the speaker, as PortAudio reports it."""
        return float(self._stream.latency) if self._stream is not None else self.latency

    def play(self, samples: np.ndarray) -> PlaybackHandle:
        """Start playing mono float32 ``samples`` (at :attr:`rate`) now; returns at once.

        A buffer still playing is cut (its handle reports interrupted).
        """
        if samples.ndim != 1:
            raise AudioDeviceError(f"ChannelPlayer plays mono buffers, not shape {samples.shape}")
        self.open()
        job = _Job(np.ascontiguousarray(samples, dtype=np.float32))
        previous = self._job
        if previous is not None:
            previous.stop_requested = True
        self._job = job
        return PlaybackHandle(self, job)

    def close(self) -> None:
        """Stop at once (dropping what is queued in the device) and release the stream."""
        stream, self._stream = self._stream, None
        self._first_callback = self._last_callback = None
        self._frames = 0
        job = self._job
        if job is not None:
            job.stop_requested = True
            job.done.set()
        if stream is not None:
            sd = sounddevice_module()
            try:
                stream.abort()
                stream.close()
            except sd.PortAudioError as error:
                raise AudioDeviceError(f"cannot close playback on {self.device.name!r}: {error}") from error

    def __enter__(self) -> "ChannelPlayer":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _callback(self, out: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        out.fill(0)
        now = time_info.currentTime
        last = self._last_callback
        if last is None or now - last > 0.1:  # start, or resuming after a stall
            self._first_callback = now
            self._frames = 0
        self._last_callback = now
        self._frames += frames
        if status.output_underflow:
            self.underflows += 1
        job = self._job
        if job is None or job.done.is_set():
            return
        dac = float(time_info.outputBufferDacTime)
        if job.stop_requested:
            job.end_dac = dac
            job.interrupted = True
            job.done.set()
            return
        pos = job.pos
        n = min(frames, job.samples.shape[0] - pos)
        if pos == 0:
            job.first_dac = dac
        out[:n, self._column] = job.samples[pos : pos + n]
        job.pos = pos + n
        if job.pos >= job.samples.shape[0]:
            job.end_dac = dac + n / self.rate
            job.done.set()
