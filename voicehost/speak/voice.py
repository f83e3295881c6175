"""Text-to-speech through pyttsx3's espeak-ng driver, rendered to audio buffers.

Speech is always rendered to a buffer first (never spoken straight to the sound card), so the
output stage can route it to the table speaker or to one seat's earphone, and cache it.

espeak-ng can be initialised only once per process (pyttsx3's driver keeps it alive); build one
:class:`EspeakVoice` in ``main()`` and pass it on. Several instances still work (each render
claims espeak-ng's single callback), and renders from several threads take turns.

pyttsx3 chooses the voices and sets voice and rate; the samples are collected straight from
espeak-ng's synthesis callback through pyttsx3's binding (no temporary files, no prints).

espeak-ng runs in its synchronous mode (initialised here before pyttsx3 would start it in its
asynchronous one): a synthesis runs in the caller's thread and is over when ``Synth`` returns. In
the asynchronous mode a thread of espeak-ng's own synthesises while the caller may already change
the voice, which espeak-ng does at once, without waiting for that thread (a test worker died in
a BAM! game, 2026-12-02, with nothing else native running).
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from voicehost.audio.buffer import Audio
from voicehost.errors import InputError, SpeechError

MIN_RATE = 80
"""Slowest speaking rate espeak-ng supports, words per minute."""
MAX_RATE = 450
"""Fastest speaking rate espeak-ng renders intelligibly, words per minute."""
DEFAULT_RATE = 175
"""Words per minute: a calm host."""
DEFAULT_VOICE = "gmw/en-us"
SAMPLE_RATE = 22050
"""Hz: espeak-ng's output rate."""
RENDER_TIMEOUT = 10.0
"""Seconds a synthesis may take (plus 10 ms per character) before it counts as hung: only in
pyttsx3's asynchronous mode; in the synchronous one (the usual, see the module docstring) a
synthesis returns when it is done (no timeout can cut it short)."""
RATE_STEP = 25
"""Words per minute added or removed when a player asks the host to go faster or slower."""

_ESPEAK_LOCK = threading.Lock()
"""espeak-ng is one synthesiser per process (a C library with global state), so every render in
the process takes turns, whichever :class:`EspeakVoice` or thread asks."""


class UnknownVoice(InputError):
    """The requested voice is not installed."""


class BadRate(InputError):
    """The requested speaking rate is outside what espeak-ng can do."""


@dataclass(frozen=True)
class VoiceInfo:
    """One installed espeak-ng voice."""

    id: str
    """espeak-ng identifier, e.g. 'gmw/en-us'."""
    name: str
    """Human name, e.g. 'English (America)'."""
    languages: tuple[str, ...]
    """Language codes, e.g. ('en-us',)."""


def check_rate(rate: int) -> int:
    """Return ``rate`` or raise BadRate with the allowed range."""
    if not MIN_RATE <= rate <= MAX_RATE:
        raise BadRate(f"speaking rate {rate} is out of range: use {MIN_RATE} to {MAX_RATE} words per minute")
    return rate


MAX_TEXT = 20_000
"""Characters the host renders at once (about twenty minutes of speech at the default rate)."""
MAX_CHUNK = 400
"""Characters handed to espeak-ng in one call: texts of 60,000 characters and more made it
crash (SIGSEGV inside espeak_Synth) in 2 of 5 tries; sentences are far shorter."""
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


class TextTooLong(InputError):
    """A text is longer than the host will say at once."""


