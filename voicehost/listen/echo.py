"""The host's own voice in the microphones: echo cancellation against the speaker's signal.

The table speaker is heard by every microphone. What it plays is known exactly (the speech
service rendered it and knows when each utterance started), so instead of deafening the listener
while the host talks, each seat's channel is cleaned of it:

- :class:`Reference` holds what the table speaker played, on the session's frame axis: pieces
  added as utterances start (live) or one whole recording (replay). Reading a stretch the speaker
  was silent costs nothing.
- :class:`EchoCanceller` (one per seat) runs a partitioned-block frequency-domain adaptive filter
  (overlap-save, gradient-constrained, normalised per frequency bin) that learns the acoustic path
  from the speaker to that microphone — delay, gain, reflections and the start of the
  reverberation, up to ``block × partitions`` samples long — and subtracts the predicted echo.
  Two filters guard against a player talking while the host talks ("double talk", which would
  make a single filter unlearn the path): a *background* filter always adapts, the *foreground*
  filter that cleans the signal copies it only when it cancels better, and the background is put
  back when it has been thrown off.
- Besides the cleaned audio it gives the *echo estimate* (what it predicted and subtracted),
  scaled by how much of the echo it may have left behind: the onset detector raises its
  threshold over that level, so the residue of the host's voice never starts an event while a
  player who is clearly louder on their own microphone still does.

Everything runs on fixed blocks of the session's frame axis, so the output does not depend on how
the audio was cut into blocks; nothing here blocks, reads a clock or allocates per sample.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Hashable

import numpy as np

CHUNK = 16000
"""Frames per stored piece of the reference (1 s at 16 kHz)."""


class Reference:
    """What the table speaker played, on the session's frame axis (mono float32 at ``rate``).

    Thread-safe: the speech service's thread adds utterances while the listener reads.
    ``known_until`` is the session frame up to which everything the speaker will have played is
    known (None: everything, as for a recording); the canceller waits for it.
    """

    def __init__(self, rate: int = 16000) -> None:
        self.rate = rate
        self._chunks: dict[int, np.ndarray] = {}
        self._placed: dict[Hashable, tuple[int, np.ndarray]] = {}
        self._lock = threading.Lock()
        self.known_until: int | None = None
        """Session frame up to which the reference is complete (None: all of it)."""

    @classmethod
    def from_samples(cls, samples: np.ndarray, rate: int, start_frame: int = 0) -> "Reference":
        """A whole recording of the speaker starting at session frame ``start_frame``."""
        reference = cls(rate)
        reference.add(start_frame, samples)
        return reference

    @classmethod
    def from_file(cls, path: Path, rate: int = 16000, start_frame: int = 0) -> "Reference":
        """A recorded speaker track (any format soundfile reads; mixed to mono, resampled)."""
        from voicehost.audio.resample import resample
        from voicehost.listen.sources import read_audio

        samples, file_rate = read_audio(Path(path))
        mono = samples.mean(axis=1) if samples.shape[1] > 1 else samples[:, 0]
        return cls.from_samples(resample(mono, file_rate, rate), rate, start_frame)

    def add(self, start_frame: int, samples: np.ndarray, key: Hashable | None = None) -> None:
        """The speaker plays ``samples`` from session frame ``start_frame`` on (added to what
        is there). With a ``key``, :meth:`stop` can cut it short later."""
        samples = np.asarray(samples, dtype=np.float32).ravel()
        with self._lock:
            self._mix(start_frame, samples, 1.0)
            if key is not None:
                self._placed[key] = (start_frame, samples)

    def stop(self, key: Hashable, end_frame: int) -> None:
        """The utterance added with ``key`` went silent at ``end_frame`` (barge-in): remove the rest."""
        with self._lock:
            placed = self._placed.pop(key, None)
            if placed is None:
                return
            start, samples = placed
            cut = max(0, end_frame - start)
            if cut < len(samples):
                self._mix(start + cut, samples[cut:], -1.0)

    def _mix(self, start: int, samples: np.ndarray, sign: float) -> None:
        pos = 0
        while pos < len(samples):
            frame = start + pos
            index, inner = divmod(frame, CHUNK)
            take = min(CHUNK - inner, len(samples) - pos)
            chunk = self._chunks.get(index)
            if chunk is None:
                chunk = self._chunks[index] = np.zeros(CHUNK, dtype=np.float32)
            chunk[inner : inner + take] += sign * samples[pos : pos + take]
            pos += take

    def read(self, start: int, end: int) -> np.ndarray:
        """Samples [start, end) (session frames); silence where nothing played."""
        out = np.zeros(max(0, end - start), dtype=np.float32)
        with self._lock:
            frame = start
            while frame < end:
                index, inner = divmod(frame, CHUNK)
                take = min(CHUNK - inner, end - frame)
                chunk = self._chunks.get(index)
                if chunk is not None:
                    out[frame - start : frame - start + take] = chunk[inner : inner + take]
                frame += take
        return out

    def silent(self, start: int, end: int) -> bool:
        """True when nothing played in [start, end) (cheap: whole empty chunks are skipped)."""
        first, last = start // CHUNK, (end - 1) // CHUNK
        with self._lock:
            if not any(i in self._chunks for i in range(first, last + 1)):
                return True
        return not np.any(self.read(start, end))

    def forget_before(self, frame: int) -> None:
        """Drop what played before ``frame`` (a long live session keeps only recent seconds)."""
        with self._lock:
            for index in [i for i in self._chunks if (i + 1) * CHUNK <= frame]:
                del self._chunks[index]

    def known(self, frame: int) -> bool:
        """True when the reference up to ``frame`` is complete."""
        return self.known_until is None or frame <= self.known_until


@dataclass(frozen=True)
class EchoConfig:
    """Tuning of the echo canceller (16 kHz)."""

    block: int = 256
    """Samples per adaptation block (16 ms): the filter's partitions have this length."""
    partitions: int = 8
    """Filter length in blocks (8 × 16 ms = 128 ms: the room's direct sound, reflections and the
    loud start of its reverberation, plus some latency mismatch between speaker and microphone)."""
    step: float = 0.8
    """Background filter's normalised step size (0-1: larger learns faster, settles less)."""
    smoothing: float = 0.7
    """Per-block smoothing of the error energies that decide between the two filters."""
    copy_ratio: float = 0.8
    """The foreground takes the background's filter when the background's error energy is below
    this fraction of the foreground's …"""
    double_talk_db: float = 12.0
    """A block whose cleaned energy exceeds the measured leak of the echo estimate by this much
    holds a player's voice (double talk): neither filter learns from it …"""
    double_talk_blocks: int = 125
    """… unless it lasts this many blocks (2 s) while the speaker plays: then the room has changed
    (a microphone moved), and the filters learn again."""
    explained: float = 0.5
    """… and leaves less than this share of the microphone's energy: the host dominates what the
    microphone hears (a player talking over the host cannot be predicted from the reference, and a
    filter that seems to do better then has only bent itself to the player's voice) …"""
    copy_blocks: int = 3
    """… for this many blocks in a row."""
    reset_ratio: float = 4.0
    """The background is put back to the foreground when its error is this many times larger
    (double talk threw it off)."""
    leak_margin_db: float = 6.0
    """dB over the measured leak (the share of the echo the filter leaves) at which the echo
    estimate handed to the detector is scaled: what may remain of the host, with room to spare …"""
    leak_share: float = 0.3
    """… the leak is measured only in blocks where the echo estimate holds this share of the
    microphone's energy (the host dominates; no player talks over it) …"""
    leak_fall: float = 0.8
    """… follows improvements with this per-block smoothing …"""
    leak_rise_db: float = 0.5
    """… and rises by at most this many dB per block (30 dB/s) …"""
    leak_min_db: float = -40.0
    """… and is never assumed below this …"""
    host_floor_db: float = 0.0
    """… but never below the host's own level at the microphone plus this (dB): the filter can
    slip for a moment (a sudden low rumble in the host's audio), and the host's voice must never
    start an event; a player is heard over the host when clearly louder than the host there."""
    untrained_leak_db: float = 20.0
    """The leak assumed at the start (the filter knows nothing yet) and its upper bound."""
    trained_db: float = -12.0
    """The filter counts as trained once the leak has come down to this; before, while the
    speaker plays, all the channel's sound is taken for the host (the first seconds of the
    first utterance), and the leak is learnt from every block."""
    untrained_db: float = 0.0
    """… and before it is: until the foreground has learnt the path, the raw microphone level
    while the speaker plays counts as echo (nothing the host says can start an event)."""
    regularisation: float = 0.05
    """Added to each bin's reference power, relative to the mean over bins: a bin the reference
    hardly excites (a tone leaves most bins empty) must not take huge steps."""
    power_smoothing: float = 0.9
    """Per-block memory of each bin's reference power (its peak decays by this factor)."""
    deaf_blocks: int = 250
    """A microphone that does not hear the speaker at all (a headset; a phone with earphones) would
    never train the filter, and the rule above would then deafen it whenever the host talks. So
    over the last this many blocks the speaker played (4 s) …"""
    deaf_correlation: float = 0.2
    """… the microphone's block level (dB) is correlated with the speaker's (its loudest of the
    last ``partitions`` blocks, for the path's delay); below this the microphone does not follow
    the host's voice — it hears the room and the player, not the speaker — and, while the filter
    is untrained, nothing of the host is masked there. A microphone that hears the host follows
    its syllables (measured in tests/test_listen_host_voice.py's room: 0.6 with the host 13 dB over
    the noise, 0.8 at 31 dB); a headset that only hears its player gives -0.5 to 0."""
    worse_ratio: float = 2.0
    """A foreground filter that leaves more than this many times the microphone's energy has
    gone wrong (the path changed abruptly): both filters start again from nothing."""


