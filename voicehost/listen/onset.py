"""Streaming onset detection, one detector per seat's channel.

Two passes, because a race between shouts is decided by milliseconds but a detector that must not
fire on room noise needs tens of milliseconds of evidence:

1. **Detection** (10 ms frames): per-band log energies against a minimum-statistics noise floor
   (so steady noise and slow level changes are absorbed, and a shout cannot raise its own floor);
   the mean excess over the floor must clear a margin that grows with how much the background
   itself fluctuates (babble fluctuates more than pink noise). Runs of frames above the margin are
   *bursts*; bursts less than ``merge_gap`` apart form one *event* ("bam bam bam" is one event).
2. **Refinement** (1 ms hop): when an event is complete, each band's fine energy is walked back
   from the detection point to where it first rose above that band's own noise statistics; the
   onset is where the second band emerged (one band alone may be a noise blip). This finds the
   start of a plosive burst or a fricative that the broadband level hides in noise.

The detector only sees fixed frames of its own history, so the events do not depend on how the
audio was cut into blocks. Everything is numpy; nothing here blocks or reads a clock.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from voicehost.listen.messages import AcousticEvent, EventKind, SeatName


@dataclass(frozen=True)
class OnsetConfig:
    """Tuning of the detector (defaults tuned on the synthetic fixtures at 16 kHz)."""

    rate: int = 16000
    """Hz."""
    hop: int = 160
    """Samples between detection frames (10 ms at 16 kHz)."""
    window: int = 512
    """Samples per detection frame (32 ms at 16 kHz)."""
    bands: int = 12
    """Log-spaced bands between ``low_hz`` and ``high_hz``."""
    low_hz: float = 100.0
    high_hz: float = 7500.0
    floor_span: int = 8
    """Minimum statistics: number of sub-windows in the noise-floor memory."""
    floor_sub: int = 20
    """Minimum statistics: frames per sub-window (8 × 20 × 10 ms = 1.6 s of memory)."""
    floor_bias_db: float = 3.0
    """dB added to the tracked minimum to estimate the mean noise level."""
    on_margin_db: float = 6.0
    """A frame is loud when its mean band excess tops the background's median excess by this (dB)…"""
    spread_factor: float = 2.0
    """… or by this many times the background's spread (90th minus 50th percentile), if larger."""
    background_frames: int = 300
    """How many recent background frames the median and spread are taken over (3 s)."""
    warmup_frames: int = 20
    """Frames at the start of a session that only learn the background (0.2 s)."""
    off_ratio: float = 0.5
    """A burst ends when the excess falls below this fraction of the loudness margin."""
    on_frames: int = 2
    """Consecutive loud frames that start a burst."""
    off_frames: int = 3
    """Consecutive quiet frames that end a burst."""
    dip_db: float = 12.0
    """A burst also ends when the excess stays this far below the burst's peak …"""
    dip_frames: int = 4
    """… for this many frames (a short pause between repeated words in a noisy room)."""
    min_level_dbfs: float = -60.0
    """Frames quieter than this (band RMS) never start a burst: a far microphone's faint leaks."""
    merge_gap: float = 0.350
    """Seconds: bursts closer than this belong to one event (a burst's detected end comes a little
    before the word's audible end, so this is a bit longer than the 300 ms the rules name)."""
    max_event: float = 4.0
    """Seconds: an event this long is closed and reported anyway (speech, not a shout)."""
    history: float = 8.0
    """Seconds of audio kept for refinement and for the recogniser."""
    fine_window: int = 128
    """Samples per refinement frame (8 ms at 16 kHz; hop 1 ms, so the onset is placed to ~1 ms)."""
    fine_hop: int = 16
    """Samples between refinement frames (1 ms at 16 kHz)."""
    fine_bands: int = 8
    fine_from_peak: bool = False
    """Off as shipped. Tried (2026-12-05, README item 29, off): each band walks back from its
    loudest refinement frame near the detection point, not from the last one (a slap is over 30 ms
    after the frame that detected it, and 10 dB babble coming back after it stopped the walk at the
    babble); on the tuning split one more slap, held out none; of the 12 more slaps in the real talk
    with all three parts of item 29 on, 6 go with this one."""
    fine_sigma: float = 2.0
    """A band has emerged when its fine energy exceeds its noise median by this many deviations."""
    fine_strong_db: float = 12.0
    """Only bands that end up this far above their noise vote on the onset."""
    fine_votes: int = 2
    """The onset is where this many bands have emerged."""
    fine_hold: int = 6
    """Refinement frames a band may dip below its threshold and still count as rising."""
    fine_long_bands: int = 0
    """0 as shipped. Tried (2026-12-07, README item 59, off): the lowest this many refinement bands
    (3: 100-500 Hz) are located on long frames as well (``fine_long_window``). Their 8 ms frames
    hold one or two FFT bins, so in pink noise or babble they scatter by ~5.5 dB and a voice bar
    10-14 dB over the noise (a /d/ or /g/ before its release) sits at 1.5-2.5 deviations and breaks
    the walk back: the onset goes to the release, 10-80 ms late; on 32 ms frames the same bands
    scatter about half as much. Held out, synthetic voices' first shouter at a first gap >= 20 ms
    53 -> 56 of 66, but real voices' 116 -> 113 of 138 and false alarms in real talk 11 -> 17."""
    fine_long_window: int = 512
    """Samples per long refinement frame (32 ms at 16 kHz; hop ``fine_hop``). A long frame rises
    before the sound is wholly in it: its crossing is placed where the share of the frame's
    (Hann-weighted) energy the sound must have to reach the threshold says, given how loud the
    band gets (:func:`lead_of`)."""
    fine_long_cap: float = 0.040
    """Seconds: a band's long-frame onset is never more than this before what its 8 ms frames
    found (10 dB babble's voiced syllables run on into a shout's low bands; a voice bar lasts
    20-40 ms) …"""
    fine_long_support: int = 9
    """… nor before the run of its 8 ms frames, averaged over this many (9 ms), that stays
    ``fine_long_support_sigma`` deviations over the band's noise back from what they found: a long
    frame bridges a silence shorter than itself (a stop's closure after a neighbour's leak), and
    the onset would move onto the sound before the silence. 0: no such bound."""
    fine_long_support_sigma: float = 1.0
    """See ``fine_long_support``."""
    search_back: float = 0.30
    """Seconds before the detection point the refinement may look."""
    join_back: float = 0.10
    """``weak_hold`` off: seconds before its detection frame's centre an open sound's onset is
    taken to lie at most when a cluster's completeness is decided (refinement may go back
    ``search_back``; on the tuning recordings 0.4% of sounds go back further than 0.1 s: such a
    late sound is judged as a cluster of its own)."""
    slap_rise: float = 0.005
    """Seconds: a slap comes within 6 dB of its peak this fast after its onset."""
    slap_length: float = 0.1
    """Seconds: a slap falls 12 dB below its peak within this time."""
    slap_burst: float = 0.15
    """Seconds: a slap's first burst is no longer than this …"""
    slap_fade_db: float | None = None
    """None (as shipped): the length alone. Tried (2026-12-05, README item 27, off): a longer first
    burst also counts when it stays this far under its first 60 ms' peak after ``slap_length``
    (10 dB babble held some slaps' bursts open, and they were taken for noise); 12 dB found two
    more tuning slaps, none held out, and two more false slaps in the real talk."""
    slap_unvoiced: float | None = None
    """None as shipped. Tried (2026-12-05, README item 29, off): a first burst longer than
    ``slap_burst`` still counts when the sound is unvoiced (voicing, see :func:`voicing`, under
    this: 0.3) …"""
    slap_unvoiced_length: float = 0.06
    """… and falls 12 dB under its peak within this many seconds (not ``slap_length``): 10 dB
    babble holds a slap's burst open, yet a slap is as sharp and short as ever under it. On the
    tuning split 3 more slaps, held out none; of the 12 more slaps in the real talk with all three
    parts of item 29 on, 3 go with this one."""
    lead_unvoiced: float | None = 0.3
    """A leading burst of an event is split off as a sound of its own (:meth:`OnsetDetector.
    _leading_hits`) when a voice follows it in the event and it is a hit (short and impulsive) or,
    with this set, unvoiced: its voicing (:func:`voicing`, over at least ``lead_unvoiced_length``)
    under this. None: hits only, as before 2026-12-07 (a dish's clatter 0.3 s long, 0.4-0.7 s before
    a shout in 10 dB of kitchen noise, gave the shout its onset)."""
    lead_unvoiced_length: float = 0.06
    """Seconds: a shorter leading burst is judged by the hit rule alone (too short to show a pitch)."""
    voiced_min: float = 0.3
    """Normalised cross-correlation at the pitch period (60-400 Hz) a voice reaches in its
    strongest frames."""
    echo_decay_db: float = 1.5
    """dB per detection frame by which the host's masking level may fall: what the echo
    canceller leaves behind follows the host's recent loudness, not each syllable (150 dB/s)."""
    leak_percentile: float = 90.0
    """Speaking spans only: the host's leak level is this percentile of a seat's band energies
    over the span frames (the host's loud syllables; a player louder than those is heard) …"""
    leak_margin_db: float = 3.0
    """… plus this margin, dB."""
    leak_frames: int = 500
    """… over the last this many span frames (5 s) …"""
    leak_min_frames: int = 30
    """… once there are this many; before, the frame's own level counts as the host's."""
    silent_dbfs: float = -100.0
    """A detection frame quieter than this (band RMS) is digital silence: no microphone signal at
    all (a device starting, returning after a loss, unmuted; a null sink). It teaches the noise floor
    nothing."""
    silence_reset_frames: int = 30
    """After this many frames (0.3 s) of digital silence the noise floor is learnt afresh from the
    audio that follows, as at the start of a stream: a step from silence to the room's noise is not a
    sound (the old floor was the silence, and the step would read as one long event for the floor's
    1.6 s memory, swallowing any shout in it)."""
    weak_burst_db: float = 15.0
    """Leading and trailing bursts this much quieter than the event's loudest are background
    (babble, a breath), not part of the event."""
    weak_hold: bool = True
    """As shipped: bursts already ``weak_burst_db`` under the event's loudest hold it open (they
    are dropped when it closes), and an open sound may have begun ``search_back`` before its
    detection when a cluster's completeness is decided. Off (tried 2026-12-05, README item 26):
    the merge gap runs from the last burst that is not weak, so another table's syllables after a
    shout no longer keep its event (and every cluster it is in) open, the weak bursts go on as a
    sound of their own that reports nothing unless it gets as loud, and ``join_back`` applies.
    It answers sooner in babble, but a neighbour's slap leaking into a caller's microphone after
    the call then is a sound of its own there, which the crosstalk stage can leave to the caller
    (a slap on one's own call is a mistake)."""

    @property
    def hop_seconds(self) -> float:
        """Seconds between detection frames."""
        return self.hop / self.rate


