"""Phones beside microphones, and a phone measured again when it comes back.

The click arithmetic (:func:`align`) and the holding of a phone's return until it is measured
(:class:`RejoinCalibration`) are tested on synthetic audio; the whole browser path — a phone
whose chromium is closed mid-session and a new one opened, its fake microphone's loop then at a
new phase — in headless chromium.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voicehost.listen.messages import AudioBlock
from voicehost.listen.sources import DeviceChange, DeviceStats
from voicehost.phones.calibrate import TrainHeard, align, click_train
from voicehost.phones.mixed import MixedSource
from voicehost.phones.rejoin import RejoinCalibration

sys.path.insert(0, str(Path(__file__).resolve().parent))
from phones_helpers import RATE, Phone, SilentSpeaker, loop_wav, race_fixture, settle  # noqa: E402

# ---- lining the clicks up ---------------------------------------------------------------------


def heard(**delays: list[float | None]) -> TrainHeard:
    """A train of len(values) clicks heard with these per-click delays (seconds) per seat."""
    return TrainHeard(10.0, dict(delays), {})


def test_phones_line_up_with_the_microphones_less_their_latency() -> None:
    """A microphone seat's clicks minus its table latency are the level: a phone hearing 62 ms
    later moves 62 ms, one hearing 3 ms sooner moves back 3 ms; a click late on the speaker for
    everybody (the third) changes nothing."""
    late = [0.0, 0.0, 0.004, 0.0]
    result = align(
        heard(
            Anna=[0.020 + x for x in late],
            Dora=[0.031 + x for x in late],
            Ben=[0.082 + x for x in late],
            Cem=[0.017 + x for x in late],
        ),
        ("Ben", "Cem"),
        {"Anna": 0.0, "Dora": 0.011},
    )
    assert result.reference == ("Anna", "Dora")
    assert result.moves == pytest.approx({"Ben": 0.062, "Cem": -0.003})
    assert result.spread == pytest.approx({"Ben": 0.0, "Cem": 0.0}, abs=1e-12)
    assert result.failed == {}


def test_without_a_reference_the_earliest_phone_keeps_its_place() -> None:
    """Phones alone (or whose reference heard nothing) are lined up with the earliest of them;
    a phone that heard fewer than half the clicks is named as failed, not moved."""
    result = align(
        heard(
            Anna=[0.050, 0.052, 0.051, 0.050],
            Ben=[0.090, 0.093, 0.091, 0.090],
            Cem=[None, None, None, 0.07],
            Mic=[None, None, None, None],
        ),
        ("Anna", "Ben", "Cem"),
        {"Mic": 0.0},
    )
    assert result.reference == ()
    assert result.moves == pytest.approx({"Anna": 0.0, "Ben": 0.040}, abs=0.0006)
    assert set(result.failed) == {"Cem"} and "heard only 1 of 4 clicks" in result.failed["Cem"]


# ---- two sources as one -----------------------------------------------------------------------


class FakeSource:
    """A source with given blocks and changes, which may fail to stop."""

    def __init__(
        self, seats: tuple[str, ...], blocks: list[AudioBlock], changes: list[DeviceChange], *, fails: bool = False
    ) -> None:
        self._seats, self.blocks, self._changes, self.fails = seats, blocks, changes, fails
        self.begun = self.stopped = False

    @property
    def seats(self) -> tuple[str, ...]:
        return self._seats

    @property
    def stats(self) -> list[DeviceStats]:
        return [DeviceStats(self._seats[0], self._seats)]

    @property
    def lost(self) -> tuple[str, ...]:
        return ()

    def read(self, timeout: float = 0.5) -> list[AudioBlock]:
        blocks, self.blocks = self.blocks, []
        return blocks

    def changes(self) -> list[DeviceChange]:
        changes, self._changes = self._changes, []
        return changes

    def begin(self) -> None:
        self.begun = True

    def stop(self) -> None:
        self.stopped = True
        if self.fails:
            raise RuntimeError("stream would not close")


def block(seats: tuple[str, ...], start: int, samples: np.ndarray) -> AudioBlock:
    """``samples`` (frames, seats) at session frame ``start``."""
    column = samples.reshape(samples.shape[0], -1).astype(np.float32)
    return AudioBlock(column, start, RATE, capture_time=start / RATE, seats=seats)


def test_mixed_source_reads_both_and_stops_both() -> None:
    """Microphones and phones read as one source: blocks, seats, changes and stats of both; a
    microphone stream that fails to close still lets the phones be stopped."""
    mics = FakeSource(
        ("Anna", "Dora"),
        [block(("Anna", "Dora"), 0, np.zeros((320, 2)))],
        [DeviceChange("vh_mics", ("Anna", "Dora"), True, 1.0)],
        fails=True,
    )
    phones = FakeSource(("Ben",), [block(("Ben",), 0, np.zeros(320))], [])
    mixed = MixedSource([mics, phones])
    assert mixed.seats == ("Anna", "Dora", "Ben")
    assert [b.seats for b in mixed.read(0.1)] == [("Anna", "Dora"), ("Ben",)]
    assert mixed.read(0.0) == []
    assert [c.device for c in mixed.changes()] == ["vh_mics"]
    assert [s.device for s in mixed.stats] == ["Anna", "Ben"]
    mixed.begin()
    assert mics.begun and phones.begun
    with pytest.raises(RuntimeError):
        mixed.stop()
    assert mics.stopped and phones.stopped


# ---- a phone that comes back ------------------------------------------------------------------


class FakePhones:
    """Stands for PhoneSource: seats, shifts and the rate."""

    rate = RATE

    def __init__(self, seats: tuple[str, ...], shifts: dict[str, float]) -> None:
        self.seats = seats
        self.shifts = dict(shifts)

    def set_shifts(self, shifts: dict[str, float]) -> None:
        self.shifts.update(shifts)


class FixedSpeaker:
    """A table speaker whose clicks always leave at session time ``at``."""

    rate = RATE

    def __init__(self, at: float) -> None:
        self.at = at
        self.played = 0

    def play(self, samples: np.ndarray) -> float:
        self.played += 1
        return self.at


def scene(delays: dict[str, float], played: float, seconds: float) -> list[AudioBlock]:
    """Each seat's audio from 0 to ``seconds``: faint noise and the click train ``delays[seat]``
    after ``played``."""
    train = click_train(RATE).samples * 0.3
    rng = np.random.default_rng(4)
    out = []
    for seat, delay in delays.items():
        x = (rng.standard_normal(int(seconds * RATE)) * 1e-3).astype(np.float32)
        at = int(round((played + delay) * RATE))
        x[at : at + train.shape[0]] += train
        out.append(block((seat,), 0, x))
    return out


def changes_until(rejoin: RejoinCalibration, source: FakeSource, timeout: float = 20.0) -> list[DeviceChange]:
    """Read and ask for changes until some come through."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rejoin.read(0.0)
        got = rejoin.changes()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("no change came through")


