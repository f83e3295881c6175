"""Scores of the allowed phrases against what Whisper would write freely.

Two searches over one segment's encoded audio, in the same decoder and the same units:

- the *free* transcription: greedy decoding, any text, until the end token (or a length limit
  that follows the segment's duration): log P(free text | audio);
- the *phrases*: a beam search restricted to the written forms of the allowed phrases
  (:class:`~.tokens.PhraseTrie`), each phrase's score the log-sum of the probabilities of its
  written forms, each form ended by the end token: log P(phrase | audio).

Where the free transcription opens as a sound ("(Bert)", "[BEEP]") or is empty, a second greedy
transcription starts from the likeliest first token that opens words (``SearchConfig.
speech_reference``), and *free* below is the better of the two (:attr:`Scores.reference`).

Their difference, ``ratio = best phrase − max(free, best phrase)`` (nats, ≤ 0), is near 0 when
Whisper would itself have written an allowed phrase and far below 0 for other speech ("pick" vs
"pig", "pass me the cards"): the decision in :mod:`.recognizer` is made on it. The free search's
first step is shared with the phrase search, and phrase hypotheses that fall more than ``floor``
nats under the free transcription's score are dropped (they could never be accepted).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voicehost.listen.recognize.whisper.decoder import Cross, Decoder, Prefixes
from voicehost.listen.recognize.whisper.tokens import PhraseTrie


NON_SPEECH_OPENINGS = ("[", "(", "*", "\u266a")
"""How Whisper opens what it writes for a sound that is not speech: "[BLANK_AUDIO]", "(beep)",
"*Music*", "\u266a"."""


@dataclass(frozen=True)
class Scores:
    """What the two searches found for one segment."""

    phrases: dict[str, float]
    """Phrase id → log P(phrase | audio), nats, for the phrases the beam search completed."""
    free_tokens: tuple[int, ...]
    """Whisper's own transcription (greedy), as text tokens."""
    free_score: float
    """log P(free text and its end | audio), nats."""
    no_speech: float
    """log P(Whisper's no-speech token) at the first position, nats."""
    steps: int
    """Decoder calls made (for cost reports)."""
    speech_tokens: tuple[int, ...] = ()
    """The best transcription that opens with words (``SearchConfig.speech_reference``), as text
    tokens; empty when none was searched."""
    speech_score: float = float("-inf")
    """log P(that transcription and its end | audio), nats; -inf when none was searched."""

    @property
    def reference(self) -> float:
        """What a phrase's ratio is measured against: the better of the free transcription and the
        transcription that opens with words."""
        return max(self.free_score, self.speech_score)

    def best(self) -> tuple[str | None, float, float]:
        """(best phrase or None, its ratio to :attr:`reference`, its margin over the next phrase), nats."""
        if not self.phrases:
            return None, float("-inf"), 0.0
        ranked = sorted(self.phrases.items(), key=lambda kv: -kv[1])
        phrase, score = ranked[0]
        margin = score - ranked[1][1] if len(ranked) > 1 else float("inf")
        return phrase, score - max(self.reference, score), margin


@dataclass(frozen=True)
class SearchConfig:
    """Limits of the two searches."""

    beam: int = 8
    """Phrase hypotheses kept per step."""
    spread: float = 7.0
    """Nats under the step's best hypothesis below which a phrase hypothesis is dropped (a written
    form that much less likely adds under 0.1% to its phrase's probability)."""
    floor: float = 12.0
    """Nats under the free transcription's score below which a phrase hypothesis is dropped."""
    tokens_per_second: float = 6.0
    """Free transcription length limit: 4 tokens plus this many per second of segment."""
    max_tokens: int = 32
    """Hard limit on the free transcription's length."""
    overrun: int = 3
    """Tokens the free transcription may run past the longest allowed written form."""
    kept: int = 6
    """Hypotheses of the ``keep`` phrases (:func:`score_phrases`) kept per step beyond the beam,
    whatever their score: the best-scoring ones."""
    loop_cut: bool = True
    """A free transcription stopped by its length limit that says its beginning again and again
    ("Flip 9 Flip 9 Flip 9 Flip": Whisper looping on a short shout) is cut after its first copy
    and scored as ended there."""
    speech_reference: bool = True
    """When the free transcription opens as a sound ("(Bert)", "[BEEP]", or nothing at all), a
    second greedy transcription starts from the likeliest first token that opens words ("Bird"),
    and ratios are measured against the better of the two: a phrase the beam finds likelier than
    a greedy "(Bert)" is not thereby as likely as the words Whisper hears. Held out: real talk's
    false alarms 12 -> 8 and questions 28 -> 11 in 66.7 minutes, recall unchanged; synthetic one
    shout fewer (README, "Hearing the shouts", item 63). Off: the greedy text alone."""


