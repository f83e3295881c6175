"""`voicehost models download` end to end against a real HTTP server on 127.0.0.1.

The server is made in the test (threaded http.server with Range support) and serves a real
model-shaped archive made in the test; every download runs the real command line.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from tests.conftest import run_voicehost
from tests.models_helpers import TEST_MODEL, ModelServer, catalog_toml, make_zip, md5, model_contents, sha256
from voicehost.models.catalog import RECORDS_FILE, RecordedChecksums
from voicehost.models.download import DOWNLOADS


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A ~6 MB model-shaped zip (big enough for progress lines)."""
    path = tmp_path_factory.mktemp("archive") / f"{TEST_MODEL}.zip"
    return make_zip(path, model_contents(seed=3, big=6_000_000))


def _setup(tmp_path: Path, server: ModelServer, data: bytes, **catalog: object) -> tuple[Path, Path]:
    """Write a catalog pointing at the server; returns (catalog file, models folder)."""
    file = tmp_path / "catalog.toml"
    file.write_text(catalog_toml(server.url(f"{TEST_MODEL}.zip"), data, **catalog))  # type: ignore[arg-type]
    return file, tmp_path / "models"


def _download(catalog: Path, models: Path, *extra: str, timeout: float = 120):  # type: ignore[no-untyped-def]
    return run_voicehost(
        "models",
        "--catalog",
        str(catalog),
        "--models-dir",
        str(models),
        "download",
        TEST_MODEL,
        *extra,
        timeout=timeout,
    )


def _part(models: Path) -> Path:
    return models / DOWNLOADS / f"{TEST_MODEL}.zip.part"


def test_download_checks_installs_and_shows_progress(archive: bytes, tmp_path: Path) -> None:
    """A download shows bytes, rate and ETA on stderr, verifies the SHA-256 and installs the model."""
    with ModelServer(archive) as server:
        catalog, models = _setup(tmp_path, server, archive)
        result = _download(catalog, models)
    assert result.returncode == 0, result.stderr
    assert f"downloading {TEST_MODEL}.zip" in result.stderr
    assert (
        " MB of 6." in result.stderr
        and "(100%)" in result.stderr
        and "MB/s" in result.stderr
        and "ETA" in result.stderr
    )
    assert (models / TEST_MODEL / "am" / "final.mdl").stat().st_size == 6_000_000
    assert not _part(models).exists()
    assert server.state.sent == len(archive)
    listing = run_voicehost("models", "--catalog", str(catalog), "--models-dir", str(models), "list")
    assert f"{TEST_MODEL}  xx" in listing.stdout and "installed" in listing.stdout


def test_partial_download_resumes_with_range(archive: bytes, tmp_path: Path) -> None:
    """With part of the file already there, only the rest is requested (HTTP Range) and the result is intact."""
    with ModelServer(archive) as server:
        catalog, models = _setup(tmp_path, server, archive)
        have = len(archive) * 2 // 5
        _part(models).parent.mkdir(parents=True)
        _part(models).write_bytes(archive[:have])
        result = _download(catalog, models)
    assert result.returncode == 0, result.stderr
    assert server.state.requests[-1]["range"] == f"bytes={have}-"
    assert server.state.sent == len(archive) - have
    assert (models / TEST_MODEL / "README").exists()


def test_dropped_connection_keeps_the_part_and_the_next_run_resumes(archive: bytes, tmp_path: Path) -> None:
    """A server that drops the connection mid-transfer: one-line error saying to rerun; the rerun
    resumes and installs."""
    with ModelServer(archive) as server:
        catalog, models = _setup(tmp_path, server, archive)
        server.state.drop_after = len(archive) // 3
        first = _download(catalog, models)
        assert first.returncode == 1
        assert "run the same command again to resume" in first.stderr.strip().splitlines()[-1]
        assert "Traceback" not in first.stderr
        assert _part(models).stat().st_size == len(archive) // 3
        assert not (models / TEST_MODEL).exists()
        second = _download(catalog, models)
    assert second.returncode == 0, second.stderr
    assert server.state.requests[-1]["range"] == f"bytes={len(archive) // 3}-"
    assert (models / TEST_MODEL / "am" / "final.mdl").exists() and not _part(models).exists()


def test_wrong_checksum_deletes_the_download(archive: bytes, tmp_path: Path) -> None:
    """When the SHA-256 does not match the catalog, the file is deleted, nothing is installed, and
    the message says so."""
    with ModelServer(archive) as server:
        catalog, models = _setup(tmp_path, server, archive, sha="ab" * 32)
        result = _download(catalog, models)
    assert result.returncode == 1
    message = result.stderr.strip().splitlines()[-1]
    assert "SHA-256" in message and "the download was deleted" in message
    assert not _part(models).exists() and not (models / TEST_MODEL).exists()


