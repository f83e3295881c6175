"""Speech models against slow or lying servers, odd archives and odd names: stop, say why, exit 2
for the user's mistakes."""

from __future__ import annotations

import io
import os
import socket
import tarfile
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import run_voicehost
from tests.models_helpers import TEST_MODEL, ModelServer, catalog_toml, make_zip, model_contents, write_tree
from voicehost.models.catalog import parse_catalog
from voicehost.models.download import DOWNLOADS

AUDIO = Path(__file__).resolve().parents[1] / "audio_fixtures" / "race2_close.Anna.wav"


class Trickle:
    """An HTTP server that sends its headers, then one byte every ``every`` seconds."""

    def __init__(self, length: int, every: float = 0.2) -> None:
        self.length, self.every = length, every
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(4)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}/{TEST_MODEL}.zip"

    def _serve(self) -> None:
        self.server.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            with conn:
                conn.recv(4096)
                conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {self.length}\r\n\r\n".encode())
                while not self.stop.wait(self.every):
                    try:
                        conn.sendall(b"x")
                    except OSError:
                        break

    def __enter__(self) -> "Trickle":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.close()
        self.thread.join(timeout=5)


def test_a_trickling_server_is_given_up_and_what_arrived_is_kept(tmp_path: Path) -> None:
    """One byte every 0.2 s never trips the silence timeout; the stall rule stops it and the part keeps every byte."""
    from voicehost.models.download import DownloadError, fetch

    with Trickle(length=5000) as server:
        entry = parse_catalog(catalog_toml(server.url(), size=5000, sha="0" * 64), tmp_path / "c.toml").entries[0]
        part = tmp_path / "x.part"
        started = time.monotonic()
        with pytest.raises(DownloadError, match="stalled"):
            fetch(entry, part, timeout=1.0, window=2.0)
        elapsed = time.monotonic() - started
    assert 1.5 < elapsed < 10
    assert part.stat().st_size >= 5  # the bytes that arrived are kept for resuming


def test_the_command_line_stops_a_trickle_within_the_stall_window(tmp_path: Path) -> None:
    """'models download --timeout 1' against a trickle ends (status 1, one line) instead of running for ever."""
    with Trickle(length=5000, every=0.3) as server:
        catalog = tmp_path / "catalog.toml"
        catalog.write_text(catalog_toml(server.url(), size=5000, sha="0" * 64))
        started = time.monotonic()
        result = run_voicehost(
            "models",
            "--catalog",
            str(catalog),
            "--models-dir",
            str(tmp_path / "m"),
            "download",
            TEST_MODEL,
            "--timeout",
            "1",
            timeout=60,
        )
    assert result.returncode == 1 and "stalled" in result.stderr and "resume" in result.stderr
    assert time.monotonic() - started < 30


def test_a_server_promising_more_than_the_catalog_says_is_refused_before_downloading(tmp_path: Path) -> None:
    """A Content-Length beyond the catalog's size (200 MB fetched for a 3 MB entry before) stops at the headers."""
    big = b"y" * 2_000_000
    with ModelServer(big) as server:
        catalog = tmp_path / "catalog.toml"
        catalog.write_text(catalog_toml(server.url(f"{TEST_MODEL}.zip"), size=30_000, sha="0" * 64))
        result = run_voicehost(
            "models", "--catalog", str(catalog), "--models-dir", str(tmp_path / "m"), "download", TEST_MODEL, timeout=60
        )
    assert result.returncode == 1 and "the catalog says" in result.stderr
    part = tmp_path / "m" / DOWNLOADS / f"{TEST_MODEL}.zip.part"
    assert not part.exists() or part.stat().st_size <= 30_000


