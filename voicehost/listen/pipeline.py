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
A cluster's first sounds need not wait for it to be complete (``ListenConfig.early``): once a
sound has ended and no sound can still start before it, it is resolved with the other seats'
sounds as they are so far and judged, so a race's winner is out without waiting for the others.

The host's own voice reaches every microphone from the table speaker. With a
:class:`~voicehost.listen.echo.Reference` (what the speaker played), each seat's channel first goes
through an :class:`~voicehost.listen.echo.EchoCanceller`: the detectors, the crosstalk stage and
the recogniser all see the cleaned audio, and the detector's threshold rises over what of the
host may remain. Without one, the host's speaking spans (:meth:`Listener.ignore`) raise each
seat's threshold to its measured leak level while the host talks; an event that began inside a
span the listener learnt of only after hearing it is dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from voicehost.listen.crosstalk import CrosstalkConfig, OwnedEvent, peak_correlation, resolve
from voicehost.listen.echo import EchoCanceller, EchoConfig, Reference
from voicehost.listen.messages import (
    AcousticEvent,
    AudioBlock,
    EventKind,
    Recognition,
    Recognizer,
    SeatName,
    Segment,
    Shout,
)
from voicehost.listen.onset import OnsetConfig, OnsetDetector, peak_level_db
from voicehost.listen.ranking import ranked, shout_from, slap_shout

if TYPE_CHECKING:
    from concurrent.futures import Future

    from voicehost.listen.helper import Helper
    from voicehost.listen.sources import Recording

SLAP = "slap"


@dataclass(frozen=True)
class ListenConfig:
    """Pipeline settings beyond the onset and crosstalk stages."""

    max_shout: float = 2.6
    """Seconds: a longer event is talk, not a shout ("bam bam bam" with pauses takes about 1.8 s)."""
    extra_bursts: int = 2
    """An event with more bursts than its phrase has words plus this is talk, not a shout."""
    count_bursts: bool = False
    """Also count repetitions ("bam bam bam") from the bursts here. Off: the recognisers already
    count them from ``event.bursts`` (voicehost.listen.recognize.rejection)."""
    echo_margin_db: float = 20.0
    """A shout this many dB fainter than another seat's shout of the same phrase at the same
    moment is that seat's leak, not a shout (a last guard after crosstalk)."""
    report_uncertain: bool = False
    """Also report shouts the recogniser was unsure of (``Shout.uncertain``; live hosting asks back);
    off: they are dropped like rejections."""
    echo_window: float = 0.06
    """Seconds a leak may seem to start before its source (onsets are re-estimated on cleaned
    audio); it may start any time until the source ends."""
    strict_ratio: float = -1.5
    """Nats: a :attr:`Listener.strict` phrase further than this under what the recogniser would
    write itself (``Recognition.ratio``) is unclear, however high its fused score (README,
    item 24)."""
    ask_strict: bool = False
    """An unclear :attr:`Listener.strict` phrase is reported uncertain (asked back) like any other
    (with ``report_uncertain``); off: it is dropped (reason 'unclear'). Tried, off (item 24)."""
    strict_again: float = 10.0
    """Seconds: an unclear strict phrase said again by the same seat within this time of the first
    is taken (item 24: "if nothing happens, say it again"); 0: never."""
    early: bool = True
    """Judge a cluster's first sounds before the cluster is complete (:meth:`Listener._judge_early`):
    a race's winner is out once its own sound has ended, not when the last shouter's has, and a
    shout the room's babble holds open once its last loud burst has (README, "Hearing the
    shouts", item 30). Off: each cluster is judged when complete."""
    early_tries: int = 2
    """Resolutions that early judgement may try of a cluster with sounds of more than
    ``early_crowd`` seats before the cluster is complete: each resolves every sound of the
    cluster so far (an eight-seat race: about 0.2 CPU s), and with a new try whenever another
    sound ends, the front end of an eight-seat table fed 20 ms blocks took 0.74-1.11 CPU s per s
    of audio (README, "Hearing the shouts", item 33)."""
    early_crowd: int = 4
    """Seats in a cluster up to which early judgement tries as often as a sound ends."""
    early_earliest: bool = True
    """A cluster with sounds of more than ``early_crowd`` seats is tried early only once its
    earliest sound not yet judged is a candidate itself: while that sound goes on it decides
    first (unless it turns out a leak), so a try would resolve the crowd only to wait for it.
    Eight-seat races in 20 dB babble, seeds 8-22, truth as recogniser, 20 ms blocks, queued CPU
    time: the first shout out 1.33 s after its end on average, 1.12 s with this (README,
    "Hearing the shouts", item 34)."""
    crowd_joint: bool = False
    """Fit the neighbours' leaks jointly (``CrosstalkConfig.joint``) also for a cluster of voices
    only with sounds of more than ``early_crowd`` seats. The joint fit is for claps arriving at
    once (README, "Hearing the shouts", item 28); in 58 resolutions of eight-seat voice races it
    changed nothing (the same owners, onsets and audio, bit for bit) and took 60% of their time.
    Off: such a cluster is resolved without it (item 34)."""
    early_window: float = 0.1
    """Seconds after a sound's onset within which another seat's sound may still make it a leak
    or precede it (``echo_window`` plus the onset bounds' slack)."""
    faint_tail_db: float | None = 10.0
    """Bursts that end an event more than this many dB under its loudest burst are the room's
    (the other tables' babble holding the event open, a neighbour's leak), not the shout: the
    recogniser hears the event as if it had ended with its last burst within this range, and they
    are not counted as words (``extra_bursts``). The reported shout keeps its event as heard.
    None: off (README, "Hearing the shouts", item 25)."""
    corroborate: float | None = 0.3
    """Seconds: a voice sound of its own that starts within this after another seat's own voice
    sound (a race: one shout makes the next likely) has the ``racing`` phrases of
    :meth:`Listener.set_phrases` as likely too (README, "Hearing the shouts", item 31). None: off."""
    agree: float | None = 8.0
    """Nats: a voice sound the recogniser rejected or was unsure of is taken as its best guess
    (:attr:`Recognition.guess`) when another seat's clear shout of the same phrase starts within
    ``agree_window`` of it (the holders of a Bim Bamm! animal shout it together), the phrase is a
    racing one the game expects of its seat (a race's animal, not another animal a mistaken player
    shouts, and not Bim Bam Bum!'s call, which one player yells: :meth:`Listener.set_phrases`),
    its score lies at most this under acceptance and ``agree_lead`` over the next phrase's. A sound
    that may be taken so is not judged before its cluster is complete (README, "Hearing the
    shouts", item 51). None: off."""
    agree_lead: float = 1.5
    """Nats the guess must lie over the next phrase the recogniser scored (``agree``)."""
    agree_window: float = 1.0
    """Seconds between the sound's onset and the agreeing shout's, either way (``agree``)."""
    agree_coherence: float = 0.7
    """A sound whose microphone follows the agreeing shout's microphone this closely (the peak of
    their normalised cross-correlation within ±20 ms, over its first 0.5 s) is that shout's leak
    (a delayed copy), however late or early its onset was detected; it is not taken so. Leaks
    measured 0.97, two players' own voices 0.19-0.50 (in 20 dB babble, the other's leak loud)."""
    agree_wait: bool = True
    """A sound an early try finds may be taken by agreement waits for its complete cluster
    (off: it is decided early as it stands, and only later sounds can be taken so)."""
    race_gap: float | None = 0.2
    """Seconds: the detectors' merge gap (``OnsetConfig.merge_gap``, else 0.35 s) while players
    race to shout single words (:meth:`Listener.set_phrases` ``racing``: a Bim Bamm! race's
    animals): a shout is judged that much sooner after its end. A gap must outlast the pauses
    inside one shout: the pauses of "bam … bam … bam" (up to 300 ms) need the long one, the
    closures inside one word ("donkey") do not (a command said in a race with a longer pause
    between its words is heard as two sounds and not taken). The audio the judgement reads then
    ends ``race_gap`` after the cluster's last ended sound (the recogniser's tail beyond it,
    ``CrosstalkConfig.tail``, is silence), however much more has arrived: what a complete cluster
    is judged on does not depend on where the blocks happen to end (README, "Hearing the shouts",
    item 35). None: the merge gap always."""


