"""Vosk adapter: the primary engine, for any language with an installed Vosk model.

One :class:`VoskEngine` loads the model once (1–2 s, ~500 MB for the Korean model); every seat's
recogniser shares it. Each call builds a grammar-restricted ``KaldiRecognizer`` (about 1 ms) with
word timestamps (``SetWords(True)``) and per-word confidences. The grammar lists the allowed
phrases' spoken forms, decoy words from the language pack and, when the model has one, the
``[unk]`` garbage word: out-of-grammar speech lands on a decoy or ``[unk]`` and is rejected
(:mod:`voicehost.listen.recognize.rejection`). Models without ``[unk]`` (the Korean one) rely on
the decoys and the learnt confidence thresholds.

Determinism: Kaldi's feature extraction adds random dither by default, so the same audio gave
slightly different confidences and word ends from call to call. The engine loads the model through a
temporary overlay folder whose ``conf/mfcc.conf`` adds ``--dither=0`` (everything else is a symlink
to the real model, which stays untouched); the tests check determinism on real audio.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from voicehost.errors import ModelError
from voicehost.listen.messages import Recognition, Segment, WordTiming
from voicehost.listen.recognize.rejection import Tuning, decide, decoys_for, load_tuning
from voicehost.listen.vocab import VocabPack, normalize
from voicehost.models.paths import looks_like_vosk_model

UNK = "[unk]"


class VoskEngine:
    """A loaded Vosk model, shared by all recognisers of a session."""

    def __init__(self, model_dir: Path) -> None:
        import vosk

        if not looks_like_vosk_model(model_dir):
            raise ModelError(f"{model_dir} is not a Vosk model (no am/final.mdl or conf/model.conf)")
        vosk.SetLogLevel(-1)
        try:
            with tempfile.TemporaryDirectory(prefix="voicehost-vosk-") as tmp:
                self.model = vosk.Model(str(_without_dither(model_dir, Path(tmp))))
        except Exception as exc:  # vosk raises a bare Exception when the model fails to load
            raise ModelError(f"Vosk could not load the model in {model_dir}: {exc}") from None
        self.model_dir = model_dir
        self._vosk = vosk
        self.has_unk = self.knows(UNK)

    def knows(self, word: str) -> bool:
        """True if ``word`` is in the model's vocabulary (grammars may only use such words)."""
        return bool(self.model.vosk_model_find_word(word) >= 0)

    def recognizer(self, rate: int, grammar: Sequence[str]) -> Any:
        """A fresh grammar-restricted KaldiRecognizer with word times."""
        rec = self._vosk.KaldiRecognizer(self.model, float(rate), json.dumps(list(grammar), ensure_ascii=False))
        rec.SetWords(True)
        return rec


def _without_dither(model_dir: Path, overlay: Path) -> Path:
    """A view of ``model_dir`` in ``overlay`` whose MFCC config turns dither off (read at load time)."""
    for item in model_dir.resolve().iterdir():
        if item.name != "conf":
            (overlay / item.name).symlink_to(item)
    conf = overlay / "conf"
    conf.mkdir()
    for item in (model_dir / "conf").iterdir():
        if item.name != "mfcc.conf":
            (conf / item.name).symlink_to(item.resolve())
    mfcc = model_dir / "conf" / "mfcc.conf"
    lines = mfcc.read_text(encoding="utf-8").splitlines() if mfcc.is_file() else []
    lines = [line for line in lines if not line.strip().startswith("--dither")] + ["--dither=0.0"]
    (conf / "mfcc.conf").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return overlay


class VoskRecognizer:
    """A :class:`~voicehost.listen.messages.Recognizer` on a Vosk model."""

    name = "vosk"

    def __init__(self, pack: VocabPack, engine: VoskEngine, tuning: Tuning | None = None) -> None:
        self.pack = pack
        self.engine = engine
        self.tuning = tuning if tuning is not None else load_tuning("vosk", pack.lang)
        unk = "with [unk]" if engine.has_unk else "no [unk]: decoys only"
        self.description = f"vosk (model {engine.model_dir}, {pack.name}, {unk})"
        self._grammars: dict[tuple[str, ...], list[str]] = {}

    def grammar_for(self, phrases: Sequence[str]) -> list[str]:
        """The Vosk grammar (list of phrases) for a set of allowed canonical phrases."""
        key = tuple(sorted(normalize(p) for p in phrases))
        if key not in self._grammars:
            targets = sorted({form for p in key for form in self.pack.spoken_forms(p)})
            missing = sorted({w for t in targets for w in t.split() if not self.engine.knows(w)})
            if missing:
                raise ModelError(
                    f"the Vosk model in {self.engine.model_dir} does not know {', '.join(missing)} "
                    f"(used by the {self.pack.lang} vocabulary pack {self.pack.source})"
                )
            decoys = [w for w in decoys_for(self.pack, key, self.tuning) if self.engine.knows(w)]
            self._grammars[key] = targets + decoys + ([UNK] if self.engine.has_unk else [])
        return self._grammars[key]

    def recognize(self, segment: Segment, phrases: Sequence[str], likely: Sequence[str] = ()) -> Recognition:
        """Decode ``segment`` against ``phrases`` (canonical ids) plus decoys; accept or reject
        (``likely`` is not used)."""
        unspoken = {e for events in self.pack.events.values() for e in events}
        spoken = [p for p in phrases if p not in unspoken]
        if not spoken:
            return Recognition(None, 0.0, (), self.name, "out_of_grammar")
        rec = self.engine.recognizer(segment.rate, self.grammar_for(spoken))
        pcm = (np.clip(segment.samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        rec.AcceptWaveform(pcm)
        result = json.loads(rec.FinalResult())
        words = [
            WordTiming(str(w["word"]), float(w["start"]), float(w["end"]), float(w.get("conf", 1.0)))
            for w in result.get("result", [])
        ]
        if any(w.word == UNK for w in words):
            return Recognition(None, 0.0, tuple(words), self.name, "garbage")
        return decide(self.pack, spoken, words, self.tuning, self.name, segment)
