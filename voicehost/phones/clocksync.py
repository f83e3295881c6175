"""Mapping a phone's audio clock onto the session clock from ping-pong exchanges.

The host sends a ping at ``sent`` and gets the pong at ``received`` (both on the host's clock);
the pong carries the phone's audio-context time ``remote`` at the moment it answered. With a
symmetric network, ``remote`` was read at the midpoint, so ``midpoint - remote`` is the clock
offset, wrong by at most half the round trip. Only exchanges with a short round trip are
trusted (Wi-Fi holds single packets back for tens of milliseconds: those are the ones with long
round trips), and the offset is fitted as a straight line of the phone's time, so that a phone
whose crystal runs 30 ppm fast (1.8 ms a minute) stays on the session clock over a long game.

The answers themselves are not smooth: Chrome's output timestamp, which the page reads, moves in
steps of its 10 ms audio buffer, and under load its audio clock loses whole buffers against real
time (measured here: 10-40 ms steps every few seconds on a loaded machine). So the drift is a
slope fitted *within* the stretches between such steps (:func:`segmented_slope`), never across
them, and this mapping only anchors a phone's stream and checks it
(:mod:`voicehost.phones.source` places blocks by their sample count).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BIN_SECONDS = 2.0
"""Seconds of phone time per bin: the fit uses each bin's exchange with the shortest round trip."""
FIT_SECONDS = 300.0
"""Seconds of phone time the drift fit looks back over."""
OFFSET_SECONDS = 60.0
"""Seconds of phone time whose bins give the offset (their median)."""
MIN_DRIFT_SPAN = 20.0
"""Seconds of phone time the kept exchanges must span before a drift is fitted (before that the
offset alone is used; a 300 ppm phone is then 6 ms off at most, and half a millisecond of
round-trip error over 20 s is 25 ppm)."""
ANCHOR_BEFORE, ANCHOR_AFTER = 5.0, 60.0
"""Seconds of phone time before and after an anchor whose exchanges give its offset (see
:meth:`ClockSync.anchored`)."""
MAX_DRIFT = 500e-6
"""A fitted drift beyond ±500 ppm is not a clock (crystals are within ±100 ppm, two clocks of one
browser were seen 100-900 ppm apart only when its capture buffer slipped) but a fit gone wrong:
no drift is used then."""
BAND = 0.005
"""Seconds around the main level of the offsets (after the slope) within which a bin counts."""
STEP = 0.003
"""Seconds: neighbouring bins whose offsets differ by more are on two sides of a step (500 ppm
over a 5 s bin is 2.5 ms); slopes are only taken between bins on the same side."""
START_EXCHANGES = 3
"""Exchanges needed before the mapping is trusted at all."""


@dataclass(frozen=True)
class Exchange:
    """One ping and its pong."""

    sent: float
    """Host seconds (monotonic) when the ping left."""
    received: float
    """Host seconds (monotonic) when the pong arrived."""
    remote: float
    """Phone audio-context seconds when it answered."""

    @property
    def rtt(self) -> float:
        """Round trip, seconds."""
        return self.received - self.sent

    @property
    def offset(self) -> float:
        """Host minus phone seconds, assuming the answer came at the midpoint."""
        return 0.5 * (self.sent + self.received) - self.remote


@dataclass(frozen=True)
class ClockFit:
    """host = remote + offset + drift * (remote - anchor)."""

    offset: float
    """Seconds at ``anchor``."""
    drift: float
    """Seconds per second (1e-6 = 1 ppm: the phone's clock runs that much slow)."""
    anchor: float
    """Phone seconds where ``offset`` holds."""
    rtt: float
    """Shortest round trip among the exchanges used, seconds."""

    def to_host(self, remote: float) -> float:
        """Host seconds (monotonic) at phone time ``remote``."""
        return remote + self.offset + self.drift * (remote - self.anchor)


