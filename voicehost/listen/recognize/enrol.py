"""Per-player voice enrolment: each player's own takes of the game's words, matched against a shout.

A table of known players can do what a general recogniser cannot: learn how *this* player says
"bim". Each player says every word of the game three times by default, or ``--takes`` N times (``voicehost enrol``, or
``setup-table --enrol``); the takes are WAV files ``WORD-N.wav`` in one folder per player (the same
layout ``voicehost rank --enroll NAME=DIR`` reads). A shout is compared with the takes by dynamic
time warping over Whisper's encoder frames (20 ms, 384 values, length-normalised: a pretrained
representation that keeps the word and drops most of the noise), word by word: a one-word phrase
against the whole shout, a phrase of several words ("bim bam bum", "bam bam") burst by burst.

It is speaker dependent and language independent (German animal names work the same way); it
names the word well (98% of noisy test takes among the game's words, README) but cannot tell a
word from *other* speech on its own, so :class:`~voicehost.listen.recognize.whisper.recognizer.
WhisperRecognizer` fuses it with the general recogniser's ratio (see there).

*Stock takes* (tried, off as shipped): a player who did not enrol matched against takes of the
same words by the project's eight synthetic tuning voices (``python -m tools.stock_takes`` makes
them; :func:`load_stock`), with a smaller bonus (``stock_*`` of the recogniser's TEMPLATE). Held out
they raised recall on synthetic voices (75.1% -> 79.9%) but not on real people (87.9% both), whose
other words fit the synthetic takes as closely as their game words, and false alarms in real talk
rose from 4.5 to 6.8 per 10 minutes (README, "Hearing the shouts", item 12): a real table would
pay for it without gaining. ``bench/bench_listen.py --stock`` measures it.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from voicehost.errors import InputError, ModelError
from voicehost.listen.vocab import normalize

FRAME = 0.02
"""Seconds per Whisper encoder frame."""
PAD = 0.04
"""Seconds of context kept around a word's sound."""
TAKE_NAME = re.compile(r"^(?P<word>[^\W\d_][\w' -]*?)-(?P<n>\d+)\.wav$", re.IGNORECASE | re.UNICODE)
"""``WORD-N.wav``: one take of one word."""
MAX_TAKES = 20
"""Takes per word read at most (more add cost, not accuracy)."""


def take_files(folder: Path) -> dict[str, list[Path]]:
    """Word → its take files in ``folder`` (``WORD-N.wav``, sorted by N); InputError if none."""
    if not folder.is_dir():
        raise InputError(f"enrolment folder {folder} does not exist")
    found: dict[str, list[tuple[int, Path]]] = {}
    for path in folder.iterdir():
        match = TAKE_NAME.match(path.name)
        if match and path.is_file():
            found.setdefault(normalize(match["word"]), []).append((int(match["n"]), path))
    if not found:
        raise InputError(f"enrolment folder {folder} has no takes (files named WORD-N.wav, e.g. cat-1.wav)")
    return {w: [p for _, p in sorted(v)][:MAX_TAKES] for w, v in sorted(found.items())}


def read_take(path: Path, rate: int = 16000) -> np.ndarray:
    """A take's samples: mono float32 at ``rate`` Hz (AudioFormatError when unreadable or empty)."""
    import soundfile

    from voicehost.errors import AudioFormatError

    try:
        data, file_rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, OSError, ValueError) as exc:
        raise AudioFormatError(f"cannot read enrolment take {path}: {exc}") from None
    if data.size == 0:
        raise AudioFormatError(f"enrolment take {path} is empty")
    mono = np.nan_to_num(data.mean(axis=1))
    from voicehost.audio.resample import resample

    return resample(mono, file_rate, rate)