RISE = 0.05
"""Seconds a burst runs before its level so far tells whether it is faint (:meth:`OnsetDetector.settled`)."""


class History:
    """The last ``capacity`` samples of one channel, addressed by session frame index."""

    def __init__(self, capacity: int) -> None:
        self._data = np.zeros(capacity, dtype=np.float32)
        self.capacity = capacity
        self.end = 0
        """Session frame index one past the newest sample."""

    @property
    def start(self) -> int:
        """Oldest frame index still held."""
        return max(0, self.end - self.capacity)

    def write(self, samples: np.ndarray, start_frame: int) -> None:
        """Append samples that begin at ``start_frame`` (a gap is filled with zeros, an overlap
        with what was already written is dropped)."""
        if start_frame > self.end:
            self._append(np.zeros(start_frame - self.end, dtype=np.float32))
        skip = self.end - start_frame
        if skip < len(samples):
            self._append(np.asarray(samples[max(0, skip) :], dtype=np.float32))

    def _append(self, samples: np.ndarray) -> None:
        n = len(samples)
        if n >= self.capacity:
            self._data[:] = samples[-self.capacity :]
        else:
            self._data = np.roll(self._data, -n)
            self._data[-n:] = samples
        self.end += n

    def read(self, start: int, end: int) -> np.ndarray:
        """Samples [start, end) (session frames); parts no longer (or not yet) held are zeros."""
        out = np.zeros(max(0, end - start), dtype=np.float32)
        lo, hi = max(start, self.start), min(end, self.end)
        if hi > lo:
            base = self.end - self.capacity
            out[lo - start : hi - start] = self._data[lo - base : hi - base]
        return out


def band_masks(nfft: int, rate: int, low: float, high: float, bands: int) -> np.ndarray:
    """(bands, bins) boolean masks of log-spaced bands; every band gets at least one bin."""
    freqs = np.fft.rfftfreq(nfft, 1 / rate)
    edges = np.geomspace(low, high, bands + 1)
    masks = np.zeros((bands, freqs.size), dtype=bool)
    for b in range(bands):
        masks[b] = (freqs >= edges[b]) & (freqs < edges[b + 1])
        if not masks[b].any():
            masks[b, int(np.argmin(np.abs(freqs - np.sqrt(edges[b] * edges[b + 1]))))] = True
    return masks


