"""Crosstalk: one owner per sound.

Every shout reaches every microphone: loudest and first at its maker's, 8 to 25 dB weaker and a
few milliseconds later at the others. The onset detector therefore reports events on several seats
for one shout, and a seat that really shouted a few milliseconds after a neighbour has the
neighbour's leak at the start of its own event.

:func:`resolve` takes the events of one *cluster* (events of all seats that overlap in time) and
works through the seats in onset order. The first is a source. For each next seat, the leak of
every source found so far is predicted with a short FIR filter (a delay, a gain and early
reflections) fitted only on the frames where that seat's channel is coherent with the source, and
subtracted. If what remains still rises clearly above the channel's noise and keeps much of the
channel's energy, the seat made a sound of its own, and its onset is found again on the remainder;
otherwise its event was a leak and is reported once, as ``leaked_to`` of its source. Where
several sources leak in at the same moment (three claps within 40 ms), no frame holds one leak
alone and the one-at-a-time fit finds none: the seat is tried again with all sources' leaks
fitted together, and checked again once every source's channel is clean. A seat with
several events in one cluster (a slap after its own yell, a shout while a neighbour talks on) is
one sound for the fitting; each of its later events is its own only where the cancelled channel
shows a sound of its own within it, and its audio (for the kind and for the recogniser) stops
where its next sound begins.

Where two or more seats own a voice in one cluster, the audio handed to the recogniser is that
seat's voice demixed from the whole cluster (:mod:`.demix`) instead of the cancelled channel;
onsets, owners and kinds are decided as above. A sound heard about equally loud everywhere (the
table speaker: the host's own voice) has no owner and is dropped. Per-seat latency offsets are
applied before anything is compared.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, Mapping, Protocol, Sequence

import numpy as np

from voicehost.listen.demix import demix
from voicehost.listen.messages import AcousticEvent, EventKind, SeatName
from voicehost.listen.onset import (
    OnsetConfig,
    band_energies_db,
    band_masks,
    classify,
    fine_onset,
    long_energies,
    long_masks,
    noise_statistics,
    peak_level_db,
)


class SeatAudio(Protocol):
    """Read access to each seat's recent audio (session frames, before latency correction)."""

    def read(self, seat: SeatName, start: int, end: int) -> np.ndarray:
        """float32 mono samples [start, end) of ``seat``; zeros where nothing is held."""


