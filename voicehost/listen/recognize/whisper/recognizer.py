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
from voicehost.listen.ranking import MIN_WORD_BURST
from voicehost.listen.recognize.enrol import TemplateMatch, Templates, load_templates, match_phrases, read_take
from voicehost.listen.recognize.rejection import MAX_SYLLABLE, Tuning, load_tuning, segment_bursts
from voicehost.listen.recognize.whisper.engine import Analysis, WhisperEngine
from voicehost.listen.recognize.whisper.features import RATE
from voicehost.listen.vocab import VocabPack, normalize

DEFAULT_RATIO = -3.0
"""Nats: the acceptance threshold when the tuning file has none."""
DEFAULT_MARGIN = 1.0
"""Nats a phrase must beat the next allowed phrase by when the tuning file has none."""
DEFAULT_TEMPLATE_DISTANCE = 0.22
"""Mean DTW distance under which a player's takes fit a shout closely (tuning: template.distance)."""
DEFAULT_TEMPLATE_MARGIN = 0.02
"""How much closer than the next phrase the takes must fit (tuning: template.margin)."""
DEFAULT_TEMPLATE_BONUS = 4.0
"""Nats the acceptance threshold is loosened by when the takes agree (tuning: template.bonus)."""
COUNT_SLACK = 4.0
"""Nats under the best phrase within which the burst count of a repeated word wins."""
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
    template: TemplateMatch | None = None
    """How the shout compares with its player's enrolment takes (None: not enrolled)."""


class WhisperRecognizer:
    """A :class:`~voicehost.listen.messages.Recognizer` on Whisper (see the module doc)."""

    name = "whisper"

    def __init__(self, pack: VocabPack, engine: WhisperEngine | None = None, tuning: Tuning | None = None,
                 model: Path | None = None, templates: Templates | None = None) -> None:
        self.pack = pack
        self.engine = engine or WhisperEngine(model)
        self.tuning = tuning if tuning is not None else load_tuning("whisper", pack.lang)
        self.templates = templates
        """Enrolled players' takes (None: nobody enrolled)."""
        self.description = self.engine.description

    def enrol(self, folders: dict[str, Path]) -> None:
        """Load the players' enrolment takes (player → folder of ``WORD-N.wav``)."""
        self.templates = load_templates(folders, self.engine.encode, read_take)
        self.description = f"{self.engine.description}, enrolled: {', '.join(self.templates.players())}"

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
        if phrase is not None:
            phrase, ratio, margin = self._counted(phrase, ratio, margin, analysis, segment)
        template = self._template(segment, analysis, list(spoken))
        if template is not None and template.phrase is not None:
            return self._fused(phrase, ratio, margin, template, analysis)
        return Evidence(self._decide(phrase, ratio, margin), analysis, phrase, ratio, margin)

    def _template(self, segment: Segment, analysis: Analysis, phrases: list[str]) -> TemplateMatch | None:
        seat = segment.event.seat
        if self.templates is None or seat not in self.templates.words:
            return None
        start = max(0.0, segment.event.onset - segment.start)
        end = max(start, segment.event.end - segment.start)
        bursts = [(a - segment.start, b - segment.start) for a, b in segment_bursts(segment) if b - a >= MIN_WORD_BURST]
        return match_phrases(self.templates, seat, analysis.encoded, start, end, bursts, phrases)

    def _fused(self, phrase: str | None, ratio: float, margin: float, template: TemplateMatch,
               analysis: Analysis) -> Evidence:
        """Whisper's evidence and the player's own takes together.

        The takes name the word (they know how this player says it); Whisper says whether it was
        a game word at all. When the takes fit one allowed phrase closely (``template_distance``)
        and clearly better than any other (``template_margin``), that phrase is accepted if
        Whisper's ratio for it reaches the threshold loosened by ``template_bonus`` nats; otherwise
        Whisper alone decides."""
        assert template.phrase is not None
        tuning = self.tuning.template
        close = template.distance <= tuning.get("distance", DEFAULT_TEMPLATE_DISTANCE)
        clear = template.margin >= tuning.get("margin", DEFAULT_TEMPLATE_MARGIN)
        scores = analysis.scores.phrases
        if close and clear and template.phrase in scores:
            own = scores[template.phrase] - max(analysis.scores.free_score, max(scores.values()))
            loosened = self._threshold(template.phrase) - tuning.get("bonus", DEFAULT_TEMPLATE_BONUS)
            if own >= loosened:
                confidence = self.tuning.llr_confidence(own + tuning.get("bonus", DEFAULT_TEMPLATE_BONUS))
                return Evidence(Recognition(template.phrase, confidence, (), self.name, None), analysis,
                                template.phrase, own, template.margin, template)
        return Evidence(self._decide(phrase, ratio, margin), analysis, phrase, ratio, margin, template)

    def _counted(self, phrase: str, ratio: float, margin: float, analysis: Analysis,
                 segment: Segment) -> tuple[str, float, float]:
        """A repeated word ("bam bam bam") counted from the signal's syllable bursts.

        Whisper's language model pulls counts (and "bim bam bum" towards "bam bam"); the energy
        envelope counts loud syllables well (93% on the tuning clips). When the best phrase repeats
        one word, the same word repeated as many times as there are bursts wins if it is allowed
        and Whisper scored it within ``COUNT_SLACK`` nats. Its ratio stays the best phrase's (the
        evidence that this word was said) and its margin is measured against the phrases of other
        words only: the count was not Whisper's to decide."""
        words = phrase.split()
        if len(set(words)) != 1:
            return phrase, ratio, margin
        bursts = [b for b in segment_bursts(segment) if b[1] - b[0] >= MIN_WORD_BURST]
        if not bursts or any(b - a > MAX_SYLLABLE for a, b in bursts):
            return phrase, ratio, margin
        scores = analysis.scores.phrases
        counted = " ".join([words[0]] * len(bursts))
        if counted not in scores or scores[counted] < scores[phrase] - COUNT_SLACK:
            return phrase, ratio, margin
        same_word = {p for p in scores if set(p.split()) == {words[0]}}
        others = [v for p, v in scores.items() if p not in same_word]
        new_margin = scores[phrase] - max(others) if others else float("inf")
        return counted, ratio, new_margin

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
