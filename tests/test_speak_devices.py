"""The speech service on real devices: PortAudio → the virtual PulseAudio table → its monitors.

Every measurement is taken from a recording of a sink's monitor, whose blocks carry PortAudio's
ADC times; both streams use the same PortAudio clock, so a sample in the recording has a time on
the session clock. On these null sinks the DAC times reported for playback match the recorded
times to within about 1 ms (measured while building this), so what the recordings show is what a
speaker would have played. The recording's ADC stamps jitter by up to ~10 ms from block to block
(the ALSA pulse plugin's latency estimate; ~22 ms seen under full load), so the recording's time base
is their median, and lost samples show as PortAudio's overflow flag or as a lasting step in the stamps.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Iterator

import numpy as np
import pytest

from voicehost.audio.devices import ChannelPlayer, find_device
from voicehost.clock import WallClock
from voicehost.speak.earcons import Earcon
from voicehost.speak.output import TABLE, DeviceSink, Route, SpeakingSpan, device_outputs, seat
from voicehost.speak.service import NoSuchOutput, SpeechService, TranscriptLine
from voicehost.speak.voice import EspeakVoice

RATE = 48000
AUDIBLE = 10 ** (-50 / 20)
"""A sample louder than -50 dBFS is audible (the null sinks' monitors are exactly 0 in silence)."""


class Recorder:
    """Records a monitor source; knows the session time of every sample."""

    def __init__(self, device: str, channels: int, clock: WallClock) -> None:
        import sounddevice as sd

        self.clock = clock
        self.blocks: list[tuple[float, np.ndarray]] = []
        self.overflows = 0
        self._lock = threading.Lock()
        self._stream = sd.InputStream(
            device=device, channels=channels, samplerate=RATE, dtype="float32", latency=0.05, callback=self._callback
        )

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        with self._lock:
            self.blocks.append((float(time_info.inputBufferAdcTime), indata.copy()))
            self.overflows += bool(status.input_overflow)

    def __enter__(self) -> "Recorder":
        self._stream.start()
        self.offset = self.clock.now() - float(self._stream.time)
        deadline = time.monotonic() + 5.0
        while not self.blocks:
            assert time.monotonic() < deadline, "the monitor recording did not start"
            time.sleep(0.01)
        # A fresh monitor stream first delivers a burst of blocks stamped with one ADC time;
        # keep only what comes after it, when blocks arrive at the pace of the audio.
        time.sleep(0.5)
        with self._lock:
            self.blocks.clear()
            self.overflows = 0
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.stop()
        self._stream.close()

    def recorded(self) -> float:
        """Seconds recorded so far."""
        with self._lock:
            return sum(b.shape[0] for _, b in self.blocks) / RATE

    def samples(self) -> tuple[float, np.ndarray]:
        """(session time of the first sample, samples (frames, channels)); checks continuity."""
        with self._lock:
            blocks = list(self.blocks)
        data = np.concatenate([b for _, b in blocks])
        adc = np.array([t for t, _ in blocks])
        before = np.concatenate([[0], np.cumsum([b.shape[0] for _, b in blocks])[:-1]]) / RATE
        lag = adc - before
        base = float(np.median(lag))
        half = lag.size // 2
        step = abs(float(np.median(lag[half:]) - np.median(lag[:half])))
        jitter = np.abs(lag - base)
        assert self.overflows == 0, f"the recording overflowed {self.overflows} times (samples lost)"
        assert step < 0.025, f"the recording's time stamps stepped by {step * 1000:.1f} ms (samples lost)"
        assert np.mean(jitter < 0.030) > 0.95, f"recording is not continuous (max jitter {jitter.max() * 1000:.1f} ms)"
        return base + self.offset, data

    def audible(self, channel: int = 0) -> tuple[float, float] | None:
        """Session times of the first and last audible sample on ``channel``."""
        t0, data = self.samples()
        loud = np.flatnonzero(np.abs(data[:, channel]) > AUDIBLE)
        if loud.size == 0:
            return None
        return t0 + loud[0] / RATE, t0 + (loud[-1] + 1) / RATE


@pytest.fixture(scope="module", autouse=True)
def sinks_kept_running(virtual_table: object) -> Iterator[None]:
    """Keep a silent stream on each sink: an idle null sink's monitor delivers audio irregularly
    (its ADC stamps drifted by up to 100 ms while another client started a stream), which would
    blur the timing measurements. A real sound card has no idle mode like that."""
    players = []
    for name in ("vh_table", "vh_phones"):
        device = find_device(name, output=True)
        assert device is not None
        players.append(ChannelPlayer(device).open())
    yield
    for player in players:
        player.close()


@pytest.fixture(scope="module")
def voice() -> EspeakVoice:
    """One espeak-ng voice for the module."""
    return EspeakVoice()


@pytest.fixture
def clock() -> WallClock:
    """A fresh session clock."""
    return WallClock()


@pytest.fixture
def table_service(
    voice: EspeakVoice, clock: WallClock, virtual_table: object
) -> Iterator[tuple[SpeechService, list[SpeakingSpan]]]:
    """A service speaking on the virtual table speaker, opened (stream flowing), spans collected."""
    spans: list[SpeakingSpan] = []
    outputs = device_outputs(clock, table="vh_table")
    with SpeechService(voice, outputs, clock, on_span=spans.append) as service:
        service.open()
        yield service, spans


def loud_window_start(samples: np.ndarray, rate: int, after: float, window: float = 0.25) -> float:
    """First time ≥ ``after`` s from which the next ``window`` s of speech is audible in ≥ 80% of 10 ms frames."""
    n = rate // 100
    frames = samples.shape[0] // n
    rms = np.sqrt(np.mean(samples[: frames * n].reshape(frames, n) ** 2, axis=1))
    loud = rms > 10 ** (-35 / 20)
    span = int(window * 100)
    for i in range(int(after * 100), frames - span):
        if loud[i : i + span].mean() >= 0.8:
            return i / 100
    raise AssertionError("no sustained speech in the sentence")


def test_private_utterance_reaches_only_that_seat(voice: EspeakVoice, clock: WallClock, virtual_table: object) -> None:
    """A private utterance to seat 2 arrives on channel 2 of the earphones, not on seat 1's, other
    channels or the table."""
    outputs = device_outputs(clock, table="vh_table", phones="vh_phones", seats=2)
    with SpeechService(voice, outputs, clock) as service:
        service.open()
        with Recorder("vh_phones_monitor", 8, clock) as phones, Recorder("vh_table_monitor", 1, clock) as table:
            spoken = service.say("Your card is the pig. Keep it secret.", to=seat(2))
            assert spoken.wait(15) and spoken.error is None
            time.sleep(0.2)
    _, data = phones.samples()
    energy = np.sqrt(np.mean(data**2, axis=0))
    assert energy[1] > 0.01, energy
    assert energy[0] < energy[1] / 1000, energy
    assert all(energy[k] < energy[1] / 1000 for k in range(2, 8)), energy
    assert table.audible() is None
    assert spoken.span is not None and spoken.span.route == seat(2)


def test_private_speech_to_an_unconnected_seat_is_refused(
    voice: EspeakVoice, clock: WallClock, virtual_table: object
) -> None:
    """Speech for a seat without an earphone raises instead of being said aloud at the table."""
    outputs = device_outputs(clock, table="vh_table", phones="vh_phones", seats=2)
    with SpeechService(voice, outputs, clock) as service:
        with Recorder("vh_table_monitor", 1, clock) as table:
            with pytest.raises(NoSuchOutput, match="seat 3"):
                service.say("Your card is the cat.", to=seat(3))
            time.sleep(0.3)
    assert table.audible() is None


def test_interrupt_silences_the_speaker_within_100_ms(
    table_service: tuple[SpeechService, list[SpeakingSpan]], clock: WallClock
) -> None:
    """Barge-in: from the interrupt call to the last audible sample recorded on the table's monitor
    ≤ 100 ms (output latency included)."""
    service, spans = table_service
    text = "Short-statured circus artists have influenced my family planning, said the ringmaster slowly."
    service.warm([text])
    rendered = service._render(text, service.settings)
    cut_at = loud_window_start(rendered.samples, rendered.rate, after=1.0)
    with Recorder("vh_table_monitor", 1, clock) as rec:
        spoken = service.say(text)
        deadline = time.monotonic() + 10
        while spoken.span is None:
            assert time.monotonic() < deadline
            time.sleep(0.002)
        clock.sleep(spoken.span.start + cut_at - clock.now())
        called = clock.now()
        silent = service.interrupt()
        time.sleep(0.4)
    heard = rec.audible()
    assert heard is not None
    stop_latency = heard[1] - called
    print(
        f"interrupt → last audible sample: {stop_latency * 1000:.1f} ms; "
        f"published end − call: {(silent - called) * 1000:.1f} ms"
    )
    assert stop_latency <= 0.100
    assert heard[1] > called - 0.05  # it was still speaking when interrupted (the measure means something)
    final = spoken.span
    assert final is not None and final.interrupted and final.final
    assert abs(final.end - heard[1]) <= 0.05
    assert final.duration < rendered.duration - 0.2


def test_published_spans_match_what_the_speaker_played(
    table_service: tuple[SpeechService, list[SpeakingSpan]], clock: WallClock
) -> None:
    """Spans of speech and of an earcon agree with the audible sound on the table's monitor within ±50 ms."""
    service, spans = table_service
    with Recorder("vh_table_monitor", 1, clock) as rec:
        sentence = service.say("Five pigs are showing. Who shouts first?")
        assert sentence.wait(15)
        time.sleep(0.5)
        sound = service.earcon(Earcon.RACE_OPEN)
        assert sound.wait(15)
        time.sleep(0.3)
    t0, data = rec.samples()
    for spoken in (sentence, sound):
        span = spoken.span
        assert span is not None and span.final and not span.interrupted
        first = max(0, int((span.start - 0.3 - t0) * RATE))
        last = int((span.end + 0.3 - t0) * RATE)
        loud = np.flatnonzero(np.abs(data[first:last, 0]) > AUDIBLE)
        heard = (t0 + (first + loud[0]) / RATE, t0 + (first + loud[-1] + 1) / RATE)
        print(
            f"{span.text[:30]!r}: start {(heard[0] - span.start) * 1000:+.1f} ms, "
            f"end {(heard[1] - span.end) * 1000:+.1f} ms"
        )
        assert abs(heard[0] - span.start) <= 0.05
        assert abs(heard[1] - span.end) <= 0.05
    provisional = [s for s in spans if s.id == sentence.id and not s.final]
    assert provisional and provisional[0].start == sentence.span.start  # type: ignore[union-attr]


def test_queue_plays_in_order_without_overlap(table_service: tuple[SpeechService, list[SpeakingSpan]]) -> None:
    """Queued utterances on one output play one after another, in order, with a pause between them."""
    service, _ = table_service
    items = [service.say("One."), service.earcon(Earcon.POINT), service.say("Two.")]
    assert service.wait_idle(20)
    spans = [s.span for s in items]
    assert all(s is not None and s.final for s in spans)
    for before, after in zip(spans, spans[1:]):
        assert before is not None and after is not None
        assert after.start >= before.end + service.gap - 0.02


def test_transcript_gets_live_utterances_including_cut_ones(
    voice: EspeakVoice, clock: WallClock, virtual_table: object
) -> None:
    """Every queued utterance reaches the transcript, also one dropped by a barge-in before it sounded."""
    lines: list[TranscriptLine] = []
    with SpeechService(voice, device_outputs(clock, table="vh_table"), clock, transcript=lines.append) as service:
        service.open()
        first = service.say("This is a rather long announcement about the rules of the game.")
        second = service.say("And this one never gets said.")
        deadline = time.monotonic() + 10
        while first.span is None and time.monotonic() < deadline:  # barge in once the first is sounding
            time.sleep(0.01)
        assert first.span is not None and not first.span.final, (first.span, first.error)
        service.earcon(Earcon.RACE_OPEN, barge_in=True)
        assert service.wait_idle(10)
    assert [line.text for line in lines] == [first.text, second.text, "(sound: race open)"]
    assert second.dropped and second.span is None
    assert first.span is not None and first.span.interrupted, (first.span, first.dropped, first.error)


def test_channel_player_routes_and_reports_dac_times(virtual_table: object) -> None:
    """ChannelPlayer plays a buffer on one channel of an 8-channel sink and reports when it sounded."""
    device = find_device("vh_phones", output=True)
    assert device is not None
    clock = WallClock()
    tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(int(0.3 * 44100)) / 44100)).astype(np.float32)
    with ChannelPlayer(device, 5, rate=44100) as player, Recorder("vh_phones_monitor", 8, clock) as rec:
        offset = clock.now() - player.time()
        handle = player.play(tone)
        assert handle.wait(5)
        time.sleep(0.2)
    _, data = rec.samples()
    energy = np.sqrt(np.mean(data**2, axis=0))
    assert energy[5] > 0.05 and max(np.delete(energy, 5)) < energy[5] / 1000
    heard = rec.audible(5)
    assert heard is not None and handle.first_dac is not None and handle.end_dac is not None
    assert abs(heard[0] - (handle.first_dac + offset)) < 0.02
    assert abs(heard[1] - (handle.end_dac + offset)) < 0.02