class EspeakVoice:
    """pyttsx3 (espeak-ng driver) rendering text to :class:`Audio`."""

    def __init__(self, voice: str | None = None, rate: int = DEFAULT_RATE) -> None:
        # Building an engine re-registers pyttsx3's callback, and listing the voices rereads
        # espeak-ng's voice list, which a synthesis in another thread is using: both under the
        # lock (listed while another voice spoke, espeak-ng failed to set its voice, 2026-12-02).
        with _ESPEAK_LOCK:
            self._engine = _new_engine()
            self._voices = _installed_voices(self._engine)
        self.voice = self.resolve(voice or DEFAULT_VOICE)
        self.rate = check_rate(rate)

    def voices(self) -> list[VoiceInfo]:
        """Every voice espeak-ng has installed."""
        return list(self._voices)

    def resolve(self, spec: str) -> VoiceInfo:
        """Find a voice by id ('gmw/en-US'), name ('English (America)') or language ('en-us')."""
        wanted = spec.strip().lower()
        for test in (
            lambda v: v.id.lower() == wanted,
            lambda v: v.name.lower() == wanted,
            lambda v: wanted in (lang.lower() for lang in v.languages),
            lambda v: v.id.lower().rsplit("/", 1)[-1] == wanted,
        ):
            found = [v for v in self._voices if test(v)]
            if found:
                return found[0]
        raise UnknownVoice(f"unknown voice {spec!r}; list the installed voices with: voicehost say --list-voices")

    def set_voice(self, spec: str) -> None:
        """Change the voice (validated)."""
        self.voice = self.resolve(spec)

    def set_rate(self, rate: int) -> None:
        """Change the speaking rate in words per minute (validated)."""
        self.rate = check_rate(rate)

    def render(self, text: str, *, voice: VoiceInfo | None = None, rate: int | None = None) -> Audio:
        """Synthesise ``text`` into a mono float32 buffer at :data:`SAMPLE_RATE` Hz.

        ``voice`` and ``rate`` override this object's settings for one call, so a speech service
        can change them at run time without touching the shared engine state between calls.
        """
        if not text.strip():
            raise InputError("nothing to say: the text is empty")
        if len(text) > MAX_TEXT:
            raise TextTooLong(
                f"the text has {len(text)} characters; the host says at most {MAX_TEXT} at once "
                "(about twenty minutes of speech)"
            )
        chosen = voice or self.voice
        wpm = check_rate(rate if rate is not None else self.rate)
        # The driver applies properties at once; the engine's setProperty would only queue them
        # for a runAndWait loop that this path does not run.
        driver = self._engine.proxy._driver
        with _ESPEAK_LOCK:
            try:
                driver.setProperty("voice", chosen.id)
                driver.setProperty("rate", wpm)
            except ValueError as error:
                raise SpeechError(f"espeak-ng cannot use voice {chosen.id!r} at {wpm} wpm: {error}") from error
            pcm = b"".join(
                _synthesise(piece, timeout=RENDER_TIMEOUT + len(piece) / 100) for piece in speech_chunks(text)
            )
        if not pcm:
            raise SpeechError(f"espeak-ng produced no audio for {text[:40]!r}")
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        return Audio(samples, SAMPLE_RATE)

    def close(self) -> None:
        """Stop any synthesis in progress (espeak-ng itself stays loaded for the process)."""
        with contextlib.suppress(Exception):
            self._engine.stop()


def speech_chunks(text: str, longest: int = MAX_CHUNK) -> list[str]:
    """``text`` cut into pieces of at most ``longest`` characters for espeak-ng: at sentence ends
    where possible, else between words, else (one endless word) anywhere."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text.strip()):
        for part in _split_long(sentence, longest):
            if current and len(current) + 1 + len(part) > longest:
                pieces.append(current)
                current = part
            else:
                current = f"{current} {part}" if current else part
    if current.strip():
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def _split_long(sentence: str, longest: int) -> list[str]:
    if len(sentence) <= longest:
        return [sentence]
    parts: list[str] = []
    current = ""
    for word in sentence.split():
        while len(word) > longest:
            if current:
                parts.append(current)
                current = ""
            parts.append(word[:longest])
            word = word[longest:]
        if current and len(current) + 1 + len(word) > longest:
            parts.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        parts.append(current)
    return parts


class _Collector:
    """Gathers one synthesis' 16-bit samples until espeak-ng reports the end of the message."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.done = threading.Event()


_current: _Collector | None = None
"""The synthesis in progress (set and cleared under :data:`_ESPEAK_LOCK`)."""
_callback: Any = None
"""Our ctypes callback, created once and never freed: espeak-ng's thread may still hold it."""


def _on_synth(wav: Any, numsamples: int, events: Any) -> int:
    """espeak-ng's synthesis callback; only copies bytes. In the synchronous mode it runs inside
    ``Synth``, in the caller's thread; in pyttsx3's asynchronous one (espeak-ng started by someone
    else first) on espeak-ng's own thread, after ``Synth`` returned, until the end of the message.
    (pyttsx3's own save_to_file path sleeps 10 ms and hopes; under load it returned empty files.)
    """
    from pyttsx3.drivers import _espeak

    target = _current
    if target is None:
        return 0
    if numsamples > 0 and wav:
        target.chunks.append(ctypes.string_at(wav, numsamples * 2))
    i = 0
    while events[i].type != _espeak.EVENT_LIST_TERMINATED:
        if events[i].type == _espeak.EVENT_MSG_TERMINATED:
            target.done.set()
        i += 1
    return 0


def _synthesise(text: str, timeout: float) -> bytes:
    """Run one synthesis on espeak-ng (caller holds :data:`_ESPEAK_LOCK`); 16-bit PCM bytes."""
    global _current, _callback
    from pyttsx3.drivers import _espeak

    if _callback is None:
        _callback = _espeak.t_espeak_callback(_on_synth)
    collector = _current = _Collector()
    try:
        _espeak.cSetSynthCallback(_callback)  # one callback per process; pyttsx3 set its own
        with _callback_errors_raised():
            status = _espeak.Synth(text, flags=_espeak.ENDPAUSE | _espeak.CHARS_UTF8)
        if status != _espeak.EE_OK:
            raise SpeechError(f"espeak-ng refused {text[:40]!r} (status {status})")
        if not _synchronous:
            _wait_asynchronous(collector, text, timeout)
    finally:
        _current = None
    return b"".join(collector.chunks)


