"""The Whisper recogniser: a phrase, an uncertain phrase, or a rejection, from fused evidence.

For each segment :class:`~.engine.WhisperEngine` scores the allowed phrases: a phrase's *ratio*
is its log probability minus that of Whisper's own transcription (nats; 0 when Whisper itself
wrote that phrase, far below 0 for other speech; where Whisper writes a sound, "(Bert)", the
words it hears there instead: :class:`~.search.SearchConfig` ``speech_reference``). Candidates
are Whisper's best phrase, PocketSphinx's hypothesis (English: a second, differently trained
model; it knows how the game's nonsense words are pronounced and was better at "bim"/"bam"/"bum"),
and, for an enrolled player, the phrase their own takes fit best. Each candidate gets a fused score

    ratio + sphinx_weight × (PocketSphinx's likelihood ratio, nats per frame) + bias
          + template bonus (when the player's takes fit it closely and clearly)
          + context bonus (when the game expects the phrase now)
          - distinct penalty (a repeated word whose syllables sound like different words)

and the best candidate is accepted at a score ≥ 0, reported as *uncertain* (the host asks back)
within ``uncertain_band`` below (an expected phrase's context nats beyond ``ask_context`` not
counted there), rejected otherwise. PocketSphinx decodes a candidate only while it
could still win (``sphinx_ceiling``, :meth:`WhisperRecognizer._consult`).

*A second look* (off as shipped: ``look_min`` > ``look_max``) where the decision is close (the best
score between ``look_min`` and ``look_max``): Whisper hears the shout twice more, played 15%
slower and 15% faster (:data:`LOOK_SPEEDS`), and each candidate's ratio becomes the median of its
three. On the tuning split [-6, 4] gave 5 more shouts right of 118, 3 fewer wrong and 5 fewer false
alarms; held out it lost recall (70.4% -> 68.0% synthetic, 87.1% -> 82.9% real) for fewer false
alarms, so it stays off (README, "Hearing the shouts"). Weights, bias and band are data
(``[whisper.<lang>.fusion]`` in tuning.toml), chosen on the tuning voices (README, "Recognition").
Without PocketSphinx (another language) the ratio alone is used with its own bias.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol, Sequence

import numpy as np

from voicehost.audio.resample import resample
from voicehost.errors import ModelError
from voicehost.listen.messages import Recognition, Segment
from voicehost.listen.ranking import MIN_WORD_BURST
from voicehost.listen.recognize.enrol import (
    STOCK_PLAYER,
    StockTakes,
    TemplateMatch,
    Templates,
    frames_between,
    load_templates,
    match_phrases,
    read_take,
)
from voicehost.listen.recognize.rejection import MAX_SYLLABLE, Tuning, load_tuning, segment_bursts
from voicehost.listen.recognize.whisper.engine import Analysis, WhisperEngine
from voicehost.listen.recognize.whisper.features import HOP, RATE, log_mel
from voicehost.listen.recognize.whisper.search import NON_SPEECH_OPENINGS
from voicehost.listen.vocab import VocabPack, normalize

if TYPE_CHECKING:
    from voicehost.listen.recognize.moonshine import MoonshineEngine

FUSION = {
    "sphinx_weight": 1.0,
    "bias": 5.0,
    "bias_alone": 2.5,
    "uncertain_band": 3.0,
    "ratio_floor": -14.0,
    "sphinx_floor": -8.0,
    "fast_margin": 3.0,
    "fast_sphinx": -2.0,
    "context_bonus": 0.0,
    "ask_context": math.inf,
    "look_min": 1.0,
    "look_max": 0.0,
    "keep_expected": 1.0,
    "call_prompt": 1.0,
    "sphinx_ceiling": 2.0,
    "sphinx_ceiling_floored": 0.0,
    "distinct_spread": 1.8,
    "distinct_penalty": 4.0,
    "moonshine_weight": 1.0,
    "moonshine_shift": 6.0,
    "moonshine_floor": -10.0,
    "moonshine_low": -10.0,
    "moonshine_high": 5.0,
    "moonshine_top": 1.0,
    "nonspeech_ratio": -math.inf,
    "nonspeech_take": 0.0,
}
"""Fusion settings used when tuning.toml has none (the shipped file has them; see the module doc)."""
TEMPLATE = {
    "distance": 0.22,
    "margin": 0.02,
    "bonus": 4.0,
    "stock_distance": 0.16,
    "stock_margin": 0.0,
    "stock_bonus": 2.0,
    "learn_score": 6.0,
    "learn_ratio": -0.01,
    "learn_max": 6.0,
}
"""Enrolment settings used when tuning.toml has none: the takes must fit within ``distance`` (mean
DTW cosine distance) and ``margin`` better than any other phrase to add ``bonus`` nats; ``stock_*``
the same for the stock takes (a player who did not enrol). Takes learned in play (``learn``: tried,
off as shipped; README, "Hearing the shouts", item 19):
a shout the game expected, accepted with a fused score of at least ``learn_score`` without the
takes' own bonus, whose phrase Whisper itself wrote (its ratio ≥ ``learn_ratio``), or an uncertain
shout its player confirmed (:meth:`WhisperRecognizer.confirm`), becomes a take of its words while
the player has fewer than ``learn_max`` takes of the word (enrolled ones included)."""
ISOLATE: tuple[float, float] | None = (0.08, 0.15)
"""Seconds kept before the onset and after the end of a shout for Whisper (None: the whole segment).
Re-measured 2026-12-04 (tuning split, Bim Bamm! races and solo shouts, 79 shouts, with the
context): (0.08, 0.15) 57 right; (0.08, 0.30) 52, one false alarm fewer in 5.3 min of talk;
(0.15, 0.15) 52, one more wrong phrase."""
LOOK_SPEEDS = (0.85, 1.15)
"""Playback speeds of the second look (tuning split: 0.85-1.15 in steps of 0.05 and a
pre-emphasis tried, alone and together; this pair's median was best and cheapest)."""
SPREAD_FRAMES = 3
"""Loudest frames of a burst whose cepstra stand for it in :func:`burst_spread`."""
ASKED_KEPT = 16
"""Uncertain shouts remembered for :meth:`WhisperRecognizer.confirm`."""
CONFIRM_SLACK = 0.5
"""Seconds between a confirmed shout's reported onset and its sound's onset."""
COUNT_SLACK = 4.0
"""Nats under the best phrase within which the burst count of a repeated word wins."""


class Opinion(Protocol):
    """A second recogniser's view of one segment (PocketSphinx:
    :class:`~voicehost.listen.recognize.sphinx.SphinxOpinion`)."""

    @property
    def hypothesis(self) -> str | None:
        """Its own phrase for the segment (None: none of the allowed ones)."""

    def ratio(self, phrase: str) -> float | None:
        """Its likelihood ratio for ``phrase``, nats per frame (None: no path); computed when asked."""


class SecondOpinion(Protocol):
    """A second recogniser (PocketSphinx:
    :meth:`~voicehost.listen.recognize.sphinx.SphinxRecognizer.opinion`)."""

    def opinion(self, segment: Segment, phrases: Sequence[str], known: Any = None) -> Opinion:
        """Its view of ``segment`` among ``phrases`` (``known``: what :meth:`parts` decoded of it)."""

    def parts(self, segment: Segment, phrases: Sequence[str]) -> Any:
        """What every opinion of ``segment`` that is asked for a ratio decodes (picklable)."""


@dataclass
class Candidate:
    """One phrase the segment may be, with the evidence for it."""

    phrase: str
    ratio: float
    """Whisper: nats under its own transcription (floored)."""
    sphinx: float | None = None
    """PocketSphinx's likelihood ratio, nats per frame (None: not asked or no path)."""
    bonus: float = 0.0
    """Nats from the player's enrolment takes."""
    context: float = 0.0
    """Nats because the game expects this phrase now (``likely``)."""
    shape: float = 0.0
    """Nats from the sound of the syllables (≤ 0): a repeated word whose syllables sound like
    different words (:func:`burst_spread`)."""
    score: float = 0.0
    """The fused score (≥ 0: accepted)."""
    moonshine: float | None = None
    """Moonshine's ratio, nats under its own transcription (None: not asked; -inf: the segment was
    asked about, this candidate was not among the ``moonshine_top`` best, and counts as the floor)."""
    looks: tuple[float, ...] = ()
    """Whisper's ratio at each of :data:`LOOK_SPEEDS` when the segment had a second look (``ratio``
    is then the median of the first ratio and these); empty otherwise."""


@dataclass(frozen=True)
class Evidence:
    """A recognition with what it was decided on (benchmarks and tuning)."""

    recognition: Recognition
    analysis: Analysis | None
    phrase: str | None
    """The best candidate phrase before the decision."""
    ratio: float
    """Its fused score (-inf when there was no candidate): ≥ 0 accepted."""
    margin: float
    """Whisper: nats of its best phrase over the next allowed phrase."""
    template: TemplateMatch | None = None
    """How the shout compares with its player's enrolment takes (None: not enrolled)."""
    candidates: tuple[Candidate, ...] = field(default=())
    moonshine_text: str | None = None
    """Moonshine's own transcription (None: it was not asked)."""


class WhisperRecognizer:
    """A :class:`~voicehost.listen.messages.Recognizer` on Whisper (see the module doc)."""

    name = "whisper"

    def __init__(
        self,
        pack: VocabPack,
        engine: WhisperEngine | None = None,
        tuning: Tuning | None = None,
        model: Path | None = None,
        templates: Templates | None = None,
        second: SecondOpinion | None = None,
        stock: StockTakes | None = None,
        third: MoonshineEngine | None = None,
        learn: bool = False,
    ) -> None:
        self.pack = pack
        self.engine = engine or WhisperEngine(model)
        self.tuning = (
            tuning
            if tuning is not None
            else load_tuning("whisper", pack.lang, known={"fusion": FUSION, "template": TEMPLATE})
        )
        self.templates = templates
        """Enrolled players' takes (None: nobody enrolled)."""
        self.second = second
        """PocketSphinx for English (None: Whisper alone)."""
        self.description = self.engine.description + (", fused with PocketSphinx" if second is not None else "")
        self.third = third
        """Moonshine base for English (None: not installed, or ``VOICEHOST_MOONSHINE=off``)."""
        if third is not None:
            self.description += f" and {third.description}"
        self.stock = stock
        """Stock takes for players who did not enrol (None, as shipped: see :mod:`..enrol`)."""
        if stock is not None:
            size = (self.engine.folder / "model.bin").stat().st_size
            if size != stock.model_bytes:
                raise ModelError(
                    f"the stock takes were encoded with another Whisper model ({stock.model_bytes} bytes, "
                    f"this one {size}): make them again with python -m tools.stock_takes"
                )
            self.description += f", stock takes of {len(stock.voices)} voices"
        self.learn = learn
        """Keep clearly heard shouts as their player's takes (:meth:`_learn`)."""
        self._asked: list[tuple[str, float, str, list[tuple[str, np.ndarray]]]] = []
        """Uncertain shouts' takes until the player confirms one: (seat, onset, phrase, word takes)."""
        self.on_learn: Callable[[Segment, str], None] | None = None
        """Called with the segment and the phrase each time a shout is learned (benchmarks)."""

    def enrol(self, folders: dict[str, Path]) -> None:
        """Load the players' enrolment takes (player → folder of ``WORD-N.wav``)."""
        self.templates = load_templates(folders, self.engine.encode, read_take)
        self.description += f", enrolled: {', '.join(self.templates.players())}"

    def recognize(
        self,
        segment: Segment,
        phrases: Sequence[str],
        likely: Sequence[str] = (),
        known: Callable[[], object] | None = None,
    ) -> Recognition:
        """Score ``segment`` against ``phrases`` (canonical ids); accept, ask back, or reject.
        ``likely`` phrases are always candidates and get the ``context_bonus``. ``known``: gives
        PocketSphinx's :meth:`second_parts` of this segment and these phrases, decoded elsewhere
        while Whisper worked (None from it: PocketSphinx decodes them here)."""
        return self.evidence(segment, phrases, likely, known).recognition

    def second_parts(self, segment: Segment, phrases: Sequence[str]) -> object:
        """PocketSphinx's passes that any of its opinions of ``segment`` decodes (its hypothesis,
        the phone loop), for :meth:`recognize`'s ``known``: the helper process decodes them while
        the listener's Whisper works on the same segment. None without PocketSphinx."""
        if self.second is None:
            return None
        return self.second.parts(segment, list(self._spoken(phrases)))

    def _spoken(self, phrases: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Phrase id → its written forms, for the phrases Whisper is asked about."""
        spoken = {normalize(p): self.pack.spoken_forms(p) for p in phrases}
        return {p: tuple(forms) for p, forms in spoken.items() if forms and p != "slap"}

    def setting(self, table: str, key: str) -> float:
        """A fusion or enrolment setting: tuning.toml's, else the shipped default."""
        values = self.tuning.fusion if table == "fusion" else self.tuning.template
        defaults = FUSION if table == "fusion" else TEMPLATE
        return float(values.get(key, defaults[key]))

    def evidence(
        self,
        segment: Segment,
        phrases: Sequence[str],
        likely: Sequence[str] = (),
        known: Callable[[], object] | None = None,
    ) -> Evidence:
        """:meth:`recognize` with the evidence it was decided on."""
        spoken = self._spoken(phrases)
        if not spoken:
            return Evidence(Recognition(None, 0.0, (), self.name, "out_of_grammar"), None, None, float("-inf"), 0.0)
        samples = segment.samples if segment.rate == RATE else resample(segment.samples, segment.rate, RATE)
        isolated = self._isolated(samples, segment)
        expected = [p for p in (normalize(x) for x in likely) if p in spoken]
        keep = expected if self.setting("fusion", "keep_expected") else ()
        analysis = self._analysed(isolated, spoken, expected, keep)
        phrase, ratio, margin = analysis.scores.best()
        nearest = ratio  # Whisper's best phrase under its own transcription, before any count is mended
        template = self._template(segment, analysis, list(spoken))
        endorsed = self._endorsed(template)
        candidates: dict[str, Candidate] = {}

        bursts: list[list[np.ndarray]] = []

        def cepstra() -> list[np.ndarray]:
            if not bursts:
                bursts.append(burst_cepstra(samples, segment))
            return bursts[0]

        def add(p: str, first: float | None = None) -> Candidate:
            if p not in candidates:
                bonus = self._bonus(template) if p == endorsed else 0.0
                candidates[p] = Candidate(p, self._ratio_of(p, analysis) if first is None else first, bonus=bonus)
                candidates[p].shape = self._shape(p, cepstra)
            return candidates[p]

        if phrase is not None:
            phrase, ratio, margin = self._counted(phrase, ratio, margin, analysis, segment)
            add(phrase, ratio)
        for p in expected:
            add(p).context = self.setting("fusion", "context_bonus")
        if endorsed is None and nearest <= self.setting("fusion", "nonspeech_ratio"):
            if non_speech(analysis.free_text):
                return self._unheard(analysis, candidates, margin, template)
        clear = (
            phrase is not None
            and ratio >= -0.01
            and margin >= self.setting("fusion", "fast_margin")
            and (not expected or phrase in expected)
        )
        if self.second is not None and not clear:
            opinion = self.second.opinion(segment, list(spoken), known() if known is not None else None)
            if opinion.hypothesis is not None:
                add(opinion.hypothesis)
            self._consult(opinion, candidates)
        if template is not None and template.phrase is not None:
            add(template.phrase)
        if not candidates:
            return Evidence(
                Recognition(None, 0.0, (), self.name, "out_of_grammar"), analysis, None, float("-inf"), margin, template
            )
        assumed = self.setting("fusion", "fast_sphinx") if clear else None
        for candidate in candidates.values():
            candidate.score = self._fused(candidate, assumed=assumed)
        best = max(candidates.values(), key=lambda c: c.score)
        heard = None
        if self.third is not None and self.setting("fusion", "moonshine_low") <= best.score <= self.setting(
            "fusion", "moonshine_high"
        ):
            heard = self._third_opinion(isolated, spoken, candidates, assumed)
            best = max(candidates.values(), key=lambda c: c.score)
        if self.setting("fusion", "look_min") <= best.score <= self.setting("fusion", "look_max"):
            best = self._second_look(isolated, spoken, candidates, analysis, assumed)
        decided = self._decide(best, candidates.values(), sounded=non_speech(analysis.free_text))
        if self.learn and decided.phrase is not None and decided.phrase == phrase:
            self._learn(segment, analysis, best, ratio)
        elif self.learn and decided.candidate is not None:
            self._remember_asked(segment, analysis, decided.candidate)
        return Evidence(decided, analysis, best.phrase, best.score, margin, template, tuple(candidates.values()), heard)

    def _unheard(
        self, analysis: Analysis, candidates: dict[str, Candidate], margin: float, template: TemplateMatch | None
    ) -> Evidence:
        """Rejected at once: Whisper wrote the segment as a sound, not speech, and no allowed phrase
        comes near it (``nonspeech_ratio``); PocketSphinx and Moonshine are not asked. The
        candidates keep the scores they have without them (PocketSphinx at its floor)."""
        for candidate in candidates.values():
            candidate.score = self._fused(candidate)
        best = max(candidates.values(), key=lambda c: c.score, default=None)
        return Evidence(
            Recognition(None, 0.0, (), self.name, "non_speech"),
            analysis,
            None if best is None else best.phrase,
            float("-inf") if best is None else best.score,
            margin,
            template,
            tuple(candidates.values()),
        )

    def _analysed(
        self, isolated: np.ndarray, spoken: dict[str, tuple[str, ...]], expected: list[str], keep: Sequence[str]
    ) -> Analysis:
        """Whisper's analysis of the segment. When the game expects exactly one phrase of several
        words (Bim Bam Bum!'s call "bim bam bum" once all three words show) and ``call_prompt`` is
        on, Whisper first hears it with that phrase as its prompt (earlier text): unprompted it
        writes the made-up words as English ("Be Grand Bump"). That analysis counts only where
        the expected phrase is its best; otherwise the segment is analysed again without the
        prompt, so no other phrase is heard on the prompt's word (the encoder's output is reused)."""
        said = spoken[expected[0]][0] if len(expected) == 1 else ""
        if not self.setting("fusion", "call_prompt") or len(said.split()) < 2:
            return self.engine.analyse(isolated, spoken, keep=keep)
        primed = self.engine.analyse(isolated, spoken, prompt=said.capitalize() + ".", keep=keep)
        if primed.scores.best()[0] == expected[0]:
            return primed
        return self.engine.analyse(isolated, spoken, keep=keep, encoded=primed.encoded)

    def _learn(self, segment: Segment, analysis: Analysis, best: Candidate, ratio: float) -> None:
        """Keep an accepted shout as a take of each of its words by its player (takes learned in
        play): only a phrase the game expected now (``likely``), that Whisper itself wrote (``ratio``
        ≥ ``learn_ratio``) and that scored ``learn_score`` without the takes' bonus (so takes never
        vouch for themselves)."""
        if ratio < self.setting("template", "learn_ratio") or best.context <= 0.0:
            return
        if best.score - best.bonus < self.setting("template", "learn_score"):
            return
        assert best.phrase is not None
        takes = self._word_takes(segment, analysis, best.phrase)
        if takes:
            self._keep(segment.event.seat, takes)
            if self.on_learn is not None:
                self.on_learn(segment, best.phrase)

    def _word_takes(self, segment: Segment, analysis: Analysis, phrase: str) -> list[tuple[str, np.ndarray]]:
        """The shout's encoder frames as a take of each word of ``phrase``: a one-word phrase the
        whole shout, a phrase of several words burst by burst (none when the bursts are not as many
        as its words)."""
        start, end, bursts = self._span(segment)
        words = phrase.split()
        spans = [(start, end)] if len(words) == 1 else bursts
        if len(spans) != len(words):
            return []
        return [(word, frames_between(analysis.encoded, a, b)) for word, (a, b) in zip(words, spans)]

    def _keep(self, seat: str, takes: list[tuple[str, np.ndarray]]) -> None:
        """Add learned takes while the player has fewer than ``learn_max`` takes of the word."""
        if self.templates is None:
            self.templates = Templates()
        limit = int(self.setting("template", "learn_max"))
        for word, frames in takes:
            if len(self.templates.words.get(seat, {}).get(word, ())) < limit:
                self.templates.add(seat, word, frames)

    def _remember_asked(self, segment: Segment, analysis: Analysis, phrase: str) -> None:
        """An uncertain shout the host will ask back about: its takes, kept until :meth:`confirm`."""
        takes = self._word_takes(segment, analysis, phrase)
        if takes:
            self._asked.append((segment.event.seat, segment.event.onset, phrase, takes))
            del self._asked[:-ASKED_KEPT]

    def confirm(self, seat: str, onset: float, phrase: str) -> bool:
        """The player confirmed an uncertain shout when asked back ("Ben: cat?" "yes"): the shout of
        ``seat`` starting within :data:`CONFIRM_SLACK` s of ``onset`` whose candidate was ``phrase``
        becomes a take of its words (as :meth:`_learn`). False when no such shout is remembered
        (learning is off, or it was too long ago: the last :data:`ASKED_KEPT` are kept)."""
        phrase = normalize(phrase)
        near = [
            k
            for k, (who, when, what, _) in enumerate(self._asked)
            if who == seat and what == phrase and abs(when - onset) <= CONFIRM_SLACK
        ]
        if not near:
            return False
        k = min(near, key=lambda i: abs(self._asked[i][1] - onset))
        _, _, _, takes = self._asked.pop(k)
        self._keep(seat, takes)
        return True

    def _third_opinion(
        self,
        isolated: np.ndarray,
        spoken: dict[str, tuple[str, ...]],
        candidates: dict[str, Candidate],
        assumed: float | None,
    ) -> str:
        """Moonshine scores the ``moonshine_top`` best candidates (only where the decision is not
        clear either way: ``moonshine_low`` ≤ best fused score ≤ ``moonshine_high``); the others
        count as its floor. Its transcription is returned."""
        assert self.third is not None
        ranked = sorted(candidates.values(), key=lambda c: c.score, reverse=True)
        asked = [c.phrase for c in ranked[: int(self.setting("fusion", "moonshine_top"))] if c.phrase in spoken]
        ratios, text = self.third.ratios(isolated, {p: spoken[p] for p in asked})
        for candidate in candidates.values():
            candidate.moonshine = ratios.get(candidate.phrase, -math.inf)
            candidate.score = self._fused(candidate, assumed=assumed)
        return text

    def _shape(self, phrase: str, cepstra: Callable[[], list[np.ndarray]]) -> float:
        """``-distinct_penalty`` when ``phrase`` ends in a word said n ≥ 2 times ("bam bam bam") but
        no n syllables of the segment sound alike ("bim bam bum": Whisper's language model pulls it
        to a repetition); else 0. ``cepstra``: the segment's :func:`burst_cepstra` (computed once)."""
        words = phrase.split()
        n = 1
        while n < len(words) and words[-n - 1] == words[-1]:
            n += 1
        if n < 2:
            return 0.0
        spread = spread_of(cepstra(), n)
        if spread is None or spread < self.setting("fusion", "distinct_spread"):
            return 0.0
        return -self.setting("fusion", "distinct_penalty")

    def _endorsed(self, template: TemplateMatch | None) -> str | None:
        """The phrase the player's enrolment takes fit closely and clearly (None: no such phrase)."""
        if template is None or template.phrase is None:
            return None
        key = "stock_" if template.stock else ""
        close = template.distance <= self.setting("template", key + "distance")
        apart = template.margin >= self.setting("template", key + "margin")
        return template.phrase if close and apart else None

    def _bonus(self, template: TemplateMatch | None) -> float:
        """Nats for the phrase the takes endorse: the player's own, or the smaller stock bonus."""
        return self.setting("template", "stock_bonus" if template is not None and template.stock else "bonus")

    def _consult(self, opinion: Opinion, candidates: dict[str, Candidate]) -> None:
        """PocketSphinx's ratio for each candidate, the best prospect first (fused score with its
        ratio taken as 0). A candidate is not decoded when even a ratio of ``sphinx_ceiling`` would
        leave it below the best fused score so far, or below every score that matters (the
        uncertain band's bottom and, when on, the second look's); its ratio stays None (the floor).
        A candidate Whisper put at its floor (``ratio_floor``: it heard something else entirely)
        has the lower ceiling ``sphinx_ceiling_floored``. That changes no recognition while no ratio
        exceeds its ceiling (see tuning.toml); a rejected segment's best candidate in
        :class:`Evidence` may differ."""
        weight = self.setting("fusion", "sphinx_weight")
        floor = self.setting("fusion", "ratio_floor")
        best = -self.setting("fusion", "uncertain_band")
        if self.setting("fusion", "look_min") <= self.setting("fusion", "look_max"):
            best = min(best, self.setting("fusion", "look_min"))
        for candidate in sorted(candidates.values(), key=lambda c: self._fused(c, assumed=0.0), reverse=True):
            floored = not math.isfinite(candidate.ratio) or candidate.ratio <= floor
            ceiling = self.setting("fusion", "sphinx_ceiling_floored" if floored else "sphinx_ceiling")
            if self._fused(candidate, assumed=0.0) + weight * ceiling < best:
                continue
            candidate.sphinx = opinion.ratio(candidate.phrase)
            best = max(best, self._fused(candidate))

    def _second_look(
        self,
        isolated: np.ndarray,
        spoken: dict[str, tuple[str, ...]],
        candidates: dict[str, Candidate],
        analysis: Analysis,
        assumed: float | None,
    ) -> Candidate:
        """Hear the shout again at each of :data:`LOOK_SPEEDS`; each candidate's ratio becomes the
        median of its three (a phrase one of the looks prefers joins as a candidate, without
        PocketSphinx's view); the best candidate then."""
        looks = [self.engine.analyse(_played_at(isolated, speed), spoken) for speed in LOOK_SPEEDS]
        for look in looks:
            phrase = look.scores.best()[0]
            if phrase is not None and phrase not in candidates:
                candidates[phrase] = Candidate(
                    phrase, self._ratio_of(phrase, analysis), sphinx=self.setting("fusion", "sphinx_floor")
                )
        floor = self.setting("fusion", "ratio_floor")
        for candidate in candidates.values():
            first = max(candidate.ratio, floor) if math.isfinite(candidate.ratio) else floor
            candidate.looks = tuple(max(self._ratio_of(candidate.phrase, look), floor) for look in looks)
            candidate.ratio = float(np.median([first, *candidate.looks]))
            candidate.score = self._fused(candidate, assumed=assumed)
        return max(candidates.values(), key=lambda c: c.score)

    def _isolated(self, samples: np.ndarray, segment: Segment) -> np.ndarray:
        """The segment with everything outside the shout silenced (``ISOLATE`` seconds of margin,
        10 ms fades): Whisper transcribes any speech it hears, and the talk of other tables
        before and after a shout would otherwise become part of its transcription."""
        if ISOLATE is None:
            return samples
        before, after = ISOLATE
        a = max(0, int((segment.event.onset - segment.start - before) * RATE))
        b = min(len(samples), int((segment.event.end - segment.start + after) * RATE))
        if b <= a:
            return samples
        out = np.zeros_like(samples)
        out[a:b] = samples[a:b]
        fade = min(int(0.01 * RATE), (b - a) // 2)
        if fade > 0:
            ramp = np.linspace(0.0, 1.0, fade, dtype=np.float32)
            out[a : a + fade] *= ramp
            out[b - fade : b] *= ramp[::-1]
        return out

    def _fused(self, candidate: Candidate, assumed: float | None = None) -> float:
        """The candidate's fused score; ``assumed``: PocketSphinx's ratio taken as this (it was not
        asked because Whisper itself wrote the phrase, far ahead of any other)."""
        ratio = (
            max(candidate.ratio, self.setting("fusion", "ratio_floor"))
            if math.isfinite(candidate.ratio)
            else self.setting("fusion", "ratio_floor")
        )
        third = 0.0
        if candidate.moonshine is not None:
            heard = max(min(candidate.moonshine, 0.0), self.setting("fusion", "moonshine_floor"))
            third = self.setting("fusion", "moonshine_weight") * (heard + self.setting("fusion", "moonshine_shift"))
        if self.second is None:
            return (
                ratio
                + self.setting("fusion", "bias_alone")
                + candidate.bonus
                + candidate.context
                + candidate.shape
                + third
            )
        sphinx = candidate.sphinx if candidate.sphinx is not None else self.setting("fusion", "sphinx_floor")
        if assumed is not None and candidate.sphinx is None:
            sphinx = assumed
        return (
            ratio
            + self.setting("fusion", "sphinx_weight") * sphinx
            + self.setting("fusion", "bias")
            + candidate.bonus
            + candidate.context
            + candidate.shape
            + third
        )

    def _decide(self, best: Candidate, candidates: Iterable[Candidate], sounded: bool = False) -> Recognition:
        """Taken at a fused score ≥ 0; else asked back within the uncertain band, else rejected.
        ``sounded``: Whisper wrote the segment as a sound (:func:`non_speech`); a phrase is then
        taken only from ``nonspeech_take`` nats on, and asked back under it (README item 62)."""
        confidence = self.tuning.llr_confidence(best.score)
        lead = best.score - max((c.score for c in candidates if c is not best), default=float("-inf"))
        take = self.setting("fusion", "nonspeech_take") if sounded else 0.0
        if best.score >= max(take, 0.0):
            return Recognition(
                best.phrase, confidence, (), self.name, None, ratio=best.ratio, score=best.score, lead=lead
            )
        # the context's nats beyond ``ask_context`` move the line a phrase is taken at, not the
        # band it is asked back in: talk near an expected phrase is asked back no more often;
        # a phrase over the line in what Whisper wrote as a sound is asked back
        lift = max(0.0, best.context - self.setting("fusion", "ask_context"))
        if best.score >= 0.0 or best.score - lift >= -self.setting("fusion", "uncertain_band"):
            return Recognition(
                None,
                0.0,
                (),
                self.name,
                "uncertain",
                candidate=best.phrase,
                candidate_confidence=confidence,
                ratio=best.ratio,
                guess=best.phrase,
                score=best.score,
                lead=lead,
            )
        return Recognition(
            None,
            0.0,
            (),
            self.name,
            "low_confidence",
            candidate_confidence=confidence,
            guess=best.phrase,
            score=best.score,
            lead=lead,
        )

    def _ratio_of(self, phrase: str, analysis: Analysis) -> float:
        """Whisper's ratio for ``phrase`` (the floor when its search dropped it)."""
        scores = analysis.scores.phrases
        if phrase not in scores:
            return self.setting("fusion", "ratio_floor")
        return scores[phrase] - max(analysis.scores.reference, max(scores.values()))

    def _template(self, segment: Segment, analysis: Analysis, phrases: list[str]) -> TemplateMatch | None:
        """How the shout fits its player's takes, or the stock takes when the player did not enrol."""
        seat = segment.event.seat
        own = self.templates is not None and seat in self.templates.words
        stock = (
            self.stock if not own and self.stock is not None and self.stock.width == analysis.encoded.shape[1] else None
        )
        if not own and stock is None:
            return None
        start, end, bursts = self._span(segment)
        if stock is not None:
            match = match_phrases(stock.templates, STOCK_PLAYER, analysis.encoded, start, end, bursts, phrases)
            return replace(match, stock=True)
        assert self.templates is not None
        return match_phrases(self.templates, seat, analysis.encoded, start, end, bursts, phrases)

    @staticmethod
    def _span(segment: Segment) -> tuple[float, float, list[tuple[float, float]]]:
        """The shout's (start, end) and its syllable bursts, seconds from the segment's start."""
        start = max(0.0, segment.event.onset - segment.start)
        end = max(start, segment.event.end - segment.start)
        bursts = [(a - segment.start, b - segment.start) for a, b in segment_bursts(segment) if b - a >= MIN_WORD_BURST]
        return start, end, bursts

    def _counted(
        self, phrase: str, ratio: float, margin: float, analysis: Analysis, segment: Segment
    ) -> tuple[str, float, float]:
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


def non_speech(text: str) -> bool:
    """Whisper's transcription ``text`` names a sound rather than words (or is empty)."""
    text = text.strip()
    return not text or text.startswith(NON_SPEECH_OPENINGS)


def _played_at(samples: np.ndarray, speed: float) -> np.ndarray:
    """``samples`` (16 kHz) played ``speed`` times as fast: pitch and tempo together, as a tape."""
    return resample(samples, int(round(RATE * speed)), RATE)


def burst_spread(samples: np.ndarray, segment: Segment, n: int) -> float | None:
    """How different ``n`` syllable bursts of the segment sound at the least (:func:`spread_of`
    the segment's :func:`burst_cepstra`); None with fewer than ``n`` bursts (``samples``: the
    segment at 16 kHz)."""
    return spread_of(burst_cepstra(samples, segment), n)


def burst_cepstra(samples: np.ndarray, segment: Segment) -> list[np.ndarray]:
    """Each syllable burst of the segment as the mean cepstrum (coefficients 1-12 of Whisper's
    log-mel features) of its :data:`SPREAD_FRAMES` loudest 10 ms frames, in order."""
    bursts = [(a - segment.start, b - segment.start) for a, b in segment_bursts(segment) if b - a >= MIN_WORD_BURST]
    if not bursts:
        return []
    frames = 2 * int(np.ceil(len(samples) / HOP / 2))
    mel = log_mel(samples, frames)
    cepstra = _dct_basis(mel.shape[0]) @ mel
    loudness = mel.max(axis=0)
    means = []
    for a, b in bursts:
        i, j = max(0, int(a * RATE / HOP)), min(frames, max(int(a * RATE / HOP) + 1, int(b * RATE / HOP)))
        loudest = i + np.argsort(loudness[i:j])[-SPREAD_FRAMES:]
        means.append(cepstra[:, loudest].mean(axis=1))
    return means


def spread_of(means: Sequence[np.ndarray], n: int) -> float | None:
    """Over every ``n`` of the bursts (in order), the largest distance between two of them; the
    smallest such value. Taking the most alike ``n`` keeps a nasal tail or a noise burst from making
    a repeated word look like different words. None with fewer than ``n`` bursts."""
    if len(means) < n:
        return None
    distance = [[float(np.linalg.norm(x - y)) for y in means] for x in means]
    return min(max(distance[a][b] for a, b in combinations(chosen, 2)) for chosen in combinations(range(len(means)), n))


@lru_cache(maxsize=4)
def _dct_basis(bands: int) -> np.ndarray:
    """Rows 1-12 of the orthonormal DCT-II over ``bands`` values (the cepstrum without its level)."""
    k = np.arange(1, 13)[:, None]
    m = np.arange(bands)[None, :]
    basis: np.ndarray = (np.sqrt(2.0 / bands) * np.cos(np.pi * k * (2 * m + 1) / (2 * bands))).astype(np.float32)
    return basis
