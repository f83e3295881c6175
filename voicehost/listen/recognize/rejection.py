"""Rejection: decide whether a decoded segment is a target phrase, and count repetitions.

Why a separate stage: a grammar-restricted decoder always returns *some* target, so out-of-grammar
speech would be forced onto the nearest word ("pick" → "pig"). The engines guard against it in two
ways:

- PocketSphinx decodes against the targets only and then verifies the hypothesis acoustically
  against a free phone loop (:mod:`voicehost.listen.recognize.verify`); the per-phrase thresholds
  on that likelihood ratio live here (:class:`Tuning`).
- Vosk decodes with a grammar that offers **competing explanations** — the target phrases *and*
  decoy words of everyday chatter from the language pack (this works for models without an
  ``[unk]`` word, such as the Korean Vosk model) — plus learnt confidence thresholds.

:func:`decide` turns the decoded words into a :class:`Recognition`:

- nothing decoded → rejected as ``garbage`` (noise, a cough);
- any decoy / unknown word → rejected as ``out_of_grammar``;
- target words that do not form one allowed phrase → ``out_of_grammar``;
- a confidence under the phrase's learnt threshold → ``low_confidence``.

Thresholds and per-target decoy exclusions are data learnt from fixtures (``tuning.toml``, written
by ``bench/bench_recognize.py --learn``), not constants in code.

Repetitions ("bam bam" vs "bam bam bam") are counted from the signal's syllable bursts as well as
from the recogniser: see :func:`reconcile_repetitions`.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from voicehost.listen.messages import Recognition, Segment, WordTiming
from voicehost.listen.recognize.verify import logistic
from voicehost.listen.vocab import VocabPack, normalize
from voicehost.errors import InputError

TUNING_FILE = Path(__file__).with_name("tuning.toml")
"""Learnt per-engine, per-language thresholds and decoy exclusions."""

MAX_REPEATS = 3
"""Bim Bam Bum! asks for a word said once, twice or three times."""

EDGE_SHARE = 0.5
"""Stray words around a phrase may last at most this share of the phrase's own duration."""

TAIL = 0.4
"""Seconds after the last recognised word where a burst still counts as a dropped repetition."""

MAX_SYLLABLE = 0.45
"""Seconds: a burst longer than this is several syllables run together, so it cannot be counted."""


class TuningError(InputError):
    """The tuning data file is malformed."""


