"""The speech service on timeline sinks with a simulated clock: queues, barge-in, spans, transcript,
settings and cache — deterministic, no real-time waiting. Speech is real espeak-ng throughout."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile

from voicehost.clock import SimClock, WallClock
from voicehost.speak.cache import RenderCache, RenderKey
from voicehost.speak.earcons import Earcon, render_earcon
from voicehost.speak.output import TABLE, NullSink, RecordingSink, SpeakingSpan, WavSink, seat
from voicehost.speak.service import (
    ClockMismatch,
    Kind,
    NoSuchOutput,
    SpeechService,
    TextTranscript,
    TranscriptLine,
)
from voicehost.speak.voice import MAX_RATE, MIN_RATE, RATE_STEP, EspeakVoice

SENTENCE = "Short-statured circus artists have influenced my family planning."


@pytest.fixture(scope="module")
def voice() -> EspeakVoice:
    """One espeak-ng voice for the module."""
    return EspeakVoice()


def make(
    voice: EspeakVoice, *routes: int, **kwargs: object
) -> tuple[SpeechService, SimClock, dict[object, RecordingSink], list[TranscriptLine], list[SpeakingSpan]]:
    """A service on a SimClock with a recording sink for the table and for each given seat."""
    clock = SimClock()
    sinks: dict[object, RecordingSink] = {TABLE: RecordingSink()}
    sinks.update({seat(k): RecordingSink() for k in routes})
    lines: list[TranscriptLine] = []
    spans: list[SpeakingSpan] = []
    service = SpeechService(voice, sinks, clock, transcript=lines.append, on_span=spans.append, **kwargs)  # type: ignore[arg-type]
    return service, clock, sinks, lines, spans


def test_sim_clock_spans_follow_durations_without_waiting(voice: EspeakVoice) -> None:
    """With a SimClock, spans are computed from audio durations, back to back with the gap, and nothing waits."""
    service, clock, sinks, _, _ = make(voice)
    started = time.monotonic()
    a = service.say("Welcome to the table.")
    b = service.earcon(Earcon.YOUR_TURN)
    c = service.say(SENTENCE)
    assert time.monotonic() - started < 2.0
    spans = [x.span for x in (a, b, c)]
    assert all(s is not None for s in spans)
    assert spans[0].start == 0.0  # type: ignore[union-attr]
    for before, after in zip(spans, spans[1:]):
        assert after.start == pytest.approx(before.end + service.gap)  # type: ignore[union-attr]
    assert spans[1].duration == pytest.approx(render_earcon(Earcon.YOUR_TURN).duration)  # type: ignore[union-attr]
    assert clock.now() == 0.0  # queuing does not move the clock
    assert service.wait_idle()
    assert clock.now() == pytest.approx(spans[2].end)  # type: ignore[union-attr]
    assert not service.speaking_at(clock.now()) and service.speaking_at(spans[2].start + 0.1)  # type: ignore[union-attr]


def test_speech_after_a_pause_starts_at_the_current_time(voice: EspeakVoice) -> None:
    """An utterance queued after the clock moved past the last one starts at once, not at the old end."""
    service, clock, _, _, _ = make(voice)
    first = service.say("One.")
    clock.advance(10.0)
    second = service.say("Two.")
    assert first.span is not None and second.span is not None
    assert second.span.start == 10.0


def test_interrupt_cuts_the_current_and_drops_the_queued(voice: EspeakVoice) -> None:
    """Barge-in at t cuts the utterance sounding at t (end = t) and drops those queued after it."""
    service, clock, sinks, lines, published = make(voice)
    a = service.say(SENTENCE)
    b = service.say("This is never heard.")
    clock.advance(1.0)
    silent = service.interrupt()
    assert silent == 1.0
    assert a.span is not None and a.span.end == 1.0 and a.span.interrupted and not a.dropped
    assert b.dropped and b.span is not None and b.span.duration == 0.0
    assert [s.id for s in published] == [a.id, b.id, a.id, b.id]  # placed, then corrected
    audio = sinks[TABLE].mix()
    assert audio.duration == pytest.approx(1.0, abs=0.01)
    c = service.say("After the race.")
    assert c.span is not None and c.span.start >= 1.0
    assert len(lines) == 3


def test_interrupt_leaves_other_outputs_alone_when_named(voice: EspeakVoice) -> None:
    """Interrupting the table does not cut a private utterance on seat 2's earphone."""
    service, clock, _, _, _ = make(voice, 2)
    table = service.say(SENTENCE)
    private = service.say("Your card is the pig.", to=seat(2))
    clock.advance(0.5)
    service.interrupt(TABLE)
    assert table.span is not None and table.span.interrupted
    assert private.span is not None and not private.span.interrupted