def test_device_sink_names_its_channel(virtual_table: object) -> None:
    """A device sink describes itself by device name and 1-based channel (used in `say` output)."""
    device = find_device("vh_phones", output=True)
    assert device is not None
    sink = DeviceSink(device, 1, WallClock())
    assert sink.name == "'vh_phones', channel 2"
    assert Route(2) == seat(2) and str(TABLE) == "table"


ALSA_COMPLAINT = """
import ctypes, sys
{prepare}
asound = ctypes.CDLL("libasound.so.2")
pcm = ctypes.c_void_p()
assert asound.snd_pcm_open(ctypes.byref(pcm), b"voicehost_no_such_pcm", 0, 0) < 0
"""


@pytest.mark.parametrize("through_voicehost", [False, True])
def test_alsa_lines_stay_off_the_terminal_once_sounddevice_is_loaded(through_voicehost: bool) -> None:
    """ALSA prints its own complaints to stderr ("ALSA lib pcm.c:8570:(snd_pcm_recover) underrun
    occurred" when a busy machine starves the speaker); once voicehost has loaded sounddevice they
    stay off the players' terminal. Without voicehost the same call prints (the test can fail)."""
    import subprocess
    import sys

    load = "from voicehost.audio.devices import sounddevice_module; sounddevice_module()"
    prepare = load if through_voicehost else ""
    run = subprocess.run(
        [sys.executable, "-c", ALSA_COMPLAINT.format(prepare=prepare)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert ("ALSA lib" in run.stderr) is not through_voicehost, run.stderr
