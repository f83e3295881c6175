"""PocketSphinx adapter: English out of the box, with the model the ``pocketsphinx`` package ships.

One decoder per recogniser (build it once, share it across seats; calls are serialised by the
caller). Each allowed phrase set gets its own JSGF search, built on first use and cached:

    public <utt> = <target> | <decoy>;

Targets are the phrases' spoken forms; decoys are everyday words from the language pack, so
chatter is explained by a decoy and rejected instead of being forced onto a target (see
:mod:`voicehost.listen.recognize.rejection`). Words missing from CMUdict ("bim") come from the
pack's ``[pronunciations.sphinx]``.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from voicehost.errors import ModelError
from voicehost.listen.messages import Recognition, Segment, WordTiming
from voicehost.listen.recognize.rejection import Tuning, decide, decoys_for, load_tuning
from voicehost.listen.vocab import VocabPack, normalize
from voicehost.models.paths import pocketsphinx_model_dir

RATE = 16000
"""Hz: the bundled acoustic model's sample rate."""
FRAME = 0.01
"""Seconds per PocketSphinx frame."""
DECODER_OPTIONS: dict[str, object] = {"loglevel": "FATAL", "samprate": RATE}
"""PocketSphinx settings (its defaults otherwise)."""

NEIGHBOUR_DISTANCE = 1
"""Decoys within this many phone edits of an allowed word are left out of the grammar: they are
the same word to this acoustic model ("at" for "cat", "dot" for "dog") and stole real shouts."""
_FILLERS = {"<s>", "</s>", "<sil>", "[noise]", "++noise++"}


class SphinxRecognizer:
    """A :class:`~voicehost.listen.messages.Recognizer` on PocketSphinx's US-English model."""

    name = "sphinx"

    def __init__(
        self,
        pack: VocabPack,
        model_dir: Path | None = None,
        tuning: Tuning | None = None,
        options: Mapping[str, object] | None = None,
    ) -> None:
        from pocketsphinx import Decoder

        folder = model_dir or pocketsphinx_model_dir()
        if folder is None or not (folder / "mdef").is_file():
            raise ModelError("PocketSphinx's bundled English model is missing: reinstall the pocketsphinx package")
        self.pack = pack
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
            except (RuntimeError, ValueError) as exc:
                raise ModelError(f"PocketSphinx failed to start with {folder}: {exc}") from None
        self._known = {w for w in words if w in self._lexicon}
        self._searches: dict[tuple[str, ...], str] = {}


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
        key = tuple(sorted(normalize(p) for p in phrases))
        if key not in self._searches:
            targets = sorted({form for p in key for form in self.pack.spoken_forms(p)})
            self._ensure_words({w for t in targets for w in t.split()})
            target_prons = [pron.split() for t in targets for w in t.split() for pron in self._lexicon.get(w, ())]
            neighbours = {
                w for w in self.pack.decoys
                if any(_distance(p.split(), t) <= NEIGHBOUR_DISTANCE for p in self._lexicon.get(w, ()) for t in target_prons)
            }
            decoys = [w for w in decoys_for(self.pack, key, self.tuning, neighbours) if w in self._known]
            name = f"g{len(self._searches)}"
            self._decoder.add_jsgf_string(name, _jsgf(targets, decoys))
            self._searches[key] = name
        return self._searches[key]

    def recognize(self, segment: Segment, phrases: Sequence[str]) -> Recognition:
        """Decode ``segment`` against ``phrases`` (canonical ids) plus decoys; accept or reject."""
        spoken = [p for p in phrases if p not in _unspoken(self.pack)]
        if not spoken:
            return Recognition(None, 0.0, (), self.name, "out_of_grammar")
        if segment.rate != RATE:
            raise ModelError(f"PocketSphinx needs {RATE} Hz audio, got a {segment.rate} Hz segment")
        self._decoder.activate_search(self._search_for(spoken))
        pcm = (np.clip(segment.samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        self._decoder.reinit_feat()  # live CMN would carry over: a result must not depend on earlier segments
        self._decoder.start_utt()
        self._decoder.process_raw(pcm, no_search=False, full_utt=True)
        self._decoder.end_utt()
        words = self._words()
        result = decide(self.pack, spoken, words, self.tuning, self.name, segment)
        if result.phrase is None:
            return result
        confidence = self.tuning.precision_of(result.phrase)
        return Recognition(result.phrase, confidence, result.words, self.name, None)

    def _words(self) -> list[WordTiming]:
        hyp = self._decoder.hyp()
        if hyp is None or not hyp.hypstr.strip():
            return []
        out = []
        for seg in self._decoder.seg():
            word = re.sub(r"\(\d+\)$", "", seg.word)
            if word in _FILLERS or word.startswith("+"):
                continue
            out.append(WordTiming(word, seg.start_frame * FRAME, (seg.end_frame + 1) * FRAME, 1.0))
        return out


def _distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two phone sequences."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _unspoken(pack: VocabPack) -> set[str]:
    return {e for events in pack.events.values() for e in events}


def _jsgf(targets: Sequence[str], decoys: Sequence[str]) -> str:
    alternatives = " | ".join(f"( {t} )" if " " in t else t for t in targets)
    rule = "<target>"
    lines = ["#JSGF V1.0;", "grammar voicehost;", f"<target> = {alternatives};"]
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