def test_a_phone_that_comes_back_is_measured_before_its_seat_is_back() -> None:
    """Ben's phone is back: the news waits until the clicks were timed on it and on Anna's
    (who stayed); Ben's shift then changes by how much later he hears than Anna (here 37 ms
    more than before), and only then is he back. Anna's shift is untouched."""
    phones = FakePhones(("Anna", "Ben"), {"Anna": 0.0, "Ben": 0.020})
    said: list[tuple[str, ...]] = []
    source = FakeSource(("Anna", "Ben"), [], [DeviceChange("Ben's phone", ("Ben",), False, 3.0)])
    speaker = FixedSpeaker(1.0)
    rejoin = RejoinCalibration(
        source,
        phones,
        speaker,
        search=(-0.05, 1.0),
        settle=0.0,  # type: ignore[arg-type]
        announce=said.append,
    )
    assert rejoin.changes() == []
    assert rejoin.lost == ("Ben",)
    source.blocks = scene({"Anna": 0.080, "Ben": 0.117}, 1.0, 5.0)
    back = changes_until(rejoin, source)
    assert [(c.seats, c.lost) for c in back] == [(("Ben",), False)]
    assert said == [("Ben",)] and speaker.played == 1
    assert phones.shifts["Ben"] == pytest.approx(0.020 + 0.037, abs=0.0005)
    assert phones.shifts["Anna"] == 0.0
    assert rejoin.lost == ()
    assert [seat for seat, _ in rejoin.measured] == ["Ben"]