def test_archive_members_with_names_too_long_for_the_disk_are_refused(tmp_path: Path) -> None:
    """Tar members named longer than NAME_MAX or PATH_MAX: one line, nothing written (OSError traceback before)."""
    archive = tmp_path / "long.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        for name in (
            f"{TEST_MODEL}/am/final.mdl",
            f"{TEST_MODEL}/conf/model.conf",
            f"{TEST_MODEL}/" + "n" * 300,
            f"{TEST_MODEL}/" + "/".join(["d" * 200] * 30) + "/f",
        ):
            info = tarfile.TarInfo(name)
            info.size = 3
            tf.addfile(info, io.BytesIO(b"abc"))
    result = run_voicehost(
        "models", "--models-dir", str(tmp_path / "models"), "install", str(archive), "--name", "long", "--lang", "en"
    )
    assert result.returncode == 2 and "longer than a file system allows" in result.stderr
    assert not (tmp_path / "models" / "long").exists()


@pytest.mark.parametrize("kind", ["fifo", "folder-named-zip"])
def test_an_archive_that_cannot_be_read_is_one_line(tmp_path: Path, kind: str) -> None:
    """A FIFO or an odd path given as the archive: one line, status 2."""
    target = tmp_path / "model.zip"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
        (target / "x").write_text("not a model")
    result = run_voicehost("models", "--models-dir", str(tmp_path / "models"), "install", str(target), timeout=30)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_models_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    """--models-dir naming a file: one line for every action (install raised FileExistsError)."""
    file = tmp_path / "models"
    file.write_text("x")
    archive = tmp_path / "m.zip"
    make_zip(archive, model_contents())
    for argv in (["list"], ["install", str(archive), "--name", "m", "--lang", "en"], ["remove", "m"]):
        result = run_voicehost("models", "--models-dir", str(file), *argv)
        assert result.returncode == 2 and "is a file" in result.stderr, result.stderr


def test_removing_a_linked_model_removes_only_the_link_and_empty_names_are_refused(tmp_path: Path) -> None:
    """'models remove' of a model that is a link deletes the link, not what it points at; '' and '.' are refused."""
    models = tmp_path / "models"
    models.mkdir()
    elsewhere = write_tree(tmp_path / "elsewhere" / "real-model", model_contents())
    (models / "linked").symlink_to(elsewhere, target_is_directory=True)
    result = run_voicehost("models", "--models-dir", str(models), "remove", "linked")
    assert result.returncode == 0, result.stderr
    assert not (models / "linked").exists() and (elsewhere / "am" / "final.mdl").is_file()
    for name in ("", ".", "..", "a/b"):
        refused = run_voicehost("models", "--models-dir", str(models), "remove", name)
        assert refused.returncode == 2, refused.stderr
    assert models.is_dir() and (elsewhere / "am" / "final.mdl").is_file()


@pytest.mark.parametrize(
    "argv",
    [
        ["--lang", "de"],
        ["--engine", "vosk", "--model", "{tmp}/not-a-model"],
        ["--engine", "vosk", "--model", "{tmp}/broken-model"],
    ],
)
def test_a_model_the_user_chose_that_cannot_be_used_exits_2(tmp_path: Path, argv: list[str]) -> None:
    """No model for the language, a folder that is not a model, a model Vosk cannot load: clear one
    line, status 2 (was 1)."""
    (tmp_path / "not-a-model").mkdir()
    broken = tmp_path / "broken-model"
    (broken / "am").mkdir(parents=True)
    (broken / "conf").mkdir()
    (broken / "am" / "final.mdl").write_text("junk")
    (broken / "conf" / "model.conf").write_text("junk")
    env_models = tmp_path / "empty-models"
    env_models.mkdir()
    import subprocess
    import sys

    from tests.conftest import ROOT

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "voicehost",
            "rank",
            "--game",
            "bimbamm",
            "--track",
            f"A={AUDIO}",
            *[a.format(tmp=tmp_path) for a in argv],
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "VOICEHOST_MODELS": str(env_models)},
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr


def test_setup_table_without_a_microphone_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """No default microphone: a usage error (plug one in or name it), status 2 (was 1)."""
    from voicehost.commands import setup_table
    from voicehost.status import ExitStatus

    monkeypatch.setattr("voicehost.audio.devices.find_device", lambda spec, output: None)
    with pytest.raises(setup_table.NoMicrophone) as caught:
        setup_table.resolve_inputs([(None, None)])
    assert caught.value.exit_status is ExitStatus.USAGE