def test_barge_in_earcon_starts_right_away(voice: EspeakVoice) -> None:
    """An earcon with barge_in starts at the interrupt time, not after the queued speech."""
    service, clock, _, _, _ = make(voice)
    service.say(SENTENCE)
    service.say(SENTENCE)
    clock.advance(2.0)
    race = service.earcon(Earcon.RACE_OPEN, barge_in=True)
    assert race.span is not None
    assert race.span.start == pytest.approx(2.0 + service.gap)


def test_private_speech_goes_only_to_that_seat(voice: EspeakVoice) -> None:
    """Speech routed to seat 2 lands in seat 2's sink only; a seat without an output is refused."""
    service, _, sinks, lines, _ = make(voice, 1, 2)
    service.say("Your card is the pig.", to=seat(2))
    assert len(sinks[seat(2)].placed) == 1
    assert not sinks[seat(1)].placed and not sinks[TABLE].placed
    with pytest.raises(NoSuchOutput, match="never sent to another output"):
        service.say("Secret", to=seat(3))
    assert not sinks[TABLE].placed and len(lines) == 1


def test_transcript_gets_every_utterance(voice: EspeakVoice) -> None:
    """Every utterance — table, private, earcon, interrupted — reaches the transcript, in order, with its route."""
    service, clock, _, lines, _ = make(voice, 2)
    service.say("Welcome.")
    service.say("Your card is the pig.", to=seat(2))
    service.earcon(Earcon.POINT)
    service.say(SENTENCE)
    clock.advance(0.3)
    service.interrupt()
    service.say("The race is open!")
    assert [(line.text, line.route, line.kind) for line in lines] == [
        ("Welcome.", TABLE, Kind.SPEECH),
        ("Your card is the pig.", seat(2), Kind.SPEECH),
        ("(sound: point)", TABLE, Kind.EARCON),
        (SENTENCE, TABLE, Kind.SPEECH),
        ("The race is open!", TABLE, Kind.SPEECH),
    ]
    assert lines[-1].t == pytest.approx(0.3)


def test_text_transcript_hides_private_lines_unless_asked() -> None:
    """The terminal transcript shows that seat 2 got a private message, not its content (unless show_private)."""
    out = io.StringIO()
    shared = TextTranscript(out)
    shared(TranscriptLine(1.5, TABLE, "Welcome.", Kind.SPEECH))
    shared(TranscriptLine(2.0, seat(2), "Your card is the pig.", Kind.SPEECH))
    text = out.getvalue()
    assert "Welcome." in text and "pig" not in text and "seat 2: (private)" in text
    own = io.StringIO()
    TextTranscript(own, show_private=True)(TranscriptLine(2.0, seat(2), "Your card is the pig.", Kind.SPEECH))
    assert "pig" in own.getvalue()


def test_cached_renders_are_reused(voice: EspeakVoice) -> None:
    """The second time a phrase is said at the same voice and rate, the cached buffer is played (no new render)."""
    service, _, sinks, _, _ = make(voice)
    service.say("Your turn, Anna.")
    service.say("Your turn, Anna.")
    stats = service.cache.stats()
    assert (stats.hits, stats.misses, stats.entries) == (1, 1, 1)
    first, second = sinks[TABLE].placed
    assert first.samples is second.samples or np.array_equal(first.samples, second.samples)  # type: ignore[arg-type]
    service.slower()
    service.say("Your turn, Anna.")
    assert service.cache.stats().misses == 2  # a new rate is a new rendering


def test_slower_and_faster_change_what_follows(voice: EspeakVoice) -> None:
    """'Slower' lengthens the next utterance, 'faster' shortens it; rates stay within espeak-ng's range."""
    service, _, _, _, _ = make(voice)
    normal = service.say(SENTENCE)
    for _ in range(3):
        service.slower()
    slow = service.say(SENTENCE)
    assert service.settings.rate == 175 - 3 * RATE_STEP
    for _ in range(8):
        service.faster()
    fast = service.say(SENTENCE)
    durations = [x.span.duration for x in (normal, slow, fast)]  # type: ignore[union-attr]
    assert durations[1] > 1.3 * durations[0] > 1.3 * 1.3 * durations[2]
    for _ in range(40):
        service.faster()
    assert service.settings.rate == MAX_RATE
    for _ in range(40):
        service.slower()
    assert service.settings.rate == MIN_RATE


def test_voice_can_be_changed_at_run_time(voice: EspeakVoice) -> None:
    """set_voice switches the voice for later utterances and is part of the cache key."""
    service, _, sinks, _, _ = make(voice)
    service.say("Bonjour")
    info = service.set_voice("fr")
    service.say("Bonjour")
    assert info.id != voice.voice.id and service.settings.voice == info
    assert service.cache.stats().misses == 2
    a, b = sinks[TABLE].placed
    assert a.samples is not None and b.samples is not None
    assert a.samples.shape != b.samples.shape or not np.allclose(a.samples, b.samples)