@dataclass(frozen=True)
class Tuning:
    """Learnt decision data for one engine and language."""

    min_confidence: Mapping[str, float] = field(default_factory=dict)
    """Phrase id (or 'default') → lowest confidence accepted, 0..1."""
    precision: Mapping[str, float] = field(default_factory=dict)
    """Phrase id (or 'default') → share of accepted fixtures that were right, 0..1 (PocketSphinx's
    confidence, since its grammar search has no calibrated posterior)."""
    drop_decoys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Phrase id → decoy words left out of the grammar while that phrase is allowed (decoys that
    stole that phrase's fixtures more often than they caught chatter)."""
    min_llr: Mapping[str, float] = field(default_factory=dict)
    """Phrase id (or 'default') → lowest acoustic likelihood ratio accepted, nats per 10 ms frame
    (PocketSphinx's verification against a phone loop; see verify.py)."""
    rescue_llr: Mapping[str, float] = field(default_factory=dict)
    """Phrase id → likelihood ratio (nats per frame) at which PocketSphinx accepts the phrase even
    though a decoy word won the screening grammar; phrases not listed are never rescued."""
    min_margin: Mapping[str, float] = field(default_factory=dict)
    """Phrase id (or 'default') → nats the phrase must score above the next allowed phrase (Whisper)."""
    uncertain_band: Mapping[str, float] = field(default_factory=dict)
    """Phrase id (or 'default') → nats under the acceptance threshold within which a phrase is
    reported as uncertain (the host asks back) instead of rejected (Whisper)."""
    template: Mapping[str, float] = field(default_factory=dict)
    """Enrolment settings (Whisper): 'distance', 'margin', 'bonus'."""
    fusion: Mapping[str, float] = field(default_factory=dict)
    """Whisper's fusion settings (the keys of
    :data:`~voicehost.listen.recognize.whisper.recognizer.FUSION`)."""
    llr_calibration: tuple[float, float] = (1.0, 0.0)
    """(slope per nat, offset) of the logistic map from likelihood ratio to confidence: the share of
    fixtures with that ratio whose phrase was right."""

    def threshold(self, phrase: str) -> float:
        """Lowest confidence accepted for ``phrase``."""
        return float(self.min_confidence.get(phrase, self.min_confidence.get("default", 0.0)))

    def llr_threshold(self, phrase: str) -> float:
        """Lowest likelihood ratio (nats per frame) accepted for ``phrase``; -inf when never learnt."""
        return float(self.min_llr.get(phrase, self.min_llr.get("default", float("-inf"))))

    def llr_confidence(self, llr: float) -> float:
        """Confidence 0..1 for a likelihood ratio (nats per frame), by the learnt calibration."""
        slope, offset = self.llr_calibration
        return logistic(slope * llr + offset)

    def precision_of(self, phrase: str) -> float:
        """Measured precision of accepting ``phrase`` (default 0.5 when never measured)."""
        return float(self.precision.get(phrase, self.precision.get("default", 0.5)))


def load_tuning(
    engine: str, lang: str, path: Path = TUNING_FILE, known: Mapping[str, Iterable[str]] | None = None
) -> Tuning:
    """The tuning table ``[engine.lang]`` (empty when the file has none). ``known``: sub-table →
    the settings it may hold (a misspelt one would otherwise be ignored without a word)."""
    if not path.is_file():
        return Tuning()
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TuningError(f"{path}: not valid TOML: {exc}") from None
    table = data.get(engine, {}).get(lang, {})
    for name, keys in (known or {}).items():
        sub = table.get(name, {})
        unknown = sorted(set(sub) - set(keys)) if isinstance(sub, dict) else []
        if unknown:
            line = _line_of(text, f"[{engine}.{lang}.{name}]", unknown[0])
            raise TuningError(
                f"{path}:{line}: [{engine}.{lang}.{name}]: unknown setting {unknown[0]!r}"
                f" (known: {', '.join(sorted(keys))})"
            )
    try:
        calibration = table.get("llr_calibration", {})
        return Tuning(
            min_confidence={str(k): float(v) for k, v in table.get("min_confidence", {}).items()},
            precision={str(k): float(v) for k, v in table.get("precision", {}).items()},
            drop_decoys={str(k): tuple(str(w) for w in v) for k, v in table.get("drop_decoys", {}).items()},
            min_llr={str(k): float(v) for k, v in table.get("min_llr", {}).items()},
            rescue_llr={normalize(str(k)): float(v) for k, v in table.get("rescue_llr", {}).items()},
            min_margin={str(k): float(v) for k, v in table.get("min_margin", {}).items()},
            uncertain_band={str(k): float(v) for k, v in table.get("uncertain_band", {}).items()},
            template={str(k): float(v) for k, v in table.get("template", {}).items()},
            fusion={str(k): float(v) for k, v in table.get("fusion", {}).items()},
            llr_calibration=(float(calibration.get("slope", 1.0)), float(calibration.get("offset", 0.0))),
        )
    except (TypeError, ValueError, AttributeError) as exc:
        raise TuningError(f"{path}: [{engine}.{lang}]: {exc}") from None


def _line_of(text: str, header: str, key: str) -> int:
    """The line (1-based) of ``key``'s setting after the line ``header`` (the header's when not found)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == header), 0)
    pattern = re.compile(rf'^\s*"?{re.escape(key)}"?\s*=')
    found = next((i for i in range(start, len(lines)) if pattern.match(lines[i])), start)
    return found + 1


def decoys_for(pack: VocabPack, phrases: Sequence[str], tuning: Tuning, exclude: Iterable[str] = ()) -> list[str]:
    """Decoy words for a grammar allowing ``phrases``: the pack's decoys minus every word that is
    part of an allowed phrase, minus the learnt exclusions of those phrases and ``exclude``."""
    banned = pack.spoken_words(phrases) | set(exclude)
    for phrase in phrases:
        banned |= set(tuning.drop_decoys.get(normalize(phrase), ()))
    return [w for w in pack.decoys if w not in banned]


def decide(
    pack: VocabPack,
    phrases: Sequence[str],
    words: Sequence[WordTiming],
    tuning: Tuning,
    engine: str,
    segment: Segment | None = None,
) -> Recognition:
    """Turn decoded spoken words into an accepted phrase or a rejection (see the module doc)."""
    if not words:
        return Recognition(None, 0.0, (), engine, "garbage")
    allowed = [normalize(p) for p in phrases]
    said = " ".join(w.word for w in words)
    phrase = pack.canonical(said, allowed)
    if phrase is None:
        phrase = _repetition_of(pack, allowed, words)
    if phrase is None:
        phrase, words = _phrase_with_edge_words(pack, allowed, words)
    if phrase is None:
        return Recognition(None, 0.0, tuple(words), engine, "out_of_grammar")
    if segment is not None:
        phrase = reconcile_repetitions(phrase, allowed, words, segment)
    confidence = min(w.confidence for w in words)
    if confidence < tuning.threshold(phrase):
        return Recognition(None, 0.0, tuple(words), engine, "low_confidence")
    return Recognition(phrase, confidence, tuple(words), engine, None)


def _phrase_with_edge_words(
    pack: VocabPack, allowed: Sequence[str], words: Sequence[WordTiming]
) -> tuple[str | None, Sequence[WordTiming]]:
    """An allowed phrase flanked by short stray words ("뭐 돼지", "붐 붐 와우"): decoders without a
    garbage model explain breath and the vowel tail of a shout with a short decoy. The phrase is
    accepted when the strays lie only before and after it and last at most EDGE_SHARE of its time."""
    best: tuple[str | None, Sequence[WordTiming]] = (None, words)
    for i in range(len(words)):
        for j in range(len(words), i, -1):
            run = words[i:j]
            if len(run) == len(words):
                continue
            phrase = pack.canonical(" ".join(w.word for w in run), allowed)
            if phrase is None:
                continue
            stray = sum(w.end - w.start for w in words[:i]) + sum(w.end - w.start for w in words[j:])
            spoken = sum(w.end - w.start for w in run)
            if stray <= EDGE_SHARE * spoken and (best[0] is None or len(run) > len(best[1])):
                best = (phrase, run)
    return best


def _repetition_of(pack: VocabPack, allowed: Sequence[str], words: Sequence[WordTiming]) -> str | None:
    """A run of one repeated target word said more often than any allowed phrase ('bam' ×4)
    is that word's longest allowed repetition; anything else is not a phrase."""
    spoken = {w.word for w in words}
    if len(spoken) != 1:
        return None
    single = pack.canonical(words[0].word, allowed)
    if single is None:
        return None
    counts = [n for n in range(MAX_REPEATS, 0, -1) if " ".join([single] * n) in allowed]
    return " ".join([single] * counts[0]) if counts else None


def reconcile_repetitions(phrase: str, allowed: Sequence[str], words: Sequence[WordTiming], segment: Segment) -> str:
    """Count a repeated word ("bam bam bam") from the signal's syllable bursts, not only the recogniser.

    Recognisers merge or split quickly repeated syllables; the energy envelope does not lie about how
    many loud syllables there were. When the phrase is one word repeated, the syllable bursts (the
    segment's ``event.bursts`` from the onset stage, or bursts measured here when it has none) are
    placed on the recognised words to count the repetitions (:func:`_count_syllables`); the count
    wins when it is an allowed phrase.
    """
    parts = phrase.split()
    if len(set(parts)) != 1:
        return phrase
    word = parts[0]
    options = {n: " ".join([word] * n) for n in range(1, MAX_REPEATS + 1) if " ".join([word] * n) in allowed}
    if len(options) < 2:
        return phrase
    bursts = segment_bursts(segment)
    if not words or not bursts or any(b - a > MAX_SYLLABLE for a, b in bursts):
        return phrase  # merged syllables: the envelope cannot count them, keep the recogniser's count
    return options.get(_count_syllables(words, bursts, segment.start), phrase)


def _count_syllables(words: Sequence[WordTiming], bursts: Sequence[tuple[float, float]], offset: float) -> int:
    """Repetitions said, from the bursts placed on the recogniser's words.

    Each burst belongs to the one word it overlaps most (a word boundary a few milliseconds inside
    a burst does not make it count twice). A word of one syllable's length counts once if it owns a
    burst, however many it owns (a nasal tail can split a "bam" into two bursts), and not at all
    when it owns none (an invented word over silence or over the edge of its neighbour's burst); a
    longer word counts each burst it owns (the recogniser ran "bam bam" together); bursts just after
    the last word count too (a dropped final word)."""
    spans = [(offset + w.start, offset + w.end) for w in words]
    owned = [0] * len(words)
    last = spans[-1][1]
    tail = 0
    for a, b in bursts:
        overlaps = [min(b, end) - max(a, start) for start, end in spans]
        best = max(range(len(spans)), key=lambda i: overlaps[i])
        if overlaps[best] > 0:
            owned[best] += 1
        elif last <= (a + b) / 2 < last + TAIL:
            tail += 1
    count = 0
    for (start, end), n in zip(spans, owned):
        count += n if end - start > MAX_SYLLABLE else min(n, 1)
    return count + tail


def segment_bursts(segment: Segment) -> list[tuple[float, float]]:
    """(start, end) session seconds of syllable bursts: the onset stage's, else measured here."""
    if segment.event.bursts:
        return list(segment.event.bursts)
    return [(segment.start + a, segment.start + b) for a, b in syllable_bursts(segment.samples, segment.rate)]


def syllable_bursts(
    samples: np.ndarray,
    rate: int,
    frame: float = 0.01,
    drop_db: float = 10.0,
    min_burst: float = 0.05,
    min_gap: float = 0.03,
    peak_db: float = 6.0,
) -> list[tuple[float, float]]:
    """(start, end) seconds of loud syllable-like bursts in mono audio.

    A frame (``frame`` seconds) belongs to a burst when its level is within ``drop_db`` dB of the
    loudest frame and well above the noise floor (the 10th percentile level + 6 dB); bursts closer
    than ``min_gap`` seconds merge; bursts shorter than ``min_burst`` seconds, or whose peak is more
    than ``peak_db`` dB under the loudest (a nasal tail, an echo), are not syllables.
    """
    hop = max(1, int(rate * frame))
    n = len(samples) // hop
    if n == 0:
        return []
    frames = samples[: n * hop].astype(np.float64).reshape(n, hop)
    level = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-12)
    smooth = np.convolve(level, np.ones(3) / 3, mode="same")
    floor = float(np.percentile(smooth, 10))
    threshold = max(float(smooth.max()) - drop_db, floor + 6.0)
    active = smooth > threshold
    runs: list[list[int]] = []
    for i in np.flatnonzero(active):
        if runs and i - runs[-1][1] <= max(1, int(min_gap / frame)):
            runs[-1][1] = int(i)
        else:
            runs.append([int(i), int(i)])
    loudest = float(smooth.max())
    return [
        (a * frame, (b + 1) * frame)
        for a, b in runs
        if (b + 1 - a) * frame >= min_burst and float(smooth[a : b + 1].max()) >= loudest - peak_db
    ]
