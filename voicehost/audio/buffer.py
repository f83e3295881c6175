"""In-memory audio and WAV files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicehost.errors import AudioFormatError, InputError


@dataclass(frozen=True)
class Audio:
    """A block of audio held in memory."""

    samples: np.ndarray
    """float32 samples in [-1, 1]; shape (frames,) for mono or (frames, channels)."""
    rate: int
    """Sample rate in Hz."""

    @property
    def frames(self) -> int:
        """Number of sample frames."""
        return int(self.samples.shape[0])

    @property
    def channels(self) -> int:
        """Number of channels (1 for a 1-D buffer)."""
        return 1 if self.samples.ndim == 1 else int(self.samples.shape[1])

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.frames / self.rate if self.rate else 0.0


class OutputPathError(InputError):
    """A file cannot be written where the user asked."""


def check_writable(path: Path) -> Path:
    """Fail early, with a clear message, if ``path`` cannot be created or overwritten."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputPathError(f"cannot write {path}: it is a directory")
    if not parent.is_dir():
        raise OutputPathError(f"cannot write {path}: folder {parent} does not exist")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputPathError(f"cannot write {path}: permission denied")
    if not path.exists() and not os.access(parent, os.W_OK):
        raise OutputPathError(f"cannot write {path}: folder {parent} is not writable")
    return path


def write_wav(path: Path, audio: Audio) -> Path:
    """Write ``audio`` as 16-bit PCM WAV, creating or replacing ``path`` atomically."""
    import soundfile

    path = check_writable(Path(path))
    tmp = path.with_name(f".{path.name}.part")
    try:
        soundfile.write(str(tmp), audio.samples, audio.rate, subtype="PCM_16", format="WAV")
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OutputPathError(f"cannot write {path}: {error.strerror or error}") from error
    return path


def read_wav(path: Path) -> Audio:
    """Read any file libsndfile understands as float32 samples (all channels kept)."""
    import soundfile

    path = Path(path)
    if not path.exists():
        raise AudioFormatError(f"{path}: no such file")
    try:
        samples, rate = soundfile.read(str(path), dtype="float32", always_2d=False)
    except (RuntimeError, soundfile.LibsndfileError) as error:
        raise AudioFormatError(f"{path}: not a readable audio file ({error})") from error
    return Audio(np.ascontiguousarray(samples), int(rate))