def band_energies_db(samples: np.ndarray, window: int, hop: int, masks: np.ndarray, nfft: int) -> np.ndarray:
    """(frames, bands) log energies (dB) of Hann-windowed frames of ``samples``."""
    count = 1 + (len(samples) - window) // hop if len(samples) >= window else 0
    if count == 0:
        return np.zeros((0, masks.shape[0]))
    index = np.arange(window)[None, :] + hop * np.arange(count)[:, None]
    taper = np.hanning(window)
    spectra = np.abs(np.fft.rfft(samples[index] * taper, n=nfft)) ** 2
    energy = spectra @ masks.T.astype(np.float64)
    return 10.0 * np.log10(energy * (2.0 / (nfft * float(np.sum(taper**2)))) + 1e-14)


class MinimumTracker:
    """Minimum statistics per band: the floor is the lowest (3-frame smoothed) energy seen in the
    last ``span × sub`` frames, so a shout (shorter than the memory) never lifts it while a
    lasting change of the room's noise is followed within the memory's length."""

    def __init__(self, bands: int, span: int, sub: int) -> None:
        self.sub = sub
        self._mins = np.full((span, bands), np.inf)
        self._current = np.full(bands, np.inf)
        self._count = 0
        self._smooth: list[np.ndarray] = []
        self.updates = 0
        """Frames seen (the floor is established once the memory is full)."""

    def update(self, energy_db: np.ndarray) -> np.ndarray:
        """Add one frame, return the floor (dB per band)."""
        self._smooth = (self._smooth + [energy_db])[-3:]
        smoothed = np.mean(self._smooth, axis=0)
        self._current = np.minimum(self._current, smoothed)
        self._count += 1
        self.updates += 1
        if self._count % self.sub == 0:
            self._mins = np.roll(self._mins, 1, axis=0)
            self._mins[0] = self._current
            self._current = np.full_like(self._current, np.inf)
        floor = np.minimum(self._mins.min(axis=0), self._current)
        return np.asarray(np.where(np.isfinite(floor), floor, smoothed), dtype=np.float64)


@dataclass
class _Burst:
    start: int
    """Detection frame index where the burst began."""
    end: int = -1
    """Detection frame index one past the burst's last loud frame (-1 while it lasts)."""
    peak: float = 0.0
    """Largest mean band excess so far, dB."""
    level: float | None = None
    """Peak level (dBFS, on its detection frames) once the burst has ended."""
    tail: int = -1
    """Detection frame one past the tail this burst sounded on with (the event's ``last_active``
    when the next burst began)."""


@dataclass
class _Event:
    bursts: list[_Burst] = field(default_factory=list)
    quiet_before: int = 0
    """Session sample index before which the refinement must not look (previous event's end)."""
    last_active: int = 0
    """Detection frame index one past the last frame above the quiet threshold in a burst or in
    the tail it sounds on with (a burst that ended in a dip still sounds until then: pauses are
    measured from there). Once more than ``off_frames`` quiet frames in a row ended the tail,
    frames above the threshold that start no burst (babble flickering over it) no longer hold the
    event open."""
    loudest: float = -np.inf
    """Peak level (dBFS) of the sound this event continues (the bursts a louder event left behind
    when it closed): bursts this event reports must be within ``weak_burst_db`` of it too."""

    def louder(self) -> float:
        """The loudest level heard so far in this event (or in the sound it continues)."""
        return max([self.loudest] + [b.level for b in self.bursts if b.level is not None])