def test_a_phone_lost_again_while_measured_stays_lost() -> None:
    """Back, then lost again before the clicks were timed: the loss goes through, the return
    never does, and the shift is not changed."""
    phones = FakePhones(("Anna", "Ben"), {"Anna": 0.0, "Ben": 0.020})
    source = FakeSource(("Anna", "Ben"), [], [DeviceChange("Ben's phone", ("Ben",), False, 3.0)])
    rejoin = RejoinCalibration(source, phones, FixedSpeaker(1.0), search=(-0.05, 1.0), settle=0.0)  # type: ignore[arg-type]
    assert rejoin.changes() == []
    source._changes = [DeviceChange("Ben's phone", ("Ben",), True, 3.5, "no sound for 1.5 s")]
    assert [(c.seats, c.lost) for c in rejoin.changes()] == [(("Ben",), True)]
    source.blocks = scene({"Anna": 0.080, "Ben": 0.117}, 1.0, 5.0)
    deadline = time.monotonic() + 20.0
    while rejoin._measuring is not None and time.monotonic() < deadline:
        rejoin.read(0.0)
        assert rejoin.changes() == []
        time.sleep(0.02)
    assert rejoin._measuring is None
    assert phones.shifts["Ben"] == 0.020 and rejoin.measured == []


def test_a_phone_is_not_moved_when_the_seats_that_stayed_heard_nothing() -> None:
    """Anna's phone (which stayed) heard no clicks: the train is played again, up to three times
    in all; Ben still cannot be compared with anybody, so he keeps his shift, and his return
    still goes through (the game must not wait for ever)."""
    phones = FakePhones(("Anna", "Ben"), {"Anna": 0.0, "Ben": 0.020})
    source = FakeSource(("Anna", "Ben"), [], [DeviceChange("Ben's phone", ("Ben",), False, 3.0)])
    log: list[str] = []
    speaker = FixedSpeaker(1.0)
    rejoin = RejoinCalibration(
        source,
        phones,
        speaker,
        search=(-0.05, 1.0),
        settle=0.0,  # type: ignore[arg-type]
        log=log.append,
    )
    assert rejoin.changes() == []
    blocks = scene({"Anna": 0.080, "Ben": 0.117}, 1.0, 5.0)
    blocks[0] = block(("Anna",), 0, np.zeros(5 * RATE))
    source.blocks = blocks
    back = changes_until(rejoin, source)
    assert [(c.seats, c.lost) for c in back] == [(("Ben",), False)]
    assert phones.shifts["Ben"] == 0.020 and rejoin.measured == [("Ben", None)]
    assert any("none of the other seats heard the clicks" in line for line in log), log
    assert speaker.played == 3
    assert sum("playing them again" in line for line in log) == 2, log


def test_clicks_during_the_game_wait_for_the_host_to_finish_speaking() -> None:
    """SpeechClicks queues the train on the speech service after what the host is saying and
    returns when its first sample reached the speaker; the train reaches the table's sink whole."""
    from voicehost.clock import SimClock
    from voicehost.phones.rejoin import SpeechClicks
    from voicehost.speak.output import TABLE, RecordingSink
    from voicehost.speak.service import SpeechService
    from voicehost.speak.voice import EspeakVoice

    sink = RecordingSink(48000)
    service = SpeechService(EspeakVoice(), {TABLE: sink}, SimClock())
    said = service.say("Ben, your phone is back.")
    train = click_train(48000).samples
    start = SpeechClicks(service, 48000).play(train)
    assert said.span is not None and start == pytest.approx(said.span.end + service.gap)
    played = sink.placed[-1].samples
    assert played is not None and np.allclose(played, train, atol=1e-6)


# ---- in the browser ---------------------------------------------------------------------------


def _no_pulse() -> dict[str, str]:
    """Chromium on its own audio timer (see tests/test_phones.py)."""
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("PULSE")}


ONE_BUFFER = 0.022
"""Seconds two click timings of the same placement may differ by here: two of chromium's 10 ms
render buffers. On this 2-core machine, loaded by a benchmark, the two timings were 9.9-10.4 ms
apart in 6 of 12 recorded runs: one chromium lost a whole 10 ms render buffer in between (its
clock answers stepped with it, which the placement follows only beyond 40 ms,
voicehost.phones.source.REANCHOR), or once the other phone's line settled within its first
minute; in the other 6 they agreed within 2.3 ms. The clean-clone suite of 2026-12-02 found 14.2
ms (a buffer and a few ms more), hence two buffers; a wrong measurement is off by the new loop's
phase, 0.1-2.3 s."""


