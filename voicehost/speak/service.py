"""The speech service: the host's voice as a queue of utterances per output.

What it does, and why:

- **Queues.** Each output (the table speaker, one earphone per seat) has its own queue, so a
  private hint to seat 2 never waits behind a table announcement, and vice versa.
- **Barge-in.** :meth:`SpeechService.interrupt` stops what an output is saying (within the
  device's buffer, ~60 ms measured) and drops what was queued: when a race opens, the host must
  fall silent at once so it neither talks over the shouts nor gets heard by the microphones.
- **Settings at run time.** Voice and rate apply to every utterance queued after the change
  ("slower", "faster").
- **Transcript.** Every utterance is passed to the transcript callback when it is queued, before
  any sound — a deaf or hard-of-hearing player reads it on a terminal, and nothing cut off by a
  barge-in is lost to them. Private lines carry their seat; :class:`TextTranscript` hides their
  text unless told otherwise.
- **Speaking spans.** Every sound is published as a :class:`~voicehost.speak.output.SpeakingSpan`
  on the session clock, so the listener can ignore the host's own voice. On a sound device the
  times are PortAudio's DAC times of the first and last sample; on a timeline sink they are
  computed from durations.
- **Real time or not.** With a simulated clock (replays, scripts) only timeline sinks are
  allowed and nothing waits: spans follow from durations, and :meth:`SpeechService.wait_idle`
  advances the clock to when the host would have finished.
- **Cache.** Renderings are kept in an LRU cache keyed by voice, rate and text.
"""

from __future__ import annotations

import collections
import itertools
import threading
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Iterable, Mapping, TextIO

from voicehost.audio.buffer import Audio
from voicehost.clock import Clock, SimClock
from voicehost.errors import AudioDeviceError, InputError, VoicehostError
from voicehost.speak.cache import RenderCache, RenderKey
from voicehost.speak.earcons import Earcon, render_earcon
from voicehost.speak.output import TABLE, Playback, Route, Sink, SpeakingSpan
from voicehost.speak.voice import MAX_RATE, MIN_RATE, RATE_STEP, EspeakVoice, VoiceInfo, check_rate, trim_silence

DEFAULT_GAP = 0.2
"""Seconds of silence between two utterances queued back to back on one output."""
START_TIMEOUT = 2.0
"""Seconds a device may take to start a buffer before the utterance counts as failed."""


class NoSuchOutput(VoicehostError, LookupError):
    """An utterance was routed to an output that is not connected (never re-routed elsewhere)."""


class ClockMismatch(VoicehostError, ValueError):
    """A simulated clock was combined with a sound device, which can only play in real time."""


class Kind(Enum):
    """What an utterance is."""

    SPEECH = "speech"
    EARCON = "earcon"


@dataclass(frozen=True)
class TranscriptLine:
    """One thing the host said (or is about to say)."""

    t: float
    """Seconds on the session clock when it was queued."""
    route: Route
    text: str
    """The words, or '(sound: point)' for an earcon."""
    kind: Kind

    def render(self, show_private: bool = False) -> str:
        """One line for a terminal; a private line shows its text only if ``show_private``."""
        text = self.text if show_private or not self.route.private else "(private)"
        to = "" if not self.route.private else f" → {self.route}"
        return f"[{self.t:7.1f} s] host{to}: {text}"


class TextTranscript:
    """Writes transcript lines to a text stream: the terminal a deaf player follows."""

    def __init__(self, stream: TextIO, *, show_private: bool = False) -> None:
        self.stream = stream
        self.show_private = show_private
        """Private lines are for one seat: a shared screen shows only that they happened."""

    def __call__(self, line: TranscriptLine) -> None:
        print(line.render(self.show_private), file=self.stream, flush=True)


@dataclass(frozen=True)
class VoiceSettings:
    """How the host speaks."""

    voice: VoiceInfo
    rate: int
    """Words per minute."""


