"""PocketSphinx adapter: English out of the box, with the model the ``pocketsphinx`` package ships.

One decoder per recogniser (build it once, share it across seats; calls are serialised by the
caller). Each segment is decoded twice (:mod:`voicehost.listen.recognize.verify`):

1. against a grammar of the allowed phrases only (``public <utterance> = cat | dog | …;``, built on
   first use per phrase set and cached), which finds the nearest target with high recall;
2. with a free loop of phones (PocketSphinx's allphone search, no phone language model), the best
   explanation of the audio by any sound sequence.

The phrase is accepted when its acoustic likelihood ratio against the phone loop reaches the
phrase's learnt threshold (``tuning.toml``); the ratio also gives the confidence. Words missing from
CMUdict ("bim") come from the pack's ``[pronunciations.sphinx]``.

Decoder settings that matter (measured with ``bench/bench_recognize.py``, see the README):
``compallsen`` scores every senone in every frame, so scores of different searches share one
reference and can be compared (without it the ratio separated real chatter from targets far worse);
``bestpath`` is off because the lattice rescoring it adds returned path scores and word ends that
did not belong to the Viterbi path; ``topn`` 2 makes scoring every senone 25% cheaper at no cost in
accuracy. The feature stream is re-initialised before each segment: the model's noise removal and
cepstral mean would otherwise carry over, and the same audio would score differently depending on
what was heard before it.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

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
DECODER_OPTIONS: dict[str, object] = {
    "loglevel": "FATAL",
    "samprate": RATE,
    "compallsen": True,
    "bestpath": False,
    "topn": 2,
}
"""PocketSphinx settings (its defaults otherwise); why each one, in the module doc."""
PHONE_LOOP = "voicehost-phone-loop"
"""Name of the free phone-loop search."""
NEIGHBOUR_DISTANCE = 1
"""Decoys within this many phone edits of an allowed word are left out of the grammar: they are
the same word to this acoustic model ("at" for "cat", "dot" for "dog") and stole real shouts."""
_FILLERS = {"<s>", "</s>", "<sil>", "[noise]", "++noise++", "(NULL)", "SIL"}


class SphinxRecognizer:
    """A :class:`~voicehost.listen.messages.Recognizer` on PocketSphinx's US-English model."""

    name = "sphinx"

    def __init__(
        self,
        pack: VocabPack,
        model_dir: Path | None = None,
        tuning: Tuning | None = None,
        options: Mapping[str, object] | None = None,
        decoys: bool = False,
    ) -> None:
        from pocketsphinx import Decoder

        folder = model_dir or pocketsphinx_model_dir()
        if folder is None or not (folder / "mdef").is_file():
            raise ModelError("PocketSphinx's bundled English model is missing: reinstall the pocketsphinx package")
        self.pack = pack
        self.decoys = decoys
        """Also offer the pack's decoy words in the first pass (the earlier design, kept for comparison
        in the benchmark: at equal false accepts it kept no more shouts, and it stole some)."""
        self.tuning = tuning if tuning is not None else load_tuning("sphinx", pack.lang)
        self.description = f"sphinx (PocketSphinx, bundled US-English model at {folder})"
        self._lexicon = _read_cmudict(folder.parent / "cmudict-en-us.dict", pack)
        with tempfile.TemporaryDirectory(prefix="voicehost-sphinx-") as tmp:
            words = pack.spoken_words(pack.all_phrases()) | set(pack.decoys)
            dict_path = Path(tmp) / "voicehost.dict"
            dict_path.write_text(self._dict_text(words), encoding="utf-8")
            try:
                settings = {**DECODER_OPTIONS, **(options or {})}
                self._decoder = Decoder(hmm=str(folder), dict=str(dict_path), lm=None, **settings)
                self._decoder.add_allphone_file(PHONE_LOOP, None)
            except (RuntimeError, ValueError) as exc:
                raise ModelError(f"PocketSphinx failed to start with {folder}: {exc}") from None
        self._logmath = self._decoder.get_logmath()
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
            for i, pron in enumerate(prons):
                self._decoder.add_word(word if i == 0 else f"{word}({i + 1})", pron, True)
            self._known.add(word)

    def _search_for(self, phrases: Sequence[str]) -> str:
        """The grammar search of the allowed phrases' spoken forms, plus decoys when enabled."""
        key = tuple(sorted(normalize(p) for p in phrases))
        if (key, self.decoys) not in self._searches:
            targets = sorted({form for p in key for form in self.pack.spoken_forms(p)})
            self._ensure_words({w for t in targets for w in t.split()})
            decoys = self._decoys_for(key, targets) if self.decoys else []
            name = f"g{len(self._searches)}"
            self._decoder.add_jsgf_string(name, _jsgf(targets, decoys))
            self._searches[(key, self.decoys)] = name
        return self._searches[(key, self.decoys)]

    def _decoys_for(self, phrases: Sequence[str], targets: Sequence[str]) -> list[str]:
        """The pack's decoys minus the allowed words, their near neighbours and the learnt exclusions."""
        target_prons = [pron.split() for t in targets for w in t.split() for pron in self._lexicon.get(w, ())]
        neighbours = {
            w for w in self.pack.decoys
            if any(_distance(p.split(), t) <= NEIGHBOUR_DISTANCE for p in self._lexicon.get(w, ()) for t in target_prons)
        }
        return [w for w in decoys_for(self.pack, phrases, self.tuning, neighbours) if w in self._known]

    def recognize(self, segment: Segment, phrases: Sequence[str]) -> Recognition:
        """Decode ``segment`` against ``phrases`` (canonical ids) and verify it acoustically."""
        return self.verify(segment, phrases).recognition

    def verify(self, segment: Segment, phrases: Sequence[str]) -> Verdict:
        """:meth:`recognize` with its evidence: the grammar's hypothesis and its likelihood ratio."""
        spoken = [p for p in phrases if p not in _unspoken(self.pack)]
        if not spoken:
            return Verdict(Recognition(None, 0.0, (), self.name, "out_of_grammar"), None, None)
        if segment.rate != RATE:
            raise ModelError(f"PocketSphinx needs {RATE} Hz audio, got a {segment.rate} Hz segment")
        pcm = (np.clip(segment.samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        target = self._decode(self._search_for(spoken), pcm)
        if target is None or not target.words:
            return Verdict(Recognition(None, 0.0, (), self.name, "garbage"), None, None)
        found = decide(self.pack, spoken, target.words, self.tuning, self.name, segment)
        if found.phrase is None:
            return Verdict(found, None, None)
        loop = self._decode(PHONE_LOOP, pcm)
        if loop is None:
            return Verdict(Recognition(None, 0.0, found.words, self.name, "garbage"), found.phrase, None)
        llr = likelihood_ratio(target, loop)
        if llr < self.tuning.llr_threshold(found.phrase):
            return Verdict(Recognition(None, 0.0, found.words, self.name, "low_confidence"), found.phrase, llr)
        confidence = self.tuning.llr_confidence(llr)
        words = tuple(WordTiming(w.word, w.start, w.end, confidence) for w in found.words)
        return Verdict(Recognition(found.phrase, confidence, words, self.name, None), found.phrase, llr)

    def _decode(self, search: str, pcm: bytes) -> DecodedPass | None:
        """Run one search over the whole segment from a fresh feature stream; None if it found no path."""
        decoder = self._decoder
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
        return DecodedPass(tuple(words), self._units(hyp.score) * NATS_PER_UNIT,
                           transitions * NATS_PER_UNIT, frames)

    def _units(self, value: float) -> int:
        """A score the Python API hands back as a probability, as PocketSphinx's integer log units."""
        return int(self._logmath.log(value)) if value > 0.0 else 0

    @staticmethod
    def _word(seg: Any) -> WordTiming | None:
        word = re.sub(r"\(\d+\)$", "", seg.word)
        if word in _FILLERS or word.startswith("+") or word.startswith("["):
            return None
        return WordTiming(word, seg.start_frame * FRAME, (seg.end_frame + 1) * FRAME, 1.0)


def _unspoken(pack: VocabPack) -> set[str]:
    return {e for events in pack.events.values() for e in events}


def _distance(a: Sequence[str], b: Sequence[str]) -> int:
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
