"""Error types shared across voicehost.

Every error the user can cause derives from :class:`VoicehostError`; the CLI prints its message as
one line and exits with :attr:`VoicehostError.exit_status`. Errors caused by bad input (files,
arguments, card texts) derive from :class:`InputError` and exit with status 2 (usage).
"""

from voicehost.status import ExitStatus
from voicehost.text import shown


class VoicehostError(Exception):
    """Base of all errors voicehost reports to the user in one line.

    Its text never holds a line break or another control character: messages quote what the
    user gave (a card id, a key from a file), and an ESC there must not reach the terminal."""

    exit_status: ExitStatus = ExitStatus.ERROR

    def __str__(self) -> str:
        return shown(super().__str__())


class InputError(VoicehostError, ValueError):
    """The user gave input voicehost cannot use (a bad file, value or text)."""

    exit_status = ExitStatus.USAGE


class AudioFormatError(InputError):
    """An audio file cannot be read or does not have the expected shape."""


class AudioDeviceError(VoicehostError, RuntimeError):
    """A sound device is missing, busy or failed."""


class SpeechError(VoicehostError, RuntimeError):
    """Text-to-speech failed (espeak-ng missing, unknown voice at run time, …)."""


class ModelError(VoicehostError, RuntimeError):
    """A speech model is missing, incomplete or failed to load."""