def speech_span(samples: np.ndarray, rate: int) -> tuple[float, float]:
    """(start, end) seconds of the sound in a take: where the 10 ms level is within 30 dB of its peak."""
    hop = max(1, rate // 100)
    frames = len(samples) // hop
    if frames == 0:
        return 0.0, len(samples) / rate
    level = 10 * np.log10(np.mean(samples[: frames * hop].astype(np.float64).reshape(frames, hop) ** 2, axis=1) + 1e-12)
    loud = np.flatnonzero(level >= level.max() - 30.0)
    return float(loud[0] * hop / rate), float((loud[-1] + 1) * hop / rate)


def frames_between(encoded: np.ndarray, start: float, end: float) -> np.ndarray:
    """Encoder frames covering [start − PAD, end + PAD] seconds, each scaled to unit length."""
    a = max(0, int((start - PAD) / FRAME))
    b = min(len(encoded), int(np.ceil((end + PAD) / FRAME)))
    part = encoded[a : max(b, a + 1)]
    norms = np.linalg.norm(part, axis=1, keepdims=True)
    out: np.ndarray = part / np.maximum(norms, 1e-9)
    return out


def dtw_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean cosine distance along the best monotonic alignment of frame sequences ``a`` and ``b``
    (steps right, down and diagonal; normalised by n + m)."""
    return float(dtw_distances(a, [b])[0])


def dtw_distances(a: np.ndarray, takes: Sequence[np.ndarray] | "TakeStack") -> np.ndarray:
    """:func:`dtw_distance` of ``a`` to each of ``takes`` at once (the takes padded to one length;
    a padded column never feeds an earlier one, so each take's distance is read at its own end).

    Along a row the recurrence ``D[i, j] = min(D[i-1, j-1], D[i-1, j], D[i, j-1]) + c[i, j]`` is a
    running minimum: with ``S`` the row's cumulative costs, ``D[i, j] = S[j] + min over k <= j of
    (c[i, k] + min(D[i-1, k-1], D[i-1, k]) - S[k])``, so each row is a few array operations."""
    stack = takes if isinstance(takes, TakeStack) else TakeStack.of(takes)
    count, width = len(stack.lengths), stack.width
    if count == 0:
        return np.zeros(0)
    products = stack.frames @ a.astype(np.float64).T
    cost = 1.0 - products.reshape(count, width, len(a)).transpose(0, 2, 1)
    previous = np.full((count, width + 1), np.inf)
    previous[:, 0] = 0.0
    for i in range(len(a)):
        row_cost = cost[:, i, :]
        entering = row_cost + np.minimum(previous[:, :-1], previous[:, 1:])
        running = np.cumsum(row_cost, axis=1)
        row = np.empty_like(previous)
        row[:, 0] = np.inf
        row[:, 1:] = running + np.minimum.accumulate(entering - running, axis=1)
        previous = row
    out: np.ndarray = previous[np.arange(count), stack.lengths] / (len(a) + stack.lengths)
    return out


@dataclass(frozen=True)
class TakeStack:
    """Takes padded to one length and stacked, ready for :func:`dtw_distances`."""

    frames: np.ndarray
    """(takes x width, values) float64, take k's frames at rows k*width ... k*width + its length."""
    lengths: np.ndarray
    width: int

    @staticmethod
    def of(takes: Sequence[np.ndarray]) -> "TakeStack":
        lengths = np.array([len(t) for t in takes], dtype=np.int64)
        width = int(lengths.max()) if len(takes) else 0
        values = takes[0].shape[1] if len(takes) else 0
        stacked = np.zeros((len(takes), width, values), dtype=np.float64)
        for k, take in enumerate(takes):
            stacked[k, : len(take)] = take
        return TakeStack(stacked.reshape(-1, values), lengths, width)


@dataclass
class Templates:
    """Every enrolled player's takes, as encoder frames: player → word → takes."""

    words: dict[str, dict[str, list[np.ndarray]]] = field(default_factory=dict)
    _stacks: dict[tuple[str, str], tuple[int, TakeStack]] = field(default_factory=dict, repr=False, compare=False)

    def players(self) -> list[str]:
        """Players with at least one take."""
        return [p for p, w in self.words.items() if w]

    def add(self, player: str, word: str, frames: np.ndarray) -> None:
        """One take of ``word`` by ``player``."""
        self.words.setdefault(player, {}).setdefault(normalize(word), []).append(frames)

    def distances(self, player: str, frames: np.ndarray) -> dict[str, float]:
        """Word → the smallest DTW distance of ``frames`` to one of ``player``'s takes of it."""
        return {
            word: float(dtw_distances(frames, self._stack(player, word, takes)).min())
            for word, takes in self.words.get(player, {}).items()
            if takes
        }

    def _stack(self, player: str, word: str, takes: list[np.ndarray]) -> TakeStack:
        """The takes stacked once (again when takes were added since)."""
        cached = self._stacks.get((player, word))
        if cached is None or cached[0] != len(takes):
            cached = self._stacks[(player, word)] = (len(takes), TakeStack.of(takes))
        return cached[1]

    def covers(self, player: str, phrase: str) -> bool:
        """True if ``player`` has takes of every word of ``phrase``."""
        mine = self.words.get(player, {})
        return all(mine.get(w) for w in phrase.split())


def load_templates(
    folders: Mapping[str, Path], encode: Callable[[np.ndarray], np.ndarray], read: Callable[[Path], np.ndarray]
) -> Templates:
    """Templates from each player's folder of ``WORD-N.wav`` takes. ``read`` gives a take's samples
    at 16 kHz mono; ``encode`` its encoder frames."""
    templates = Templates()
    for player, folder in folders.items():
        for word, paths in take_files(folder).items():
            for path in paths:
                templates.add(player, word, take_frames(read(path), encode))
    return templates


def take_frames(samples: np.ndarray, encode: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """One take (16 kHz mono) as the encoder frames of its sound (:func:`speech_span`)."""
    start, end = speech_span(samples, 16000)
    return frames_between(encode(samples), start, end)


@dataclass(frozen=True)
class TemplateMatch:
    """How a shout compares with its player's takes."""

    phrase: str | None
    """The allowed phrase the takes fit best (None: no allowed phrase is covered by takes)."""
    distance: float
    """Its mean DTW distance (0 = identical; takes of the same word by the same voice: ~0.1-0.2)."""
    margin: float
    """Distance of the next best allowed phrase minus ``distance`` (inf when there is none)."""
    stock: bool = False
    """Matched against the stock takes (the player did not enrol)."""


def match_phrases(
    templates: Templates,
    player: str,
    encoded: np.ndarray,
    start: float,
    end: float,
    bursts: Sequence[tuple[float, float]],
    phrases: Sequence[str],
) -> TemplateMatch:
    """Score the allowed ``phrases`` covered by ``player``'s takes on one shout.

    ``encoded``: the segment's encoder frames; ``start``/``end``: the shout's sound and ``bursts``
    its syllable bursts, seconds from the segment start. A one-word phrase is matched against the
    whole shout; a phrase of k words only when there are k bursts, each burst against its word."""
    covered = [p for p in phrases if templates.covers(player, p)]
    if not covered:
        return TemplateMatch(None, float("inf"), 0.0)
    whole = templates.distances(player, frames_between(encoded, start, end))
    per_burst: list[dict[str, float]] | None = None
    scores: dict[str, float] = {}
    for phrase in covered:
        words = phrase.split()
        if len(words) == 1:
            scores[phrase] = whole.get(words[0], float("inf"))
            continue
        if len(bursts) != len(words):
            continue
        if per_burst is None:
            per_burst = [templates.distances(player, frames_between(encoded, a, b)) for a, b in bursts]
        scores[phrase] = float(np.mean([d.get(w, float("inf")) for d, w in zip(per_burst, words)]))
    if not scores:
        return TemplateMatch(None, float("inf"), 0.0)
    ranked = sorted(scores.items(), key=lambda kv: kv[1])
    margin = ranked[1][1] - ranked[0][1] if len(ranked) > 1 else float("inf")
    return TemplateMatch(ranked[0][0], ranked[0][1], margin)


STOCK_PLAYER = "*stock*"
"""The stock takes' player name inside their own :class:`Templates` (kept apart from the enrolled
players' takes, so it never meets a seat's name)."""
STOCK_VERSION = 1
"""Layout of the stock takes file."""


@dataclass(frozen=True)
class StockTakes:
    """Takes of the game's words by synthetic voices, as encoder frames (:func:`load_stock`)."""

    templates: Templates
    """Every take under :data:`STOCK_PLAYER`."""
    voices: tuple[str, ...]
    model_bytes: int
    """Size of the Whisper ``model.bin`` the frames were encoded with (they fit no other model)."""
    width: int
    """Values per encoder frame."""


def save_stock(path: Path, takes: Mapping[str, Mapping[str, Sequence[np.ndarray]]], model_bytes: int) -> None:
    """Write voice → word → takes (encoder frames) to ``path`` (float16, no pickles)."""
    words = sorted({w for mine in takes.values() for w in mine})
    voices = list(takes)
    frames, lengths, word_of, voice_of = [], [], [], []
    for v, voice in enumerate(voices):
        for word in words:
            for take in takes[voice].get(word, ()):
                frames.append(np.asarray(take, dtype=np.float16))
                lengths.append(len(take))
                word_of.append(words.index(word))
                voice_of.append(v)
    np.savez_compressed(
        path,
        version=np.array(STOCK_VERSION),
        frames=np.concatenate(frames),
        lengths=np.array(lengths, dtype=np.int32),
        word=np.array(word_of, dtype=np.int16),
        voice=np.array(voice_of, dtype=np.int16),
        words=np.array(words),
        voices=np.array(voices),
        model_bytes=np.array(model_bytes, dtype=np.int64),
    )


def load_stock(path: Path) -> StockTakes:
    """The stock takes in ``path``; ModelError naming the file and the field when it is unreadable
    or inconsistent."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ModelError(f"{path}: not a stock takes file ({exc})") from None
    for key in ("version", "frames", "lengths", "word", "voice", "words", "voices", "model_bytes"):
        if key not in arrays:
            raise ModelError(f"{path}: field {key!r} is missing")
    if int(arrays["version"]) != STOCK_VERSION:
        raise ModelError(f"{path}: field 'version' is {int(arrays['version'])}, expected {STOCK_VERSION}")
    frames, lengths = arrays["frames"], arrays["lengths"]
    words, voices = [str(w) for w in arrays["words"]], tuple(str(v) for v in arrays["voices"])
    if frames.ndim != 2 or frames.shape[0] != int(lengths.sum()) or np.any(lengths < 1):
        raise ModelError(f"{path}: field 'frames' does not match 'lengths'")
    n = len(lengths)
    if arrays["word"].shape != (n,) or arrays["voice"].shape != (n,):
        raise ModelError(f"{path}: fields 'word' and 'voice' need one entry per take ({n})")
    word_of, voice_of = arrays["word"], arrays["voice"]
    if n and (word_of.max() >= len(words) or voice_of.max() >= len(voices) or min(word_of.min(), voice_of.min()) < 0):
        raise ModelError(f"{path}: field 'word' or 'voice' points past 'words' or 'voices'")
    templates = Templates()
    ends = np.cumsum(lengths)
    for k in range(n):
        take = frames[ends[k] - lengths[k] : ends[k]].astype(np.float32)
        templates.add(STOCK_PLAYER, words[int(arrays["word"][k])], take)
    return StockTakes(templates, voices, int(arrays["model_bytes"]), int(frames.shape[1]))
