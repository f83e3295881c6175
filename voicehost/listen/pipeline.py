"""The listening pipeline: audio blocks in, ranked shouts out.

:class:`Listener` is the one code path for live microphones and recorded files::

    listener = Listener(seats, recognizer, phrases)
    for block in source.blocks():          # or LiveSource.read() in a loop
        for shout in listener.feed(block):
            ...
    shouts = listener.flush()

Per seat an :class:`~voicehost.listen.onset.OnsetDetector` finds events; once every seat has heard
past the end of a group of overlapping events (a *cluster*), :func:`~voicehost.listen.crosstalk.
resolve` gives each sound one owner with its own audio; slaps become "slap", voiced events go to
the recogniser with the phrases allowed at that moment, and the shouts come out sorted by onset.
The host's own voice can be excluded by time span (:meth:`Listener.ignore`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from voicehost.listen.crosstalk import CrosstalkConfig, OwnedEvent, resolve
from voicehost.listen.messages import AcousticEvent, AudioBlock, EventKind, Recognition, Recognizer, SeatName, Segment, Shout
from voicehost.listen.onset import OnsetConfig, OnsetDetector
from voicehost.listen.ranking import ranked, shout_from, slap_shout

if TYPE_CHECKING:
    from voicehost.listen.sources import Recording

SLAP = "slap"


@dataclass(frozen=True)
class ListenConfig:
    """Pipeline settings beyond the onset and crosstalk stages."""

    max_shout: float = 2.6
    """Seconds: a longer event is talk, not a shout ("bam bam bam" with pauses takes about 1.8 s)."""
    extra_bursts: int = 2
    """An event with more bursts than its phrase has words plus this is talk, not a shout."""
    segment_tail: float = 0.15
    """Seconds of audio after an event's end given to the recogniser."""
    count_bursts: bool = False
    """Also count repetitions ("bam bam bam") from the bursts here. Off: the recognisers already
    count them from ``event.bursts`` (voicehost.listen.recognize.rejection)."""


@dataclass
class Decision:
    """What became of one owned event (for reports, plots and benchmarks)."""

    event: AcousticEvent
    shout: Shout | None
    recognition: Recognition | None = None
    segment_start: float = 0.0
    """Seconds: session time of the recognised segment's first sample."""
    reason: str = ""
    """Why no shout: 'noise', 'ignored', 'too_long', 'too_many_bursts', 'rejected', 'not_allowed'."""


@dataclass
class _Span:
    start: float
    end: float
    seats: frozenset[SeatName] | None


class _Audio:
    """Adapter giving crosstalk access to the detectors' histories."""

    def __init__(self, detectors: Mapping[SeatName, OnsetDetector]) -> None:
        self._detectors = detectors

    def read(self, seat: SeatName, start: int, end: int) -> np.ndarray:
        return self._detectors[seat].history.read(start, end)