class Spoken:
    """Handle to one queued utterance: wait for it, read its span, see whether it was cut."""

    def __init__(self, ident: int, text: str, route: Route, kind: Kind) -> None:
        self.id = ident
        self.text = text
        self.route = route
        self.kind = kind
        self.span: SpeakingSpan | None = None
        """Latest published span (None until it starts; stays None if dropped before starting)."""
        self.dropped = False
        """True if an interrupt removed it from the queue before it made a sound."""
        self.error: VoicehostError | None = None
        """Why it could not be rendered or played, if so."""
        self._done = threading.Event()

    @property
    def done(self) -> bool:
        """True once it has finished sounding, been cut, dropped, or failed."""
        return self._done.is_set()

    def wait(self, timeout: float) -> bool:
        """Wait until :attr:`done`; False on timeout."""
        return self._done.wait(timeout)

    def _finish(self) -> None:
        self._done.set()


@dataclass
class _Job:
    spoken: Spoken
    settings: VoiceSettings
    audio: Audio | None = None
    """Ready audio (earcons); speech is rendered when its turn comes."""
    cancelled: bool = False
    playback: Playback | None = None


def _sounds_after(job: _Job, now: float) -> bool:
    """True if ``job``'s sound may still go on after ``now`` (an interrupt can cut it)."""
    return job.playback is not None and (job.playback.end or 0.0) > now


