"""The Whisper recogniser: a phrase, an uncertain phrase, or a rejection, from the phrase scores.

For each segment :class:`~.engine.WhisperEngine` gives the best allowed phrase, its *ratio* to
Whisper's own transcription (nats, 0 when Whisper itself wrote that phrase) and its *margin* over
the next allowed phrase. The phrase is accepted when the ratio reaches its learnt threshold and
the margin its learnt minimum; a phrase whose ratio falls short by less than the learnt
uncertainty band is *uncertain* (``rejected_as='uncertain'``, ``candidate`` set): the host asks
back instead of dropping it. The thresholds and the logistic map from ratio to confidence are data
(``[whisper.<lang>]`` in tuning.toml, learnt by ``bench/bench_recognize.py --learn``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from voicehost.listen.messages import Recognition, Segment
from voicehost.listen.recognize.rejection import Tuning, load_tuning
from voicehost.listen.recognize.whisper.engine import Analysis, WhisperEngine
from voicehost.listen.recognize.whisper.features import RATE
from voicehost.listen.vocab import VocabPack, normalize

DEFAULT_RATIO = -3.0
"""Nats: the acceptance threshold when the tuning file has none."""
DEFAULT_MARGIN = 1.0
"""Nats a phrase must beat the next allowed phrase by when the tuning file has none."""
DEFAULT_BAND = 3.0
"""Nats under the threshold in which a phrase is uncertain rather than rejected."""


@dataclass(frozen=True)
class Evidence:
    """A recognition with what it was decided on (benchmarks and tuning)."""

    recognition: Recognition
    analysis: Analysis | None
    phrase: str | None
    """The best allowed phrase before the decision."""
    ratio: float
    """Nats (see the module doc); -inf when no phrase came near."""
    margin: float
    """Nats over the next allowed phrase."""


class WhisperRecognizer:
    """A :class:`~voicehost.listen.messages.Recognizer` on Whisper (see the module doc)."""

    name = "whisper"

    def __init__(self, pack: VocabPack, engine: WhisperEngine | None = None, tuning: Tuning | None = None,
                 model: Path | None = None) -> None:
        self.pack = pack
        self.engine = engine or WhisperEngine(model)
        self.tuning = tuning if tuning is not None else load_tuning("whisper", pack.lang)
        self.description = self.engine.description

    def recognize(self, segment: Segment, phrases: Sequence[str]) -> Recognition:
        """Score ``segment`` against ``phrases`` (canonical ids); accept, ask back, or reject."""
        return self.evidence(segment, phrases).recognition

    def evidence(self, segment: Segment, phrases: Sequence[str]) -> Evidence:
        """:meth:`recognize` with the scores it was decided on."""
        spoken = {normalize(p): self.pack.spoken_forms(p) for p in phrases}
        spoken = {p: forms for p, forms in spoken.items() if forms and p != "slap"}
        if not spoken:
            return Evidence(Recognition(None, 0.0, (), self.name, "out_of_grammar"), None, None, float("-inf"), 0.0)
        samples = segment.samples if segment.rate == RATE else _resample(segment.samples, segment.rate)
        analysis = self.engine.analyse(samples, spoken)
        phrase, ratio, margin = analysis.scores.best()
        return Evidence(self._decide(phrase, ratio, margin), analysis, phrase, ratio, margin)

    def _decide(self, phrase: str | None, ratio: float, margin: float) -> Recognition:
        if phrase is None:
            return Recognition(None, 0.0, (), self.name, "out_of_grammar")
        threshold = self._threshold(phrase)
        confidence = self.tuning.llr_confidence(ratio)
        if ratio >= threshold and margin >= self._margin(phrase):
            return Recognition(phrase, confidence, (), self.name, None)
        if ratio >= threshold - self._band(phrase):
            return Recognition(None, 0.0, (), self.name, "uncertain", candidate=phrase, candidate_confidence=confidence)
        return Recognition(None, 0.0, (), self.name, "low_confidence")

    def _threshold(self, phrase: str) -> float:
        value = self.tuning.llr_threshold(phrase)
        return DEFAULT_RATIO if value == float("-inf") else value

    def _margin(self, phrase: str) -> float:
        return float(self.tuning.min_margin.get(phrase, self.tuning.min_margin.get("default", DEFAULT_MARGIN)))

    def _band(self, phrase: str) -> float:
        return float(self.tuning.uncertain_band.get(phrase, self.tuning.uncertain_band.get("default", DEFAULT_BAND)))


def _resample(samples: np.ndarray, rate: int) -> np.ndarray:
    import soxr

    return np.asarray(soxr.resample(samples, rate, RATE), dtype=np.float32)