@dataclass
class Listener:
    """Streaming listener for one table (see the module docstring)."""

    seats: Sequence[SeatName]
    recognizer: Recognizer | None
    phrases: Sequence[str]
    offsets: Mapping[SeatName, float] = field(default_factory=dict)
    """Seconds of input latency per seat (subtracted before onsets are compared)."""
    onset: OnsetConfig = field(default_factory=OnsetConfig)
    crosstalk: CrosstalkConfig = field(default_factory=CrosstalkConfig)
    config: ListenConfig = field(default_factory=ListenConfig)
    decisions: list[Decision] = field(default_factory=list)
    """Everything decided so far, in the order decided."""

    def __post_init__(self) -> None:
        if len(set(self.seats)) != len(self.seats):
            raise ValueError(f"seat names must be distinct: {list(self.seats)}")
        self.seats = tuple(self.seats)
        self.phrases = tuple(self.phrases)
        self._detectors = {s: OnsetDetector(s, self.onset, self.offsets.get(s, 0.0)) for s in self.seats}
        self._audio = _Audio(self._detectors)
        self._pending: list[AcousticEvent] = []
        self._ignored: list[_Span] = []

    def set_phrases(self, phrases: Sequence[str]) -> None:
        """The phrases allowed from now on (what the game accepts at this moment)."""
        self.phrases = tuple(phrases)

    def ignore(self, start: float, end: float, seats: Sequence[SeatName] | None = None) -> None:
        """Drop events starting in [start, end] seconds (the host speaking), on ``seats`` or all."""
        self._ignored.append(_Span(start, end, frozenset(seats) if seats else None))

    def feed(self, block: AudioBlock) -> list[Shout]:
        """Process one block; return the shouts completed by it, sorted by onset."""
        seats = block.seats or self.seats
        if block.samples.ndim != 2 or block.samples.shape[1] != len(seats):
            raise ValueError(f"block has shape {block.samples.shape}, expected (frames, {len(seats)})")
        if block.rate != self.onset.rate:
            raise ValueError(f"block rate {block.rate} Hz, the listener runs at {self.onset.rate} Hz")
        for column, seat in enumerate(seats):
            if seat in self._detectors:
                self._pending.extend(self._detectors[seat].process(block.samples[:, column], block.start_frame))
        return self._decide(final=False)

    def flush(self) -> list[Shout]:
        """End of input: close every open event and decide everything left."""
        for detector in self._detectors.values():
            self._pending.extend(detector.flush())
        return self._decide(final=True)

    # --- clusters -------------------------------------------------------------------------------

    def _heard_until(self) -> float:
        """Session seconds up to which every seat's detector has decided its events."""
        return min((d.decided_until() - d.offset for d in self._detectors.values()), default=0.0)

    def _decide(self, final: bool) -> list[Shout]:
        shouts: list[Shout] = []
        while self._pending:
            cluster = self._next_cluster()
            end = max(e.end for e in cluster)
            if not final and end + 0.02 >= self._heard_until():
                break
            for event in cluster:
                self._pending.remove(event)
            for owned in resolve(cluster, self._audio, self._all_offsets(), self.onset, self.crosstalk):
                shout = self._judge(owned)
                if shout is not None:
                    shouts.append(shout)
        return ranked(shouts)

    def _all_offsets(self) -> dict[SeatName, float]:
        return {s: self.offsets.get(s, 0.0) for s in self.seats}

    def _next_cluster(self) -> list[AcousticEvent]:
        """The earliest pending event and every pending event overlapping it (transitively)."""
        events = sorted(self._pending, key=lambda e: e.onset)
        cluster = [events[0]]
        end = events[0].end
        for event in events[1:]:
            if event.onset <= end + 0.02:
                cluster.append(event)
                end = max(end, event.end)
        return cluster

    # --- judging one owned event -------------------------------------------------------------

    def _judge(self, owned: OwnedEvent) -> Shout | None:
        event = owned.event
        decision = Decision(event, None, segment_start=owned.start)
        self.decisions.append(decision)
        if self._is_ignored(event):
            decision.reason = "ignored"
        elif event.kind is EventKind.NOISE:
            decision.reason = "noise"
        elif event.kind is EventKind.SLAP:
            if SLAP in self.phrases:
                decision.shout = slap_shout(event)
            else:
                decision.reason = "not_allowed"
        else:
            self._recognise(owned, decision)
        return decision.shout

    def _is_ignored(self, event: AcousticEvent) -> bool:
        return any(span.start <= event.onset <= span.end and (span.seats is None or event.seat in span.seats)
                   for span in self._ignored)

    def _recognise(self, owned: OwnedEvent, decision: Decision) -> None:
        event, cfg = owned.event, self.config
        spoken = [p for p in self.phrases if p != SLAP]
        if event.end - event.onset > cfg.max_shout:
            decision.reason = "too_long"
            return
        if not spoken or self.recognizer is None:
            decision.reason = "not_allowed"
            return
        segment = Segment(event, owned.samples, self.onset.rate, owned.start)
        recognition = self.recognizer.recognize(segment, spoken)
        decision.recognition = recognition
        if recognition.phrase is None:
            decision.reason = "rejected"
            return
        if len(event.bursts) > len(recognition.phrase.split()) + cfg.extra_bursts:
            decision.reason = "too_many_bursts"
            return
        decision.shout = shout_from(event, recognition, spoken, cfg.count_bursts)
        if decision.shout is None:
            decision.reason = "not_allowed"


def listen_to(recording: "Recording", recognizer: Recognizer | None, phrases: Sequence[str], *,
              offsets: Mapping[SeatName, float] | None = None, block_frames: int = 4096,
              progress: Callable[[float, float], None] | None = None) -> tuple[list[Shout], Listener]:
    """Replay a whole recording through a new :class:`Listener` on a simulated clock (as fast as
    the machine allows); return the ranked shouts and the listener (for its decisions)."""
    from voicehost.clock import SimClock
    from voicehost.listen.sources import FileSource

    listener = Listener(recording.seats, recognizer, phrases, offsets=dict(offsets or {}))
    clock = SimClock()
    shouts: list[Shout] = []
    for block in FileSource(recording, block_frames, clock).blocks():
        shouts.extend(listener.feed(block))
        if progress is not None:
            progress(clock.now(), recording.duration)
    shouts.extend(listener.flush())
    return ranked(shouts), listener
