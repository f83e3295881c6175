"""Whisper's tokens: the byte-level BPE tokenizer, its special tokens, and how a phrase is written.

A phrase id ("bam bam") is one spoken form but many written ones: Whisper may write "Bam, bam!",
"BAM BAM" or "Bam-bam." and spreads its probability over them. :func:`written_forms` lists the
forms a phrase is scored as (case, separator, final punctuation, "?" for a question, digits for
number words, "I" capitalised), and
:class:`PhraseTrie` holds their token sequences with shared prefixes.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from voicehost.errors import ModelError

DIGITS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
"""Number words Whisper often writes as digits."""
CASES = ("lower", "first", "title", "upper")
SEPARATORS = (" ", ", ", "-", "! ")
ENDINGS = ("", ".", "!")
QUESTION_WORDS = frozenset("what what's who who's whose where when why how which is are do does can pardon".split())
"""A phrase beginning with one of these is a question, written with "?" too ("What is the score?").
English: the Whisper and Moonshine models used here are English-only."""


def endings(words: Sequence[str]) -> tuple[str, ...]:
    """The final punctuation a phrase of ``words`` may be written with."""
    return (*ENDINGS, "?") if words and words[0] in QUESTION_WORDS else ENDINGS


def pronoun(word: str) -> str:
    """English "I" (and "I'm", "I'll" …) is written capitalised wherever it stands."""
    return "I" + word[1:] if word == "i" or word.startswith("i'") else word


def cased(words: Sequence[str], case: str) -> list[str]:
    """``words`` in one of :data:`CASES` ("first": a sentence, "I" capitalised)."""
    if case == "upper":
        return [w.upper() for w in words]
    if case == "title":
        return [w.capitalize() for w in words]
    if case == "first":
        return [words[0].capitalize(), *(pronoun(w) for w in words[1:])]
    return [pronoun(w) for w in words]


def written_forms(spoken: str) -> list[str]:
    """Texts (each with Whisper's leading space) a spoken phrase may be written as."""
    words = spoken.split()
    if not words:
        return []
    choices = [[w, DIGITS[w]] if w in DIGITS else [w] for w in words]
    forms: set[str] = set()
    for picked in itertools.product(*choices):
        for case in CASES:
            written = cased(picked, case)
            for sep in SEPARATORS if len(words) > 1 else (" ",):
                for end in endings(words):
                    forms.add(" " + sep.join(written) + end)
    return sorted(forms)


@dataclass(frozen=True)
class Specials:
    """Ids of Whisper's special tokens."""

    end: int
    start: int
    no_timestamps: int
    previous: int
    no_speech: int
    english: int | None
    """<|en|> for a multilingual model, None for an English-only one."""
    transcribe: int | None

    def start_sequence(self) -> list[int]:
        """The tokens that begin a transcription without timestamps."""
        if self.english is None or self.transcribe is None:
            return [self.start, self.no_timestamps]
        return [self.start, self.english, self.transcribe, self.no_timestamps]


class Tokenizer:
    """The model's tokenizer (``tokenizer.json``) through the ``tokenizers`` library."""

    def __init__(self, path: Path, vocabulary: int) -> None:
        from tokenizers import Tokenizer as HFTokenizer

        try:
            self._tok = HFTokenizer.from_file(str(path))
            added = {t["content"]: int(t["id"]) for t in json.loads(path.read_text(encoding="utf-8"))["added_tokens"]}
        except (OSError, ValueError, KeyError, TypeError, Exception) as exc:  # tokenizers raises plain Exception
            raise ModelError(f"cannot read the Whisper tokenizer {path}: {exc}") from None
        multilingual = vocabulary >= 51865
        try:
            self.specials = Specials(
                added["<|endoftext|>"],
                added["<|startoftranscript|>"],
                added["<|notimestamps|>"],
                added["<|startofprev|>"],
                added["<|nospeech|>"] if "<|nospeech|>" in added else added["<|nocaptions|>"],
                added["<|en|>"] if multilingual else None,
                added["<|transcribe|>"] if multilingual else None,
            )
        except KeyError as exc:
            raise ModelError(f"{path}: the Whisper tokenizer has no special token {exc}") from None
        self._first_special = min(added.values())

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no special tokens)."""
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids``, special tokens left out."""
        return str(self._tok.decode([i for i in ids if i < self._first_special]))

    def opening_mask(self, openings: Sequence[str]) -> np.ndarray:
        """True for each text token whose text (leading space left out) starts with one of
        ``openings``; as long as the text tokens."""
        texts = self._tok.decode_batch([[i] for i in range(self._first_special)])
        return np.array([t.lstrip().startswith(tuple(openings)) for t in texts], dtype=bool)


@dataclass
class PhraseTrie:
    """The token sequences of every written form of a set of phrases, sharing prefixes."""

    children: list[dict[int, int]] = field(default_factory=lambda: [{}])
    """Node → {token: child node}; node 0 is the root."""
    ends: list[str | None] = field(default_factory=lambda: [None])
    """Node → the phrase a written form ending here belongs to."""

    def add(self, tokens: Sequence[int], phrase: str) -> None:
        """Add one written form's tokens."""
        node = 0
        for token in tokens:
            child = self.children[node].get(token)
            if child is None:
                child = len(self.children)
                self.children.append({})
                self.ends.append(None)
                self.children[node][token] = child
            node = child
        self.ends[node] = phrase


@lru_cache(maxsize=64)
def _forms_cached(spoken: str) -> tuple[str, ...]:
    return tuple(written_forms(spoken))


def build_trie(tokenizer: Tokenizer, spoken: Mapping[str, Sequence[str]]) -> PhraseTrie:
    """A trie of every written form of each phrase; ``spoken`` maps phrase id → its spoken texts."""
    trie = PhraseTrie()
    for phrase, texts in spoken.items():
        for text in texts:
            for form in _forms_cached(text):
                trie.add(tokenizer.encode(form), phrase)
    return trie