@pytest.mark.timeout(400)
def test_a_reopened_browser_is_measured_again(tmp_path: Path) -> None:
    """Two chromium phones play race2_close's scene in a loop; after the first clicks Ben's
    browser is closed and a new one opened, whose fake microphone loop starts at a new moment (as
    a reloaded page's capture path has a new delay). His return is held until the clicks were
    timed again, his shift changed by exactly what they showed, and clicks timed once more
    afterwards find the two phones together again (to within two buffers, see :data:`ONE_BUFFER`;
    left as it was, Ben would be off by his loop's new phase, hundreds of milliseconds to
    seconds). A run whose last check fails, or whose first clicks a just-started chromium heard too
    few of twice (a clean run of 2026-12-02: Ben 1 of 6), is run once more with new browsers (CI's
    loaded machine once found 61 ms: a chromium's fake microphone lost buffers while the other one
    started); the second must hold. That the clicks' timing gives a race's onsets within 10 ms of the truth is
    tests/test_phones.py's race through two browsers."""
    from voicehost.host.calibrate import SetupFailed

    try:
        apart, info = _reopen(tmp_path)
    except SetupFailed as error:  # a just-started chromium heard too few clicks twice: setup, as in the race test
        apart, info = float("inf"), error
    if apart >= ONE_BUFFER:
        again = tmp_path / "again"
        again.mkdir()
        apart, info = _reopen(again)
    assert apart < ONE_BUFFER, info


def _reopen(folder: Path) -> tuple[float, Any]:
    """One run of the scene above: every check but the last is asserted here; returns how far
    apart the last click timing found the two phones (seconds, modulo the loop) and what to show
    when that is too far."""
    from voicehost.clock import WallClock
    from voicehost.host.calibrate import SetupFailed
    from voicehost.phones.calibrate import SeatRecorder, measure_delays
    from voicehost.phones.server import PhoneServer
    from voicehost.phones.source import PhoneSource

    fixture = race_fixture("race2_close")
    seats = fixture.seats
    loop = max(loop_wav(fixture.tracks[s], folder / f"{s}.wav", seed=i + 1) for i, s in enumerate(seats))
    search = (-0.05, loop + 0.2)
    clock = WallClock()
    server = PhoneServer(seats, host="127.0.0.1", port=0).start()
    url = f"http://127.0.0.1:{server.port}/?join=1&name="
    phones = {s: Phone(url + s, folder / f"{s}.wav", _no_pulse()) for s in seats}
    log: list[str] = []

    def clicks(source: PhoneSource) -> dict[str, float]:
        recorder = SeatRecorder(source, seats, RATE).start()
        try:
            return {
                str(k): float(v)
                for k, v in measure_delays(recorder, SilentSpeaker(clock), search=search).offsets.offsets.items()
            }
        finally:
            recorder.stop()

    def first_clicks(source: PhoneSource) -> dict[str, float]:
        """The clicks before the game (and the check after); once more if a chromium heard none
        (seen once on the loaded machine: 0 of 6; this is the setup, not what is tested)."""
        try:
            return clicks(source)
        except SetupFailed:
            return clicks(source)

    try:
        assert server.wait_for(seats, 60.0), server.seated()
        source = PhoneSource(server, seats, clock).start(timeout=30.0)
        settle(source, log=log.append)
        source.set_shifts(first_clicks(source))
        # settle: a freshly started chromium's fake microphone drops whole 10 ms buffers (once
        # 0.9 s) while the browser is still starting on a loaded 2-core machine; a phone does not.
        rejoin = RejoinCalibration(source, source, SilentSpeaker(clock), search=search, log=log.append, settle=15.0)

        def run(seconds: float, until: Any = None) -> list[DeviceChange]:
            seen: list[DeviceChange] = []
            end = time.monotonic() + seconds
            while time.monotonic() < end and not (until is not None and until(seen)):
                rejoin.read(0.1)
                seen.extend(rejoin.changes())
            return seen

        run(2.0)
        before = dict(source.shifts)
        phones.pop("Ben").stop()
        seen = run(30.0, lambda seen: any(c.lost for c in seen))
        assert [(c.seats, c.lost) for c in seen] == [(("Ben",), True)], seen
        phones["Ben"] = Phone(url + "Ben", folder / "Ben.wav", _no_pulse())
        seen = run(90.0, lambda seen: seen)
        assert [(c.seats, c.lost) for c in seen] == [(("Ben",), False)], (seen, log)
        assert [seat for seat, _ in rejoin.measured] == ["Ben"], log
        move = rejoin.measured[0][1]
        assert move is not None, log
        assert source.shifts == pytest.approx({"Anna": before["Anna"], "Ben": before["Ben"] + move})
        after = first_clicks(source)
        stats = {x: (source.phone_stats(x).slewed, round(source.phone_stats(x).error * 1000, 1)) for x in seats}
        # The scenes loop: a click train found one loop later is the same placement.
        apart = abs(after["Anna"] - after["Ben"]) % loop
        return min(apart, loop - apart), (after, stats, log)
    finally:
        for phone in phones.values():
            phone.stop()
        server.stop()