class SpeechService:
    """Speaks queued utterances on routed outputs; see the module docstring.

    ``transcript`` is called in the thread that queues the utterance; ``on_span`` is called
    from the output's worker thread for devices (keep both quick and thread-safe). Build it
    once in ``main()`` with the one :class:`EspeakVoice`, call :meth:`open` before the game
    starts, and :meth:`close` at the end.
    """

    def __init__(
        self,
        voice: EspeakVoice,
        outputs: Mapping[Route, Sink],
        clock: Clock,
        *,
        transcript: Callable[[TranscriptLine], None] | None = None,
        on_span: Callable[[SpeakingSpan], None] | None = None,
        cache: RenderCache | None = None,
        gap: float = DEFAULT_GAP,
    ) -> None:
        if isinstance(clock, SimClock) and any(sink.realtime for sink in outputs.values()):
            raise ClockMismatch("a simulated clock cannot drive a sound device: use a WAV, recording or null sink")
        self.voice = voice
        self.clock = clock
        self.cache = cache if cache is not None else RenderCache()
        self.gap = gap
        self._settings = VoiceSettings(voice.voice, voice.rate)
        self._transcript = transcript
        self._on_span = on_span
        self._spans: dict[int, SpeakingSpan] = {}
        self._spans_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._earcons: dict[Earcon, Audio] = {}
        self._lanes: dict[Route, _LiveLane | _TimelineLane] = {
            route: (_LiveLane(self, route, sink) if sink.realtime else _TimelineLane(self, route, sink))
            for route, sink in outputs.items()
        }

    # ---- speaking -------------------------------------------------------------------------

    @property
    def routes(self) -> list[Route]:
        """The connected outputs."""
        return list(self._lanes)

    def say(self, text: str, to: Route = TABLE, *, barge_in: bool = False) -> Spoken:
        """Queue ``text`` on output ``to``; with ``barge_in`` first silence that output."""
        if not text.strip():
            raise InputError("nothing to say: the text is empty")
        return self._submit(text.strip(), to, Kind.SPEECH, None, barge_in)

    def earcon(self, earcon: Earcon, to: Route = TABLE, *, barge_in: bool = False) -> Spoken:
        """Queue an earcon; ``barge_in`` (e.g. for 'race open') silences the output first."""
        audio = self._earcons.get(earcon)
        if audio is None:
            audio = self._earcons[earcon] = render_earcon(earcon)
        return self._submit(f"(sound: {earcon.value})", to, Kind.EARCON, audio, barge_in)

    def sound(self, audio: Audio, label: str, to: Route = TABLE) -> Spoken:
        """Queue a ready sound (the phones' calibration clicks) like an earcon: after what the
        output is saying, known to the echo canceller as the host's own sound, and shown in the
        transcript as '(sound: label)'."""
        return self._submit(f"(sound: {label})", to, Kind.EARCON, audio, False)

    def interrupt(self, *routes: Route, timeout: float = 1.0) -> float:
        """Stop every given output (all when none given) and drop what they had queued.

        Returns the session time at which the last of them fell silent, once it has.
        """
        lanes = [self._lane(r) for r in routes] if routes else list(self._lanes.values())
        now = self.clock.now()
        cut = [lane.cut(now) for lane in lanes]  # stop them all first, then wait for silence
        ends = [lane.silent_at(job, now, timeout) for lane, job in zip(lanes, cut)]
        return max([now, *ends])

    def open(self, timeout: float = 10.0) -> "SpeechService":
        """Wait until every output is ready to play (devices open in parallel, in the background,
        as soon as the service is built); raises the first device error.

        Call it before the game starts so the first sentence is not delayed by the device.
        """
        for route, lane in self._lanes.items():
            if isinstance(lane, _LiveLane):
                if not lane.ready.wait(timeout):
                    raise AudioDeviceError(f"the output for {route} did not open within {timeout:.0f} s")
                if lane.error is not None:
                    raise lane.error
        return self

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Wait until every output has said everything (a simulated clock just advances)."""
        live_ok = all(lane.wait_idle(timeout) for lane in self._lanes.values() if isinstance(lane, _LiveLane))
        busy_until = max(
            (lane.busy_until() for lane in self._lanes.values() if isinstance(lane, _TimelineLane)), default=0.0
        )
        if busy_until > self.clock.now():
            self.clock.sleep(busy_until - self.clock.now())
        return live_ok

    def warm(self, texts: Iterable[str]) -> None:
        """Render ``texts`` into the cache now (frequent phrases, at the start of a game)."""
        for text in texts:
            self._render(text.strip(), self._settings)

    def close(self) -> None:
        """Silence everything, stop the workers and close the sinks (a WAV sink writes its file)."""
        for lane in self._lanes.values():
            lane.close()

    def __enter__(self) -> "SpeechService":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- settings -------------------------------------------------------------------------

    @property
    def settings(self) -> VoiceSettings:
        """Voice and rate for the next utterance."""
        return self._settings

    def set_rate(self, rate: int) -> int:
        """Change the speaking rate (words per minute) for what is queued from now on."""
        self._settings = VoiceSettings(self._settings.voice, check_rate(rate))
        return rate

    def slower(self) -> int:
        """One step slower ('slower, please'); returns the new rate."""
        return self.set_rate(max(MIN_RATE, self._settings.rate - RATE_STEP))

    def faster(self) -> int:
        """One step faster; returns the new rate."""
        return self.set_rate(min(MAX_RATE, self._settings.rate + RATE_STEP))

    def set_voice(self, spec: str) -> VoiceInfo:
        """Change the voice (id, name or language) for what is queued from now on."""
        info = self.voice.resolve(spec)
        self._settings = VoiceSettings(info, self._settings.rate)
        return info

    # ---- speaking spans -------------------------------------------------------------------

    def spans(self, route: Route | None = None) -> list[SpeakingSpan]:
        """The latest version of every span so far (of one output if given), in start order."""
        with self._spans_lock:
            spans = list(self._spans.values())
        return sorted((s for s in spans if route is None or s.route == route), key=lambda s: s.start)

    def busy_until(self, route: Route = TABLE) -> float:
        """Session time when ``route`` will have said everything queued so far (now if idle).

        A timeline knows it exactly; a live output adds the durations of what is still queued
        (rendering it now, into the cache, so playing it later costs nothing more).
        """
        lane = self._lane(route)
        now = self.clock.now()
        if isinstance(lane, _TimelineLane):
            return max(now, lane.busy_until())
        current, queued = lane.snapshot()
        end = now
        if current is not None:
            span = current.spoken.span
            end = span.end if span is not None else now + self._audio_for(current).duration
        for job in queued:
            end += self.gap + self._audio_for(job).duration
        return max(now, end)

    def speaking_at(self, t: float, route: Route | None = None) -> bool:
        """True if the host is audible at session time ``t`` (on ``route``, or anywhere)."""
        return any(s.covers(t) for s in self.spans(route))

    # ---- internals ------------------------------------------------------------------------

    def _lane(self, route: Route) -> "_LiveLane | _TimelineLane":
        lane = self._lanes.get(route)
        if lane is None:
            connected = ", ".join(str(r) for r in self._lanes) or "none"
            hint = " (private speech is never sent to another output)" if route.private else ""
            raise NoSuchOutput(f"no output for {route}{hint}; connected: {connected}")
        return lane

    def _submit(self, text: str, to: Route, kind: Kind, audio: Audio | None, barge_in: bool) -> Spoken:
        lane = self._lane(to)
        if barge_in:
            self.interrupt(to)
        spoken = Spoken(next(self._ids), text, to, kind)
        queued_at = self.clock.now()
        lane.submit(_Job(spoken, self._settings, audio))  # raises if the output cannot take it
        if self._transcript is not None:
            self._transcript(TranscriptLine(queued_at, to, text, kind))
        return spoken

    def _render(self, text: str, settings: VoiceSettings) -> Audio:
        key = RenderKey(settings.voice.id, settings.rate, text)
        audio = self.cache.get(key)
        if audio is None:
            audio = trim_silence(self.voice.render(text, voice=settings.voice, rate=settings.rate))
            self.cache.put(key, audio)
        return audio

    def _audio_for(self, job: _Job) -> Audio:
        return job.audio if job.audio is not None else self._render(job.spoken.text, job.settings)

    def _publish(self, spoken: Spoken, start: float, end: float, *, interrupted: bool, final: bool) -> None:
        span = SpeakingSpan(spoken.id, spoken.route, start, end, spoken.text, interrupted, final)
        spoken.span = span
        with self._spans_lock:
            self._spans[span.id] = span
        if self._on_span is not None:
            self._on_span(span)


class _TimelineLane:
    """An output whose sink is a timeline: everything happens at once, in the caller's thread."""

    def __init__(self, service: SpeechService, route: Route, sink: Sink) -> None:
        self.service = service
        self.route = route
        self.sink = sink
        self._last_end: float | None = None
        self._pending: collections.deque[_Job] = collections.deque()
        """Jobs whose sound may still lie ahead of the clock (an interrupt can cut them)."""
        self._lock = threading.Lock()

    def submit(self, job: _Job) -> None:
        try:
            audio = self.service._audio_for(job)
        except VoicehostError as error:
            job.spoken.error = error
            job.spoken._finish()
            raise
        now = self.service.clock.now()
        with self._lock:
            not_before = now if self._last_end is None else max(now, self._last_end + self.service.gap)
            playback = self.sink.play(audio, not_before)
            start = playback.started(0.0)
            assert start is not None and playback.end is not None
            job.playback = playback
            self._last_end = playback.end
            while self._pending and not _sounds_after(self._pending[0], now):  # oldest first: linear over a game
                self._pending.popleft()
            self._pending.append(job)
        self.service._publish(job.spoken, start, playback.end, interrupted=False, final=True)
        job.spoken._finish()

    def cut(self, now: float) -> None:
        """Cut what sounds at ``now`` and drop what would start later."""
        with self._lock:
            affected = [j for j in self._pending if _sounds_after(j, now)]
            self._pending.clear()
            for job in affected:
                assert job.playback is not None
                job.playback.stop(now)
            if affected:
                self._last_end = now
        for job in affected:
            assert job.playback is not None and job.spoken.span is not None
            span = job.spoken.span
            job.spoken.dropped = span.start >= now
            self.service._publish(job.spoken, span.start, max(span.start, now), interrupted=True, final=True)

    def silent_at(self, job: _Job | None, now: float, timeout: float) -> float:
        """A timeline is silent the moment it is cut."""
        return now

    def busy_until(self) -> float:
        with self._lock:
            return self._last_end if self._last_end is not None else 0.0

    def close(self) -> None:
        self.sink.close()


