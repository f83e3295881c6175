"""Per-player voice enrolment: each player's own takes of the game's words, matched against a shout.

A table of known players can do what a general recogniser cannot: learn how *this* player says
"bim". Each player says every word of the game two or three times (``voicehost enrol``, or
``setup-table --enrol``); the takes are WAV files ``WORD-N.wav`` in one folder per player (the same
layout ``voicehost rank --enroll NAME=DIR`` reads). A shout is compared with the takes by dynamic
time warping over Whisper's encoder frames (20 ms, 384 values, length-normalised: a pretrained
representation that keeps the word and drops most of the noise), word by word: a one-word phrase
against the whole shout, a phrase of several words ("bim bam bum", "bam bam") burst by burst.

It is speaker dependent and language independent (German animal names work the same way); it
names the word well (98% of noisy test takes among the game's words, README) but cannot tell a
word from *other* speech on its own, so :class:`~voicehost.listen.recognize.whisper.recognizer.
WhisperRecognizer` fuses it with the general recogniser's ratio (see there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from voicehost.errors import InputError
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
    cost = 1.0 - a @ b.T
    n, m = cost.shape
    previous = np.full(m + 1, np.inf)
    previous[0] = 0.0
    for i in range(n):
        row = np.full(m + 1, np.inf)
        diagonal_or_up = cost[i] + np.minimum(previous[:-1], previous[1:])
        running = np.inf
        for j in range(m):
            running = min(diagonal_or_up[j], cost[i, j] + running)
            row[j + 1] = running
        previous = row
    return float(previous[m] / (n + m))


@dataclass
class Templates:
    """Every enrolled player's takes, as encoder frames: player → word → takes."""

    words: dict[str, dict[str, list[np.ndarray]]] = field(default_factory=dict)

    def players(self) -> list[str]:
        """Players with at least one take."""
        return [p for p, w in self.words.items() if w]

    def add(self, player: str, word: str, frames: np.ndarray) -> None:
        """One take of ``word`` by ``player``."""
        self.words.setdefault(player, {}).setdefault(normalize(word), []).append(frames)

    def distances(self, player: str, frames: np.ndarray) -> dict[str, float]:
        """Word → the smallest DTW distance of ``frames`` to one of ``player``'s takes of it."""
        return {
            word: min(dtw_distance(frames, t) for t in takes)
            for word, takes in self.words.get(player, {}).items()
            if takes
        }

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
