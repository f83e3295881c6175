"""Sound devices through sounddevice/PortAudio: listing and blocking playback.

The sounddevice module is imported inside functions: importing it initialises PortAudio, which
reads the environment (PulseAudio server, ALSA configuration) at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

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


def sounddevice_module() -> ModuleType:
    """Import sounddevice, turning a missing PortAudio library into an AudioDeviceError."""
    try:
        import sounddevice
    except OSError as error:  # raised when libportaudio2 is not installed
        raise AudioDeviceError(
            f"PortAudio is not available ({error}); fix: run scripts/setup "
            "(or: sudo apt-get install libportaudio2)"
        ) from error
    return sounddevice


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
        matches = [d for d in usable if d.name == spec] or [
            d for d in usable if str(spec).lower() in d.name.lower()
        ]
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