@dataclass
class Decision:
    """What became of one owned event (for reports, plots and benchmarks)."""

    event: AcousticEvent
    shout: Shout | None
    recognition: Recognition | None = None
    segment_start: float = 0.0
    """Seconds: session time of the recognised segment's first sample."""
    reason: str = ""
    """Why no shout: 'noise', 'ignored', 'too_long', 'too_many_bursts', 'rejected', 'not_allowed',
    'faint_echo', 'unclear' (a strict phrase not taken: :attr:`Listener.strict`); 'uncertain' for a
    shout reported as uncertain."""


_Moment = tuple[tuple[str, ...], tuple[str, ...], Mapping[SeatName, Sequence[str]], tuple[str, ...]]
"""The phrases allowed, those expected, the seats' own and the racing ones (:meth:`Listener.set_phrases`)."""


@dataclass(frozen=True)
class _Unjudged:
    """An owned event waiting to be judged, with what held when its cluster was complete."""

    owned: OwnedEvent
    cluster: tuple[AcousticEvent, ...]
    """Every owned event of its cluster (the faint-echo guard compares with them)."""
    phrases: tuple[str, ...]
    likely: tuple[str, ...]
    ignored: bool
    """It began while the host talked, in a span the listener learnt of only later."""
    agreeable: tuple[str, ...] = ()
    """The racing phrases the game expects of its seat (``config.agree``): a Bim Bamm! race's
    animal."""


@dataclass
class _Span:
    start: float
    end: float
    seats: frozenset[SeatName] | None
    known_from: float = 0.0
    """Session seconds every seat had been heard up to when the span was announced: events
    before that were detected without knowing of it."""
    key: object = None


