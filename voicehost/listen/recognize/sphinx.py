"""PocketSphinx adapter: English out of the box, with the model the ``pocketsphinx`` package ships.

Built once, shared by every seat (calls are serialised by the caller). Each allowed phrase set gets
its own JSGF search, built on first use and cached. Three designs (:class:`Design`), measured
against each other in the README ("Recognition: measured"):

- ``DECOYS``: ``public <utterance> = <target> | <decoy>;`` — the targets are the phrases' spoken
  forms, the decoys everyday words from the language pack, so chatter is explained by a decoy and
  rejected instead of being forced onto a target (:mod:`voicehost.listen.recognize.rejection`).
- ``VERIFY``: the grammar holds the targets only; a second pass with a free loop of phones
  (allphone search, no phone language model) verifies the result acoustically
  (:mod:`voicehost.listen.recognize.verify`): accepted when the likelihood ratio against the loop
  reaches the phrase's learnt threshold.
- ``DECOYS_THEN_VERIFY`` (the default): the decoy grammar first; a phrase it accepts is then
  verified (targets-only pass and phone loop). A decoy grammar explains chatter with *one* decoy
  word, so a sentence ("pass me the cards") against a host's large phrase set was forced onto a
  multi-word target ("thirteen", "two then one"); the verification rejects those, and it runs only
  for the rare segments the decoys accepted. A decoy also steals real shouts ("cat" heard as
  "have"): when it wins, a phrase with a rescue threshold (``rescue_llr`` in tuning.toml: the
  Bim Bamm! animals) is still accepted if the targets-only grammar finds it with a likelihood ratio
  far above the usual threshold.

The verification needs decoder settings of its own (VERIFY_OPTIONS): ``compallsen`` scores every
senone in every frame, so the scores of the two searches share one reference and can be compared;
``bestpath`` is off because the lattice rescoring it adds returned path scores and word ends that
did not belong to the Viterbi path; ``topn`` 2 makes scoring every senone 25% cheaper at no cost in
accuracy. The decoy grammar runs on a decoder with PocketSphinx's defaults (cheaper, and it kept
more shouts). Words missing from CMUdict ("bim") come from the pack's ``[pronunciations.sphinx]``.
The feature stream is re-initialised before every pass: the model's noise removal and cepstral mean
would otherwise carry over, and the same audio would decode differently depending on what was heard
before it.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from voicehost.errors import ModelError
from voicehost.listen.messages import Recognition, Segment, WordTiming
from voicehost.listen.recognize.rejection import Tuning, decide, decoys_for, load_tuning
from voicehost.listen.recognize.verify import NATS_PER_UNIT, DecodedPass, Verdict, likelihood_ratio
from voicehost.listen.vocab import VocabPack, normalize
from voicehost.models.paths import pocketsphinx_model_dir

RATE = 16000
"""Hz: the bundled acoustic model's sample rate."""
FRAME = 0.01
"""Seconds per PocketSphinx frame."""
DECODER_OPTIONS: dict[str, object] = {"loglevel": "FATAL", "samprate": RATE}
"""PocketSphinx settings of the decoy grammar (its defaults otherwise)."""
VERIFY_OPTIONS: dict[str, object] = {**DECODER_OPTIONS, "compallsen": True, "bestpath": False, "topn": 2}
"""PocketSphinx settings of the verification passes; why each one, in the module doc."""


class Design(Enum):
    """How PocketSphinx tells shouts from chatter (see the module doc)."""

    DECOYS = "decoys"
    VERIFY = "verify"
    DECOYS_THEN_VERIFY = "decoys+verify"


PHONE_LOOP = "voicehost-phone-loop"
"""Name of the free phone-loop search."""
NEIGHBOUR_DISTANCE = 1
"""Decoys within this many phone edits of an allowed word are left out of the grammar: they are
the same word to this acoustic model ("at" for "cat", "dot" for "dog") and stole real shouts."""
_FILLERS = {"<s>", "</s>", "<sil>", "[noise]", "++noise++", "(NULL)", "SIL"}