def score_phrases(
    decoder: Decoder,
    cross: Cross,
    prefix: list[int],
    trie: PhraseTrie,
    end: int,
    first_special: int,
    no_speech: int,
    seconds: float,
    config: SearchConfig = SearchConfig(),
    keep: frozenset[str] = frozenset(),
    openers: np.ndarray | None = None,
) -> Scores:
    """Run both searches for one segment (see the module doc); ``prefix`` starts the transcription.

    Both advance together, one decoder call per step for the free transcription's next token and
    every phrase hypothesis (the weights are read once per step, whatever the number of rows).
    Hypotheses on the way to a ``keep`` phrase (the ones the game expects now) are kept beyond the
    beam and its spread (up to ``config.kept`` more rows a step; only the floor under the free
    transcription still drops them): the other evidence (PocketSphinx, the game's context) can
    accept a phrase Whisper finds less likely than others, so it needs its real score, not the
    floor a dropped phrase gets. ``openers``: True for the text tokens that open a sound, not
    words (``config.speech_reference``; None: no second transcription)."""
    kept = _leading_to(trie, keep) if keep else set()
    longest = max((len(t) for t in _depths(trie)), default=1)
    free_limit = min(config.max_tokens, 4 + int(config.tokens_per_second * seconds), longest + config.overrun)
    free = _Greedy(free_limit, config.loop_cut)
    """Whisper's own transcription, from the first step on."""
    done: dict[str, float] = {}
    beam: list[tuple[list[int], int, float]] = [([], 0, 0.0)]
    extra: list[tuple[list[int], int, float]] = []
    """Hypotheses kept only because they lead to a ``keep`` phrase: they never take the beam's
    places, and they end only their own phrases (the search for the others stays as it was)."""
    no_speech_score = 0.0
    steps = 0
    known = Prefixes()
    speech = _Greedy(free_limit, config.loop_cut) if config.speech_reference and openers is not None else None
    """The transcription that opens with words, where Whisper's own opens as a sound."""
    while free.open or beam or extra or (speech is not None and speech.open):
        talking = speech is not None and speech.open and bool(speech.tokens)
        rows = ([prefix + free.tokens] if free.open else []) + ([prefix + speech.tokens] if speech and talking else [])
        rows += [prefix + tokens for tokens, _, _ in (*beam, *extra)]
        probs = decoder.next_log_probs(rows, cross, known)
        steps += 1
        if steps == 1:
            no_speech_score = float(probs[0][no_speech])
        if free.open:
            first = probs[0]
            free.step(first, end, first_special)
            probs = probs[1:]
            if speech is not None and steps == 1:
                assert openers is not None
                if free.tokens and not openers[free.tokens[0]]:
                    speech.open = False  # Whisper opens with words itself: nothing to add
                else:
                    speech.begin(first, openers, first_special)
        if speech is not None and talking:
            speech.step(probs[0], end, first_special)
            probs = probs[1:]
        # A phrase hypothesis far under the free transcription's score so far can never be accepted.
        limit = free.score - config.floor
        grown: list[tuple[list[int], int, float]] = []
        grown_extra: list[tuple[list[int], int, float]] = []
        for k, ((tokens, node, score), row) in enumerate(zip((*beam, *extra), probs)):
            is_extra = k >= len(beam)
            phrase = trie.ends[node]
            if phrase is not None and (not is_extra or phrase in keep):
                done[phrase] = float(np.logaddexp(done.get(phrase, -np.inf), score + row[end]))
            for token, child in trie.children[node].items():
                total = score + float(row[token])
                if total > limit and not (is_extra and child not in kept):
                    (grown_extra if is_extra else grown).append((tokens + [token], child, total))
        grown.sort(key=lambda h: -h[2])
        cut = grown[0][2] - config.spread if grown else 0.0
        beam = [h for h in grown[: config.beam] if h[2] >= cut]
        if kept:
            chosen = {h[1] for h in beam}
            dropped = [h for h in grown if h[1] in kept and h[1] not in chosen]
            extra = sorted(dropped + grown_extra, key=lambda h: -h[2])[: config.kept]
    said, said_score = free.result()
    if speech is None or not speech.tokens:
        return Scores(done, said, said_score, no_speech_score, steps)
    return Scores(done, said, said_score, no_speech_score, steps, *speech.result())


