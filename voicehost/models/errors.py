"""What can go wrong with speech models, each error named after what broke.

Every message is one line a user can act on: it names the file, model or URL and, where there is
one, the command that fixes it.
"""

from __future__ import annotations

from voicehost.errors import InputError, ModelError


class CatalogError(InputError):
    """The model catalog (a TOML file) is malformed; the message names file, line and field."""


class UnknownModel(InputError):
    """A model name is neither in the catalog nor installed."""


class UnsafeArchive(InputError):
    """An archive member would escape the target folder, is a link or device, or unpacks too big."""


class UnpackFailed(InputError):
    """An archive that passed every check still could not be written out (disk full, file system limits)."""


class NotAModel(InputError):
    """An archive or folder does not hold a Vosk model (am/final.mdl, conf/model.conf, …)."""


class ModelExists(InputError):
    """A model of that name is already installed (replace it with --force)."""


class DownloadError(ModelError):
    """A download failed: no network, HTTP error, or the connection dropped."""


class ChecksumMismatch(ModelError):
    """The downloaded or given archive is not the file the catalog describes."""


class ModelIncomplete(ModelError):
    """An installed model lacks files a Vosk model needs."""


class ModelLoadFailed(ModelError):
    """Vosk could not load or run an installed model."""


class NoModelForLanguage(ModelError):
    """No engine can recognise this language with what is installed."""


class ModelUnusable(InputError, ModelError):
    """The recogniser cannot be built with the model the user chose or installed (none for the
    language, a folder that is not a model, one Vosk cannot load): the user's to fix, status 2."""