def test_wav_sink_writes_the_session_timeline(voice: EspeakVoice, tmp_path: Path) -> None:
    """A WAV sink writes sounds at their session times, silences between them included."""
    path = tmp_path / "session.wav"
    clock = SimClock()
    with SpeechService(voice, {TABLE: WavSink(path)}, clock) as service:
        service.earcon(Earcon.POINT)
        clock.advance(2.0)
        later = service.say("Two seconds later.")
    samples, rate = soundfile.read(path, dtype="float32")
    assert later.span is not None
    assert len(samples) / rate == pytest.approx(later.span.end, abs=0.01)
    gap = samples[int(0.6 * rate) : int(1.9 * rate)]
    assert np.abs(gap).max() == 0.0
    assert np.abs(samples[: int(0.4 * rate)]).max() > 0.3
    assert np.abs(samples[int(2.1 * rate) :]).max() > 0.1


def test_null_sink_keeps_spans_only(voice: EspeakVoice) -> None:
    """A null sink computes spans without keeping audio (scripted games that only need the timing)."""
    sink = NullSink()
    service = SpeechService(voice, {TABLE: sink}, SimClock())
    spoken = service.say("Only the timing matters.")
    assert spoken.span is not None and spoken.span.duration > 0.5
    assert sink.placed[0].samples is None and sink.mix().frames == 0


def test_same_script_gives_the_same_spans(voice: EspeakVoice) -> None:
    """Replaying the same script on a SimClock gives identical spans (deterministic replays)."""

    def script() -> list[tuple[float, float]]:
        service, clock, _, _, _ = make(voice)
        service.say("Welcome.")
        service.earcon(Earcon.MISTAKE)
        clock.advance(0.7)
        service.interrupt()
        service.say(SENTENCE)
        return [(s.start, s.end) for s in service.spans()]

    assert script() == script()


def test_a_simulated_clock_cannot_drive_a_device(voice: EspeakVoice, virtual_table: object) -> None:
    """Combining a SimClock with a sound device is refused (it would play in real time with fake times)."""
    from voicehost.speak.output import device_outputs

    outputs = device_outputs(WallClock(), table="vh_table")
    try:
        with pytest.raises(ClockMismatch):
            SpeechService(voice, outputs, SimClock())
    finally:
        for sink in outputs.values():
            sink.close()


def test_empty_text_is_refused(voice: EspeakVoice) -> None:
    """Saying nothing is an input error, and nothing reaches the transcript."""
    service, _, _, lines, _ = make(voice)
    with pytest.raises(ValueError, match="empty"):
        service.say("   ")
    assert lines == []


def test_warm_fills_the_cache(voice: EspeakVoice) -> None:
    """warm() renders frequent phrases ahead, so saying them later is a cache hit."""
    service, _, _, _, _ = make(voice)
    service.warm(["Your turn.", "Point!"])
    service.say("Point!")
    assert service.cache.stats().hits == 1
    assert RenderKey(voice.voice.id, 175, "Your turn.") in service.cache


def test_earcons_are_rendered_once_per_service(voice: EspeakVoice) -> None:
    """The same earcon twice plays the very same buffer (computed once)."""
    service, _, sinks, _, _ = make(voice, cache=RenderCache(max_entries=1))
    service.earcon(Earcon.MISTAKE)
    service.earcon(Earcon.MISTAKE)
    a, b = sinks[TABLE].placed
    assert a.samples is not None and b.samples is not None and np.array_equal(a.samples, b.samples)


def test_a_ready_sound_queues_after_speech_and_shows_as_a_sound(voice: EspeakVoice) -> None:
    """service.sound (the phones' click train) plays after the speech queued before it, exactly the
    samples given, and is in the transcript as '(sound: label)', an earcon."""
    from voicehost.audio.buffer import Audio

    service, _, sinks, lines, _ = make(voice)
    said = service.say("Quiet please.")
    clicks = np.zeros(4800, np.float32)
    clicks[100] = 0.5
    sound = service.sound(Audio(clicks, 48000), "calibration clicks")
    assert said.span is not None and sound.span is not None
    assert sound.span.start == pytest.approx(said.span.end + service.gap)
    assert sound.span.duration == pytest.approx(0.1)
    assert lines[-1].text == "(sound: calibration clicks)" and lines[-1].kind is Kind.EARCON
    played = sinks[TABLE].placed[-1].samples
    assert played is not None and int(np.argmax(played)) == round(100 * sinks[TABLE].rate / 48000)