@dataclass(frozen=True)
class CrosstalkConfig:
    """Tuning of leak cancellation and ownership."""

    lag_min: float = 0.0002
    """Seconds: earliest a leak may arrive after its source (a leak is never early: the maker's
    own microphone is the nearest; latency offsets are applied before)."""
    lag_max: float = 0.015
    """Seconds: latest a leak may arrive (5 m of air)."""
    lag_windows: tuple[float, ...] = (0.025, 0.06, 0.12)
    """Seconds of the source's first loud sound used to find the leak's delay (each gives a
    candidate; the one under which the target is most coherent with the source wins)."""
    taps_before: float = 0.0005
    """Seconds of FIR taps before the leak's main delay."""
    taps_after: float = 0.004
    """Seconds of FIR taps after it (early reflections)."""
    frame: float = 0.005
    """Seconds per fitting frame (short, so a few ms of leak before a neighbour's own shout count)."""
    coherence_min: float = 0.8
    """A frame whose correlation with the delayed source reaches this is taken for leak only …"""
    ratio_spread_db: float = 6.0
    """… if its level relative to the source is within this of the lowest such ratio (a frame
    where the seat's own voice adds to the leak is louder relative to the source)."""
    source_over_noise_db: float = 10.0
    """Only frames where the source is this far above its own noise inform the fit."""
    explained_db: float = -8.0
    """A frame is explained by the leak when the fit leaves less than this share of its energy."""
    max_fit_frames: int = 60
    """At most this many frames (300 ms) inform a fit: enough, and it keeps the cost bounded."""
    max_gain_db: float = 6.0
    """A fitted leak louder than its source by more than this is no leak: it is the target's own
    voice predicted from its own echo in the source channel (a pitch period later)."""
    first_window: float = 0.02
    """Seconds: of the events starting this close to the earliest, the loudest is taken first."""
    passes: int = 2
    """Rounds of cleaning every source's channel of the others' leaks, each using the others'
    cleaner channels (a neighbour's channel also carries one's own voice, which must not be
    used to 'predict' and cancel it)."""
    min_frames: int = 3
    """Fewer usable frames than this: no leak is fitted."""
    joint: bool = True
    """Several neighbours' sounds leaking in at the same moment (claps 10 ms apart) leave no
    stretch that holds one leak alone, so the one-at-a-time fit finds none coherent and the rest
    passes for a sound of the seat's own. With this on, such a seat is tried again with every
    source's leak fitted together (:func:`_joint_cancel`): when it is not the seat's own sound
    there, it is a leak. Once every source's channel is clean (after ``passes``), each later
    source is checked again the same way, and a seat with a slap among its events finds its
    onset again on that remainder too."""
    joint_voice_onsets: bool = False
    """Also find voiced events' onsets again on the joint remainder (tried, off: on the tuning
    split it heard 4 more shouts with the truth as recogniser but put one more race's first
    shouter wrong; a voice's own quiet start is sometimes taken for a neighbour's leak)."""
    joint_fit_frames: int = 40
    """At most this many frames inform a joint fit (its cost grows with frames times sources²)."""
    own_margin_db: float = 8.0
    """A remainder frame is own sound when it is this far above the remainder's noise …"""
    own_share_db: float = -8.0
    """… and holds at least this share of the channel's energy (a leak's remainder holds far less)."""
    own_frames: int = 3
    """Consecutive own frames (10 ms hop) needed."""
    own_peak_db: float | None = 20.0
    """… and a stretch of own frames reaches within this (dB) of the remainder's loudest frame from
    its start on (None: no such bound; shipped 2026-12-06, README items 43 and 44). The room's
    reverberation of a neighbour's leak is more than the 4 ms filter models, so in a quiet room its
    remainder can keep 3–7 dB less than the channel and pass ``own_share_db``: a seat whose event
    began with the caller's leaked last word and held its own clap 0.3 s later had its own sound
    found in the leak, and the clap was judged as noise."""
    own_peak_gap: int = 3
    """With ``own_peak_db``: a quiet stretch at most this many frames before a kept one …"""
    own_peak_share_db: float = -1.0
    """… whose frames kept at least this share of the channel (median: the cancellation removed
    nothing there) is the seat's own start, kept (a stop consonant before its vowel)."""
    own_short_frames: int = 0
    """0 as shipped. Tried (2026-12-05, README item 29, off): a sharp sound is also own with this
    many consecutive frames (2) that are … (a slap in 10 dB babble stands over the babble for two
    frames, and an earlier slapper was taken for the later one's leak; on the tuning split +2
    shouts, held out none; of the 12 more slaps in the real talk with all three parts of item 29
    on, 6 go with this one) …"""
    own_short_margin_db: float = 12.0
    """… this far above the remainder's noise, …"""
    own_short_share_db: float = -3.0
    """… still hold this share of the channel's energy (the fit cancelled next to nothing there:
    a leak's remainder that the fit only half explained is not taken) …"""
    own_short_peak_db: float = 6.0
    """… and come within this of the remainder's loudest frame from there on (a leak arriving
    before the seat's own louder sound is not it)."""
    own_within: float | None = 0.3
    """Seconds: a seat's own sound is looked for on its cancelled channel from this long before
    its own detected event's onset (as far as the detector's refinement looks back), not from
    the cluster's start;
    None: from the cluster's start, as before 2026-12-07. A seat's own room noise (a dish's
    clatter in its channel alone, 0.5-0.9 s before its shout) is its own sound too: the shout
    was given the clatter's onset and judged 0.85 s early (a real race in 10 dB of kitchen noise,
    the seat's detector had found the shout itself)."""
    far_field: bool = True
    """Drop sounds that come from the table speaker (see below). Off when the host's voice is
    cancelled with its reference signal: then only players' sounds remain, and a group shouting
    one after the other could pass for the speaker."""
    far_field_spread_db: float = 7.0
    """A sound heard by every seat within this many dB of its loudest, …"""
    far_field_coherence: float = 0.8
    """… and this alike (normalised correlation), comes from the table speaker: no owner."""
    pre: float = 0.35
    """Seconds of audio before the cluster used for noise statistics."""
    post: float = 0.35
    """Seconds of audio after the cluster (the recogniser gets up to ``tail`` of it)."""
    lead: float = 0.25
    """Seconds of the owner's audio before the onset given to the recogniser."""
    tail: float = 0.3
    """Seconds of the owner's audio after the end given to the recogniser (less where the seat's
    next sound of the cluster begins sooner)."""
    slap_under_leak_db: float | None = -5.0
    """A slap on the cancelled channel whose loudest 5 ms frame in its first 30 ms stays more than
    this under the loudest frame of the channel in the 30 ms before it is what the leak filter
    left of a neighbour's clap (its reflection, later than the 4 ms filter reaches), not a slap
    of the seat's own: one's own clap is louder at one's microphone than a neighbour's leak.
    Tuning seeds 1, 3 and 5 with the truth as recogniser (README item 45): the 137 true slaps -0.8
    dB and up; such residues -11.6 dB (the caller's, whom the rules would charge for slapping
    their own call) and -7.1 dB, and 14 of 122 slap-like sounds in table talk. None: off."""
    demix: bool = True
    """The recogniser hears each voice of a cluster with several owners' voices (a race) as
    :func:`~voicehost.listen.demix.demix` separates it from the whole cluster, instead of the leak
    filters' remainder (README, item 50). Onsets, ownership and kinds do not change."""
    causal_onsets: Literal["none", "slaps", "all"] = "slaps"
    """In which clusters a seat's own onset is found (finely, after its own sound was found) on its
    cancelled channel as the minimum-phase filter of the band-pass's gain would have passed it:
    those that hold a slap (shipped: README item 45), every one, or none. The zero-phase
    band-pass spreads a clap's sound up to 15 ms *before* it, 30 dB over a quiet room's floor,
    and a later slapper's onset was found there, before an earlier slapper's clap. The leak fits
    stay on the zero-phase channels (fitted on minimum-phase ones, three claps leaking into the
    caller at once left the caller a clap of their own)."""


@dataclass(frozen=True)
class OwnedEvent:
    """An event with its one owner, and the owner's audio with the neighbours' leaks removed."""

    event: AcousticEvent
    samples: np.ndarray
    """float32 mono, from ``start``: what the recogniser hears. Crosstalk-cancelled; where several
    seats own a voice in the cluster, the owner's voice demixed from the whole cluster
    (:attr:`CrosstalkConfig.demix`)."""
    start: float
    """Seconds (session time, after the latency offset) of ``samples[0]``."""
    heard: AcousticEvent | None = None
    """The detector's event it was found in (the object the cluster was given)."""


@dataclass
class _Leak:
    taps: np.ndarray
    first: int
    """Lag (samples) of ``taps[0]``."""

    @property
    def gain_db(self) -> float:
        """Energy gain of the leak path, dB."""
        return float(10 * np.log10(np.sum(self.taps**2) + 1e-14))

    def apply(self, source: np.ndarray) -> np.ndarray:
        """The predicted leak: ``source`` filtered and delayed, same length."""
        full = np.convolve(source, self.taps)
        out = np.zeros_like(source)
        if self.first >= 0:
            n = max(0, len(source) - self.first)
            out[self.first :] = full[:n]
        else:
            out[:] = full[-self.first : -self.first + len(source)]
        return out


