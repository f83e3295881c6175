"""Recorded per-seat audio read in blocks: any length of recording in a few megabytes.

``voicehost rank`` used to read every file whole and resample it whole: an hour of 48 kHz stereo
took 2.2 GB. :class:`StreamedTracks` opens the files, checks them (the same one-line reasons as
:func:`voicehost.listen.sources.read_audio`) and then yields :class:`AudioBlock` s at the listener's
rate, reading and resampling each file a block at a time (soxr's streaming resampler gives the
same samples as resampling the whole file). Shorter tracks go on as silence.

Float files may hold samples far outside ±1: some tools export 16-bit values as floats without
scaling them. Played as they are, one such seat drowns every other seat's microphone in the
crosstalk stage (each real shout looks like that seat's leak) and ``rank`` reported nothing for
anyone. Such a track is scanned once for its peak and scaled back: by 1/32768 when the peak fits
16-bit values, else by the peak, and the caller is told (``notes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from voicehost.clock import Clock, SimClock
from voicehost.errors import AudioFormatError
from voicehost.listen.messages import AudioBlock, SeatName

READ_FRAMES = 16384
"""Frames read from a file at a time (0.34 s at 48 kHz)."""
FULL_SCALE = 1.0
"""Largest sample magnitude a float file should hold."""
INT16_SCALE = 32768.0
"""What 16-bit values written as floats without scaling reach."""


@dataclass
class _Track:
    """One open file and the seats it feeds (a channel each, or all channels mixed for one seat)."""

    path: Path
    handle: Any
    rate: int
    channels: list[int]
    """File channel of each seat it feeds; [-1] means: mix every channel down for one seat."""
    gain: float = 1.0
    resamplers: list[Any] = field(default_factory=list)
    done: bool = False


def _open(path: Path) -> Any:
    """An open soundfile after the same checks as ``read_audio`` (missing, folder, empty, rate, truncated)."""
    import soundfile

    from voicehost.listen.sources import MAX_FILE_RATE, MIN_FILE_RATE, _check_not_truncated, _reason

    path = Path(path)
    if not path.exists():
        raise AudioFormatError(f"{path}: no such file")
    if path.is_dir():
        raise AudioFormatError(f"{path}: is a folder, not an audio file")
    if not path.is_file():
        raise AudioFormatError(f"{path}: is not a regular file (a device, FIFO or socket)")
    if path.stat().st_size == 0:
        raise AudioFormatError(f"{path}: the file is empty")
    try:
        handle = soundfile.SoundFile(str(path))
    except (RuntimeError, soundfile.LibsndfileError) as error:
        raise AudioFormatError(f"{path}: not a readable audio file ({_reason(error)})") from error
    if handle.channels < 1 or handle.frames == 0:
        handle.close()
        raise AudioFormatError(f"{path}: contains no audio samples")
    if not MIN_FILE_RATE <= handle.samplerate <= MAX_FILE_RATE:
        handle.close()
        raise AudioFormatError(
            f"{path}: sample rate {handle.samplerate} Hz is not supported (use {MIN_FILE_RATE} to {MAX_FILE_RATE} Hz)"
        )
    try:
        _check_not_truncated(path, soundfile.info(str(path)))
    except AudioFormatError:
        handle.close()
        raise
    return handle


class StreamedTracks:
    """Per-seat recordings streamed at ``rate`` Hz (see the module docstring)."""

    def __init__(self, seats: Sequence[SeatName], tracks: list[_Track], rate: int) -> None:
        self.seats = tuple(seats)
        self.rate = rate
        self._tracks = tracks
        self.files = tuple(t.path for t in tracks)
        self.duration = max(t.handle.frames / t.rate for t in tracks)
        """Seconds of the longest track."""
        self.notes: list[str] = []
        """What was done to a track to make it usable (float samples scaled back), one line each."""
        for track in tracks:
            self._check_level(track)

    @classmethod
    def per_seat(cls, tracks: Sequence[tuple[SeatName, Path]], rate: int) -> "StreamedTracks":
        """One file per seat (several channels are mixed down)."""
        opened: list[_Track] = []
        try:
            for _, path in tracks:
                handle = _open(path)
                opened.append(_Track(Path(path), handle, handle.samplerate, [-1]))
            return cls([name for name, _ in tracks], opened, rate)
        except BaseException:
            for track in opened:
                track.handle.close()
            raise

    @classmethod
    def multichannel(cls, path: Path, seats: Sequence[SeatName], rate: int) -> "StreamedTracks":
        """One file whose channel i belongs to ``seats[i]`` (extra channels are ignored)."""
        handle = _open(path)
        if handle.channels < len(seats):
            handle.close()
            raise AudioFormatError(
                f"{path}: has {handle.channels} channel(s) but {len(seats)} seats were named "
                f"({', '.join(seats)}); give one channel per seat"
            )
        try:
            return cls(seats, [_Track(Path(path), handle, handle.samplerate, list(range(len(seats))))], rate)
        except BaseException:
            handle.close()
            raise

    def _check_level(self, track: _Track) -> None:
        """Scan a float file for its peak; scale a track far outside ±1 back (and note it)."""
        if track.handle.subtype not in ("FLOAT", "DOUBLE"):
            return
        peak = 0.0
        for block in self._raw(track):
            peak = max(peak, float(np.max(np.abs(block))) if block.size else 0.0)
        track.handle.seek(0)
        if peak <= FULL_SCALE * 1.001:
            return
        track.gain = 1.0 / INT16_SCALE if peak <= INT16_SCALE * 1.001 else 1.0 / peak
        how = "read as 16-bit values" if track.gain == 1.0 / INT16_SCALE else f"scaled down by {peak:.3g}"
        self.notes.append(f"{track.path}: float samples reach {peak:.6g}, far outside ±1: {how}")

    def _raw(self, track: _Track) -> Iterator[np.ndarray]:
        """The file's samples in blocks, float32 (frames, channels), refusing NaN and infinities."""
        start = 0
        while True:
            block = track.handle.read(READ_FRAMES, dtype="float32", always_2d=True)
            if block.shape[0] == 0:
                return
            if not np.all(np.isfinite(block)):
                raise AudioFormatError(
                    f"{track.path}: contains invalid (NaN or infinite) samples near {start / track.rate:.1f} s"
                )
            start += block.shape[0]
            yield block

    def _columns(self, track: _Track, block: np.ndarray) -> list[np.ndarray]:
        if track.channels == [-1]:
            mono = block.mean(axis=1) if block.shape[1] > 1 else block[:, 0]
            return [np.ascontiguousarray(mono * track.gain, dtype=np.float32)]
        return [np.ascontiguousarray(block[:, c] * track.gain, dtype=np.float32) for c in track.channels]

    def _resampled(self, track: _Track) -> Iterator[list[np.ndarray]]:
        """Each seat's samples of the next file block, at the listener's rate."""
        import soxr

        if track.rate != self.rate:
            track.resamplers = [
                soxr.ResampleStream(track.rate, self.rate, 1, dtype="float32", quality="HQ") for _ in track.channels
            ]
        for block in self._raw(track):
            columns = self._columns(track, block)
            if track.resamplers:
                columns = [r.resample_chunk(c, last=False) for r, c in zip(track.resamplers, columns)]
            yield columns
        if track.resamplers:
            yield [r.resample_chunk(np.zeros(0, dtype=np.float32), last=True) for r in track.resamplers]

    def blocks(self, block_frames: int = 4096, clock: Clock | None = None) -> Iterator[AudioBlock]:
        """Every block on one frame axis from t = 0; with a SimClock, the clock follows the audio."""
        readers = [self._resampled(t) for t in self._tracks]
        buffers: list[list[np.ndarray]] = [[] for _ in self.seats]
        ended = [False] * len(self._tracks)
        frame = 0
        while True:
            for index, (track, reader) in enumerate(zip(self._tracks, readers)):
                first = self._seat_index(index)
                while not ended[index] and sum(len(b) for b in buffers[first]) < block_frames:
                    columns = next(reader, None)
                    if columns is None:
                        ended[index] = True
                        break
                    for offset, column in enumerate(columns):
                        buffers[first + offset].append(column)
            have = [sum(len(b) for b in seat) for seat in buffers]
            if all(ended) and max(have) == 0:
                return
            count = block_frames if not all(ended) else min(block_frames, max(have))
            chunk = np.zeros((count, len(self.seats)), dtype=np.float32)
            for seat, pieces in enumerate(buffers):
                chunk[:, seat] = _take(pieces, count)
            if isinstance(clock, SimClock):
                clock.advance_to((frame + count) / self.rate)
            yield AudioBlock(chunk, frame, self.rate, capture_time=frame / self.rate, seats=self.seats)
            frame += count

    def _seat_index(self, track_index: int) -> int:
        """The first seat fed by track ``track_index``."""
        return sum(len(t.channels) for t in self._tracks[:track_index])

    def close(self) -> None:
        """Close the files."""
        for track in self._tracks:
            track.handle.close()

    def __enter__(self) -> "StreamedTracks":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _take(pieces: list[np.ndarray], count: int) -> np.ndarray:
    """The first ``count`` samples of the queued ``pieces`` (removed from it), silence after their end."""
    out = np.zeros(count, dtype=np.float32)
    filled = 0
    while pieces and filled < count:
        piece = pieces[0]
        used = min(count - filled, len(piece))
        out[filled : filled + used] = piece[:used]
        filled += used
        if used == len(piece):
            pieces.pop(0)
        else:
            pieces[0] = piece[used:]
    return out
