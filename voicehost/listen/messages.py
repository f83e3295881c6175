"""Typed messages between the listening stages. Times are seconds on the session's audio clock
(t = 0 is the first sample of the recording or of the live session), never wall-clock time at
processing time.

Flow: ``AudioBlock`` (sources) → ``AcousticEvent`` (onset, per seat) → ``AcousticEvent`` with one
owner (crosstalk) → ``Segment`` → ``Recognition`` (recognize) → ``Shout`` (ranking).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, Sequence, TypeAlias

import numpy as np

SeatName: TypeAlias = str
"""The player who sits at a seat (one microphone channel per seat)."""


class EventKind(Enum):
    """What an acoustic event sounds like."""

    VOICE = "voice"
    """Voiced, speech-like: a candidate for recognition."""
    SLAP = "slap"
    """Impulsive and broadband: a hand clap or a slap on the table."""
    NOISE = "noise"
    """Neither voiced nor impulsive (a cough, a breath, rustling): never reported."""


@dataclass(frozen=True)
class AudioBlock:
    """A block of multichannel audio as captured, with its capture time."""

    samples: np.ndarray
    """float32, shape (frames, channels), values in [-1, 1]."""
    start_frame: int
    """Index of the first frame since the start of the session (sample clock)."""
    rate: int
    """Hz."""
    capture_time: float | None = None
    """Seconds on the audio clock when the first frame was captured (PortAudio ADC time), if known."""
    seats: tuple[SeatName, ...] = ()
    """Seat of each channel; empty means the listener's seats in order."""


@dataclass(frozen=True)
class AcousticEvent:
    """One vocal or impulsive event on one seat's channel."""

    seat: SeatName
    kind: EventKind
    onset: float
    """Seconds: start of the event, refined to the true start, after the seat's latency offset."""
    end: float
    """Seconds: end of the event (the last burst's end)."""
    level_db: float
    """Peak short-time level, dBFS."""
    bursts: tuple[tuple[float, float], ...] = ()
    """(start, end) seconds of each syllable-like burst inside the event (for repetition counting)."""
    leaked_to: tuple[SeatName, ...] = ()
    """Seats where this event was also heard as crosstalk (and suppressed)."""


@dataclass(frozen=True)
class Segment:
    """Audio of one event, ready for recognition."""

    event: AcousticEvent
    samples: np.ndarray
    """float32 mono at ``rate``, from a little before onset to a little after end."""
    rate: int
    """Hz (the recogniser's rate, normally 16000)."""
    start: float
    """Seconds on the session clock of ``samples[0]``."""


@dataclass(frozen=True)
class WordTiming:
    """One recognised word with its position inside the segment."""

    word: str
    start: float
    """Seconds from the segment's first sample."""
    end: float
    """Seconds from the segment's first sample."""
    confidence: float
    """0..1."""


@dataclass(frozen=True)
class Recognition:
    """What a recogniser made of a segment."""

    phrase: str | None
    """A target phrase, normalised (lower case, single spaces), or None when rejected."""
    confidence: float
    """0..1; 0 when rejected."""
    words: tuple[WordTiming, ...] = ()
    engine: str = ""
    """'vosk' or 'sphinx' (and model), for reports."""
    rejected_as: str | None = None
    """When rejected: why (e.g. 'out_of_grammar', 'low_confidence', 'garbage', 'uncertain',
    'non_speech': Whisper named a sound, no phrase near it), for reports and tuning."""
    candidate: str | None = None
    """When rejected as 'uncertain': the phrase it probably was (the host asks back)."""
    candidate_confidence: float = 0.0
    """0..1: the candidate's (or the guess's) confidence."""
    ratio: float | None = None
    """Nats the phrase (or the uncertain candidate) lies under what the recogniser would write
    itself, any text allowed (≤ 0; 0: it wrote the phrase itself; Whisper's ratio); None: the
    recogniser has no such measure. The listener drops a strict phrase far under it
    (:attr:`voicehost.listen.pipeline.Listener.strict`)."""
    guess: str | None = None
    """When rejected as 'uncertain' or 'low_confidence': the allowed phrase the recogniser scored
    best (None: it has no such measure). The listener accepts it when another seat's clear shout
    of the same race agrees (:attr:`voicehost.listen.pipeline.ListenConfig.agree`)."""
    score: float | None = None
    """Nats of the recogniser's fused score for ``phrase`` or ``guess`` (≥ 0: accepted; None: the
    recogniser has no such measure)."""
    lead: float | None = None
    """Nats that score lies over the next phrase's (inf: no other phrase was a candidate). Both as
    the recogniser scored them: a phrase PocketSphinx was not asked about, as it could not reach
    the uncertain band, counts at PocketSphinx's floor, so a rejection's score and lead may differ
    from what asking about every phrase would give (the decision does not)."""


class Recognizer(Protocol):
    """A speech recogniser restricted to the phrases allowed at that moment."""

    name: str

    def recognize(self, segment: Segment, phrases: Sequence[str], likely: Sequence[str] = ()) -> Recognition:
        """Return the target phrase said in ``segment`` or a rejection. Deterministic for the same input.

        ``likely``: the phrases of ``phrases`` the game expects now (a Bim Bamm! race's animal); a
        recogniser may accept them on less evidence, or ignore the hint."""


@dataclass(frozen=True)
class Heard:
    """One thing a player said, shouted or slapped: what the listener reports (a ranked,
    recognised shout) and what the session's game flow receives — typed, scripted and heard
    alike. :data:`Shout` is the same class, the name the listening code uses."""

    player: SeatName
    phrase: str
    """Normalised ("two bam bam"); "slap" for a clap or table slap."""
    onset: float
    """Seconds on the session clock when the voice (or slap) began (after latency offsets)."""
    end: float
    """Seconds on the session clock when it ended."""
    confidence: float = 1.0
    """0..1 (typed and scripted lines: 1)."""
    source: str = "text"
    """'text', 'script' or 'mic'."""
    level_db: float | None = field(default=None, compare=False)
    """Peak level of the voice on its own microphone, dBFS (0.1 dB; microphones only, None when
    not measured): Bim Bam Bum!'s "who starts" goes to the loudest voice."""
    uncertain: bool = False
    """The recogniser was not sure of ``phrase`` (it is the likeliest allowed phrase; microphones
    only): the session asks the player back ("Ben: cat?") before the game sees it, and a
    confirmed shout keeps its onset rank."""
    kind: EventKind = field(default=EventKind.VOICE, compare=False)
    """A voice or a slap (microphones; the phrase says it too: "slap")."""
    details: dict[str, object] = field(default_factory=dict, compare=False)
    """Diagnostics (leaks, engine, bursts) for reports and plots; not part of the contract."""

    def to_json(self) -> dict[str, object]:
        """The object printed by ``voicehost rank --json`` ("uncertain" only appears when true)."""
        out: dict[str, object] = {
            "player": self.player,
            "phrase": self.phrase,
            "onset": round(self.onset, 4),
            "end": round(self.end, 4),
            "confidence": round(self.confidence, 3),
        }
        if self.uncertain:
            out["uncertain"] = True
        return out


Shout = Heard
"""The listening code's name for :class:`Heard` (one class: a shout reported is what the game hears)."""