def resolve(
    events: Sequence[AcousticEvent],
    audio: SeatAudio,
    offsets: Mapping[SeatName, float],
    onset_cfg: OnsetConfig,
    cfg: CrosstalkConfig | None = None,
) -> list[OwnedEvent]:
    """The owned events of one cluster (see the module docstring), sorted by onset."""
    cfg = cfg or CrosstalkConfig()
    rate = onset_cfg.rate
    groups: dict[SeatName, list[AcousticEvent]] = {}
    for event in sorted(events, key=lambda e: (e.onset, -e.level_db)):
        groups.setdefault(event.seat, []).append(event)
    by_seat = {seat: _merged(group) for seat, group in groups.items()}
    t0 = min(e.onset for e in events) - cfg.pre
    t1 = max(e.end for e in events) + cfg.post
    causal = cfg.causal_onsets == "all" or (
        cfg.causal_onsets == "slaps" and any(e.kind == EventKind.SLAP for e in events)
    )
    signals = {s: _band_pass(_read(audio, s, t0, t1, offsets.get(s, 0.0), rate), rate, onset_cfg) for s in by_seat}
    if cfg.far_field and _far_field(signals, by_seat, t0, rate, len(offsets), cfg):
        return []
    early = {s: _early_level(signals[s], int(round((e.onset - t0) * rate)), rate) for s, e in by_seat.items()}
    order = _order(list(by_seat.values()), early, cfg)
    sources: dict[SeatName, int] = {}

    def span(seat: SeatName) -> tuple[int, int]:
        return sources[seat], int(round((by_seat[seat].end - t0) * rate))

    leaks: dict[SeatName, dict[SeatName, _Leak]] = {}
    leaked: dict[SeatName, list[SeatName]] = {}
    clean: dict[SeatName, np.ndarray] = {}
    joints: dict[tuple[SeatName, frozenset[SeatName]], np.ndarray | None] = {}
    slapping = {s for s, group in groups.items() if any(e.kind == EventKind.SLAP for e in group)}

    def jointly(seat: SeatName) -> np.ndarray | None:
        """``seat``'s channel minus every other source's leak, fitted together (cached)."""
        among = frozenset(s for s in sources if s != seat)
        if (seat, among) not in joints:
            joints[seat, among] = (
                _joint_cancel(signals[seat], {s: (clean[s], span(s)) for s in among}, rate, cfg)
                if cfg.joint and len(among) > 1
                else None
            )
        return joints[seat, among]

    def within(seat: SeatName) -> int:
        """Where ``seat``'s own sound may begin at the earliest (``cfg.own_within``)."""
        if cfg.own_within is None:
            return 0
        return max(0, int(round((by_seat[seat].onset - cfg.own_within - t0) * rate)))

    def own_start(seat: SeatName, audio: np.ndarray) -> int | None:
        """Where ``audio`` (``seat``'s cancelled channel) shows a sound of the seat's own, or None."""
        fresh = cfg.own_within is not None
        return _own_onset(audio, signals[seat], rate, cfg, onset_cfg, after=within(seat), causal=causal, fresh=fresh)

    for seat in order:
        remainder, fitted = _cancel(signals[seat], {s: (clean[s], span(s)) for s in sources}, rate, cfg)
        leaks[seat] = fitted
        onset = int(round((by_seat[seat].onset - t0) * rate)) if not sources else own_start(seat, remainder)
        if onset is not None and cfg.joint and len(sources) > 1:
            joint = jointly(seat)
            if joint is not None and own_start(seat, joint) is None:
                onset = None
        if onset is not None:
            sources[seat] = onset
            clean[seat] = remainder
        else:
            owner = max(fitted, key=lambda s: fitted[s].gain_db) if fitted else order[0]
            leaked.setdefault(owner, []).append(seat)
    last: dict[SeatName, dict[SeatName, _Leak]] = {}
    for _ in range(cfg.passes):
        done = {
            seat: _cancel(signals[seat], {s: (clean[s], span(s)) for s in sources if s != seat}, rate, cfg)
            for seat in sources
        }
        clean = {seat: found[0] for seat, found in done.items()}
        last = {seat: found[1] for seat, found in done.items()}
    joints.clear()
    if cfg.joint:
        # With every source's channel now clean of the others, a seat taken for a source early
        # (its neighbours' leaks overlapping, none yet known) may show nothing of its own.
        for seat in [s for s in sources if s != order[0] and last.get(s)]:
            joint = jointly(seat)
            if joint is not None and own_start(seat, joint) is None:
                fitted = last[seat]
                del sources[seat], clean[seat]
                leaked.setdefault(max(fitted, key=lambda s: fitted[s].gain_db), []).append(seat)
    owned = []
    for seat, onset in sources.items():
        if len(sources) > 1:
            onset = _recheck_onset(clean[seat], signals[seat], onset, rate, cfg, onset_cfg, causal)
            joint = jointly(seat) if seat in slapping or cfg.joint_voice_onsets else None
            if joint is not None:
                onset = _recheck_onset(joint, signals[seat], onset, rate, cfg, onset_cfg, causal)
        leaked_to = tuple(leaked.get(seat, ()))
        mine = _own_events(groups[seat], clean[seat], signals[seat], onset, t0, rate, cfg, onset_cfg, causal)
        for k, (event, start) in enumerate(mine):
            until = mine[k + 1][1] if k + 1 < len(mine) else None
            found = _owned_event(event, clean[seat], start, t0, rate, onset_cfg, cfg, leaked_to, until)
            if found is not None and _leak_residue(found, clean[seat], signals[seat], start, rate, cfg):
                found = None
            if found is not None:
                owned.append(found)
                leaked_to = ()
    if cfg.demix:
        owned = _demixed(owned, signals, t0, rate)
    return sorted(owned, key=lambda o: o.event.onset)


def _demixed(owned: list[OwnedEvent], signals: Mapping[SeatName, np.ndarray], t0: float, rate: int) -> list[OwnedEvent]:
    """``owned`` with each voice's recogniser audio taken from the demixed channels of the seats
    that own a voice (or other non-slap sound) in the cluster; unchanged with fewer than two."""
    seats = sorted({o.event.seat for o in owned if o.event.kind != EventKind.SLAP})
    if len(seats) < 2:
        return owned
    separated = _demix_once(np.stack([signals[s] for s in seats]), rate)
    out = []
    for o in owned:
        if o.event.kind == EventKind.SLAP:
            out.append(o)
            continue
        first = int(round((o.start - t0) * rate))
        own = separated[seats.index(o.event.seat)][first : first + len(o.samples)]
        out.append(replace(o, samples=np.pad(own, (0, len(o.samples) - len(own))).astype(np.float32)))
    return out


_DEMIXED: dict[bytes, np.ndarray] = {}
"""The last few demixings by their input: a cluster is often resolved again with the same audio
(an early try, then the final one), and the demixing is its costliest part (README, item 50)."""


def _demix_once(channels: np.ndarray, rate: int) -> np.ndarray:
    """:func:`demix` of ``channels``, computed once for the same channels (a pure function, memoised)."""
    key = hashlib.blake2b(channels.tobytes(), digest_size=16, key=str((channels.shape, rate)).encode()).digest()
    if key not in _DEMIXED:
        if len(_DEMIXED) >= 8:
            del _DEMIXED[next(iter(_DEMIXED))]
        _DEMIXED[key] = demix(channels, rate)
    return _DEMIXED[key]