def test_unknown_checksum_is_checked_by_size_and_md5_then_recorded(archive: bytes, tmp_path: Path) -> None:
    """With sha256 = "" the size and MD5 are checked, the SHA-256 recorded, and a later different file is refused."""
    with ModelServer(archive) as server:
        catalog, models = _setup(tmp_path, server, archive, sha="", verified=False, md5_hex=md5(archive))
        first = _download(catalog, models)
        assert first.returncode == 0, first.stderr
        assert "recorded SHA-256" in first.stderr
        assert RecordedChecksums(models).get(TEST_MODEL) == sha256(archive)
        assert run_voicehost("models", "--models-dir", str(models), "remove", TEST_MODEL).returncode == 0
        tampered = bytearray(archive)
        tampered[len(archive) // 2] ^= 0xFF
        server.state.payload = bytes(tampered)
        second = _download(catalog, models)
    assert second.returncode == 1
    assert "recorded" in second.stderr and "the download was deleted" in second.stderr
    assert not _part(models).exists() and not (models / TEST_MODEL).exists()


def test_unknown_checksum_with_wrong_md5_is_refused(archive: bytes, tmp_path: Path) -> None:
    """With no SHA-256, an MD5 mismatch deletes the download and records nothing."""
    with ModelServer(archive) as server:
        catalog, models = _setup(tmp_path, server, archive, sha="", verified=False, md5_hex="0" * 32)
        result = _download(catalog, models)
    assert result.returncode == 1 and "MD5" in result.stderr and "deleted" in result.stderr
    assert not (models / RECORDS_FILE).exists() and not _part(models).exists()


def test_no_network_fails_fast_and_says_how_to_install_from_a_file(archive: bytes, tmp_path: Path) -> None:
    """A server that cannot be reached fails within seconds, in one line naming 'voicehost models install FILE'."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(catalog_toml(f"http://127.0.0.1:{port}/{TEST_MODEL}.zip", archive))
    start = time.monotonic()
    result = _download(catalog, tmp_path / "models")
    assert time.monotonic() - start < 30
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"voicehost models install {TEST_MODEL}.zip" in lines[0] and "no internet" in lines[0]


def test_silent_server_times_out(archive: bytes, tmp_path: Path) -> None:
    """A server that accepts but never answers is given up on after --timeout seconds."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    try:
        catalog = tmp_path / "catalog.toml"
        catalog.write_text(catalog_toml(f"http://127.0.0.1:{silent.getsockname()[1]}/{TEST_MODEL}.zip", archive))
        start = time.monotonic()
        result = _download(catalog, tmp_path / "models", "--timeout", "1")
        elapsed = time.monotonic() - start
    finally:
        silent.close()
    assert result.returncode == 1 and "timed out" in result.stderr
    assert elapsed < 20


def test_server_without_range_support_restarts_cleanly(archive: bytes, tmp_path: Path) -> None:
    """If the server ignores Range and sends the whole file, the part is rewritten from the start, not appended to."""
    with ModelServer(archive) as server:
        server.state.ignore_range = True
        catalog, models = _setup(tmp_path, server, archive)
        _part(models).parent.mkdir(parents=True)
        _part(models).write_bytes(archive[:1000])
        result = _download(catalog, models)
    assert result.returncode == 0, result.stderr
    assert server.state.sent == len(archive)


def test_redirect_to_plain_http_elsewhere_is_refused(archive: bytes, tmp_path: Path) -> None:
    """A redirect to an insecure http URL off this machine is refused without following it."""
    with ModelServer(archive) as server:
        server.state.redirect_to = "http://example.invalid/evil.zip"
        catalog, models = _setup(tmp_path, server, archive)
        result = _download(catalog, models)
    assert result.returncode == 1 and "insecure" in result.stderr
    assert not (models / TEST_MODEL).exists()


def test_installed_model_is_not_downloaded_again(archive: bytes, tmp_path: Path) -> None:
    """Downloading an installed model asks for --force and makes no request."""
    with ModelServer(archive) as server:
        catalog, models = _setup(tmp_path, server, archive)
        assert _download(catalog, models).returncode == 0
        count = len(server.state.requests)
        again = _download(catalog, models)
        assert again.returncode == 2 and "--force" in again.stderr
        assert len(server.state.requests) == count
        forced = _download(catalog, models, "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(server.state.requests) == count + 1


def test_unknown_model_name_lists_the_known_ones(tmp_path: Path) -> None:
    """`download NOPE` is a usage error listing the catalog's names."""
    result = run_voicehost("models", "--models-dir", str(tmp_path), "download", "nope")
    assert result.returncode == 2 and "vosk-model-small-en-us-0.15" in result.stderr


def test_progress_line_has_bytes_rate_and_eta() -> None:
    """The progress line reports bytes done of total, the rate since start (resumed bytes excluded)
    and the ETA, by the injected clock."""
    import io

    from voicehost.models.progress import Progress, ProgressBars

    now = [100.0]
    out = io.StringIO()
    progress = Progress("downloading x.zip", 50_000_000, out, clock=lambda: now[0]).begin(already=10_000_000)
    now[0] += 4.0
    progress.update(30_000_000)
    assert out.getvalue() == "downloading x.zip: 30.0 MB of 50.0 MB (60%), 5.0 MB/s, ETA 0:04\n"
    now[0] += 1.0
    progress.update(31_000_000)
    assert out.getvalue().count("\n") == 1  # a pipe gets a line per tenth, not per chunk
    quiet = io.StringIO()
    ProgressBars(quiet)("checking small.zip", 1_000)(1_000, 1_000)
    assert quiet.getvalue() == ""