@dataclass(frozen=True)
class SphinxOpinion:
    """PocketSphinx's view of one segment (:meth:`SphinxRecognizer.opinion`)."""

    hypothesis: str | None
    """Its own phrase for the segment (None: none of the allowed phrases)."""
    _ratio: Callable[[str], float | None]

    def ratio(self, phrase: str) -> float | None:
        """``phrase``'s likelihood ratio against the free phone loop, nats per frame (None: the
        decoder found no path). Decoded on the first call: the loop once per segment, each
        phrase's targets-only pass once."""
        return self._ratio(normalize(phrase))


@dataclass(frozen=True)
class SphinxParts:
    """Passes of one segment decoded for an opinion (:meth:`SphinxRecognizer.parts`): picklable,
    so another process can decode them."""

    hypothesis: str | None
    targets: Mapping[str, DecodedPass | None]
    """Phrase → its targets-only pass (None: no path)."""
    loop: DecodedPass | None
    """The free phone loop's pass (None: no path, or not decoded: see ``looped``)."""
    looped: bool
    """Whether the loop was decoded."""


class SphinxRecognizer:
    """A :class:`~voicehost.listen.messages.Recognizer` on PocketSphinx's US-English model."""

    name = "sphinx"

    def __init__(
        self,
        pack: VocabPack,
        model_dir: Path | None = None,
        tuning: Tuning | None = None,
        options: Mapping[str, object] | None = None,
        design: Design = Design.DECOYS_THEN_VERIFY,
    ) -> None:
        from pocketsphinx import Decoder

        folder = model_dir or pocketsphinx_model_dir()
        if folder is None or not (folder / "mdef").is_file():
            raise ModelError("PocketSphinx's bundled English model is missing: reinstall the pocketsphinx package")
        self.pack = pack
        self.design = design
        self.tuning = tuning if tuning is not None else load_tuning("sphinx", pack.lang)
        self.description = f"sphinx (PocketSphinx, bundled US-English model at {folder}, {design.value})"
        self._lexicon = _read_cmudict(folder.parent / "cmudict-en-us.dict", pack)
        with tempfile.TemporaryDirectory(prefix="voicehost-sphinx-") as tmp:
            words = pack.spoken_words(pack.all_phrases()) | set(pack.decoys)
            dict_path = Path(tmp) / "voicehost.dict"
            dict_path.write_text(self._dict_text(words), encoding="utf-8")
            try:
                self._screen = self._verifier = None
                if design is not Design.VERIFY:
                    self._screen = Decoder(
                        hmm=str(folder), dict=str(dict_path), lm=None, **{**DECODER_OPTIONS, **(options or {})}
                    )
                if design is not Design.DECOYS:
                    self._verifier = Decoder(
                        hmm=str(folder), dict=str(dict_path), lm=None, **{**VERIFY_OPTIONS, **(options or {})}
                    )
                    self._verifier.add_allphone_file(PHONE_LOOP, None)
            except (RuntimeError, ValueError) as exc:
                raise ModelError(f"PocketSphinx failed to start with {folder}: {exc}") from None
        self._decoders = [d for d in (self._screen, self._verifier) if d is not None]
        self._logmath = self._decoders[0].get_logmath()
        self._known = {w for w in words if w in self._lexicon}
        self._searches: dict[tuple[tuple[str, ...], bool], str] = {}

    def _dict_text(self, words: set[str]) -> str:
        lines = []
        for word in sorted(words):
            for i, pron in enumerate(self._lexicon.get(word, ())):
                lines.append(f"{word}{'' if i == 0 else f'({i + 1})'} {pron}")
        return "\n".join(lines) + "\n"

    def _ensure_words(self, words: set[str]) -> None:
        """Add words (e.g. player names) the decoder has not seen yet, or name the missing one."""
        for word in sorted(words - self._known):
            prons = self._lexicon.get(word)
            if not prons:
                raise ModelError(
                    f"PocketSphinx cannot say '{word}': it is not in CMUdict; add it to "
                    f"[pronunciations.sphinx] in {self.pack.source}"
                )
            for decoder in self._decoders:
                for i, pron in enumerate(prons):
                    decoder.add_word(word if i == 0 else f"{word}({i + 1})", pron, True)
            self._known.add(word)

    def _search_for(self, phrases: Sequence[str], decoys: bool) -> str:
        """The grammar search of the allowed phrases' spoken forms: with decoys on the screening
        decoder, or the targets only on the verifying decoder."""
        key = tuple(sorted(normalize(p) for p in phrases))
        if (key, decoys) not in self._searches:
            targets = sorted({form for p in key for form in self.pack.spoken_forms(p)})
            self._ensure_words({w for t in targets for w in t.split()})
            name = f"g{len(self._searches)}"
            if decoys:
                assert self._screen is not None
                self._screen.add_jsgf_string(name, _jsgf(targets, self._decoys_for(key, targets)))
            else:
                assert self._verifier is not None
                self._verifier.add_jsgf_string(name, _jsgf(targets))
            self._searches[(key, decoys)] = name
        return self._searches[(key, decoys)]

    def _decoys_for(self, phrases: Sequence[str], targets: Sequence[str]) -> list[str]:
        """The pack's decoys minus the allowed words, their near neighbours and the learnt exclusions."""
        target_prons = [pron.split() for t in targets for w in t.split() for pron in self._lexicon.get(w, ())]
        neighbours = {
            w
            for w in self.pack.decoys
            if any(
                phone_distance(p.split(), t) <= NEIGHBOUR_DISTANCE
                for p in self._lexicon.get(w, ())
                for t in target_prons
            )
        }
        return [w for w in decoys_for(self.pack, phrases, self.tuning, neighbours) if w in self._known]

    def recognize(self, segment: Segment, phrases: Sequence[str], likely: Sequence[str] = ()) -> Recognition:
        """Decode ``segment`` against ``phrases`` (canonical ids); accept or reject (``likely`` is not used)."""
        return self.verify(segment, phrases).recognition

    def verify(self, segment: Segment, phrases: Sequence[str]) -> Verdict:
        """:meth:`recognize` with its evidence: the hypothesis before verification and its
        likelihood ratio (None when the design did not verify it)."""
        spoken = [p for p in phrases if p not in _unspoken(self.pack)]
        if not spoken:
            return Verdict(Recognition(None, 0.0, (), self.name, "out_of_grammar"), None, None)
        if segment.rate != RATE:
            raise ModelError(f"PocketSphinx needs {RATE} Hz audio, got a {segment.rate} Hz segment")
        pcm = _pcm(segment)
        if self._screen is not None:
            found = self._decided(
                self._decode(self._screen, self._search_for(spoken, decoys=True), pcm), spoken, segment
            )
            if (
                found.phrase is None
                and found.rejected_as == "out_of_grammar"
                and self._verifier is not None
                and any(normalize(p) in self.tuning.rescue_llr for p in spoken)
            ):
                return self._rescue(segment, spoken, pcm, found)
            if found.phrase is None or self._verifier is None:
                return Verdict(self._with_confidence(found, self.tuning.precision_of), found.phrase, None)
            # Verify the phrase the decoy grammar heard: a grammar of that phrase alone.
            target = self._decode(self._verifier, self._search_for([found.phrase], decoys=False), pcm)
        else:
            assert self._verifier is not None
            target = self._decode(self._verifier, self._search_for(spoken, decoys=False), pcm)
            found = self._decided(target, spoken, segment)
        if target is None or not target.words or found.phrase is None:
            return Verdict(
                Recognition(None, 0.0, found.words, self.name, found.rejected_as or "garbage"), found.phrase, None
            )
        llr = self._ratio(target, pcm)
        if llr is None:
            return Verdict(Recognition(None, 0.0, found.words, self.name, "garbage"), found.phrase, None)
        if llr < self.tuning.llr_threshold(found.phrase):
            return Verdict(Recognition(None, 0.0, found.words, self.name, "low_confidence"), found.phrase, llr)
        return Verdict(self._accepted(found, llr), found.phrase, llr)

    def opinion(self, segment: Segment, phrases: Sequence[str], known: SphinxParts | None = None) -> SphinxOpinion:
        """PocketSphinx's view of a segment for another recogniser's decision (Whisper's fusion):
        its own hypothesis among ``phrases`` (the decoy grammar's phrase, else the targets-only
        grammar's), decoded now; the likelihood ratio (nats per frame, see verify.py) of a phrase
        against one free phone loop, decoded when asked for (:class:`SphinxOpinion`). ``known``:
        the passes :meth:`parts` decoded already for this segment and these phrases (in another
        process): they are not decoded again."""
        heard = self._for_opinion(segment, phrases)
        if heard is None or self._verifier is None:
            return SphinxOpinion(None, lambda _: None)
        spoken, pcm = heard
        verifier = self._verifier
        parts = known if known is not None else self._hypothesis(spoken, pcm, segment)
        targets = dict(parts.targets)
        loops: list[DecodedPass | None] = [parts.loop] if parts.looped else []
        ratios: dict[str, float | None] = {}

        def ratio(phrase: str) -> float | None:
            if phrase not in ratios:
                if not loops:
                    loops.append(self._decode(verifier, PHONE_LOOP, pcm))
                loop = loops[0]
                if loop is None:
                    ratios[phrase] = None
                else:
                    if phrase not in targets:
                        targets[phrase] = self._decode(verifier, self._search_for([phrase], decoys=False), pcm)
                    target = targets[phrase]
                    ratios[phrase] = likelihood_ratio(target, loop) if target is not None and target.words else None
            return ratios[phrase]

        return SphinxOpinion(parts.hypothesis, ratio)

    def parts(self, segment: Segment, phrases: Sequence[str]) -> SphinxParts:
        """The passes every :meth:`opinion` of a segment that is asked for a ratio decodes: the
        hypothesis, the free phone loop and the hypothesis's own targets-only pass (decoded in
        the helper process while the listener's Whisper works; :mod:`voicehost.listen.helper`)."""
        heard = self._for_opinion(segment, phrases)
        if heard is None or self._verifier is None:
            return SphinxParts(None, {}, None, looped=False)
        spoken, pcm = heard
        parts = self._hypothesis(spoken, pcm, segment)
        targets = dict(parts.targets)
        loop = self._decode(self._verifier, PHONE_LOOP, pcm)
        if loop is not None and parts.hypothesis is not None and parts.hypothesis not in targets:
            targets[parts.hypothesis] = self._decode(
                self._verifier, self._search_for([parts.hypothesis], decoys=False), pcm
            )
        return SphinxParts(parts.hypothesis, targets, loop, looped=True)

    def _for_opinion(self, segment: Segment, phrases: Sequence[str]) -> tuple[list[str], bytes] | None:
        """The spoken phrases and the 16-bit samples an opinion decodes (None: nothing to decode)."""
        spoken = [normalize(p) for p in phrases if p not in _unspoken(self.pack)]
        if not spoken or segment.rate != RATE:
            return None
        return spoken, _pcm(segment)

    def _hypothesis(self, spoken: Sequence[str], pcm: bytes, segment: Segment) -> SphinxParts:
        """The decoy grammar's phrase, else the targets-only grammar's (with that pass)."""
        assert self._verifier is not None
        hypothesis = None
        if self._screen is not None:
            hypothesis = self._decided(
                self._decode(self._screen, self._search_for(spoken, decoys=True), pcm), spoken, segment
            ).phrase
        targets: dict[str, DecodedPass | None] = {}
        if hypothesis is None:
            target = self._decode(self._verifier, self._search_for(spoken, decoys=False), pcm)
            hypothesis = self._decided(target, spoken, segment).phrase
            if hypothesis is not None:
                targets[hypothesis] = target
        return SphinxParts(hypothesis, targets, None, looped=False)

    def _rescue(self, segment: Segment, spoken: Sequence[str], pcm: bytes, rejected: Recognition) -> Verdict:
        """A decoy won: accept the targets-only grammar's phrase anyway when it is one of the
        phrases with a rescue threshold and its likelihood ratio reaches it (shouts a decoy stole
        from a voice the decoys explain too well; the thresholds are strict, see tuning.toml)."""
        assert self._verifier is not None
        target = self._decode(self._verifier, self._search_for(spoken, decoys=False), pcm)
        found = self._decided(target, spoken, segment)
        threshold = self.tuning.rescue_llr.get(found.phrase or "")
        llr = self._ratio(target, pcm) if threshold is not None and target is not None else None
        if threshold is None or llr is None:
            return Verdict(rejected, None, None)
        if llr < threshold:
            return Verdict(rejected, found.phrase, llr)
        return Verdict(self._accepted(found, llr), found.phrase, llr)

    def _ratio(self, target: DecodedPass, pcm: bytes) -> float | None:
        """The target pass's likelihood ratio against the free phone loop (None if the loop found no path)."""
        assert self._verifier is not None
        loop = self._decode(self._verifier, PHONE_LOOP, pcm)
        return None if loop is None else likelihood_ratio(target, loop)

    def _accepted(self, found: Recognition, llr: float) -> Recognition:
        """``found`` accepted, with the confidence its likelihood ratio maps to."""
        return self._with_confidence(found, lambda _: self.tuning.llr_confidence(llr))

    def _decided(self, decoded: DecodedPass | None, spoken: Sequence[str], segment: Segment) -> Recognition:
        """The decoded words as an accepted phrase or a rejection (``garbage`` when nothing was said)."""
        if decoded is None or not decoded.words:
            return Recognition(None, 0.0, (), self.name, "garbage")
        return decide(self.pack, spoken, decoded.words, self.tuning, self.name, segment)

    def _with_confidence(self, found: Recognition, confidence_of: Callable[[str], float]) -> Recognition:
        if found.phrase is None:
            return found
        confidence = confidence_of(found.phrase)
        words = tuple(WordTiming(w.word, w.start, w.end, confidence) for w in found.words)
        return Recognition(found.phrase, confidence, words, self.name, None)

    def _decode(self, decoder: Any, search: str, pcm: bytes) -> DecodedPass | None:
        """Run one search over the whole segment from a fresh feature stream; None if it found no path."""
        decoder.activate_search(search)
        decoder.reinit_feat()
        decoder.start_utt()
        decoder.process_raw(pcm, no_search=False, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        if hyp is None or not 0.0 < hyp.score < float("inf"):
            return None
        segments = list(decoder.seg() or [])
        transitions = sum(self._units(s.lscore) for s in segments)
        words = [w for w in (self._word(s) for s in segments) if w is not None]
        frames = sum(s.end_frame - s.start_frame + 1 for s in segments if self._word(s) is not None)
        return DecodedPass(tuple(words), self._units(hyp.score) * NATS_PER_UNIT, transitions * NATS_PER_UNIT, frames)

    def _units(self, value: float) -> int:
        """A score the Python API hands back as a probability, as PocketSphinx's integer log units."""
        return int(self._logmath.log(value)) if value > 0.0 else 0

    @staticmethod
    def _word(seg: Any) -> WordTiming | None:
        word = re.sub(r"\(\d+\)$", "", seg.word)
        if word in _FILLERS or word.startswith("+") or word.startswith("["):
            return None
        return WordTiming(word, seg.start_frame * FRAME, (seg.end_frame + 1) * FRAME, 1.0)


def _pcm(segment: Segment) -> bytes:
    """The segment as PocketSphinx reads it: 16-bit little-endian samples."""
    pcm: bytes = (np.clip(segment.samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()
    return pcm


def _unspoken(pack: VocabPack) -> set[str]:
    return {e for events in pack.events.values() for e in events}


def phone_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two phone sequences."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _jsgf(targets: Sequence[str], decoys: Sequence[str] = ()) -> str:
    alternatives = " | ".join(f"( {t} )" if " " in t else t for t in targets)
    lines = ["#JSGF V1.0;", "grammar voicehost;", f"<target> = {alternatives};"]
    rule = "<target>"
    if decoys:
        lines.append(f"<decoy> = {' | '.join(decoys)};")
        rule = "<target> | <decoy>"
    lines.append(f"public <utterance> = {rule};")
    return "\n".join(lines) + "\n"


def _read_cmudict(path: Path, pack: VocabPack) -> dict[str, tuple[str, ...]]:
    """word → pronunciations: the pack's own first, then CMUdict's."""
    lexicon: dict[str, list[str]] = {}
    for word, prons in pack.pronunciations.get("sphinx", {}).items():
        lexicon[word] = list(prons)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ModelError(f"cannot read PocketSphinx's dictionary {path}: {exc.strerror}") from None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        word = re.sub(r"\(\d+\)$", "", parts[0])
        pron = " ".join(p for p in parts[1:] if not p.startswith("#"))
        options = lexicon.setdefault(word, [])
        if pron not in options:
            options.append(pron)
    return {w: tuple(p) for w, p in lexicon.items()}
