"""In-memory audio and WAV files."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicehost.files import OutputPathError, atomic_write_with, check_output_file

__all__ = ["Audio", "OutputPathError", "check_writable", "write_wav"]


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


def check_writable(path: Path) -> Path:
    """Fail early, with a clear message, if ``path`` cannot be created or overwritten
    (a folder, a device node or FIFO, a missing or read-only folder)."""
    return check_output_file(path)


def write_wav(path: Path, audio: Audio) -> Path:
    """Write ``audio`` as 16-bit PCM WAV, creating or replacing ``path`` atomically."""
    import soundfile

    def write(tmp: Path) -> None:
        try:
            soundfile.write(str(tmp), audio.samples, audio.rate, subtype="PCM_16", format="WAV")
        except (RuntimeError, soundfile.LibsndfileError) as error:  # libsndfile's own wording of a failed write
            raise OSError(errno.EIO, str(error)) from None

    return atomic_write_with(path, write, "WAV file")