class ClockSync:
    """Exchanges of one phone (one audio context) and the mapping they give."""

    def __init__(
        self,
        *,
        bin_seconds: float = BIN_SECONDS,
        fit_seconds: float = FIT_SECONDS,
        min_drift_span: float = MIN_DRIFT_SPAN,
    ) -> None:
        self.bin_seconds = bin_seconds
        self.fit_seconds = fit_seconds
        self.min_drift_span = min_drift_span
        self.exchanges: list[Exchange] = []
        """Every exchange, in order (a 10-minute game at 2 Hz keeps 1200: small)."""
        self._bins: dict[int, Exchange] = {}
        self._fit: ClockFit | None = None

    def add(self, exchange: Exchange) -> None:
        """Keep one exchange (pongs with a negative round trip or going back in phone time are dropped)."""
        if exchange.rtt < 0 or (self.exchanges and exchange.remote < self.exchanges[-1].remote):
            return
        self.exchanges.append(exchange)
        key = int(exchange.remote // self.bin_seconds)
        best = self._bins.get(key)
        if best is None or exchange.rtt < best.rtt:
            self._bins[key] = exchange
        self._fit = None

    @property
    def ready(self) -> bool:
        """True once enough exchanges came back to place audio."""
        return len(self.exchanges) >= START_EXCHANGES

    def fit(self) -> ClockFit:
        """The current mapping (raises LookupError before :attr:`ready`)."""
        if not self.ready:
            raise LookupError(f"only {len(self.exchanges)} clock exchanges so far (need {START_EXCHANGES})")
        if self._fit is None:
            self._fit = self._compute()
        return self._fit

    def _compute(self) -> ClockFit:
        """Theil-Sen drift over the bins of the last :data:`FIT_SECONDS`, and the median offset
        of the bins of the last :data:`OFFSET_SECONDS`: Chrome's output timestamp, which the
        page's answers rest on, now and then steps by its 10 ms audio buffer for a few seconds,
        and a median lets such a minority pass."""
        last = self.exchanges[-1].remote
        keys = sorted(k for k in self._bins if (k + 1) * self.bin_seconds >= last - self.fit_seconds)
        chosen = [self._bins[k] for k in keys]
        if len(chosen) < 3:
            best = sorted(self.exchanges[-400:], key=lambda e: e.rtt)[:5]
            anchor = best[0].remote
            return ClockFit(float(np.median([e.offset for e in best])), 0.0, anchor, best[0].rtt)
        remote = np.array([e.remote for e in chosen])
        offsets = np.array([e.offset for e in chosen])
        rtts = np.array([e.rtt for e in chosen])
        anchor = float(remote[-1])
        drift = 0.0
        if remote[-1] - remote[0] >= self.min_drift_span:
            drift = robust_slope(remote - anchor, offsets)
            if abs(drift) > MAX_DRIFT:
                drift = 0.0
        recent = remote >= last - OFFSET_SECONDS
        offset = float(np.median((offsets - drift * (remote - anchor))[recent]))
        return ClockFit(offset, drift, anchor, float(rtts.min()))

    def anchored(self, anchor: float) -> ClockFit:
        """The mapping of a stream placed from phone time ``anchor`` on: the drift fitted over
        the last :data:`FIT_SECONDS`, and the offset at ``anchor`` from the exchanges with the
        shortest round trips (the best quarter) between :data:`ANCHOR_BEFORE` s before and
        :data:`ANCHOR_AFTER` s after it, their median, each moved to ``anchor`` by the drift. So
        the offset settles within a minute and then stays: later steps of the answers do not
        move a stream that is placed by its sample count."""
        drift = self.fit().drift
        near = [e for e in self.exchanges if anchor - ANCHOR_BEFORE <= e.remote <= anchor + ANCHOR_AFTER]
        if len(near) < START_EXCHANGES:
            near = self.exchanges[-20:]
        rtts = np.array([e.rtt for e in near])
        best = [e for e, r in zip(near, rtts) if r <= np.percentile(rtts, 25)]
        offset = float(np.median([e.offset - drift * (e.remote - anchor) for e in best]))
        return ClockFit(offset, drift, anchor, float(rtts.min()))

    def recent_offset(self, seconds: float) -> float:
        """Host minus phone seconds now, from the best exchange of each bin of the last
        ``seconds`` of phone time (their median, moved to the last exchange with the fitted
        drift): what the clock says now, to check a stream's placement against."""
        fit = self.fit()
        last = self.exchanges[-1].remote
        chosen = [e for k, e in self._bins.items() if (k + 1) * self.bin_seconds >= last - seconds]
        if len(chosen) < 2:
            chosen = sorted(self.exchanges[-20:], key=lambda e: e.rtt)[:3]
        return float(np.median([e.offset + fit.drift * (e.remote - last) for e in chosen]))

    def jitter(self) -> float:
        """Seconds: median round trip minus the shortest (how much single exchanges wander)."""
        if not self.exchanges:
            return 0.0
        rtts = np.array([e.rtt for e in self.exchanges])
        return float(np.median(rtts) - rtts.min())


def theil_sen(x: np.ndarray, y: np.ndarray) -> float:
    """The median of the slopes between all pairs of points: one bin whose best exchange was
    still slow (a Wi-Fi hiccup through a whole bin) cannot tilt it."""
    i, j = np.triu_indices(x.shape[0], k=1)
    dx = x[j] - x[i]
    keep = dx > 0
    return float(np.median((y[j] - y[i])[keep] / dx[keep])) if np.any(keep) else 0.0


def segmented_slope(x: np.ndarray, y: np.ndarray, step: float = STEP) -> float:
    """Theil-Sen over pairs of points between which ``y`` did not step: the series is cut
    wherever neighbours differ by more than ``step``, and slopes are taken only within the
    pieces (pieces of one point give none). A step of 40 ms in the middle of five minutes would
    tilt a plain Theil-Sen fit by hundreds of ppm; here it cuts the series in two."""
    order = np.argsort(x)
    x, y = x[order], y[order]
    piece = np.concatenate([[0], np.cumsum(np.abs(np.diff(y)) > step)])
    i, j = np.triu_indices(x.shape[0], k=1)
    keep = (piece[i] == piece[j]) & (x[j] - x[i] > 0)
    if not np.any(keep):
        return 0.0
    return float(np.median((y[j] - y[i])[keep] / (x[j] - x[i])[keep]))


def robust_slope(x: np.ndarray, y: np.ndarray, step: float = STEP, band: float = BAND) -> float:
    """The drift of offsets that step now and then: a first slope from :func:`segmented_slope`
    (which no step can tilt, but which only sees the short stretches between steps), then
    Theil-Sen over the bins on the main level (within ``band`` of the median after that slope),
    twice: every bin off by a step is left out, and the slope gets the whole span back. Measured on
    simulated answers (10 ms steps every 20 s): 300 ppm came out 279 ppm from the segments alone,
    within 5 ppm after this."""
    slope = segmented_slope(x, y, step)
    for _ in range(2):
        residual = y - slope * x
        keep = np.abs(residual - np.median(residual)) < band
        if np.count_nonzero(keep) < 3:
            break
        slope = theil_sen(x[keep], y[keep])
    return slope