class _LiveLane:
    """An output that plays in real time: a worker thread renders and plays its queue in order."""

    def __init__(self, service: SpeechService, route: Route, sink: Sink) -> None:
        self.service = service
        self.route = route
        self.sink = sink
        self._queue: collections.deque[_Job] = collections.deque()
        self._current: _Job | None = None
        self._last_end: float | None = None
        self._closed = False
        self.error: VoicehostError | None = None
        """Why this output cannot play, if it cannot (its device failed to open)."""
        self.ready = threading.Event()
        """Set once the sink is open (or failed to open)."""
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=f"voicehost-speech-{route}", daemon=True)
        self._thread.start()

    def submit(self, job: _Job) -> None:
        with self._cond:
            if self.error is not None:
                raise self.error
            if self._closed:
                raise VoicehostError(f"the speech output for {self.route} is closed")
            self._queue.append(job)
            self._cond.notify_all()

    def snapshot(self) -> tuple[_Job | None, list[_Job]]:
        """The job sounding now (if any) and the queued ones, in order."""
        with self._cond:
            return self._current, list(self._queue)

    def cut(self, now: float) -> _Job | None:
        """Drop the queue and ask the device to stop; returns the job that was sounding."""
        with self._cond:
            dropped = list(self._queue)
            self._queue.clear()
            current = self._current
            if current is not None:
                current.cancelled = True
                if current.playback is not None:
                    current.playback.stop(now)
            self._cond.notify_all()
        for job in dropped:
            job.spoken.dropped = True
            job.spoken._finish()
        return current

    def silent_at(self, job: _Job | None, now: float, timeout: float) -> float:
        """Wait until ``job`` (cut by :meth:`cut`) is silent; the session time it went silent."""
        if job is None:
            return now
        job.spoken.wait(timeout)
        span = job.spoken.span
        return span.end if span is not None else now

    def wait_idle(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and self._current is None, timeout)

    def close(self) -> None:
        now = self.service.clock.now()
        self.silent_at(self.cut(now), now, 1.0)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=2.0)
        self.sink.close()

    def _next(self) -> _Job | None:
        with self._cond:
            while not self._queue:
                if self._closed:
                    return None
                self._cond.wait(0.5)
            job = self._queue.popleft()
            self._current = job
            return job

    def _run(self) -> None:
        try:
            self.sink.open()
        except VoicehostError as error:
            self._fail_all(error)
            return
        finally:
            self.ready.set()
        while (job := self._next()) is not None:
            try:
                self._speak(job)
            except (VoicehostError, OSError, RuntimeError, ValueError) as error:
                job.spoken.error = error if isinstance(error, VoicehostError) else VoicehostError(str(error))
            finally:
                with self._cond:
                    self._current = None
                    self._cond.notify_all()
                job.spoken._finish()

    def _fail_all(self, error: VoicehostError) -> None:
        """The output cannot play: every utterance for it fails with ``error``, now and later."""
        self.error = error
        with self._cond:
            self._closed = True
            failed = list(self._queue)
            self._queue.clear()
            self._cond.notify_all()
        for job in failed:
            job.spoken.error = error
            job.spoken._finish()

    def _speak(self, job: _Job) -> None:
        audio = self.service._audio_for(job)
        clock = self.service.clock
        if self._last_end is not None:
            pause = self._last_end + self.service.gap - clock.now()
            with self._cond:
                if pause > 0 and not job.cancelled:
                    self._cond.wait_for(lambda: job.cancelled, pause)
        with self._cond:
            if job.cancelled:
                job.spoken.dropped = True
                return
            playback = job.playback = self.sink.play(audio, clock.now())
        start = playback.started(START_TIMEOUT)
        if start is None:
            playback.stop(clock.now())
            raise VoicehostError(f"the speech output for {self.route} did not start within {START_TIMEOUT:.0f} s")
        self.service._publish(job.spoken, start, start + audio.duration, interrupted=False, final=False)
        playback.wait(audio.duration + START_TIMEOUT)
        end = playback.end if playback.end is not None else clock.now()
        self._last_end = end
        self.service._publish(job.spoken, start, end, interrupted=playback.interrupted, final=True)
