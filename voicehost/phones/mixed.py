"""A table of phones and microphones: the two live sources read as one.

A table config may seat some players on this machine's microphones and others on their phones
(``input = "phone"``). Both sources place their blocks on the same session frame axis from the
same session clock (the microphones by their ADC times, the phones by their clock exchanges),
so the listener can take them side by side; the click train at the start of the game puts the
phones where the microphones are (:func:`voicehost.phones.calibrate.align`).
"""

from __future__ import annotations

import time
from typing import Protocol, Sequence

from voicehost.listen.messages import AudioBlock, SeatName
from voicehost.listen.sources import DeviceChange, DeviceStats


class Source(Protocol):
    """What the live session reads: :class:`~voicehost.listen.sources.LiveSource` and
    :class:`~voicehost.phones.source.PhoneSource` both are one."""

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Every seat, in order."""

    @property
    def stats(self) -> list[DeviceStats]:
        """Overflows and outages so far, device by device."""

    @property
    def lost(self) -> tuple[SeatName, ...]:
        """Seats whose device is lost now."""

    def read(self, timeout: float = 0.5) -> list[AudioBlock]:
        """Blocks since the last call (waits up to ``timeout`` s for the first)."""

    def changes(self) -> list[DeviceChange]:
        """Devices lost or back since the last call."""

    def begin(self) -> None:
        """Forget what was captured so far (the session clock was just restarted)."""

    def stop(self) -> None:
        """Close what this source opened."""


POLL = 0.005
"""Seconds between looks at the sources while nothing has come (as each source does alone)."""


class MixedSource:
    """Several live sources read as one, in the order given."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = tuple(sources)

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Every source's seats, source by source."""
        return tuple(seat for source in self.sources for seat in source.seats)

    @property
    def stats(self) -> list[DeviceStats]:
        """Every source's device stats."""
        return [stats for source in self.sources for stats in source.stats]

    @property
    def lost(self) -> tuple[SeatName, ...]:
        """Seats lost in any source."""
        return tuple(seat for source in self.sources for seat in source.lost)

    def read(self, timeout: float = 0.5) -> list[AudioBlock]:
        """What every source has (waits up to ``timeout`` s for the first block of any)."""
        deadline = time.monotonic() + timeout
        while True:
            out = [block for source in self.sources for block in source.read(0.0)]
            if out or time.monotonic() >= deadline:
                return out
            time.sleep(POLL)

    def changes(self) -> list[DeviceChange]:
        """Every source's changes, source by source."""
        return [change for source in self.sources for change in source.changes()]

    def begin(self) -> None:
        """Begin every source at the same session time."""
        for source in self.sources:
            source.begin()

    def stop(self) -> None:
        """Stop every source (each is stopped even when one before it fails)."""
        if not self.sources:
            return
        try:
            self.sources[0].stop()
        finally:
            MixedSource(self.sources[1:]).stop()
