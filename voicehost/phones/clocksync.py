"""Mapping a phone's audio clock onto the session clock from ping-pong exchanges.

The host sends a ping at ``sent`` and gets the pong at ``received`` (both on the host's clock);
the pong carries the phone's audio-context time ``remote`` at the moment it answered. With a
symmetric network, ``remote`` was read at the midpoint, so ``midpoint - remote`` is the clock
offset, wrong by at most half the round trip. Only exchanges with a short round trip are
trusted (Wi-Fi holds single packets back for tens of milliseconds: those are the ones with long
round trips), and the offset is fitted as a straight line of the phone's time, so that a phone
whose crystal runs 30 ppm fast (1.8 ms a minute) stays on the session clock over a long game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BIN_SECONDS = 5.0
"""Seconds of phone time per bin: the fit uses each bin's exchange with the shortest round trip."""
FIT_SECONDS = 300.0
"""Seconds of phone time the drift fit looks back over."""
OFFSET_SECONDS = 60.0
"""Seconds of phone time whose bins give the offset (their median)."""
MIN_DRIFT_SPAN = 60.0
"""Seconds of phone time the kept exchanges must span before a drift is fitted (before that the
offset alone is used: the round-trip error would swamp a drift estimated over a few seconds)."""
MAX_DRIFT = 200e-6
"""A fitted drift beyond ±200 ppm is not a crystal (those are within ±100 ppm) but a clock that
jumped: the offset alone is used then."""
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

    def __init__(self, *, bin_seconds: float = BIN_SECONDS, fit_seconds: float = FIT_SECONDS,
                 min_drift_span: float = MIN_DRIFT_SPAN) -> None:
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
            drift = theil_sen(remote - anchor, offsets)
            if abs(drift) > MAX_DRIFT:
                drift = 0.0
        recent = remote >= last - OFFSET_SECONDS
        offset = float(np.median((offsets - drift * (remote - anchor))[recent]))
        return ClockFit(offset, drift, anchor, float(rtts.min()))

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