class _Greedy:
    """A greedy transcription: Whisper's own, or (``begin``) one that starts from a first token
    chosen for it (``SearchConfig.speech_reference``). Stopped at ``limit`` tokens (too long for
    any allowed phrase: the score so far bounds the rest), where ``loop_cut`` cuts a text that
    says its beginning again and again after its first copy."""

    def __init__(self, limit: int, loop_cut: bool) -> None:
        self.limit, self.loop_cut = limit, loop_cut
        self.tokens: list[int] = []
        self.score = 0.0
        """log P(text so far | audio), nats."""
        self.open = True
        self.looped = False
        self.ends: list[float] = []
        """log P(text so far, then the end token), after each number of tokens."""

    def begin(self, row: np.ndarray, openers: np.ndarray, first_special: int) -> None:
        """Start with the likeliest first text token of ``row`` that opens words (no empty text)."""
        text = np.where(openers, -np.inf, row[:first_special])
        token = int(text.argmax())
        self.ends.append(float("-inf"))
        self.tokens, self.score = [token], float(text[token])
        self._check()

    def step(self, row: np.ndarray, end: int, first_special: int) -> None:
        """One greedy step on the next-token log probabilities ``row`` of this text."""
        self.ends.append(self.score + float(row[end]))
        self.tokens, self.score, self.open = _free_step(self.tokens, self.score, row, end, first_special)
        self._check()

    def _check(self) -> None:
        if self.open and len(self.tokens) >= self.limit:
            self.open = False
            self.looped = self.loop_cut

    def result(self) -> tuple[tuple[int, ...], float]:
        period = _period(self.tokens) if self.looped else None
        if period is not None:
            return tuple(self.tokens[:period]), self.ends[period]
        return tuple(self.tokens), self.score


def _period(tokens: list[int]) -> int | None:
    """The length of the text's first copy when the text is that copy said again (at least once,
    whole, the rest a start of it): "Flip 9 Flip 9 Flip" → 3 tokens; None otherwise."""
    for p in range(1, len(tokens) // 2 + 1):
        if tokens[p:] == tokens[: len(tokens) - p]:
            return p
    return None


def _leading_to(trie: PhraseTrie, phrases: frozenset[str]) -> set[int]:
    """The trie's nodes on the way to a written form of one of ``phrases`` (its end included)."""
    parent: dict[int, int] = {}
    stack = [0]
    order = []
    while stack:
        node = stack.pop()
        order.append(node)
        for child in trie.children[node].values():
            parent[child] = node
            stack.append(child)
    out: set[int] = set()
    for node in order:
        if trie.ends[node] in phrases:
            while node not in out and node != 0:
                out.add(node)
                node = parent[node]
    return out


def _free_step(
    tokens: list[int], score: float, row: np.ndarray, end: int, first_special: int
) -> tuple[list[int], float, bool]:
    """One greedy step of the free transcription: (tokens, score, still open)."""
    text = row[:first_special]
    token = int(text.argmax())
    if row[end] >= text[token]:
        return tokens, score + float(row[end]), False
    return tokens + [token], score + float(row[token]), True


def _depths(trie: PhraseTrie) -> list[list[int]]:
    """One token path per written-form length (only the lengths matter)."""
    depth = {0: 0}
    paths: list[list[int]] = []
    stack = [0]
    while stack:
        node = stack.pop()
        if trie.ends[node] is not None:
            paths.append([0] * depth[node])
        for child in trie.children[node].values():
            depth[child] = depth[node] + 1
            stack.append(child)
    return paths