def _merged(group: Sequence[AcousticEvent]) -> AcousticEvent:
    """A seat's events of one cluster as one sound (for fitting leaks and ordering seats)."""
    if len(group) == 1:
        return group[0]
    return replace(
        group[0],
        end=max(e.end for e in group),
        level_db=max(e.level_db for e in group),
        bursts=tuple(sorted(b for e in group for b in e.bursts)),
    )


def _own_events(
    group: Sequence[AcousticEvent],
    remainder: np.ndarray,
    channel: np.ndarray,
    onset: int,
    t0: float,
    rate: int,
    cfg: CrosstalkConfig,
    onset_cfg: OnsetConfig,
    causal: bool = False,
) -> list[tuple[AcousticEvent, int]]:
    """The seat's events that are its own sounds, each with its onset (sample of ``remainder``).

    A seat may have several events in one cluster (a slap after one's own yell; a shout while a
    neighbour talks on). The first own one starts at ``onset`` (events that ended before it were
    leaks). Each later event must show a sound of the seat's own on the cancelled remainder within
    its span (else it was a neighbour's leak), and starts there."""
    out: list[tuple[AcousticEvent, int]] = []
    for event in group:
        first = int(round((event.onset - t0) * rate))
        last = int(round((event.end - t0) * rate))
        if not out:
            if last > onset:
                out.append((event, onset))
            continue
        start = _own_onset(
            remainder, channel, rate, cfg, onset_cfg, after=max(first - n_half(onset_cfg), out[-1][1]), causal=causal
        )
        if start is not None and start < last:
            out.append((event, max(start, first - int(onset_cfg.search_back * rate))))
    return out


def _far_field(
    signals: Mapping[SeatName, np.ndarray],
    events: Mapping[SeatName, AcousticEvent],
    t0: float,
    rate: int,
    seats: int,
    cfg: CrosstalkConfig,
) -> bool:
    """True for a sound every seat heard about equally loud and alike: the table speaker (the
    host's own voice), not a player. A player's shout is 8 dB or more louder at their own
    microphone than at the others. Needs three seats or more (two cannot tell a speaker between
    them from a shout). Levels are compared over the same stretch of time: players shouting one
    after the other are each loudest at their own microphone, but not at the same moment."""
    if seats < 3 or len(events) < seats:
        return False
    loudest = max(events.values(), key=lambda e: e.level_db)
    start = int(round((loudest.onset - t0) * rate))
    piece = signals[loudest.seat][start : start + int(0.3 * rate)]
    lag = int(cfg.lag_max * rate)
    for seat, event in events.items():
        if seat == loudest.seat:
            continue
        other = signals[seat][max(0, start - lag) : start + len(piece) + lag]
        if loudest.level_db - min(event.level_db, peak_level_db(other, rate)) > cfg.far_field_spread_db:
            return False
        if peak_correlation(piece, other) < cfg.far_field_coherence:
            return False
    return True


def peak_correlation(piece: np.ndarray, window: np.ndarray) -> float:
    """Best normalised correlation of ``piece`` anywhere inside ``window`` (1: ``window`` holds a
    scaled copy of it; the table speaker's voice here, a leak for the listener's agreement)."""
    if len(window) < len(piece) or not len(piece):
        return 0.0
    size = 1 << int(np.ceil(np.log2(len(window) + len(piece))))
    full = np.fft.irfft(np.fft.rfft(window, size) * np.conj(np.fft.rfft(piece, size)), size)
    count = len(window) - len(piece) + 1
    power = np.concatenate(([0.0], np.cumsum(window**2)))
    energy = power[len(piece) : len(piece) + count] - power[:count]
    return float(np.max(full[:count] / (np.sqrt(energy * float(np.sum(piece**2))) + 1e-14)))


def _early_level(x: np.ndarray, onset: int, rate: int) -> float:
    """dB level of the first 50 ms after ``onset`` (how loud the event starts, not its peak:
    a seat whose event begins with a neighbour's leak may shout louder later)."""
    piece = x[onset : onset + int(0.05 * rate)]
    return float(10 * np.log10(np.mean(piece**2) + 1e-14)) if piece.size else -140.0


def _order(events: list[AcousticEvent], early: Mapping[SeatName, float], cfg: CrosstalkConfig) -> list[SeatName]:
    """Seats in onset order, except that the one starting loudest among the events starting
    within ``first_window`` of the earliest goes first (a leak's onset can be found a little
    earlier than its source's own when the source's start is masked by noise)."""
    events = sorted(events, key=lambda e: e.onset)
    first = [e for e in events if e.onset <= events[0].onset + cfg.first_window]
    lead = max(first, key=lambda e: early[e.seat])
    return [lead.seat] + [e.seat for e in events if e is not lead]


def _read(audio: SeatAudio, seat: SeatName, t0: float, t1: float, offset: float, rate: int) -> np.ndarray:
    start = int(round((t0 + offset) * rate))
    end = int(round((t1 + offset) * rate))
    if start < 0:
        return np.concatenate([np.zeros(-start, dtype=np.float32), audio.read(seat, 0, end)])
    return audio.read(seat, start, end)


def _band_pass(x: np.ndarray, rate: int, cfg: OnsetConfig) -> np.ndarray:
    """Remove rumble below ``low_hz`` and the top octave above ``high_hz`` with gentle (raised
    cosine) slopes and zero padding: a brick-wall filter would ring across the whole window and
    hide the quiet start of a shout under its own echo."""
    return _filtered(x, rate, cfg, 0)


def _causal(x: np.ndarray, rate: int, cfg: OnsetConfig) -> np.ndarray:
    """``x`` (band-passed by :func:`_band_pass`) as the minimum-phase filter of the same gain would
    have passed it: the zero-phase filter spreads a clap's sound up to 15 ms before it (30 dB
    over a quiet room's floor); this one rings only after it."""
    return _filtered(x, rate, cfg, 1)