class EchoCanceller:
    """One seat's echo canceller (see the module docstring).

    ``process(samples, start_frame)`` takes the seat's microphone samples starting at session
    frame ``start_frame`` and returns ``(first_frame, cleaned, echo)``: the cleaned samples and
    the echo estimate the detector should treat as masking, both from ``first_frame`` on. Output
    is given in whole blocks once the reference is known that far (``flush`` gives the rest).
    ``offset`` (seconds) is the seat's input latency: its frame n was heard at table time
    n / rate - offset.
    """

    def __init__(self, reference: Reference, config: EchoConfig | None = None, offset: float = 0.0) -> None:
        self.reference = reference
        self.config = cfg = config or EchoConfig()
        self.shift = int(round(offset * reference.rate))
        n, bins = cfg.block, cfg.block + 1
        self._fore = np.zeros((cfg.partitions, bins), dtype=np.complex128)
        self._back = np.zeros((cfg.partitions, bins), dtype=np.complex128)
        self._spectra = np.zeros((cfg.partitions, bins), dtype=np.complex128)
        self._power = np.zeros((cfg.partitions, bins))
        self._silent_blocks = cfg.partitions
        self._fore_energy = self._back_energy = self._mic_energy = 0.0
        self._smooth_power = np.zeros(bins)
        self._better = 0
        self._talk_blocks = 0
        self.trained = False
        """True once the foreground filter has learnt the path (its leak fell to ``trained_db``)."""
        self.leak_db = cfg.untrained_leak_db
        """Measured share of the echo left in the cleaned signal, dB (see :meth:`_track_leak`)."""
        self._pending = np.zeros(0, dtype=np.float32)
        self._next: int | None = None
        """Session frame of ``_pending[0]``."""
        self._block_index: int | None = None
        self._window = np.zeros(2 * n)
        self.blocks = 0
        """Blocks processed while the speaker played (for cost reports)."""
        self._ref_levels: deque[float] = deque(maxlen=cfg.partitions)
        self._levels: deque[tuple[float, float]] = deque(maxlen=cfg.deaf_blocks)
        """(microphone dB, speaker dB) of the last blocks the speaker played."""
        self.deaf = False
        """True while the filter is untrained and the microphone is found not to hear the speaker
        (see ``EchoConfig.deaf_correlation``)."""

    def process(self, samples: np.ndarray, start_frame: int) -> tuple[int, np.ndarray, np.ndarray]:
        """Feed samples; return (first frame, cleaned, echo estimate) of the blocks completed."""
        samples = np.asarray(samples, dtype=np.float32)
        if self._next is None:
            self._next = start_frame
        expected = self._next + len(self._pending)
        if start_frame > expected:
            samples = np.concatenate([np.zeros(start_frame - expected, dtype=np.float32), samples])
        elif start_frame < expected:
            samples = samples[expected - start_frame :]
        self._pending = np.concatenate([self._pending, samples]) if len(self._pending) else samples
        return self._run(final=False)

    def flush(self) -> tuple[int, np.ndarray, np.ndarray]:
        """End of input: process what is left (padded to a block)."""
        return self._run(final=True)

    def _run(self, final: bool) -> tuple[int, np.ndarray, np.ndarray]:
        n = self.config.block
        first = self._next if self._next is not None else 0
        cleaned: list[np.ndarray] = []
        echoes: list[np.ndarray] = []
        while self._next is not None:
            grid_end = (self._next // n + 1) * n
            take = grid_end - self._next
            if len(self._pending) < take and not (final and len(self._pending)):
                break
            if not self.reference.known(grid_end - self.shift) and not final:
                break
            chunk = self._pending[:take]
            out, echo = self._block(grid_end - n, self._next, chunk)
            cleaned.append(out)
            echoes.append(echo)
            self._pending = self._pending[len(chunk) :]
            self._next += len(chunk)
        if not cleaned:
            return first, np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.float32)
        return first, np.concatenate(cleaned), np.concatenate(echoes)

    def _block(self, block_start: int, frame: int, chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cancel the echo in ``chunk`` (frames ``frame`` … of the grid block at ``block_start``)."""
        cfg, n = self.config, self.config.block
        if self._block_index is not None and block_start // n <= self._block_index:
            return chunk.copy(), np.zeros(len(chunk), dtype=np.float32)
        skipped = block_start // n - (self._block_index + 1 if self._block_index is not None else block_start // n)
        self._block_index = block_start // n
        if skipped:
            self._shift_history(min(skipped, cfg.partitions), silent=True)
        ref_start = block_start - self.shift
        if self.reference.silent(ref_start - n, ref_start + n) and self._silent_blocks >= cfg.partitions:
            self._shift_history(1, silent=True)
            return chunk.copy(), np.zeros(len(chunk), dtype=np.float32)
        mic = np.zeros(n)
        inner = frame - block_start
        mic[inner : inner + len(chunk)] = chunk
        x = self.reference.read(ref_start - n, ref_start + n).astype(np.float64)
        self._shift_history(1, silent=not np.any(x))
        self._spectra[0] = np.fft.rfft(x)
        self._power[0] = np.abs(self._spectra[0]) ** 2
        self.blocks += 1
        fore = np.fft.irfft(np.sum(self._fore * self._spectra, axis=0))[n:]
        back = np.fft.irfft(np.sum(self._back * self._spectra, axis=0))[n:]
        e_fore, e_back = mic - fore, mic - back
        left, predicted = float(np.sum(e_fore[inner:] ** 2)), float(np.sum(fore[inner:] ** 2))
        talk = self.trained and left > predicted * 10 ** ((self.leak_db + cfg.double_talk_db) / 10)
        self._talk_blocks = self._talk_blocks + 1 if talk else 0
        if not talk or self._talk_blocks > cfg.double_talk_blocks:
            self._adapt(e_back)
            self._choose(left, float(np.sum(e_back[inner:] ** 2)), float(np.sum(mic[inner:] ** 2)))
        self._track_leak(
            float(np.sum(e_fore[inner:] ** 2)), float(np.sum(fore[inner:] ** 2)), float(np.sum(mic[inner:] ** 2))
        )
        self._track_hearing(float(np.sum(x[n:] ** 2)), float(np.sum(mic[inner:] ** 2)) * n / max(1, n - inner))
        if self.trained:
            masking = fore * 10 ** (max(self.leak_db + cfg.leak_margin_db, cfg.host_floor_db) / 20)
        elif self.deaf:
            masking = np.zeros(n)
        else:
            masking = mic * 10 ** (cfg.untrained_db / 20)
        part = slice(inner, inner + len(chunk))
        return e_fore[part].astype(np.float32), masking[part].astype(np.float32)

    def _track_leak(self, left: float, echo: float, mic: float) -> None:
        """How much of the echo the foreground leaves, dB: learnt where the echo makes up most of
        the microphone's sound (a player talking over the host would look like a leak), falling
        quickly as the filter improves and rising slowly."""
        cfg = self.config
        if echo <= 0.0 or (self.trained and echo < cfg.leak_share * mic):
            return
        ratio = 10 * np.log10(left / echo + 1e-12)
        if ratio < self.leak_db:
            self.leak_db = cfg.leak_fall * self.leak_db + (1 - cfg.leak_fall) * ratio
        else:
            self.leak_db = min(ratio, self.leak_db + cfg.leak_rise_db)
        self.leak_db = float(np.clip(self.leak_db, cfg.leak_min_db, cfg.untrained_leak_db))
        self.trained = self.trained or self.leak_db <= cfg.trained_db

    def _track_hearing(self, speaker: float, mic: float) -> None:
        """Whether the microphone follows the speaker's level (see ``EchoConfig.deaf_correlation``)."""
        cfg = self.config
        self._ref_levels.append(10 * np.log10(speaker + 1e-12))
        if speaker <= 0.0:
            return
        self._levels.append((10 * np.log10(mic + 1e-12), max(self._ref_levels)))
        if len(self._levels) < cfg.deaf_blocks:
            return
        if self.trained:
            self.deaf = False
            return
        if self.blocks % 10:
            return
        levels = np.array(self._levels)
        if np.std(levels[:, 0]) < 1e-6 or np.std(levels[:, 1]) < 1e-6:
            self.deaf = bool(np.std(levels[:, 0]) < 1e-6)
            return
        self.deaf = float(np.corrcoef(levels[:, 0], levels[:, 1])[0, 1]) < cfg.deaf_correlation

    def _shift_history(self, count: int, silent: bool) -> None:
        self._spectra = np.roll(self._spectra, count, axis=0)
        self._power = np.roll(self._power, count, axis=0)
        self._spectra[:count] = 0
        self._power[:count] = 0
        self._silent_blocks = self._silent_blocks + count if silent else 0

    def _adapt(self, error: np.ndarray) -> None:
        """One normalised, gradient-constrained step of the background filter."""
        cfg, n = self.config, self.config.block
        spectrum = np.fft.rfft(np.concatenate([np.zeros(n), error]))
        power = np.sum(self._power, axis=0)
        self._smooth_power = np.maximum(
            power, cfg.power_smoothing * self._smooth_power + (1 - cfg.power_smoothing) * power
        )
        power = self._smooth_power + cfg.regularisation * float(np.mean(self._smooth_power)) + 1e-10
        gradient = np.conj(self._spectra) * (spectrum / power)[None, :]
        update = np.fft.irfft(gradient, axis=1)
        update[:, n:] = 0.0
        self._back += cfg.step * np.fft.rfft(update, axis=1)

    def _choose(self, fore: float, back: float, mic: float) -> None:
        """Two-path control: keep whichever filter cancels better."""
        cfg = self.config
        a = cfg.smoothing
        self._fore_energy = a * self._fore_energy + (1 - a) * fore
        self._back_energy = a * self._back_energy + (1 - a) * back
        self._mic_energy = a * self._mic_energy + (1 - a) * mic
        if self._fore_energy > cfg.worse_ratio * self._mic_energy + 1e-12:
            self._fore[:] = 0
            self._back[:] = 0
            self._fore_energy = self._back_energy = self._mic_energy
            self.trained = False
            self.leak_db = cfg.untrained_leak_db
            self._better = 0
            return
        if (
            self._back_energy < cfg.copy_ratio * self._fore_energy
            and self._back_energy < cfg.explained * self._mic_energy
        ):
            self._better += 1
            if self._better >= cfg.copy_blocks:
                self._fore = self._back.copy()
                self._fore_energy = self._back_energy
                self._better = 0
        else:
            self._better = 0
            if self._back_energy > cfg.reset_ratio * self._fore_energy and self.trained:
                self._back = self._fore.copy()
                self._back_energy = self._fore_energy


__all__ = ["EchoCanceller", "EchoConfig", "Reference"]