@contextlib.contextmanager
def _callback_errors_raised() -> Iterator[None]:
    """Raise, once ``Synth`` has returned, what was raised inside :func:`_on_synth` meanwhile.

    ctypes cannot pass an exception out of a callback: it reports it to ``sys.unraisablehook``
    and goes on. In the synchronous mode the callback runs in the caller's thread, the main one
    during a game, so Ctrl-C (KeyboardInterrupt) or SIGTERM usually lands inside it (Python runs
    signal handlers at the next Python line, and the callback is the only Python code inside
    ``Synth``): swallowed, the game went on and Ctrl-C did nothing (CI, 2026-12-02)."""
    caught: list[BaseException] = []
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if unraisable.object is _on_synth and unraisable.exc_value is not None:
            caught.append(unraisable.exc_value)
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous
    if caught:
        raise caught[0]


def _wait_asynchronous(collector: _Collector, text: str, timeout: float) -> None:
    """espeak-ng in pyttsx3's asynchronous mode: wait for the end of the message, then for its
    thread to be idle (it may still be busy after the last event; the caller will set a voice)."""
    from pyttsx3.drivers import _espeak

    if not collector.done.wait(timeout):
        _espeak.Cancel()
        raise SpeechError(f"espeak-ng did not finish {text[:40]!r} within {timeout:.0f} s")
    deadline = time.monotonic() + 1.0
    while _espeak.IsPlaying() and time.monotonic() < deadline:
        time.sleep(0.001)


_synchronous = False
"""True once espeak-ng runs in its synchronous mode (see the module docstring)."""


def _start_espeak() -> None:
    """Initialise espeak-ng in its synchronous mode, once per process, unless pyttsx3 has already
    started it (then its asynchronous mode stays, handled by :func:`_wait_asynchronous`)."""
    global _synchronous
    from pyttsx3.drivers import _espeak
    from pyttsx3.drivers.espeak import EspeakDriver

    if EspeakDriver._moduleInitialized:
        return
    if _espeak.Initialize(_espeak.AUDIO_OUTPUT_SYNCHRONOUS, 1000) == -1:
        raise OSError("espeak_Initialize failed")
    current = _espeak.GetCurrentVoice()
    name = current.contents.name if current else None
    EspeakDriver._defaultVoice = name.decode("utf-8") if name else "gmw/en"  # what pyttsx3 would set
    EspeakDriver._moduleInitialized = True  # pyttsx3 must not initialise it again
    _synchronous = True


def _new_engine() -> Any:
    try:
        from pyttsx3.engine import Engine
    except ImportError as error:
        raise SpeechError(f"pyttsx3 is not installed ({error}); fix: run scripts/setup") from error
    try:
        _start_espeak()
        engine = Engine("espeak")
    except (OSError, RuntimeError) as error:
        raise SpeechError(
            f"espeak-ng cannot start ({error}); fix: sudo apt-get install espeak-ng libespeak-ng1"
        ) from error
    # pyttsx3's driver, when garbage-collected (at any allocation, in any thread), sets espeak-ng's
    # one process-wide synthesis callback to NULL: during another voice's synthesis espeak-ng then
    # calls NULL. A test worker died of exactly that (segfault in Synth, 2026-12-02). Our callback
    # is set before every synthesis (_synthesise), so this engine's driver never unsets it.
    engine.proxy._driver.destroy = _keep_callback
    return engine


def _keep_callback() -> None:
    """Replaces pyttsx3's driver ``destroy`` (see :func:`_new_engine`): the callback stays."""


def _installed_voices(engine: Any) -> list[VoiceInfo]:
    voices = []
    for v in engine.getProperty("voices"):
        langs = tuple(
            lang.decode("utf-8", "replace") if isinstance(lang, bytes) else str(lang) for lang in (v.languages or [])
        )
        voices.append(VoiceInfo(id=str(v.id), name=str(v.name), languages=langs))
    if not voices:
        raise SpeechError("espeak-ng reports no voices; fix: sudo apt-get install espeak-ng-data")
    return voices


def trim_silence(audio: Audio, floor_db: float = -50.0, keep: float = 0.01) -> Audio:
    """``audio`` without the silence espeak-ng puts before and after the words.

    Keeps ``keep`` seconds on each side of the first and last 5 ms frame louder than
    ``floor_db`` dBFS. Trimmed speech starts sooner, and its speaking span covers only sound,
    so the listener ignores the microphones no longer than the host is audible.
    """
    samples = audio.samples if audio.samples.ndim == 1 else audio.samples.mean(axis=1)
    n = max(1, int(0.005 * audio.rate))
    frames = samples.shape[0] // n
    if frames == 0:
        return audio
    rms = np.sqrt(np.mean(np.square(samples[: frames * n].reshape(frames, n)), axis=1) + 1e-12)
    loud = np.flatnonzero(20 * np.log10(rms) > floor_db)
    if loud.size == 0:
        return Audio(audio.samples[:0], audio.rate)
    pad = int(keep * audio.rate)
    start = max(0, int(loud[0]) * n - pad)
    end = min(audio.samples.shape[0], (int(loud[-1]) + 1) * n + pad)
    return Audio(np.ascontiguousarray(audio.samples[start:end]), audio.rate)