class OnsetDetector:
    """Finds vocal and impulsive events on one seat's channel (see the module docstring)."""

    def __init__(self, seat: SeatName, config: OnsetConfig | None = None, offset: float = 0.0) -> None:
        self.seat = seat
        self.config = cfg = config or OnsetConfig()
        self.offset = offset
        """Seconds this seat's audio lags the table (input latency); subtracted from every time."""
        self.history = History(int(cfg.history * cfg.rate))
        self._echo = History(int(cfg.history * cfg.rate))
        """The echo canceller's estimate of the host's residue, sample for sample."""
        self._host = History(int(cfg.history * cfg.rate))
        """Nonzero where a speaking span says the host is audible (no reference signal)."""
        self._leak_frames: deque[np.ndarray] = deque(maxlen=cfg.leak_frames)
        self._echo_level: np.ndarray | None = None
        """The last frame's masking level (decays: what remains of the host lingers in the room)."""
        self._leak_level: np.ndarray | None = None
        self._masks = band_masks(cfg.window, cfg.rate, cfg.low_hz, cfg.high_hz, cfg.bands)
        self._fine_nfft = max(128, cfg.fine_window)
        self._fine_masks = band_masks(self._fine_nfft, cfg.rate, cfg.low_hz, cfg.high_hz, cfg.fine_bands)
        self._long_masks = long_masks(cfg)
        self._tracker = MinimumTracker(cfg.bands, cfg.floor_span, cfg.floor_sub)
        self._next = 0
        """Index of the next detection frame to compute."""
        self._levels: dict[tuple[int, int], float] = {}
        """Ended bursts' levels (:meth:`settled`), by (start, end) detection frame."""
        self._settled_sound: tuple[tuple[int, int | None], AcousticEvent | None] | None = None
        """The last settled sound asked for (:meth:`open_sound` with ``bursts``), by its first burst
        and burst count."""
        self._started: int | None = None
        """Detection frame index where this seat's audio began (set by the first block)."""
        self._bg_values: deque[float] = deque(maxlen=cfg.background_frames)
        self._bg_median = 1.0
        self._bg_spread = 1.0
        self._loud_run = 0
        self._quiet_run = 0
        self._dip_run = 0
        self._dip_floor = -np.inf
        """Lowest excess since a burst ended in a dip: the next burst must rise clearly above it
        (a word's fading tail is not a new word)."""
        self._event: _Event | None = None
        self._last_end = 0
        self._quiet_frames: list[int] = []
        """Recent detection frames judged to be background (for the refinement's noise statistics)."""
        self.floor_db: np.ndarray = np.full(cfg.bands, -np.inf)
        """Current noise floor per band, dB (for diagnostics)."""
        self._silent_run = 0
        """Consecutive detection frames of digital silence."""
        self._heard = False
        """Whether any frame so far held more than digital silence."""
        self._relearn_at: int | None = None
        """First detection frame after a silence whose window holds no zeros."""
        self._reset_floor = False
        """Whether the floor is learnt afresh at that frame."""

    # --- streaming ---------------------------------------------------------------------------

    def process(
        self, samples: np.ndarray, start_frame: int, echo: np.ndarray | None = None, host: np.ndarray | None = None
    ) -> list[AcousticEvent]:
        """Feed mono samples starting at session frame ``start_frame``; return completed events.

        The first call fixes where this seat's audio begins (a live stream starts some time into
        the session): nothing before it is invented, so no silence-to-noise jump looks like a sound.

        The host's voice, when known, comes alongside, sample for sample: ``echo`` is the echo
        canceller's estimate of what of the host may remain in ``samples`` (its level per band
        becomes the floor while it sounds), ``host`` is nonzero where only the speaking spans say
        the host is audible (the floor then rises to this seat's measured leak level + a margin).
        Either way the noise floor and the background statistics do not learn from those frames."""
        if self._started is None:
            cfg = self.config
            self._started = -(-start_frame // cfg.hop)
            self._next = self._started
            self._last_end = self._started * cfg.hop
            self.history.end = self._started * cfg.hop
            self._echo.end = self._host.end = self.history.end
            skip = self._started * cfg.hop - start_frame
            samples = samples[skip:]
            echo = None if echo is None else echo[skip:]
            host = None if host is None else host[skip:]
            start_frame = self._started * cfg.hop
        self.history.write(samples, start_frame)
        self._echo.write(np.zeros(len(samples), np.float32) if echo is None else echo, start_frame)
        self._host.write(np.zeros(len(samples), np.float32) if host is None else host, start_frame)
        cfg = self.config
        available = (self.history.end - cfg.window) // cfg.hop + 1 - self._next
        if available <= 0:
            return []
        first = self._next * cfg.hop
        last = first + (available - 1) * cfg.hop + cfg.window
        energies = band_energies_db(self.history.read(first, last), cfg.window, cfg.hop, self._masks, cfg.window)
        maskers = self._maskers(first, last, energies)
        events: list[AcousticEvent] = []
        for energy, masker in zip(energies, maskers):
            events.extend(self._step(self._next, energy, masker))
            self._next += 1
        return events

    def _maskers(self, first: int, last: int, energies: np.ndarray) -> list[np.ndarray | None]:
        """Per detection frame: the host's level per band that a sound must rise above (dB), or
        None where the host is silent."""
        cfg = self.config
        count = len(energies)
        out: list[np.ndarray | None] = [None] * count
        echo = self._echo.read(first, last)
        host = self._host.read(first, last)
        if np.any(echo) or self._echo_level is not None:
            levels = band_energies_db(echo, cfg.window, cfg.hop, self._masks, cfg.window)
            for i in range(count):
                frame = echo[i * cfg.hop : i * cfg.hop + cfg.window]
                level = levels[i] if np.any(frame) else None
                if self._echo_level is not None:
                    decayed = self._echo_level - cfg.echo_decay_db
                    level = decayed if level is None else np.maximum(level, decayed)
                    if float(np.max(level)) < -140.0:
                        level = None
                self._echo_level = out[i] = level
        if np.any(host):
            for i in range(count):
                centre = i * cfg.hop + cfg.window // 2
                if host[centre] > 0:
                    leak = self._span_leak(energies[i])
                    known = out[i]
                    out[i] = leak if known is None else np.maximum(known, leak)
        return out

    def _span_leak(self, energy: np.ndarray) -> np.ndarray:
        """Speaking spans only (no reference signal): this seat's leak level of the host's voice,
        a high percentile of its band energies over recent span frames, plus a margin."""
        cfg = self.config
        self._leak_frames.append(energy)
        if len(self._leak_frames) < cfg.leak_min_frames:
            return energy + cfg.leak_margin_db
        if self._leak_level is None or len(self._leak_frames) % 10 == 0:
            self._leak_level = np.percentile(np.array(self._leak_frames), cfg.leak_percentile, axis=0)
        return np.asarray(self._leak_level + cfg.leak_margin_db)

    def decided_until(self) -> float:
        """Session seconds (before the latency offset) before which every event that can still
        be reported has started: the open event's start, or what the detector has heard."""
        cfg = self.config
        frame = self._next - cfg.on_frames
        if cfg.weak_hold:
            if self._event is not None:
                frame = min(frame, self._event.bursts[0].start)
            return (max(0, frame) * cfg.hop) / cfg.rate - cfg.search_back
        not_before = self._last_end
        if self._event is not None:
            frame = min(frame, self._first_possible(self._event))
            not_before = self._event.quiet_before
        # an event's onset is refined back from its first burst's frame centre, never before the
        # end of this seat's previous event (OnsetDetector.refine)
        earliest = self._frame_centre(max(0, frame)) - int(cfg.join_back * cfg.rate)
        return max(earliest, not_before) / cfg.rate

    def starts_from(self) -> float:
        """Session seconds (before the latency offset) before which no sound this detector has
        not yet detected can start: ``join_back`` before the next detection frame (0.4% of sounds
        go back further), never before the end of this seat's previous event. For judging
        a cluster's first sound early (:attr:`~voicehost.listen.pipeline.ListenConfig.early`; the
        open event is there as :meth:`open_sound`)."""
        cfg = self.config
        frame = self._next - cfg.on_frames
        earliest = self._frame_centre(max(0, frame)) - int(cfg.join_back * cfg.rate)
        return max(earliest, self._last_end) / cfg.rate

    def open_since(self) -> tuple[float, float] | None:
        """(session seconds before the latency offset where the open event's first burst began,
        seconds it has lasted so far); None: no open event. Its onset, once reported, is at most
        ``join_back`` earlier."""
        event = self._event
        if event is None or not event.bursts:
            return None
        cfg = self.config
        start = event.bursts[0].start
        return self._frame_centre(start) / cfg.rate, (self._next - start) * cfg.hop_seconds

    def open_sound(self, bursts: int | None = None) -> AcousticEvent | None:
        """The open event as it would be reported if it closed now (``bursts``: with only its
        first so many bursts); None: no open event, or one too young for its onset to be refined.
        Its onset is a lower bound of the one it will be reported with: its first strong burst can
        only move later as louder bursts come. Leading hits or unvoiced noise that a voice follows
        are left out, as :meth:`_close` splits them off (judged early with them, a shout had the
        clatter's onset, and was reported again when its event closed)."""
        cfg = self.config
        event = self._event
        if event is None or not event.bursts:
            return None
        if self.history.end < self._frame_centre(event.bursts[0].start) + cfg.window // 2 + 2 * cfg.fine_window:
            return None
        key = (event.bursts[0].start, bursts)
        if bursts is not None and self._settled_sound is not None and self._settled_sound[0] == key:
            return self._settled_sound[1]  # the same ended bursts: the same sound
        ended = [b if b.end >= 0 else replace(b, end=max(self._next, b.start + 1)) for b in event.bursts[:bursts]]
        spans = self._burst_spans(_Event(bursts=ended, quiet_before=event.quiet_before, loudest=event.loudest))
        sound = self._event_of(spans[self._leading_hits(spans) :]) if spans else None
        if bursts is not None:
            self._settled_sound = (key, sound)
        return sound

    def settled(self, faint_db: float) -> int | None:
        """How many of the open event's first bursts make a sound that has ended, though the event
        goes on (the room's babble holding it open): the merge gap has run out since the last burst
        within ``faint_db`` of the loudest (and the tail it sounded on with), and every burst since
        stayed fainter. None: not so (or no open event)."""
        cfg = self.config
        event = self._event
        if event is None or not event.bursts:
            return None
        gap = int(round(cfg.merge_gap / cfg.hop_seconds))
        if not any(0 <= b.end <= self._next - gap for b in event.bursts):
            return None  # nothing has ended long enough ago (most calls: cheap)
        newest = event.bursts[-1]
        if newest.end < 0 and (self._next - newest.start) * cfg.hop_seconds < RISE:
            return None  # a burst just begun may yet be loud
        levels = [self._burst_level(b) for b in event.bursts]
        loudest = max(levels + [event.loudest])
        loud = [i for i, level in enumerate(levels) if level >= loudest - faint_db]
        if not loud:
            return None
        i = loud[-1]
        last = event.bursts[i]
        # it sounds on with its tail, as the detector measures the merge gap (OnsetDetector._maybe_close)
        sounding = last.tail if i + 1 < len(event.bursts) else event.last_active
        if last.end < 0 or (self._next - max(last.end, sounding)) * cfg.hop_seconds < cfg.merge_gap:
            return None
        return i + 1

    def _burst_level(self, burst: _Burst) -> float:
        """Peak level (dBFS) of a burst of the open event so far (an ended one's is kept)."""
        cfg = self.config
        key = (burst.start, burst.end)
        if burst.end >= 0 and key in self._levels:
            return self._levels[key]
        lo = max(self.history.start, self._frame_centre(burst.start) - cfg.window // 2)
        end = burst.end if burst.end >= 0 else self._next
        hi = max(lo + 1, self._frame_centre(end - 1) + cfg.hop // 2)
        level = peak_level_db(self.history.read(lo, hi), cfg.rate)
        if burst.end >= 0:
            if len(self._levels) > 64:
                self._levels.clear()
            self._levels[key] = level
        return level

    def heard_until(self) -> float:
        """Session seconds (before the latency offset) of audio this detector has processed."""
        return self._next * self.config.hop / self.config.rate

    def flush(self) -> list[AcousticEvent]:
        """Close the event in progress (end of the recording)."""
        if self._event is None:
            return []
        for burst in self._event.bursts:
            if burst.end < 0:
                burst.end = self._next
        return self._close()

    def _step(self, k: int, energy: np.ndarray, masker: np.ndarray | None = None) -> list[AcousticEvent]:
        cfg = self.config
        level = 10 * np.log10(np.sum(10 ** (energy / 10)) + 1e-14)
        learn_floor = self._after_silence(k, level)
        if learn_floor and (masker is None or self._tracker.updates < cfg.floor_span * cfg.floor_sub):
            self.floor_db = self._tracker.update(energy) + cfg.floor_bias_db
        floor = self.floor_db if masker is None else np.maximum(self.floor_db, masker)
        excess = float(np.mean(np.maximum(energy - floor, 0.0))) if learn_floor else 0.0
        margin = max(cfg.on_margin_db, cfg.spread_factor * self._bg_spread)
        loud = (
            excess > self._bg_median + margin
            and level > cfg.min_level_dbfs
            and k >= (self._started or 0) + cfg.warmup_frames
        )
        quiet = excess < self._bg_median + cfg.off_ratio * margin
        event = self._event
        if event is not None and not quiet and (event.bursts[-1].end < 0 or event.last_active >= k - cfg.off_frames):
            event.last_active = k + 1  # a burst, or the tail it sounds on with: not a later flicker
        burst = event.bursts[-1] if event is not None and event.bursts[-1].end < 0 else None
        if burst is None:
            self._dip_floor = min(self._dip_floor, excess)
            raw_loud = excess > self._bg_median + margin
            loud = loud and excess >= self._dip_floor + cfg.dip_db / 2
            self._loud_run = self._loud_run + 1 if loud else 0
            if self._loud_run >= cfg.on_frames:
                self._start_burst(k - cfg.on_frames + 1)
                self._loud_run = 0
            elif not loud and masker is None and not raw_loud:
                self._learn_background(k, excess)
            elif not loud:
                self._note_quiet(k)
        else:
            burst.peak = max(burst.peak, excess)
            dip = excess < burst.peak - cfg.dip_db
            self._quiet_run = self._quiet_run + 1 if quiet else 0
            self._dip_run = self._dip_run + 1 if dip else 0
            if self._quiet_run >= cfg.off_frames:
                burst.end = k - cfg.off_frames + 1
                self._dip_floor = -np.inf
            elif self._dip_run >= cfg.dip_frames:
                burst.end = k - cfg.dip_frames + 1
                self._dip_floor = excess
            if burst.end >= 0:
                self._quiet_run = self._dip_run = 0
            if burst.end >= 0 and not cfg.weak_hold:
                lo = max(self.history.start, self._frame_centre(burst.start) - cfg.window // 2)
                hi = self._frame_centre(burst.end - 1) + cfg.hop // 2
                burst.level = peak_level_db(self.history.read(lo, hi), cfg.rate)
        return self._maybe_close(k)

    def _after_silence(self, k: int, level: float) -> bool:
        """Whether frame ``k`` may teach the floor and be judged: not while it is digital silence,
        nor while its window still straddles the end of a silence (part zeros, part sound: lower
        than the room, so the floor would sink under the room's noise). After a long silence (or
        the silence a stream began with) the floor then starts afresh (OnsetConfig.silence_reset_frames)."""
        cfg = self.config
        if level < cfg.silent_dbfs:
            self._silent_run += 1
            return False
        if self._silent_run:
            self._relearn_at = k + -(-cfg.window // cfg.hop) - 1
            self._reset_floor = self._silent_run >= cfg.silence_reset_frames or not self._heard
        self._silent_run, self._heard = 0, True
        if self._relearn_at is not None:
            if k < self._relearn_at:
                return False
            self._relearn_at = None
            if self._reset_floor:
                self._tracker = MinimumTracker(cfg.bands, cfg.floor_span, cfg.floor_sub)
        return True

    def _learn_background(self, k: int, excess: float) -> None:
        self._bg_values.append(excess)
        if len(self._bg_values) >= 10 and k % 5 == 0:
            median, high = np.percentile(np.fromiter(self._bg_values, float), [50, 90])
            self._bg_median, self._bg_spread = float(median), float(high - median)
        self._note_quiet(k)

    def _note_quiet(self, k: int) -> None:
        """Frame ``k`` held no sound of the seat's own (its noise, or the host's residue)."""
        self._quiet_frames.append(k)
        if len(self._quiet_frames) > 400:
            del self._quiet_frames[:100]

    def _start_burst(self, k: int) -> None:
        if self._event is None:
            self._event = _Event(quiet_before=self._last_end)
        elif self._event.bursts:
            self._event.bursts[-1].tail = self._event.last_active
        self._event.bursts.append(_Burst(k))

    def _maybe_close(self, k: int) -> list[AcousticEvent]:
        event = self._event
        if event is None:
            return []
        cfg = self.config
        last = event.bursts[-1]
        too_long = (k - event.bursts[0].start) * cfg.hop_seconds >= cfg.max_event
        if last.end >= 0 and (k - max(last.end, event.last_active)) * cfg.hop_seconds >= cfg.merge_gap:
            return self._close()
        if not cfg.weak_hold:
            closed = self._close_before_weak(k)
            if closed is not None:
                return closed
        if too_long:
            if last.end < 0:
                last.end = k + 1
            return self._close()
        return []

    # --- building events -------------------------------------------------------------------

    def _frame_centre(self, k: int) -> int:
        """Session sample index at the centre of detection frame ``k``."""
        return k * self.config.hop + self.config.window // 2

    def _weak(self, burst: _Burst, loudest: float, margin: float = 0.0) -> bool:
        return burst.level is not None and burst.level < loudest - self.config.weak_burst_db - margin

    def _first_possible(self, event: _Event) -> int:
        """Detection frame of the open event's first burst that may still be part of what it
        reports (bursts already weak stay background, however the event goes on; 3 dB of room for
        the levels of the refined spans the event is built of)."""
        loudest = event.louder()
        for burst in event.bursts:
            if not self._weak(burst, loudest, 3.0):
                return burst.start
        return self._next

    def _close_before_weak(self, k: int) -> list[AcousticEvent] | None:
        """Close the open event at its last burst that is not weak when the merge gap has run out
        since it and every burst after it that began within the gap has ended weak
        (OnsetConfig.weak_hold); the bursts after it go on as an event of their own that must get
        as loud to report anything."""
        cfg = self.config
        event = self._event
        assert event is not None
        loudest = event.louder()
        strong = [i for i, b in enumerate(event.bursts) if b.end >= 0 and not self._weak(b, loudest)]
        if not strong or strong[-1] == len(event.bursts) - 1:
            return None
        last = event.bursts[strong[-1]]
        gap_end = max(last.end, last.tail) + int(round(cfg.merge_gap / cfg.hop_seconds))
        if k < gap_end or any(b.end < 0 and b.start < gap_end for b in event.bursts[strong[-1] + 1 :]):
            return None  # a burst that began within the gap may yet be loud: it decides
        rest, active = event.bursts[strong[-1] + 1 :], event.last_active
        event.bursts = event.bursts[: strong[-1] + 1]
        closed = self._close()
        self._event = _Event(bursts=rest, quiet_before=self._last_end, last_active=active, loudest=loudest)
        return closed

    def _close(self) -> list[AcousticEvent]:
        event = self._event
        assert event is not None
        self._event = None
        spans = self._burst_spans(event)
        if not spans:
            return []
        self._last_end = max(self._last_end, spans[-1][1])
        lead = self._leading_hits(spans)
        if not lead:
            return [self._event_of(spans)]
        return [self._event_of(spans[:lead], until=spans[lead][0]), self._event_of(spans[lead:])]

    def _leading_hits(self, spans: list[tuple[int, int]]) -> int:
        """How many leading bursts are hits (a dish, a knock, a clap: short and impulsive) that a
        voice follows in the same event: they are an event of their own, so the voice keeps its own
        onset (a clatter 0.3 s before a shout gave the shout the clatter's onset, and at a table that
        clatters it was a miss) and its own kind (it was taken for a slap). 0: none, or no voice after."""
        cfg = self.config
        lead = 0
        while lead < len(spans) - 1:
            a, b = spans[lead]
            head = self.history.read(a, spans[lead + 1][0])
            hit = b - a <= cfg.slap_burst * cfg.rate and impulsive(head, cfg.rate, cfg.slap_rise, cfg.slap_length)
            unvoiced = (
                not hit
                and cfg.lead_unvoiced is not None
                and b - a >= cfg.lead_unvoiced_length * cfg.rate
                and voicing(self.history.read(a, b), cfg.rate) < cfg.lead_unvoiced
            )
            if not (hit or unvoiced):
                break
            lead += 1
        if lead == 0:
            return 0
        a, b = spans[lead][0], spans[-1][1]
        return lead if voicing(self.history.read(a, b), cfg.rate) >= cfg.voiced_min else 0

    def _event_of(self, spans: list[tuple[int, int]], until: int | None = None) -> AcousticEvent:
        """The event made of ``spans`` (``until``: where the next event of the same sound starts;
        the kind is judged on the audio before it)."""
        cfg = self.config
        start, stop = spans[0][0], spans[-1][1]
        audio = self.history.read(start, stop)
        around = self.history.read(start, min(max(stop, start + int(0.15 * cfg.rate)), until or 1 << 62))
        kind = classify(around, cfg, spans[1][0] - start if len(spans) > 1 else None, spans[0][1] - start)

        def to_s(n: int) -> float:
            return n / cfg.rate - self.offset

        return AcousticEvent(
            seat=self.seat,
            kind=kind,
            onset=to_s(start),
            end=to_s(stop),
            level_db=peak_level_db(audio, cfg.rate),
            bursts=tuple((to_s(a), to_s(b)) for a, b in spans),
        )

    def _burst_spans(self, event: _Event) -> list[tuple[int, int]]:
        """(onset, end) session samples of each burst, without weak leading/trailing ones."""
        cfg = self.config
        limit = event.quiet_before
        spans: list[tuple[int, int]] = []
        for burst in event.bursts:
            onset = self.refine(self._frame_centre(burst.start), limit)
            end = max(onset + cfg.hop, self._frame_centre(burst.end - 1) + cfg.hop // 2)
            spans.append((onset, end))
            limit = end
        levels = [peak_level_db(self.history.read(a, b), cfg.rate) for a, b in spans]
        strong = [i for i, level in enumerate(levels) if level >= max(levels + [event.loudest]) - cfg.weak_burst_db]
        return spans[strong[0] : strong[-1] + 1] if strong else []

    def refine(self, coarse: int, not_before: int) -> int:
        """The true start (session sample) of the sound detected around sample ``coarse``."""
        cfg = self.config
        background = self._background(coarse, not_before)
        noise = self._noise_stats(background)
        lo = max(not_before, coarse - int(cfg.search_back * cfg.rate), self.history.start)
        hi = coarse + cfg.window // 2 + 2 * cfg.fine_window
        if noise is None or hi - lo < 4 * cfg.fine_window:
            return max(lo, coarse - cfg.window // 2)
        samples = self.history.read(lo, hi)
        fine = band_energies_db(samples, cfg.fine_window, cfg.fine_hop, self._fine_masks, self._fine_nfft)
        long = long_energies(samples, background, cfg, self._long_masks)
        onset = fine_onset(fine, noise, cfg, long)
        if onset is None:
            return max(lo, coarse - cfg.window // 2)
        return lo + int(round(onset * cfg.fine_hop)) + cfg.fine_window // 2

    def _background(self, coarse: int, not_before: int) -> np.ndarray:
        """Recent background before ``coarse`` (its quiet detection frames' samples, joined)."""
        cfg = self.config
        limit = coarse - int(0.05 * cfg.rate)
        frames = [
            k
            for k in self._quiet_frames
            if self._frame_centre(k) + cfg.window // 2 < limit and k * cfg.hop >= max(not_before, self.history.start)
        ][-30:]
        chunks = [self.history.read(k * cfg.hop, k * cfg.hop + cfg.hop) for k in frames]
        return np.concatenate(chunks) if len(chunks) >= 5 else np.zeros(0, np.float32)

    def _noise_stats(self, background: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Median and deviation (dB per fine band) of ``background`` (see :meth:`_background`)."""
        cfg = self.config
        fine = band_energies_db(background, cfg.fine_window, cfg.fine_hop, self._fine_masks, self._fine_nfft)
        return noise_statistics(fine) if len(fine) >= 5 else None


def noise_statistics(energies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median and robust deviation (dB, +0.5 dB so a perfectly steady band is not infinitely
    sensitive) of each band of ``energies`` (frames, bands)."""
    median = np.median(energies, axis=0)
    return median, 1.4826 * np.median(np.abs(energies - median), axis=0) + 0.5


LongBands = tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]
"""The lowest refinement bands on long frames (frames, bands) and their noise statistics."""


def long_masks(cfg: OnsetConfig) -> np.ndarray:
    """Masks of the refinement bands located on long frames (:attr:`OnsetConfig.fine_long_bands`;
    none when it is 0, and :func:`long_energies` then computes nothing)."""
    if cfg.fine_long_bands <= 0:
        return np.zeros((0, cfg.fine_long_window // 2 + 1), dtype=bool)
    masks = band_masks(cfg.fine_long_window, cfg.rate, cfg.low_hz, cfg.high_hz, cfg.fine_bands)
    return masks[: min(cfg.fine_long_bands, cfg.fine_bands)]


def long_energies(samples: np.ndarray, background: np.ndarray, cfg: OnsetConfig, masks: np.ndarray) -> LongBands | None:
    """The low bands of ``samples`` on long frames (same start and hop as the refinement's fine
    frames) with the noise statistics of ``background``; None when off or either is too short."""
    n, hop = cfg.fine_long_window, cfg.fine_hop
    if len(masks) == 0 or min(len(samples), len(background)) < n + 4 * hop:
        return None
    return band_energies_db(samples, n, hop, masks, n), noise_statistics(band_energies_db(background, n, hop, masks, n))


def lead_of(window: int, share: float) -> float:
    """Fraction of a Hann window a sound starting inside it must fill (from the window's leading
    end) to hold ``share`` of the frame's weighted energy."""
    return float(np.searchsorted(_filled(window), share)) / window


@lru_cache(maxsize=4)
def _filled(window: int) -> np.ndarray:
    """Share of a Hann-weighted frame's energy in its last 1, 2, … samples."""
    weights = np.hanning(window) ** 2
    filled: np.ndarray = np.cumsum(weights[::-1]) / float(np.sum(weights))
    return filled


def fine_onset(
    fine: np.ndarray, noise: tuple[np.ndarray, np.ndarray], cfg: OnsetConfig, long: LongBands | None = None
) -> float | None:
    """Index of the fine frame where ``cfg.fine_votes`` bands have emerged from their noise,
    walking back from the end of ``fine`` (the detection point); None if no band is strong.
    ``long``: the lowest bands on long frames as well (:func:`long_energies`): where they emerged
    there (:func:`_long_onset`) is those bands' onset, at most ``fine_long_cap`` before their fine
    one and not across a silence (``fine_long_support``). The index is fractional only when a long
    band placed it."""
    median, deviation = noise
    kernel = np.ones(3) / 3
    smooth = np.stack([np.convolve(fine[:, b], kernel, mode="same") for b in range(fine.shape[1])], axis=1)
    last = len(smooth) - 1
    begin = max(0, last - 3 * cfg.fine_window // cfg.fine_hop)
    tail = smooth[begin:]
    cap = cfg.fine_long_cap * cfg.rate / cfg.fine_hop
    held_over = None
    if long is not None and cfg.fine_long_support > 0:
        k = cfg.fine_long_support
        held = np.stack([np.convolve(fine[:, b], np.ones(k) / k, mode="same") for b in range(long[0].shape[1])], axis=1)
        held_over = held > median[: held.shape[1]] + cfg.fine_long_support_sigma * deviation[: held.shape[1]]
    onsets: list[float] = []
    for b in range(smooth.shape[1]):
        if tail[:, b].max() < median[b] + cfg.fine_strong_db:
            continue
        above = smooth[:, b] > median[b] + cfg.fine_sigma * deviation[b]
        start = begin + int(np.argmax(tail[:, b])) if cfg.fine_from_peak else last
        first = _walk_back(above, start, cfg.fine_hold)
        onset = None if first is None else float(first)
        if long is not None and b < long[0].shape[1]:
            placed = _long_onset(long[0][:, b], long[1][0][b], long[1][1][b], cfg)
            if placed is not None:
                onset = placed if onset is None else max(placed, onset - cap)
                if held_over is not None:
                    sustained = _walk_back(held_over[:, b], last if first is None else first, cfg.fine_hold)
                    if sustained is not None:
                        onset = max(onset, float(sustained - cfg.fine_long_support // 2))
        if onset is not None:
            onsets.append(onset)
    if not onsets:
        return None
    onsets.sort()
    return onsets[min(cfg.fine_votes, len(onsets)) - 1]


def _walk_back(above: np.ndarray, start: int, hold: int) -> int | None:
    """The earliest frame of the run of ``above`` frames that reaches back from ``start`` (gaps of
    up to ``hold`` frames bridged); None if no frame at or before ``start`` is above."""
    first, gap = None, 0
    for t in range(start, -1, -1):
        if above[t]:
            first, gap = t, 0
        elif first is not None:
            gap += 1
            if gap > hold:
                break
    return first


def _long_onset(energy: np.ndarray, median: float, deviation: float, cfg: OnsetConfig) -> float | None:
    """One band's onset on long frames, as a fine-frame index (see :func:`fine_onset`): the
    frame where the walk back stops, moved to where the sound must begin for that frame to hold
    enough of it to reach the threshold, given the level the band reaches once a frame is full."""
    threshold = cfg.fine_sigma * deviation
    first = _walk_back(energy > median + threshold, len(energy) - 1, cfg.fine_hold)
    if first is None:
        return None
    n, hop = cfg.fine_long_window, cfg.fine_hop
    level = max(float(energy[min(first + n // hop, len(energy) - 1)]) - median, threshold + 1.0)
    share = (10.0 ** (threshold / 10.0) - 1.0) / (10.0 ** (level / 10.0) - 1.0)
    start = first * hop + n - lead_of(n, share) * n
    return (start - cfg.fine_window // 2) / hop


def peak_level_db(samples: np.ndarray, rate: int) -> float:
    """Loudest 10 ms RMS, dBFS."""
    n = max(1, rate // 100)
    frames = len(samples) // n
    if frames == 0:
        return float(10 * np.log10(np.mean(samples.astype(np.float64) ** 2) + 1e-14)) if len(samples) else -140.0
    power = np.mean(samples[: frames * n].astype(np.float64).reshape(frames, n) ** 2, axis=1)
    return float(10 * np.log10(power.max() + 1e-14))


def voicing(samples: np.ndarray, rate: int) -> float:
    """Periodicity: the best normalised cross-correlation between a 40 ms frame and itself one
    pitch period later (60-400 Hz); the second best of the frames within 12 dB of the loudest
    (a vowel is enough, one lucky frame is not). Voices score 0.6-0.99, coughs and claps 0.1-0.4."""
    n = int(0.04 * rate)
    lo, hi = rate // 400, rate // 60
    frames = (len(samples) - hi) // n
    if frames <= 0:
        return 0.0
    starts = np.arange(frames) * n
    energy = np.array([float(np.sum(samples[a : a + n].astype(np.float64) ** 2)) for a in starts])
    loud = starts[energy >= energy.max() * 10 ** (-12 / 10)]
    scores = sorted(_nccf_peak(samples[a : a + n + hi].astype(np.float64), n, lo, hi) for a in loud)
    return scores[-2] if len(scores) > 1 else scores[0]


def _nccf_peak(x: np.ndarray, n: int, lo: int, hi: int) -> float:
    head = x[:n]
    size = 1 << int(np.ceil(np.log2(len(x) + n)))
    cross = np.fft.irfft(np.fft.rfft(x, size) * np.conj(np.fft.rfft(head, size)), size)[lo : hi + 1]
    power = np.cumsum(np.concatenate(([0.0], x**2)))
    lags = np.arange(lo, hi + 1)
    shifted = power[lags + n] - power[lags]
    denom = np.sqrt(float(np.sum(head**2)) * shifted) + 1e-12
    return float(np.max(cross / denom))


STEP_DB = 10.0
"""dB a slap on top of another sound rises within the slap's rise time (see :func:`impulsive`)."""


def impulsive(samples: np.ndarray, rate: int, rise: float, length: float) -> bool:
    """True when the sound comes within 6 dB of its peak in ``rise`` seconds (from where it
    emerges, or, on top of a sound already there, from where it jumps :data:`STEP_DB` towards the
    peak) and its 10 ms level then falls 12 dB below that peak within ``length`` seconds: a hit or
    a clap. A voice rises slower and stays up; a cough rises slower; a sudden lasting noise does
    not fall. Only the first 150 ms count (a neighbour's slap may follow)."""
    head = samples[: int(0.15 * rate)]
    fine, smooth = _envelope_db(head, rate, smooth=3), _envelope_db(head, rate, smooth=10)
    if fine.size < 20:
        return False
    top = int(np.argmax(smooth[:60]))
    peak = float(smooth[top])
    # The rise is timed from where the sound emerges (15 dB under its peak), not from the event's
    # onset: a refined onset a few ms early, or a neighbour's faint leak just before, is not a slow rise.
    emerge = int(np.flatnonzero(fine >= peak - 15)[0])
    near = int(np.flatnonzero(fine >= peak - 6)[0])
    # A slap on top of a sound already there (a neighbour's slap leaking in a few ms before one's
    # own): the level then jumps STEP_DB in a few ms from that sound to near the peak.
    below = np.flatnonzero(fine[:near] < fine[near] - STEP_DB)
    step = near - int(below[-1]) - 1 if below.size else near
    reach = min(near - emerge, step) / 1000
    fallen = np.flatnonzero(smooth[top:] < peak - 12)
    return reach <= rise and fallen.size > 0 and (top + fallen[0] - emerge) / 1000 <= length


def faded(samples: np.ndarray, rate: int, after: float, fall_db: float) -> bool:
    """True when the 10 ms level stays ``fall_db`` under the peak of the first 60 ms from
    ``after`` seconds on: what keeps the burst going is the room (babble), not the sound."""
    smooth = _envelope_db(samples, rate, smooth=10)
    start = int(after * 1000)
    if smooth.size <= start:
        return True
    return bool(np.all(smooth[start:] < float(np.max(smooth[:60])) - fall_db))


def classify(
    samples: np.ndarray, cfg: OnsetConfig, first_burst: int | None = None, burst: int | None = None
) -> EventKind:
    """SLAP for a hit or clap (sharp, short, unpitched), VOICE for anything voiced, NOISE for the
    rest (coughs, breaths, rustle): never reported. ``first_burst`` (samples: where the second
    burst starts) limits the slap test to the first burst, as a neighbour's slap may follow one's
    own within the same event. ``burst`` (samples) is the first burst's length: a slap's is short,
    a word that starts with a sharp plosive ("cat") goes on."""
    head = samples[:first_burst] if first_burst else samples
    short = burst is None or burst <= cfg.slap_burst * cfg.rate
    if not short and cfg.slap_fade_db is not None and burst is not None:
        short = faded(samples[:burst], cfg.rate, cfg.slap_length, cfg.slap_fade_db)
    if short and impulsive(head, cfg.rate, cfg.slap_rise, cfg.slap_length):
        return EventKind.SLAP
    voiced = voicing(samples, cfg.rate)
    if not short and cfg.slap_unvoiced is not None and voiced < cfg.slap_unvoiced:
        if impulsive(head, cfg.rate, cfg.slap_rise, cfg.slap_unvoiced_length):
            return EventKind.SLAP
    return EventKind.VOICE if voiced >= cfg.voiced_min else EventKind.NOISE


def _envelope_db(samples: np.ndarray, rate: int, smooth: int = 2) -> np.ndarray:
    """Level per millisecond, dB, smoothed over ``smooth`` ms."""
    n = max(1, rate // 1000)
    frames = len(samples) // n
    if frames == 0:
        return np.zeros(0)
    power = np.mean(samples[: frames * n].astype(np.float64).reshape(frames, n) ** 2, axis=1)
    return 10 * np.log10(np.convolve(power, np.ones(smooth) / smooth, mode="same") + 1e-14)
