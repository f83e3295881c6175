"""Text-to-speech through pyttsx3's espeak-ng driver, rendered to audio buffers.

Speech is always rendered to a buffer first (never spoken straight to the sound card), so the
output stage can route it to the table speaker or to one seat's earphone, and cache it.

espeak-ng can be initialised only once per process (pyttsx3's driver keeps it alive); build one
:class:`EspeakVoice` in ``main()`` and pass it on.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.audio.buffer import Audio
from voicehost.errors import InputError, SpeechError

MIN_RATE = 80
"""Slowest speaking rate espeak-ng supports, words per minute."""
MAX_RATE = 450
"""Fastest speaking rate espeak-ng renders intelligibly, words per minute."""
DEFAULT_RATE = 175
"""Words per minute: a calm host."""
DEFAULT_VOICE = "gmw/en-us"


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
        raise BadRate(
            f"speaking rate {rate} is out of range: use {MIN_RATE} to {MAX_RATE} words per minute"
        )
    return rate


class EspeakVoice:
    """pyttsx3 (espeak-ng driver) rendering text to :class:`Audio`."""

    def __init__(self, voice: str | None = None, rate: int = DEFAULT_RATE) -> None:
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
        raise UnknownVoice(
            f"unknown voice {spec!r}; list the installed voices with: voicehost say --list-voices"
        )

    def set_voice(self, spec: str) -> None:
        """Change the voice (validated)."""
        self.voice = self.resolve(spec)

    def set_rate(self, rate: int) -> None:
        """Change the speaking rate in words per minute (validated)."""
        self.rate = check_rate(rate)

    def render(self, text: str) -> Audio:
        """Synthesise ``text`` into a mono float32 buffer (22050 Hz for espeak-ng)."""
        import soundfile

        if not text.strip():
            raise InputError("nothing to say: the text is empty")
        engine = self._engine
        engine.setProperty("voice", self.voice.id)
        engine.setProperty("rate", self.rate)
        with tempfile.TemporaryDirectory(prefix="voicehost-tts-") as folder:
            path = Path(folder) / "speech.wav"
            # pyttsx3 prints "Audio saved to ..." on stdout; keep stdout clean for --json users.
            with contextlib.redirect_stdout(io.StringIO()):
                engine.save_to_file(text, str(path))
                engine.runAndWait()
            if not path.exists():
                raise SpeechError(f"espeak-ng produced no audio for {text[:40]!r}")
            samples, rate = soundfile.read(str(path), dtype="float32")
        return Audio(samples, int(rate))

    def close(self) -> None:
        """Stop any synthesis in progress (espeak-ng itself stays loaded for the process)."""
        with contextlib.suppress(Exception):
            self._engine.stop()


def _new_engine() -> Any:
    try:
        from pyttsx3.engine import Engine
    except ImportError as error:
        raise SpeechError(f"pyttsx3 is not installed ({error}); fix: run scripts/setup") from error
    try:
        return Engine("espeak")
    except (OSError, RuntimeError) as error:
        raise SpeechError(
            f"espeak-ng cannot start ({error}); fix: sudo apt-get install espeak-ng libespeak-ng1"
        ) from error


def _installed_voices(engine: Any) -> list[VoiceInfo]:
    voices = []
    for v in engine.getProperty("voices"):
        langs = tuple(
            lang.decode("utf-8", "replace") if isinstance(lang, bytes) else str(lang)
            for lang in (v.languages or [])
        )
        voices.append(VoiceInfo(id=str(v.id), name=str(v.name), languages=langs))
    if not voices:
        raise SpeechError("espeak-ng reports no voices; fix: sudo apt-get install espeak-ng-data")
    return voices