def _filtered(x: np.ndarray, rate: int, cfg: OnsetConfig, which: int) -> np.ndarray:
    """``x`` through one of :func:`_band_gains`' responses (zero padded: no wrap-around)."""
    size = 1 << int(np.ceil(np.log2(2 * len(x))))
    spectrum = np.fft.rfft(x.astype(np.float64), size)
    return np.fft.irfft(spectrum * _band_gains(size, rate, cfg.low_hz, cfg.high_hz)[which], size)[: len(x)]


@lru_cache(maxsize=16)
def _band_gains(size: int, rate: int, low_hz: float, high_hz: float) -> tuple[np.ndarray, np.ndarray]:
    """On the rfft bins of a ``size``-point FFT: :func:`_band_pass`'s (zero-phase) gain, and the
    all-pass that turns it into the minimum-phase filter of the same gain (read only)."""
    freqs = np.fft.rfftfreq(size, 1 / rate)
    gain = np.ones_like(freqs)
    low = freqs < low_hz
    gain[low] = 0.5 - 0.5 * np.cos(np.pi * np.clip((freqs[low] - low_hz / 2) / (low_hz / 2), 0, 1))
    high = freqs > high_hz
    top = rate / 2 - high_hz
    gain[high] = 0.5 + 0.5 * np.cos(np.pi * np.clip((freqs[high] - high_hz) / top, 0, 1))
    # The minimum-phase response of that gain (floored at -100 dB): its real cepstrum folded onto
    # positive quefrencies; divided by the gain, the all-pass between the two.
    floored = np.maximum(gain, 1e-5)
    cepstrum = np.fft.irfft(np.log(floored), size)
    fold = np.zeros(size)
    fold[0] = fold[size // 2] = 1.0
    fold[1 : size // 2] = 2.0
    allpass: np.ndarray = np.exp(np.fft.rfft(cepstrum * fold, size)) / floored
    gain.flags.writeable = False
    allpass.flags.writeable = False
    return gain, allpass


def _cancel(
    target: np.ndarray, sources: Mapping[SeatName, tuple[np.ndarray, tuple[int, int]]], rate: int, cfg: CrosstalkConfig
) -> tuple[np.ndarray, dict[SeatName, _Leak]]:
    """``target`` minus the predicted leak of each source (fitted one after the other on the
    source's own event span)."""
    remainder = target.copy()
    fitted: dict[SeatName, _Leak] = {}
    for seat, (source, span) in sources.items():
        leak = fit_leak(source, remainder, span, rate, cfg)
        if leak is not None:
            remainder = remainder - leak.apply(source)
            fitted[seat] = leak
    return remainder, fitted


def _joint_cancel(
    target: np.ndarray,
    sources: Mapping[SeatName, tuple[np.ndarray, tuple[int, int]]],
    rate: int,
    cfg: CrosstalkConfig,
) -> np.ndarray | None:
    """``target`` minus the leaks of all ``sources`` fitted together (one least-squares FIR per
    source, solved at once), or None when no joint fit can be made. For several neighbours'
    sounds leaking in at the same moment (claps 10 ms apart), where no frame holds one leak
    alone and the one-at-a-time fit finds none coherent. Frames inform the fit where the delayed
    sources together explain the target (per-frame regression), then where the fit explains it."""
    n = int(cfg.frame * rate)
    frames = len(target) // n
    lags: dict[SeatName, int] = {}
    loud = np.zeros(frames, dtype=bool)
    for seat, (source, span) in sources.items():
        mine = _loud_frames(source, span, n, rate, cfg)[:frames]  # every channel has the target's length
        if np.count_nonzero(mine) < cfg.min_frames:
            continue
        peak = int(np.flatnonzero(mine)[np.argmax(_frame_db(source, n, n)[:frames][mine])]) * n
        start = max(0, peak - int(0.02 * rate))
        lag = _best_lag(source, target, rate, cfg, start, start + int(0.06 * rate))
        if lag is None:
            continue
        lags[seat] = lag
        k = min(frames, lag // n)
        loud |= mine
        loud[k:] |= mine[: frames - k]  # and where its leak arrives
    if len(lags) < 2:
        return None
    delayed = {s: [_delay(sources[s][0], lags[s] + d) for d in (-1, 0, 1)] for s in lags}
    columns = [c for s in lags for c in delayed[s]]
    picked = np.flatnonzero(loud)
    rows = picked[:, None] * n + np.arange(n)[None, :]
    y = target[rows]
    a = np.stack([c[rows] for c in columns], axis=2)
    gram = np.einsum("fnk,fnj->fkj", a, a)
    gram += np.eye(len(columns))[None] * (1e-6 * np.trace(gram, axis1=1, axis2=2)[:, None, None] + 1e-14)
    coef = np.linalg.solve(gram, np.einsum("fnk,fn->fk", a, y)[..., None])[..., 0]
    left = np.sum((y - np.einsum("fnk,fk->fn", a, coef)) ** 2, axis=1)
    good = np.zeros(frames, dtype=bool)
    good[picked] = left <= (1 - cfg.coherence_min**2) * np.sum(y**2, axis=1)
    if np.count_nonzero(good) < cfg.min_frames:
        return None
    leaks = _joint_wiener(sources, lags, target, good, n, rate, cfg)
    share = _frame_db(target - _predicted(leaks, sources, target), n, n) - _frame_db(target, n, n)
    explained = loud & (share[:frames] <= cfg.explained_db)
    if np.count_nonzero(explained) >= cfg.min_frames:
        leaks = _joint_wiener(sources, lags, target, explained, n, rate, cfg)
    if any(leak.gain_db > cfg.max_gain_db for leak in leaks.values()):
        return None
    out: np.ndarray = target - _predicted(leaks, sources, target)
    # A cancellation never adds sound: where the fit would make a frame louder (sources that
    # hold each other's leaks are nearly collinear there), the target stays as it was.
    worse = np.flatnonzero(_frame_db(out, n, n) > _frame_db(target, n, n))
    for f in worse:
        out[f * n : (f + 1) * n] = target[f * n : (f + 1) * n]
    return out


def _predicted(
    leaks: Mapping[SeatName, _Leak],
    sources: Mapping[SeatName, tuple[np.ndarray, tuple[int, int]]],
    like: np.ndarray,
) -> np.ndarray:
    """The sum of the sources' predicted leaks."""
    total = np.zeros_like(like)
    for seat, leak in leaks.items():
        total += leak.apply(sources[seat][0])
    return total


def _joint_wiener(
    sources: Mapping[SeatName, tuple[np.ndarray, tuple[int, int]]],
    lags: Mapping[SeatName, int],
    target: np.ndarray,
    frames: np.ndarray,
    n: int,
    rate: int,
    cfg: CrosstalkConfig,
) -> dict[SeatName, _Leak]:
    """Least-squares FIRs of several sources into ``target`` at once, on the chosen frames (each
    frame weighted by the target's own level there, so quiet frames count as much as loud)."""
    chosen = np.flatnonzero(frames)
    if chosen.size > cfg.joint_fit_frames:  # spread over the whole span, not its first part only
        chosen = chosen[np.linspace(0, chosen.size - 1, cfg.joint_fit_frames).round().astype(int)]
    count = int((cfg.taps_before + cfg.taps_after) * rate) + 1
    rows = (chosen[:, None] * n + np.arange(n)[None, :]).ravel()
    y = target[rows]
    scale = np.repeat(1.0 / (np.sqrt(np.mean(y.reshape(chosen.size, n) ** 2, axis=1)) + 1e-9), n)
    # float32 and columns in time order (taps reversed after the solve): a third of the cost.
    design = np.empty((rows.size, count * len(lags)), dtype=np.float32)
    firsts: dict[SeatName, int] = {}
    columns: dict[SeatName, slice] = {}
    for k, (seat, lag) in enumerate(lags.items()):
        first = firsts[seat] = lag - int(cfg.taps_before * rate)
        pad = count + abs(first) + 1
        padded = np.concatenate([np.zeros(pad), sources[seat][0], np.zeros(pad)])
        windows = np.lib.stride_tricks.sliding_window_view(padded, count)
        columns[seat] = slice(k * count, (k + 1) * count)
        design[:, columns[seat]] = windows[rows - first - count + 1 + pad]
    design *= scale[:, None].astype(np.float32)
    gram = (design.T @ design).astype(np.float64)
    gram += np.eye(len(gram)) * (1e-5 * np.trace(gram) / len(gram) + 1e-12)
    solved = np.linalg.solve(gram, design.T.astype(np.float64) @ (y * scale))
    return {seat: _Leak(solved[columns[seat]][::-1].copy(), firsts[seat]) for seat in lags}


def _frame_db(x: np.ndarray, n: int, hop: int, at: np.ndarray | None = None) -> np.ndarray:
    """Level (dB) of each frame of ``n`` samples every ``hop``; ``at``: of those frames only."""
    count = 1 + (len(x) - n) // hop if len(x) >= n else 0
    frames = np.arange(count) if at is None else at
    index = np.arange(n)[None, :] + hop * frames[:, None]
    return np.asarray(10 * np.log10(np.mean(x[index] ** 2, axis=1) + 1e-14), dtype=np.float64)


def fit_leak(
    source: np.ndarray, target: np.ndarray, span: tuple[int, int], rate: int, cfg: CrosstalkConfig
) -> _Leak | None:
    """The FIR path from ``source`` into ``target``; None when ``target`` shows no leak of it.
    Only the source's own event (``span``, samples) informs it: room noise common to both
    channels (babble) must not pass for a leak.

    The delay comes from the first 25 to 120 ms of the source's sound (where a neighbour's channel is
    most likely nothing but the leak). The filter is fitted on the frames where ``target`` is
    coherent with the delayed source, then again on the frames that fit explained well, so the
    frames where the target seat makes its own sound do not bend it.
    """
    n = int(cfg.frame * rate)
    loud = _loud_frames(source, span, n, rate, cfg)
    if np.count_nonzero(loud) < cfg.min_frames:
        return None
    at = np.flatnonzero(loud)  # only these frames inform the fit: nothing is computed for the rest
    first_loud = int(at[0]) * n
    lags = [_best_lag(source, target, rate, cfg, first_loud, first_loud + int(w * rate)) for w in cfg.lag_windows]
    found = [lag for lag in lags if lag is not None]
    if not found:
        return None
    coherence = {d: _coherence(source, target, d, n, at=at) for d in dict.fromkeys(found)}
    lag = max(found, key=lambda d: (float(np.mean(coherence[d])), -d))
    coherent = np.zeros_like(loud)
    coherent[at[coherence[lag] >= cfg.coherence_min]] = True
    if np.count_nonzero(coherent) < cfg.min_frames:
        return None
    tgt_db = _frame_db(target, n, n, at=at)
    ratio = tgt_db - _frame_db(_delay(source, lag), n, n, at=at)
    mine = coherent[at]
    coherent[at] &= ratio <= float(np.min(ratio[mine])) + cfg.ratio_spread_db
    leak = _wiener(source, target, lag, coherent, n, rate, cfg)
    if leak is None:
        return None
    left_db = _frame_db(target - leak.apply(source), n, n, at=at)
    good = np.zeros_like(loud)
    good[at] = left_db - tgt_db <= cfg.explained_db
    leak = _wiener(source, target, lag, good, n, rate, cfg) or leak
    return leak if leak.gain_db <= cfg.max_gain_db else None


def _loud_frames(source: np.ndarray, span: tuple[int, int], n: int, rate: int, cfg: CrosstalkConfig) -> np.ndarray:
    """Per frame of ``n`` samples: inside the source's own event ``span`` and ``source_over_noise_db``
    above the source's noise before the cluster (the frames that may inform a leak fit)."""
    src_db = _frame_db(source, n, n)
    noise = float(np.median(src_db[: max(1, int((cfg.pre - 0.05) * rate) // n)]))
    index = np.arange(len(src_db)) * n
    return np.asarray((index >= span[0] - n) & (index < span[1]) & (src_db >= noise + cfg.source_over_noise_db))


def _coherence(
    source: np.ndarray, target: np.ndarray, lag: int, n: int, slack: int = 2, at: np.ndarray | None = None
) -> np.ndarray:
    """Per frame of ``n`` samples: the best normalised correlation between ``target`` and the
    source delayed by ``lag`` ± ``slack`` samples (a fractional delay blurs the exact lag);
    ``at``: of those frames only."""
    frames = np.arange(len(target) // n) if at is None else at
    rows = frames[:, None] * n + np.arange(n)[None, :]
    a = target[rows]
    energy = np.sum(a**2, axis=1)
    pad = abs(lag) + slack
    padded = np.concatenate([np.zeros(pad, dtype=source.dtype), source, np.zeros(pad, dtype=source.dtype)])
    best = np.full(len(frames), -1.0)
    for d in range(lag - slack, lag + slack + 1):
        b = padded[rows - d + pad]  # the source delayed by d (zeros outside it), as _delay gives it
        c = np.sum(a * b, axis=1) / (np.sqrt(energy * np.sum(b**2, axis=1)) + 1e-14)
        best = np.maximum(best, c)
    return best


def _delay(x: np.ndarray, lag: int) -> np.ndarray:
    out = np.zeros_like(x)
    if lag >= 0:
        out[lag:] = x[: len(x) - lag]
    else:
        out[:lag] = x[-lag:]
    return out


def _wiener(
    source: np.ndarray, target: np.ndarray, lag: int, frames: np.ndarray, n: int, rate: int, cfg: CrosstalkConfig
) -> _Leak | None:
    """Least-squares FIR around ``lag`` fitted on the chosen frames of ``target`` only (an
    explicit design matrix: masking would break the Toeplitz shortcut for frames this short).
    Every frame weighs the same, so the quiet first milliseconds of a leak count as much as its
    loud vowel."""
    chosen = np.flatnonzero(frames)[: cfg.max_fit_frames]
    if chosen.size < cfg.min_frames:
        return None
    first = lag - int(cfg.taps_before * rate)
    count = int((cfg.taps_before + cfg.taps_after) * rate) + 1
    rows = (chosen[:, None] * n + np.arange(n)[None, :]).ravel()
    pad = count + abs(first) + 1
    padded = np.concatenate([np.zeros(pad), source, np.zeros(pad)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, count)
    design = windows[rows - first - count + 1 + pad][:, ::-1]
    scale = np.repeat(1.0 / (np.sqrt(np.mean(design.reshape(chosen.size, n, count)[:, :, 0] ** 2, axis=1)) + 1e-9), n)
    design = design * scale[:, None]
    gram = design.T @ design
    gram += np.eye(count) * (1e-5 * np.trace(gram) / count + 1e-12)
    return _Leak(np.linalg.solve(gram, design.T @ (target[rows] * scale)), first)


def _best_lag(
    source: np.ndarray, target: np.ndarray, rate: int, cfg: CrosstalkConfig, start: int, end: int
) -> int | None:
    """Delay (samples) at which ``target`` correlates best (normalised, so a loud voice of the
    target's own does not pull it) with ``source[start:end]``, within the leak range."""
    lo, hi = int(round(cfg.lag_min * rate)), int(round(cfg.lag_max * rate))
    piece = source[start:end]
    window = target[start + lo : min(len(target), end + hi)]
    if len(piece) == 0 or len(window) < len(piece):
        return None
    size = 1 << int(np.ceil(np.log2(len(window) + len(piece))))
    full = np.fft.irfft(np.fft.rfft(window, size) * np.conj(np.fft.rfft(piece, size)), size)
    count = len(window) - len(piece) + 1
    power = np.concatenate(([0.0], np.cumsum(window**2)))
    energy = power[len(piece) : len(piece) + count] - power[:count]
    values = full[:count] / (np.sqrt(energy * float(np.sum(piece**2))) + 1e-14)
    if not np.any(values > 0):
        return None
    return lo + int(np.argmax(values))


def _own_onset(
    remainder: np.ndarray,
    channel: np.ndarray,
    rate: int,
    cfg: CrosstalkConfig,
    onset_cfg: OnsetConfig,
    after: int = 0,
    causal: bool = False,
    fresh: bool = False,
) -> int | None:
    """Sample index where ``remainder`` shows a sound of the seat's own (at ``after`` or later), or
    None. ``causal``: the fine onset is found on the remainder's minimum-phase version (see
    ``CrosstalkConfig.causal_onsets``). ``fresh``: the sound must begin at ``after`` or later (one
    already sounding there is passed over; the refinement does not reach back before ``after``)."""
    hop, n = rate // 100, rate // 50
    rem_db, chan_db = _frame_db(remainder, n, hop), _frame_db(channel, n, hop)
    noise_frames = max(3, int((cfg.pre - 0.05) * 100))
    noise = float(np.median(rem_db[:noise_frames]))
    first = max(noise_frames, after // hop)
    share = rem_db - chan_db
    own = _near_peak((rem_db > noise + cfg.own_margin_db) & (share > cfg.own_share_db), rem_db, share, cfg)
    if fresh and 0 < first < len(own) and own[first - 1]:
        ongoing = np.flatnonzero(~own[first:])
        own[first : first + (int(ongoing[0]) if ongoing.size else len(own) - first)] = False
    own[:first] = False
    run = np.convolve(own.astype(int), np.ones(cfg.own_frames, dtype=int), mode="valid")
    hits = np.flatnonzero(run >= cfg.own_frames)
    if cfg.own_short_frames and first < len(rem_db):
        sharp = (rem_db > noise + cfg.own_short_margin_db) & (rem_db - chan_db > cfg.own_short_share_db)
        sharp &= rem_db >= float(np.max(rem_db[first:])) - cfg.own_short_peak_db
        sharp[:first] = False
        run = np.convolve(sharp.astype(int), np.ones(cfg.own_short_frames, dtype=int), mode="valid")
        hits = np.union1d(hits, np.flatnonzero(run >= cfg.own_short_frames))
    if hits.size == 0:
        return None
    coarse = int(hits[0]) * hop + n // 2
    fine = _causal(remainder, rate, onset_cfg) if causal else remainder
    not_before = _leak_until(remainder, channel, coarse, rate, cfg)
    return _refine(fine, coarse, rate, cfg, onset_cfg, max(not_before, after) if fresh else not_before)


def _near_peak(own: np.ndarray, rem_db: np.ndarray, share_db: np.ndarray, cfg: CrosstalkConfig) -> np.ndarray:
    """``own`` without its stretches (runs of own frames) whose loudest frame stays more than
    ``own_peak_db`` under the remainder's loudest frame from the stretch's start on: a neighbour's
    reverberant leak before the seat's own much louder sound. A stretch that rises into the loud
    sound itself (a shout's quiet start) is kept whole, so its onset does not move; so is a quiet
    stretch at most ``own_peak_gap`` frames before a kept one where the cancellation removed
    nothing (median share at least ``own_peak_share_db``): a word's first consonant before its
    vowel ("d|onkey"), not a leak's residue."""
    out = own.copy()
    if not own.any() or cfg.own_peak_db is None:
        return out
    later = np.maximum.accumulate(rem_db[::-1])[::-1]
    edges = np.flatnonzero(np.diff(np.concatenate([[0], own.astype(np.int8), [0]])))
    runs = list(zip(edges[::2].tolist(), edges[1::2].tolist()))
    kept_from: int | None = None
    for start, stop in reversed(runs):
        quiet = float(np.max(rem_db[start:stop])) < float(later[start]) - cfg.own_peak_db
        if quiet and not (
            kept_from is not None
            and kept_from - stop <= cfg.own_peak_gap
            and float(np.median(share_db[start:stop])) >= cfg.own_peak_share_db
        ):
            out[start:stop] = False
        else:
            kept_from = start
    return out


def _recheck_onset(
    remainder: np.ndarray,
    channel: np.ndarray,
    onset: int,
    rate: int,
    cfg: CrosstalkConfig,
    onset_cfg: OnsetConfig,
    causal: bool = False,
) -> int:
    """A source's onset once every other source's leak is removed: the first seat in a cluster
    may have started its event with a neighbour's leak (it was found first, not necessarily
    earliest). Never earlier than found before."""
    again = _own_onset(remainder, channel, rate, cfg, onset_cfg, causal=causal)
    return onset if again is None else max(onset, again)


def _leak_until(remainder: np.ndarray, channel: np.ndarray, coarse: int, rate: int, cfg: CrosstalkConfig) -> int:
    """Sample index after the last 5 ms frame before ``coarse`` where the cancellation removed
    most of the channel (the channel was a neighbour's leak there, so the seat's own sound cannot
    have started yet)."""
    n = int(0.005 * rate)
    frames = coarse // n
    if frames == 0:
        return 0
    share = _frame_db(remainder[: frames * n], n, n) - _frame_db(channel[: frames * n], n, n)
    leaky = np.flatnonzero(share < cfg.own_share_db - 3.0)
    return int(leaky[-1] + 1) * n if leaky.size else 0


def _refine(
    x: np.ndarray, coarse: int, rate: int, cfg: CrosstalkConfig, onset_cfg: OnsetConfig, not_before: int = 0
) -> int:
    """Fine onset on the remainder (same method as the detector), noise from before the cluster."""
    nfft = max(128, onset_cfg.fine_window)
    masks = band_masks(nfft, rate, onset_cfg.low_hz, onset_cfg.high_hz, onset_cfg.fine_bands)
    pre = int((cfg.pre - 0.05) * rate)
    noise = band_energies_db(x[:pre], onset_cfg.fine_window, onset_cfg.fine_hop, masks, nfft)
    lo = max(pre, not_before, coarse - int(onset_cfg.search_back * rate))
    hi = min(len(x), coarse + 2 * onset_cfg.fine_window + n_half(onset_cfg))
    fine = band_energies_db(x[lo:hi], onset_cfg.fine_window, onset_cfg.fine_hop, masks, nfft)
    if len(noise) < 5 or len(fine) < 5:
        return coarse
    long = long_energies(x[lo:hi], x[:pre], onset_cfg, long_masks(onset_cfg))
    index = fine_onset(fine, noise_statistics(noise), onset_cfg, long)
    return coarse if index is None else lo + int(round(index * onset_cfg.fine_hop)) + onset_cfg.fine_window // 2


def _leak_residue(
    found: OwnedEvent, remainder: np.ndarray, channel: np.ndarray, onset: int, rate: int, cfg: CrosstalkConfig
) -> bool:
    """True when ``found`` is a slap far quieter than the sound its channel held just before it
    (see ``CrosstalkConfig.slap_under_leak_db``)."""
    if cfg.slap_under_leak_db is None or found.event.kind is not EventKind.SLAP:
        return False
    n, span = rate // 200, int(0.03 * rate)
    if onset < n or len(remainder) - onset < n:
        return False
    mine = float(np.max(_frame_db(remainder[onset : onset + span], n, n)))
    before = float(np.max(_frame_db(channel[max(0, onset - span) : onset], n, n)))
    return mine < before + cfg.slap_under_leak_db


def n_half(cfg: OnsetConfig) -> int:
    """Half a detection frame, samples."""
    return cfg.window // 2


def _owned_event(
    event: AcousticEvent,
    remainder: np.ndarray,
    onset: int,
    t0: float,
    rate: int,
    onset_cfg: OnsetConfig,
    cfg: CrosstalkConfig,
    leaked_to: tuple[SeatName, ...],
    until: int | None = None,
) -> OwnedEvent | None:
    """The seat's event, starting at its own onset, classified on its own (cancelled) audio.
    ``until``: where the seat's next sound in the cluster starts (sample of ``remainder``); neither
    the audio the kind is judged on nor the recogniser's tail reaches into it (a dish's clatter
    just before a shout was heard as the shout, with the clatter's earlier onset)."""
    stop = len(remainder) if until is None else max(until, onset + 1)
    start_t = t0 + onset / rate
    end_t = max(event.end, start_t + 0.03)
    end = min(len(remainder), int(round((end_t - t0) * rate)))
    own = remainder[onset:end].astype(np.float32)
    if own.size == 0:
        return None
    bursts = tuple((max(a, start_t), b) for a, b in event.bursts if b > start_t) or ((start_t, end_t),)
    second = int(round((bursts[1][0] - start_t) * rate)) if len(bursts) > 1 else None
    around = remainder[onset : min(max(end, onset + int(0.15 * rate)), stop)].astype(np.float32)
    kind = classify(around, onset_cfg, second, int(round((bursts[0][1] - start_t) * rate)))
    lead = int(cfg.lead * rate)
    samples = remainder[max(0, onset - lead) : max(end, min(end + int(cfg.tail * rate), stop))].astype(np.float32)
    found = replace(
        event,
        kind=kind,
        onset=start_t,
        end=end_t,
        level_db=peak_level_db(own, rate),
        bursts=bursts,
        leaked_to=leaked_to,
    )
    return OwnedEvent(found, samples, t0 + max(0, onset - lead) / rate, event)


__all__ = ["CrosstalkConfig", "OwnedEvent", "SeatAudio", "resolve", "fit_leak", "EventKind"]