class _Audio:
    """Adapter giving crosstalk access to the detectors' histories, up to ``horizon`` (session
    seconds) when one is set: later samples read as zeros."""

    def __init__(self, detectors: Mapping[SeatName, OnsetDetector]) -> None:
        self._detectors = detectors
        self.horizon: float | None = None

    def read(self, seat: SeatName, start: int, end: int) -> np.ndarray:
        detector = self._detectors[seat]
        if self.horizon is None:
            return detector.history.read(start, end)
        stop = max(start, min(end, int(round((self.horizon + detector.offset) * detector.config.rate))))
        out = np.zeros(max(0, end - start), dtype=np.float32)
        out[: stop - start] = detector.history.read(start, stop)
        return out


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
    reference: Reference | None = None
    """What the table speaker played (the host's voice), for echo cancellation; None: only the
    speaking spans are known."""
    echo: EchoConfig = field(default_factory=EchoConfig)
    likely: Sequence[str] = ()
    """Phrases the game expects now (:meth:`set_phrases`)."""
    racing: Sequence[str] = ()
    """Phrases players race to shout now (:meth:`set_phrases`)."""
    seat_phrases: Mapping[SeatName, Sequence[str]] = field(default_factory=dict)
    """Seats that may say only some of :attr:`phrases` now (:meth:`set_phrases`)."""
    helper: Helper | None = None
    """A second recogniser in its own process (:mod:`.helper`): it takes every other sound of a
    cluster, so a race's sounds are recognised two at a time. The decisions are the same."""
    strict: frozenset[str] = frozenset()
    """Phrases taken only when clear: accepted outright and (nearly) written by the recogniser
    itself (``config.strict_ratio``), or said again, unclear both times, by the same seat within
    ``config.strict_again``; an unclear one is dropped, never asked back (unless
    ``config.ask_strict``). The host's commands: talk is full of short words like them ("happy",
    "up" for "help"), a wrong one reads the help aloud or pauses the game, a question interrupts
    the table's talk, and a player who is not heard simply says it again."""

    def __post_init__(self) -> None:
        if len(set(self.seats)) != len(self.seats):
            raise ValueError(f"seat names must be distinct: {list(self.seats)}")
        self.seats = tuple(self.seats)
        self.strict = frozenset(self.strict)
        self.set_phrases(self.phrases, self.likely, self.seat_phrases, self.racing)
        self._detectors = {s: OnsetDetector(s, self.onset, self.offsets.get(s, 0.0)) for s in self.seats}
        self._set_gap()
        self._audio = _Audio(self._detectors)
        self._pending: list[AcousticEvent] = []
        self._unjudged: list[_Unjudged] = []
        self._ignored: list[_Span] = []
        self._cancellers: dict[SeatName, EchoCanceller] = {}
        self._futures: dict[int, Future[Recognition]] = {}
        """id of an unjudged item → the helper's recognition of it."""
        self.helped = 0
        """Sounds the helper recognised."""
        self.shared = 0
        """Sounds whose PocketSphinx passes the helper decoded while Whisper worked here."""
        self._shared: list[Future[object]] = []
        """The helper's last such work (it is idle when that and every handed-out sound are done)."""
        self._early: dict[int, bool] = {}
        """id of a pending event decided before its cluster was complete → a shout was kept from it."""
        self._early_open: list[tuple[AcousticEvent, bool]] = []
        """Open sounds judged early (the room held their event open), and whether a shout was kept."""
        self._kept_moment: _Moment | None = None
        """The phrases when a shout was last judged early (the rest of its cluster is judged with them)."""
        self._early_tried: frozenset[tuple[SeatName, float, float]] = frozenset()
        """The candidates last looked at early (seat, onset, end): looked at again when they change."""
        self._early_tries: dict[float, int] = {}
        """Early resolutions so far of the crowded cluster that starts at this onset (rounded, seconds)."""
        self._early_wait: AcousticEvent | None = None
        """The sound an early try found first in its cluster but could not judge yet (still going):
        no try while it is the same and not a candidate (:meth:`_waiting`)."""
        self._unclear: dict[SeatName, tuple[str, float]] = {}
        """Seat → the last strict phrase not taken from it as unclear, and its onset."""
        self._ahead: list[tuple[Shout, _Unjudged]] = []
        """Shouts judged ahead of their turn (another seat's sound asked for agreement), to hand out."""
        self._deferred: list[tuple[SeatName, float]] = []
        """Sounds (seat, onset) an early try left for their complete cluster (``config.agree``)."""
        self._early_judging = False
        """An early try is judging (a sound that may agree with another seat's waits instead)."""
        if self.reference is not None:
            self.use_reference(self.reference)

    def use_reference(self, reference: Reference) -> None:
        """Cancel the host's voice using ``reference`` (call before the first block)."""
        self.reference = reference
        self.crosstalk = replace(self.crosstalk, far_field=False)
        self._cancellers = {s: EchoCanceller(reference, self.echo, self.offsets.get(s, 0.0)) for s in self.seats}

    @property
    def cancellers(self) -> Mapping[SeatName, EchoCanceller]:
        """Each seat's echo canceller (empty without a reference)."""
        return self._cancellers

    def set_phrases(
        self,
        phrases: Sequence[str],
        likely: Sequence[str] = (),
        seat_phrases: Mapping[SeatName, Sequence[str]] | None = None,
        racing: Sequence[str] = (),
    ) -> None:
        """The phrases allowed from now on (what the game accepts at this moment); ``likely``: those
        of them the game expects (a race's animal; see :meth:`Recognizer.recognize`);
        ``seat_phrases``: the seats that may say only some of them now (in a Bim Bam Bum! turn a
        yell alone means something only from the player whose turn it is), each with the phrases
        its microphone listens for (phrases not in ``phrases`` are left out); ``racing``: the
        phrases players race to shout now (in a Bim Bamm! race every animal: a mistaken player
        shouts another), likely too for a sound that starts just after another seat's
        (``config.corroborate``)."""
        self.phrases = tuple(phrases)
        self.likely = tuple(p for p in likely if p in self.phrases)
        allowed = set(self.phrases)
        self.seat_phrases = {seat: tuple(p for p in own if p in allowed) for seat, own in (seat_phrases or {}).items()}
        self.racing = tuple(p for p in racing if p in allowed)
        self._set_gap()

    def _set_gap(self) -> None:
        """The detectors' merge gap for this moment (``config.race_gap``)."""
        detectors: Mapping[SeatName, OnsetDetector] = getattr(self, "_detectors", {})
        gap = self.onset.merge_gap
        race_gap = self.config.race_gap
        if race_gap is not None and self.racing and all(len(p.split()) == 1 for p in self.racing):
            gap = min(gap, race_gap)
        self._gap = gap
        for detector in detectors.values():
            if detector.config.merge_gap != gap:
                detector.config = replace(detector.config, merge_gap=gap)

    def _resolve(self, cluster: Sequence[AcousticEvent], ended: Sequence[AcousticEvent]) -> list[OwnedEvent]:
        """:func:`resolve` ``cluster``; with a merge gap shorter than the audio the resolution reads
        after it (``config.race_gap``), that audio ends the gap after the last of ``ended`` (the
        sounds known to have ended: it has arrived), not where the blocks happen to end."""
        short = self._gap < max(self.crosstalk.post, self.crosstalk.tail)
        self._audio.horizon = max(e.end for e in ended) + self._gap if short and ended else None
        try:
            return resolve(cluster, self._audio, self._all_offsets(), self.onset, self._crosstalk(cluster))
        finally:
            self._audio.horizon = None

    def _now(self) -> _Moment:
        return (tuple(self.phrases), tuple(self.likely), dict(self.seat_phrases), tuple(self.racing))

    def _moment(
        self, seat: SeatName, moment: _Moment | None = None, raced: bool = False
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The phrases ``seat`` may say now (or at ``moment``) and those of them the game expects
        (``raced``: the racing phrases too)."""
        phrases, likely, seats, racing = moment or self._now()
        if raced:
            likely = tuple(dict.fromkeys((*likely, *racing)))
        own = seats.get(seat)
        if own is None:
            return tuple(phrases), tuple(likely)
        return tuple(own), tuple(p for p in likely if p in own)

    def _item(self, owned: OwnedEvent, owners: tuple[AcousticEvent, ...], moment: _Moment | None = None) -> _Unjudged:
        """``owned`` to be judged with the phrases of now (or of ``moment``); ``owners``: the
        sounds of their own in its cluster. A voice sound that starts within
        ``config.corroborate`` after another seat's voice sound of its own is a racing shout
        more likely than not (:meth:`set_phrases`' ``racing``)."""
        event = owned.event
        window = self.config.corroborate
        raced = window is not None and any(
            e.seat != event.seat and e.kind is EventKind.VOICE and 0.0 <= event.onset - e.onset <= window
            for e in owners
        )
        racing = (moment or self._now())[3]
        agreeable = tuple(p for p in self._moment(event.seat, moment)[1] if p in racing)
        phrases, likely = self._moment(event.seat, moment, raced)
        return _Unjudged(owned, owners, phrases, likely, self._is_ignored(event), agreeable)

    def ignore(self, start: float, end: float, seats: Sequence[SeatName] | None = None, key: object = None) -> None:
        """The host is audible in [start, end] seconds (on ``seats``' microphones, or all).

        Without a reference signal, frames in the span need to rise over the seat's leak level
        of the host's voice; events that began in a span announced only after they were heard
        are dropped. A later call with the same ``key`` replaces the span (an utterance cut short)."""
        heard = min((d.heard_until() - d.offset for d in self._detectors.values()), default=0.0)
        span = _Span(start, end, frozenset(seats) if seats else None, heard, key)
        if key is not None:
            for i, old in enumerate(self._ignored):
                if old.key == key:
                    span.known_from = old.known_from
                    self._ignored[i] = span
                    return
        self._ignored.append(span)

    def feed(self, block: AudioBlock) -> list[Shout]:
        """Process one block; return the shouts completed by it, sorted by onset."""
        seats = block.seats or self.seats
        if block.samples.ndim != 2 or block.samples.shape[1] != len(seats):
            raise ValueError(f"block has shape {block.samples.shape}, expected (frames, {len(seats)})")
        if block.rate != self.onset.rate:
            raise ValueError(f"block rate {block.rate} Hz, the listener runs at {self.onset.rate} Hz")
        for column, seat in enumerate(seats):
            if seat in self._detectors:
                self._hear(seat, block.samples[:, column], block.start_frame)
        return self._decide(final=False)

    def _hear(self, seat: SeatName, samples: np.ndarray, start_frame: int, final: bool = False) -> None:
        detector = self._detectors[seat]
        canceller = self._cancellers.get(seat)
        if canceller is None:
            host = self._span_flags(seat, start_frame, len(samples)) if self._ignored else None
            self._pending.extend(detector.process(samples, start_frame, host=host))
            return
        first, cleaned, echo = canceller.flush() if final else canceller.process(samples, start_frame)
        if len(cleaned):
            self._pending.extend(detector.process(cleaned, first, echo=echo))

    def _span_flags(self, seat: SeatName, start: int, count: int) -> np.ndarray | None:
        """1.0 where a speaking span covers the seat's frames [start, start + count)."""
        rate, offset = self.onset.rate, self.offsets.get(seat, 0.0)
        flags = np.zeros(count, dtype=np.float32)
        for span in self._ignored:
            if span.seats is not None and seat not in span.seats:
                continue
            a = max(0, int(round((span.start + offset) * rate)) - start)
            b = min(count, int(round((span.end + offset) * rate)) - start)
            if b > a:
                flags[a:b] = 1.0
        return flags if np.any(flags) else None

    def flush(self) -> list[Shout]:
        """End of input: close every open event and decide everything left."""
        for seat in self._cancellers:
            self._hear(seat, np.zeros(0, dtype=np.float32), 0, final=True)
        for detector in self._detectors.values():
            self._pending.extend(detector.flush())
        return self._decide(final=True)

    def judging(self, before: float) -> bool:
        """True while a sound that began before ``before`` (session seconds) may still be reported
        as a shout: it is still sounding (and not yet longer than ``config.max_shout``), or it has
        ended and waits for its cluster or its recognition. The session holds a timer that came
        due at ``before`` until it is not (a race's last shout belongs to the race)."""
        if any(item.owned.event.onset < before for item in self._unjudged):
            return True
        if any(e.onset < before and not self._early_decided(e) for e in self._pending):
            return True
        for detector in self._detectors.values():
            open_since = detector.open_since()
            if open_since is None or open_since[1] > self.config.max_shout:
                continue
            sound = detector.open_sound()
            if sound is None:  # too young to refine its onset: it is at most join_back earlier
                if open_since[0] - detector.offset - self.onset.join_back < before:
                    return True
            elif sound.onset < before and not self._early_decided(sound):
                return True
        return False

    # --- clusters -------------------------------------------------------------------------------

    def _heard_until(self) -> float:
        """Session seconds up to which every seat's detector has decided its events."""
        return min((d.decided_until() - d.offset for d in self._detectors.values()), default=0.0)

    def _decide(self, final: bool) -> list[Shout]:
        """Judge what can be judged. A cluster's owned events are judged in onset order, and the
        first shout kept is handed over at once (``final``: everything is judged): the rest of
        its cluster waits for the next block, judged with the phrases of the moment the cluster
        was complete. The shout that wins a race is then out after its own recognition, not
        after those of everyone who shouted after it."""
        shouts: list[Shout] = []
        while self._unjudged or self._pending:
            if not self._unjudged:
                cluster = self._next_cluster()
                end = max(e.end for e in cluster)
                if not final and end + 0.02 >= self._heard_until():
                    break
                for event in cluster:
                    self._pending.remove(event)
                decided = {id(e): kept for e in cluster if (kept := self._early.pop(id(e), None)) is not None}
                if len(decided) == len(cluster):
                    continue  # every sound of it was judged early: nothing left to resolve
                owned_events = self._resolve(cluster, cluster)
                events = tuple(o.event for o in owned_events)
                states = [self._forget_early(o.heard, decided) for o in owned_events]
                # after a shout judged early the game may have moved on: the rest is judged with
                # the phrases of the moment that shout was judged (as if the cluster had been complete)
                moment = self._kept_moment if any(states) else None
                self._unjudged.extend(
                    self._item(o, events, moment) for o, state in zip(owned_events, states) if state is None
                )
                self._hand_out()
                if not self._unjudged:
                    continue  # nothing in the cluster has an owner of its own
            item = self._unjudged.pop(0)
            shout = self._judge(item)
            if shout is not None:
                shouts.extend(self._drop_faint_echoes([shout], item.cluster))
            for other, judged in self._ahead:
                shouts.extend(self._drop_faint_echoes([other], judged.cluster))
            self._ahead.clear()
            if shouts and not final:
                break
        if self.config.early and not final and not shouts and not self._unjudged:
            shouts = self._judge_early()
        return ranked(shouts)

    def _judge_early(self) -> list[Shout]:
        """The first shout of a cluster that is not complete yet, when it can be told already
        (``config.early``). Candidates: the closed sounds, and the open sounds that have ended
        though the room holds their event open (:meth:`OnsetDetector.settled`, ``faint_tail_db``),
        that no undetected sound can precede or be a leak of (``early_window``). They are resolved
        with every seat's open sound as it is now and judged in onset order until one is kept (an
        open sound of its own that is earlier decides first: it waits). A closed sound judged so
        is not judged again with its cluster; an open one's event is not when it is the same sound
        (:meth:`_early_decided`)."""
        cfg = self.config
        closed = [e for e in self._pending if id(e) not in self._early]
        going: dict[SeatName, tuple[AcousticEvent | None, bool]] = {}
        for seat, detector in self._detectors.items():
            count = detector.settled(cfg.faint_tail_db) if cfg.faint_tail_db is not None else None
            sound = detector.open_sound(count) if count is not None else None
            # a slap is never a settled sound: talk's one loud plosive then fainter talk is not one
            new = sound is not None and sound.kind is not EventKind.SLAP and not self._early_decided(sound)
            going[seat] = (sound, new)
        settled = [sound for sound, new in going.values() if sound is not None and new]
        if not closed and not settled:
            return []  # most blocks
        bound = min((d.starts_from() - d.offset for d in self._detectors.values()), default=0.0)
        ready = [e for e in closed + settled if e.onset + cfg.early_window < bound]
        if not ready:
            return []
        if self._early_wait is not None and self._waiting(ready):
            return []  # the last try's first sound still goes on: a try now would stop at it again
        first = min(e.onset for e in ready)
        if any(e.onset < first and self._early.get(id(e)) for e in self._pending):
            return []
        if any(e.seat == s and abs(e.onset - o) <= 0.02 for e in ready if e.onset == first for s, o in self._deferred):
            return []  # its first sound waits for its complete cluster (``config.agree``)
        tried = frozenset((e.seat, round(e.onset, 4), round(e.end, 4)) for e in ready)
        if tried == self._early_tried:
            return []
        self._early_tried = tried
        opened = [going[s][0] if going[s][1] else d.open_sound() for s, d in self._detectors.items()]
        sounds = self._pending + [o for o in opened if o is not None]
        cluster = _cluster_of(sounds, first)
        if any(self._kept_early(e) for e in cluster):
            return []  # this cluster's first shout is out; the rest waits for the whole cluster
        if len({e.seat for e in cluster}) > cfg.early_crowd:
            earliest = min((e for e in cluster if not self._early_decided(e)), key=lambda e: e.onset, default=None)
            if cfg.early_earliest and earliest is not None and not any(e is earliest for e in ready):
                return []  # it would decide first: a try now would resolve the crowd only to wait for it
            start = round(min(e.onset for e in cluster), 3)
            tries = self._early_tries.get(start, 0)
            if tries >= cfg.early_tries:
                return []  # each try resolves the whole cluster: the rest waits for it to be complete
            self._early_tries = {k: n for k, n in self._early_tries.items() if k >= start - 30.0}
            self._early_tries[start] = tries + 1
        owned_events = self._resolve(cluster, [e for e in cluster if any(e is r for r in ready + closed)])
        events = tuple(o.event for o in owned_events)
        ids = {id(e) for e in ready}
        shouts: list[Shout] = []
        for owned in owned_events:
            heard = owned.heard
            if heard is None or id(heard) not in ids:
                if heard is not None and self._early_decided(heard):
                    continue
                if heard is not None:
                    self._early_wait = heard
                break  # a sound still going, or one an undetected sound may precede: it decides first
            item = self._item(owned, events)
            self._early_judging = True
            try:
                shout = self._judge(item)
            finally:
                self._early_judging = False
            if self.decisions[-1].reason == "deferred":
                self.decisions.pop()
                self._deferred = [*self._deferred[-31:], (heard.seat, heard.onset)]
                break  # another seat's shout may agree with it: it waits for its complete cluster
            kept = self._drop_faint_echoes([shout], events) if shout is not None else []
            self._mark_early(heard, bool(kept))
            if kept:
                shouts = kept
                self._kept_moment = self._now()
                break
        if not shouts:
            owners = {id(o.heard) for o in owned_events}
            for e in cluster:
                if id(e) in ids and id(e) not in owners:
                    self._mark_early(e, False)  # no owner of its own among the sounds so far
        return shouts

    def _crosstalk(self, cluster: Sequence[AcousticEvent]) -> CrosstalkConfig:
        """The crosstalk settings for resolving ``cluster``: without the joint fit for a crowd of
        voices (``config.crowd_joint``)."""
        if self.config.crowd_joint or not self.crosstalk.joint:
            return self.crosstalk
        if len({e.seat for e in cluster}) <= self.config.early_crowd or any(e.kind is EventKind.SLAP for e in cluster):
            return self.crosstalk
        return replace(self.crosstalk, joint=False)

    def _waiting(self, ready: Sequence[AcousticEvent]) -> bool:
        """The sound the last early try stopped at (``_early_wait``) is not a candidate yet and
        still there as it was (closed, or its seat's open sound with the same onset and end): a
        new try would resolve the cluster only to stop at it again (an eight-seat race: about 0.6
        CPU s each). Else it is forgotten (a sound that grew may turn out a leak in part)."""
        wait = self._early_wait
        assert wait is not None

        def same(e: AcousticEvent | None) -> bool:
            return (
                e is not None
                and e.seat == wait.seat
                and abs(e.onset - wait.onset) <= 0.02
                and abs(e.end - wait.end) <= 0.02
            )

        if not any(same(e) for e in ready) and (
            any(same(e) for e in self._pending) or same(self._detectors[wait.seat].open_sound())
        ):
            return True
        self._early_wait = None
        return False

    def _forget_early(self, event: AcousticEvent | None, decided: Mapping[int, bool]) -> bool | None:
        """Whether the complete cluster's ``event`` was judged early and a shout kept (None: not
        judged early): one of its ``decided`` closed sounds, or the same as an open sound judged
        early (that record is then dropped)."""
        if event is None:
            return None
        if id(event) in decided:
            return decided[id(event)]
        same = self._same_open(event)
        if same is not None:
            self._early_open.remove(same)
            return same[1]
        return None

    def _mark_early(self, sound: AcousticEvent, kept: bool) -> None:
        if any(sound is e for e in self._pending):
            self._early[id(sound)] = kept
        else:
            self._early_open.append((sound, kept))
            del self._early_open[:-32]

    def _early_decided(self, event: AcousticEvent) -> bool:
        """``event`` (closed, or an open one's sound now) was judged early: itself, or as the same
        open sound (same seat, same onset within 20 ms, no louder)."""
        return id(event) in self._early or self._same_open(event) is not None

    def _kept_early(self, event: AcousticEvent) -> bool:
        if self._early.get(id(event)):
            return True
        same = self._same_open(event)
        return same is not None and same[1]

    def _same_open(self, event: AcousticEvent) -> tuple[AcousticEvent, bool] | None:
        for sound, kept in self._early_open:
            if (
                sound.seat == event.seat
                and abs(sound.onset - event.onset) <= 0.02
                and event.level_db <= sound.level_db + 1.0
            ):
                return sound, kept
        return None

    def _drop_faint_echoes(self, shouts: list[Shout], events: Sequence[AcousticEvent] = ()) -> list[Shout]:
        """A last guard against a leak taken for a shout: a sound that starts while another
        seat's sound is going on, and is far fainter on its own microphone, is that seat's sound
        (whether or not that louder sound was a shout the game accepts).

        A player's own microphone is the nearest to them: their real shout is never
        ``config.echo_margin_db`` quieter than a neighbour's voice at the same moment (leaks are
        8-25 dB down, and a second shouter's own voice is close-talk loud).
        """
        cfg = self.config
        sounds = [(s.player, s.onset, s.end, _level(s)) for s in shouts]
        sounds += [(e.seat, e.onset, e.end, e.level_db) for e in events if e.kind is not EventKind.NOISE]
        kept = []
        for shout in shouts:
            level = _level(shout)
            louder = level is not None and any(
                seat != shout.player
                and other is not None
                and onset - cfg.echo_window <= shout.onset <= end
                and other - level >= cfg.echo_margin_db
                for seat, onset, end, other in sounds
            )
            if louder:
                for decision in self.decisions:
                    if decision.shout is shout:
                        decision.shout, decision.reason = None, "faint_echo"
                continue
            kept.append(shout)
        return kept

    def _all_offsets(self) -> dict[SeatName, float]:
        return {s: self.offsets.get(s, 0.0) for s in self.seats}

    def _next_cluster(self) -> list[AcousticEvent]:
        """The earliest pending event and every pending event overlapping it (transitively)."""
        return _cluster_of(self._pending, min(e.onset for e in self._pending))

    # --- judging one owned event -------------------------------------------------------------

    def _judge(self, item: _Unjudged) -> Shout | None:
        owned, event = item.owned, item.owned.event
        decision = Decision(event, None, segment_start=owned.start)
        self.decisions.append(decision)
        route = _route(item)
        if route == "slap":
            decision.shout = slap_shout(event)
        elif route == "words":
            self._recognise(item, decision)
        else:
            decision.reason = route
        return decision.shout

    def _hand_out(self) -> None:
        """Give every other sound that the recogniser will be asked about to the helper (the
        listener takes the first itself: the verdict waits for it)."""
        if self.helper is None:
            return
        asked = [item for item in self._unjudged if id(item) not in self._futures]
        requests = [(item, r) for item in asked if _route(item) == "words" for r in [self._request(item)] if r]
        for item, (segment, spoken, likely) in requests[1::2]:
            future = self.helper.submit(segment, spoken, likely)
            if future is None:
                return
            self._futures[id(item)] = future

    def close(self) -> None:
        """Stop the helper process, if any (the listener then recognises everything itself)."""
        if self.helper is not None:
            self.helper.close()

    def _is_ignored(self, event: AcousticEvent) -> bool:
        """An event heard before the listener knew the host was talking then (live spans arrive
        late when there is no reference signal): it may be the host's voice, so it is dropped."""
        if self.reference is not None:
            return False
        return any(
            span.start <= event.onset <= span.end
            and event.onset < span.known_from
            and (span.seats is None or event.seat in span.seats)
            for span in self._ignored
        )

    def _request(self, item: _Unjudged) -> tuple[Segment, list[str], list[str]] | None:
        """The segment, allowed phrases and expected phrases the recogniser is asked about for
        ``item``; None when it is not asked (too long, or no phrase allowed: :meth:`_recognise`)."""
        owned, event = item.owned, item.owned.event
        spoken = [p for p in item.phrases if p != SLAP]
        if event.end - event.onset > self.config.max_shout or not spoken or self.recognizer is None:
            return None
        likely = [p for p in item.likely if p in spoken]
        segment = Segment(event, owned.samples, self.onset.rate, owned.start)
        return without_faint_tail(segment, self.config.faint_tail_db, self.crosstalk.tail), spoken, likely

    def _recognise(self, item: _Unjudged, decision: Decision) -> None:
        event, cfg = item.owned.event, self.config
        request = self._request(item)
        if request is None:
            decision.reason = "too_long" if event.end - event.onset > cfg.max_shout else "not_allowed"
            return
        segment, spoken, likely = request
        assert self.recognizer is not None
        future = self._futures.pop(id(item), None)
        recognition = self.helper.result(future) if future is not None and self.helper is not None else None
        if recognition is not None:
            self.helped += 1
        else:
            recognition = self._recognise_here(segment, spoken, likely)
        decision.recognition = recognition
        if recognition.phrase is None and self._may_agree(item, recognition):
            assert recognition.guess is not None
            if self._agreed(item, recognition.guess):
                recognition = replace(
                    recognition,
                    phrase=recognition.guess,
                    confidence=recognition.candidate_confidence,
                    rejected_as=None,
                    candidate=None,
                )
            elif self._early_judging and self.config.agree_wait and self._others_to_come(item):
                decision.reason = "deferred"
                return
        uncertain = (
            recognition.phrase is None
            and recognition.rejected_as == "uncertain"
            and recognition.candidate is not None
            and cfg.report_uncertain
        )
        if uncertain:
            recognition = replace(
                recognition, phrase=recognition.candidate, confidence=recognition.candidate_confidence
            )
        if recognition.phrase is None:
            decision.reason = "rejected"
            return
        if recognition.phrase in self.strict and (uncertain or self._doubtful(recognition)):
            if cfg.ask_strict and cfg.report_uncertain:
                uncertain = True
            elif self._said_again(event, recognition.phrase):
                uncertain = False
            else:
                decision.reason = "unclear"
                return
        if len(segment.event.bursts) > len(recognition.phrase.split()) + cfg.extra_bursts:
            decision.reason = "too_many_bursts"
            return
        decision.shout = shout_from(event, recognition, spoken, cfg.count_bursts)
        if decision.shout is None:
            decision.reason = "not_allowed"
        elif uncertain:
            decision.shout = replace(decision.shout, uncertain=True)
            decision.reason = "uncertain"

    def _may_agree(self, item: _Unjudged, recognition: Recognition) -> bool:
        """``recognition`` is a rejection another seat's clear shout may turn into its guess
        (``config.agree``)."""
        cfg = self.config
        return (
            cfg.agree is not None
            and recognition.rejected_as in ("uncertain", "low_confidence")
            and recognition.guess is not None
            and recognition.guess in item.agreeable
            and recognition.score is not None
            and recognition.score >= -cfg.agree
            and recognition.lead is not None
            and recognition.lead >= cfg.agree_lead
        )

    def _agreement(self, item: _Unjudged, phrase: str) -> bool:
        """Another seat's clear shout of ``phrase`` starts within ``config.agree_window`` of ``item``
        (its microphone not a copy of that shout's: :meth:`_coherence`), and no shout of ``item``'s
        own seat began in the window before it (a race's shout is its seat's first)."""
        event, window = item.owned.event, self.config.agree_window
        near = [d for d in self.decisions if d.shout is not None and abs(d.event.onset - event.onset) <= window]
        if any(d.event.seat == event.seat and d.event.onset < event.onset for d in near):
            return False
        return any(
            not d.shout.uncertain
            and d.shout.phrase == phrase
            and d.event.seat != event.seat
            and self._coherence(event, d.event.seat) < self.config.agree_coherence
            for d in near
            if d.shout is not None
        )

    def _coherence(self, event: AcousticEvent, seat: SeatName) -> float:
        """How closely ``event``'s microphone follows ``seat``'s over its first 0.5 s: the peak of
        their normalised cross-correlation within ±20 ms (1: a delayed copy, a leak; a player's
        own voice at their own microphone: far less)."""
        rate, reach = self.onset.rate, int(0.02 * self.onset.rate)
        own, other = self._detectors[event.seat], self._detectors[seat]
        start = int(round((event.onset + own.offset) * rate))
        x = self._audio.read(event.seat, start, start + int(min(event.end - event.onset, 0.5) * rate))
        first = int(round((event.onset + other.offset) * rate)) - reach
        y = self._audio.read(seat, max(0, first), first + len(x) + 2 * reach)
        if len(x) < rate // 20:
            return 0.0
        return peak_correlation(x.astype(np.float64), y.astype(np.float64))

    def _agreed(self, item: _Unjudged, phrase: str) -> bool:
        """:meth:`_agreement`, judging now the other seats' sounds of ``item``'s cluster that wait
        for their turn (their shouts are handed out with it), unless judging early."""
        agreed = self._agreement(item, phrase)
        if agreed or self._early_judging:
            return agreed
        seat = item.owned.event.seat
        for other in [o for o in self._unjudged if o.cluster is item.cluster and o.owned.event.seat != seat]:
            if _route(other) != "words" or not any(o is other for o in self._unjudged):
                continue  # not for the recogniser, or judged ahead already (for another sound's agreement)
            self._unjudged = [o for o in self._unjudged if o is not other]
            shout = self._judge(other)
            if shout is not None:
                self._ahead.append((shout, other))
        return self._agreement(item, phrase)

    def _others_to_come(self, item: _Unjudged) -> bool:
        """Another seat's voice sound in ``item``'s cluster within ``config.agree_window`` of it."""
        event, window = item.owned.event, self.config.agree_window
        return any(
            e.seat != event.seat and e.kind is EventKind.VOICE and abs(e.onset - event.onset) <= window
            for e in item.cluster
        )

    def _said_again(self, event: AcousticEvent, phrase: str) -> bool:
        """True when ``event``'s seat said the same unclear strict ``phrase`` within
        ``config.strict_again`` seconds before: the player said it again (talk rarely brings the
        same command word twice); else it is remembered as that seat's last unclear phrase."""
        last = self._unclear.get(event.seat)
        again = self.config.strict_again
        if last is not None and last[0] == phrase and 0 < event.onset - last[1] <= again:
            del self._unclear[event.seat]
            return True
        self._unclear[event.seat] = (phrase, event.onset)
        return False

    def _doubtful(self, recognition: Recognition) -> bool:
        """The recogniser would have written the phrase as something else (a :attr:`strict` phrase
        is then unclear)."""
        return recognition.ratio is not None and recognition.ratio < self.config.strict_ratio

    def _recognise_here(self, segment: Segment, spoken: list[str], likely: list[str]) -> Recognition:
        """This process's recognition of ``segment``. An idle helper decodes the recogniser's second
        opinion's share meanwhile (PocketSphinx's hypothesis and phone loop, while Whisper works
        here; the same passes either way, so the same recognition)."""
        assert self.recognizer is not None
        parts = getattr(self.recognizer, "second_parts", None)
        idle = all(f.done() for f in self._futures.values()) and all(f.done() for f in self._shared)
        future = self.helper.second_parts(segment, spoken) if self.helper and parts and idle else None
        if future is None:
            if likely:
                return self.recognizer.recognize(segment, spoken, likely)
            return self.recognizer.recognize(segment, spoken)
        self._shared[:] = [future]
        helper = self.helper

        def known() -> object:
            answer = helper.result(future, wait=helper.share_wait) if helper is not None else None
            if answer is not None:
                self.shared += 1
            return answer

        recognize: Callable[..., Recognition] = self.recognizer.recognize
        return recognize(segment, spoken, likely, known=known)


def _cluster_of(sounds: Sequence[AcousticEvent], first: float) -> list[AcousticEvent]:
    """The sounds overlapping, transitively (within 20 ms), the one that starts at ``first``."""
    cluster: list[AcousticEvent] = []
    end = -math.inf
    for event in sorted(sounds, key=lambda e: e.onset):
        if event.onset > end + 0.02:
            if cluster and cluster[0].onset <= first <= end:
                break
            cluster, end = [], -math.inf
        cluster.append(event)
        end = max(end, event.end)
    return cluster


def without_faint_tail(segment: Segment, faint_db: float | None, tail: float) -> Segment:
    """``segment`` as if its event had ended with its last burst within ``faint_db`` dB of its
    loudest (peak levels on the segment's audio), with ``tail`` seconds of audio after that end
    (as the crosstalk stage gives every event); unchanged when no burst after that one is fainter
    (see ``ListenConfig.faint_tail_db``)."""
    bursts = segment.event.bursts
    if faint_db is None or len(bursts) < 2:
        return segment
    rate, start = segment.rate, segment.start
    levels = []
    for a, b in bursts:
        first = max(0, int(round((a - start) * rate)))
        levels.append(peak_level_db(segment.samples[first : max(first + 1, int(round((b - start) * rate)))], rate))
    loudest = max(levels)
    last = max(k for k, level in enumerate(levels) if level >= loudest - faint_db)
    if last == len(bursts) - 1:
        return segment
    end = bursts[last][1]
    cut = min(len(segment.samples), int(round((end - start + tail) * rate)))
    event = replace(segment.event, end=end, bursts=bursts[: last + 1])
    return Segment(event, segment.samples[:cut], rate, start)


def _level(shout: Shout) -> float | None:
    return shout.level_db


def _route(item: _Unjudged) -> str:
    """How ``item`` is judged: 'words' (the recogniser decides), 'slap', or the reason it is no
    shout ('ignored', 'noise', 'not_allowed')."""
    event = item.owned.event
    if item.ignored:
        return "ignored"
    if event.kind is EventKind.NOISE:
        return "noise"
    if event.kind is EventKind.SLAP and SLAP in item.phrases:
        return "slap"
    if event.kind is EventKind.SLAP and not item.phrases:
        return "not_allowed"
    # A voice event, or something impulsive while only words count: a shout that starts with a
    # hard plosive ("best one ...") can look like a slap, so the recogniser decides.
    return "words"


def listen_to(
    recording: "Recording",
    recognizer: Recognizer | None,
    phrases: Sequence[str],
    *,
    offsets: Mapping[SeatName, float] | None = None,
    block_frames: int = 4096,
    progress: Callable[[float, float], None] | None = None,
    config: ListenConfig | None = None,
    helper: Helper | None = None,
) -> tuple[list[Shout], Listener]:
    """Replay a whole recording through a new :class:`Listener` on a simulated clock (as fast as
    the machine allows); return the ranked shouts and the listener (for its decisions). With a
    ``helper`` (:mod:`.helper`) the same decisions come sooner."""
    from voicehost.clock import SimClock
    from voicehost.listen.sources import FileSource

    listener = Listener(
        recording.seats,
        recognizer,
        phrases,
        offsets=dict(offsets or {}),
        config=config or ListenConfig(),
        helper=helper,
    )
    clock = SimClock()
    shouts: list[Shout] = []
    for block in FileSource(recording, block_frames, clock).blocks():
        shouts.extend(listener.feed(block))
        if progress is not None:
            progress(clock.now(), recording.duration)
    shouts.extend(listener.flush())
    return ranked(shouts), listener
