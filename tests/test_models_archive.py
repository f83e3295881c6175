"""Archive safety: zip-slip, tar-slip, links, devices, zip bombs and interrupted unpacking leave nothing behind."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path
from typing import Callable

import pytest

from tests.conftest import ROOT, run_voicehost
from tests.models_helpers import TEST_MODEL, add_tar_file, make_tar, make_zip, model_contents, write_tree
from voicehost.models.catalog import load_catalog
from voicehost.models.engine import Source, resolve_engine
from voicehost.models.errors import NotAModel, UnsafeArchive
from voicehost.models.install import install_archive, install_folder
from voicehost.models.paths import installed_vosk_models


def _catalog():  # type: ignore[no-untyped-def]
    return load_catalog()


def _zip_with(path: Path, extra: Callable[[zipfile.ZipFile], None]) -> Path:
    """A valid model zip plus whatever ``extra`` adds."""
    make_zip(path, model_contents())
    with zipfile.ZipFile(path, "a") as zf:
        extra(zf)
    return path


def _tar_with(path: Path, extra: Callable[[tarfile.TarFile], None]) -> Path:
    """A valid model .tar.gz plus whatever ``extra`` adds."""
    with tarfile.open(path, "w:gz") as tf:
        for name, data in sorted(model_contents().items()):
            add_tar_file(tf, f"{TEST_MODEL}/{name}", data)
        extra(tf)
    return path


def _zip_entry(name: str, data: bytes, mode: int) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info, data


def _tar_entry(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


ZIP_CASES = {
    "zip absolute path": lambda zf: zf.writestr("/tmp/voicehost-evil.txt", b"x"),
    "zip dot-dot": lambda zf: zf.writestr(f"{TEST_MODEL}/../../evil.txt", b"x"),
    "zip backslash dot-dot": lambda zf: zf.writestr("..\\evil.txt", b"x"),
    "zip symlink outside": lambda zf: zf.writestr(
        *_zip_entry(f"{TEST_MODEL}/link", b"../../../etc/passwd", stat.S_IFLNK | 0o777)
    ),
    "zip absolute symlink": lambda zf: zf.writestr(
        *_zip_entry(f"{TEST_MODEL}/link", b"/etc/passwd", stat.S_IFLNK | 0o777)
    ),
    "zip device": lambda zf: zf.writestr(*_zip_entry(f"{TEST_MODEL}/dev", b"", stat.S_IFCHR | 0o644)),
}
TAR_CASES = {
    "tar absolute path": lambda tf: add_tar_file(tf, "/tmp/voicehost-evil.txt", b"x"),
    "tar dot-dot": lambda tf: add_tar_file(tf, f"{TEST_MODEL}/../../evil.txt", b"x"),
    "tar symlink outside": lambda tf: tf.addfile(_tar_entry(f"{TEST_MODEL}/link", tarfile.SYMTYPE, "../../etc/passwd")),
    "tar absolute symlink": lambda tf: tf.addfile(_tar_entry(f"{TEST_MODEL}/link", tarfile.SYMTYPE, "/etc/passwd")),
    "tar hard link outside": lambda tf: tf.addfile(_tar_entry(f"{TEST_MODEL}/hard", tarfile.LNKTYPE, "../outside.txt")),
    "tar absolute hard link": lambda tf: tf.addfile(_tar_entry(f"{TEST_MODEL}/hard", tarfile.LNKTYPE, "/etc/passwd")),
    "tar char device": lambda tf: tf.addfile(_tar_entry(f"{TEST_MODEL}/null", tarfile.CHRTYPE)),
    "tar block device": lambda tf: tf.addfile(_tar_entry(f"{TEST_MODEL}/sda", tarfile.BLKTYPE)),
    "tar fifo": lambda tf: tf.addfile(_tar_entry(f"{TEST_MODEL}/pipe", tarfile.FIFOTYPE)),
}


def _assert_nothing_written(models: Path, outside: Path) -> None:
    assert list(models.iterdir()) == [], list(models.iterdir())
    assert not (outside / "evil.txt").exists() and not Path("/tmp/voicehost-evil.txt").exists()


@pytest.mark.parametrize("case", sorted(ZIP_CASES))
def test_malicious_zip_is_refused_before_writing(case: str, tmp_path: Path) -> None:
    """Zip members with absolute paths, '..', links leaving the archive or device modes are refused;
    nothing is written."""
    archive = _zip_with(tmp_path / "evil.zip", ZIP_CASES[case])
    models = tmp_path / "deep" / "models"
    with pytest.raises(UnsafeArchive, match="nothing was written"):
        install_archive(archive, models, _catalog(), lang="xx")
    _assert_nothing_written(models, tmp_path)


@pytest.mark.parametrize("case", sorted(TAR_CASES))
def test_malicious_tar_is_refused_before_writing(case: str, tmp_path: Path) -> None:
    """Tar members with absolute paths, '..', links pointing outside, devices or FIFOs are refused;
    nothing is written."""
    archive = _tar_with(tmp_path / "evil.tar.gz", TAR_CASES[case])
    models = tmp_path / "deep" / "models"
    with pytest.raises(UnsafeArchive, match="nothing was written"):
        install_archive(archive, models, _catalog(), lang="xx")
    _assert_nothing_written(models, tmp_path)


def test_zip_bomb_is_refused_before_writing(tmp_path: Path) -> None:
    """An archive that unpacks far beyond its expected size (here 40 MB of zeros in a ~250 kB zip) is refused."""
    contents = model_contents()
    contents["graph/HCLr.fst"] = bytes(40_000_000)
    archive = tmp_path / "bomb.zip"
    make_zip(archive, contents)
    assert archive.stat().st_size < 400_000
    models = tmp_path / "models"
    with pytest.raises(UnsafeArchive, match="zip bomb"):
        install_archive(archive, models, _catalog(), lang="xx")
    _assert_nothing_written(models, tmp_path)


def test_zip_bomb_is_measured_against_the_catalog_unpacked_size(tmp_path: Path) -> None:
    """With a catalog entry, the limit is its unpacked size (plus slack), even for an incompressible archive."""
    from voicehost.models.catalog import parse_catalog
    from tests.models_helpers import catalog_toml

    archive = tmp_path / f"{TEST_MODEL}.zip"
    data = make_zip(archive, model_contents(big=2_000_000), compression=zipfile.ZIP_STORED)
    text = catalog_toml("https://example.invalid/" + archive.name, data, unpacked_size=100_000)
    catalog = parse_catalog(text, tmp_path / "c.toml")
    with pytest.raises(UnsafeArchive, match="far beyond"):
        install_archive(archive, tmp_path / "models", catalog)
    assert list((tmp_path / "models").iterdir()) == []


def test_links_inside_the_archive_become_plain_files(tmp_path: Path) -> None:
    """A symlink or hard link to a file inside the archive is unpacked as a copy: no link is ever written."""

    def links(tf: tarfile.TarFile) -> None:
        tf.addfile(_tar_entry(f"{TEST_MODEL}/graph/copy.fst", tarfile.SYMTYPE, "Gr.fst"))
        tf.addfile(_tar_entry(f"{TEST_MODEL}/hard.mdl", tarfile.LNKTYPE, f"{TEST_MODEL}/am/final.mdl"))

    archive = _tar_with(tmp_path / "links.tar.gz", links)
    model = install_archive(archive, tmp_path / "models", _catalog(), lang="xx")
    assert not any(p.is_symlink() for p in model.path.rglob("*"))
    assert (model.path / "graph" / "copy.fst").read_bytes() == (model.path / "graph" / "Gr.fst").read_bytes()
    assert (model.path / "hard.mdl").stat().st_nlink == 1


def test_damaged_member_aborts_without_a_half_model(tmp_path: Path) -> None:
    """A member whose data is corrupt (CRC error) stops the unpacking; no model and no partial folder remain."""
    archive = tmp_path / f"{TEST_MODEL}.zip"
    data = bytearray(make_zip(archive, model_contents(), compression=zipfile.ZIP_STORED))
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo(f"{TEST_MODEL}/graph/HCLr.fst")
    data[info.header_offset + 30 + len(info.filename) + 100] ^= 0xFF
    archive.write_bytes(bytes(data))
    models = tmp_path / "models"
    with pytest.raises(NotAModel, match="damaged"):
        install_archive(archive, models, _catalog(), lang="xx")
    assert list(models.iterdir()) == []


def test_ctrl_c_during_unpacking_leaves_nothing(tmp_path: Path) -> None:
    """Ctrl-C in the middle of unpacking removes the partial folder and installs nothing."""
    archive = tmp_path / f"{TEST_MODEL}.zip"
    make_zip(archive, model_contents(big=3_000_000))
    models = tmp_path / "models"

    def progress(label: str, total: int, already: int) -> Callable[[int, int], None]:
        def report(done: int, total: int) -> None:
            if label.startswith("unpacking") and done > total // 3:
                raise KeyboardInterrupt

        return report

    with pytest.raises(KeyboardInterrupt):
        install_archive(archive, models, _catalog(), lang="xx", progress=progress)
    assert list(models.iterdir()) == []


KILLER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from voicehost.models.catalog import load_catalog
    from voicehost.models.install import install_archive

    def progress(label, total, already):
        def report(done, total):
            if label.startswith("unpacking") and done > total // 2:
                os.kill(os.getpid(), signal.SIGKILL)
        return report

    install_archive(Path(sys.argv[1]), Path(sys.argv[2]), load_catalog(), lang="en", progress=progress)
""")


def test_killed_unpacking_never_looks_installed(tmp_path: Path) -> None:
    """A process killed mid-unpack (SIGKILL) leaves only a hidden partial folder that no lookup
    treats as a model; the next install sweeps it."""
    name = "vosk-model-small-en-us-killed"
    archive = tmp_path / f"{name}.zip"
    make_zip(archive, model_contents(big=3_000_000), prefix=name)
    models = tmp_path / "models"
    result = subprocess.run(
        [sys.executable, "-c", KILLER, str(archive), str(models)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    leftovers = list(models.iterdir())
    assert len(leftovers) == 1 and leftovers[0].name.startswith(".partial-")
    assert (next(leftovers[0].iterdir()) / "am" / "final.mdl").exists()  # it really was half-way
    assert installed_vosk_models(models) == []
    assert resolve_engine("en", models).source is not Source.INSTALLED
    listing = run_voicehost("models", "--models-dir", str(models), "list")
    assert name not in listing.stdout
    model = install_archive(archive, models, load_catalog(), lang="en")
    assert [p.name for p in models.iterdir()] == [model.name]


def test_folder_with_a_link_outside_is_refused(tmp_path: Path) -> None:
    """Installing from a folder refuses links that point outside it (and copies nothing)."""
    source = write_tree(tmp_path / "src" / TEST_MODEL, model_contents())
    (source / "conf" / "passwd").symlink_to("/etc/passwd")
    models = tmp_path / "models"
    with pytest.raises(UnsafeArchive, match="outside"):
        install_folder(source, models, _catalog(), lang="xx")
    assert not models.exists() or list(models.iterdir()) == []


def test_folder_with_a_fifo_is_refused(tmp_path: Path) -> None:
    """Installing from a folder refuses FIFOs and devices."""
    source = write_tree(tmp_path / "src" / TEST_MODEL, model_contents())
    os.mkfifo(source / "graph" / "pipe")
    models = tmp_path / "models"
    with pytest.raises(UnsafeArchive, match="not a regular file"):
        install_folder(source, models, _catalog(), lang="xx")
    assert not models.exists() or list(models.iterdir()) == []


@pytest.mark.parametrize("content", [b"just text, not an archive\n", b"PK\x03\x04 broken"])
def test_not_an_archive_is_a_one_line_error(content: bytes, tmp_path: Path) -> None:
    """A file that is no archive: one line naming it, exit 2, nothing installed."""
    bogus = tmp_path / "vosk-model-small-en-us-0.15.zip"
    bogus.write_bytes(content)
    result = run_voicehost(
        "models", "--models-dir", str(tmp_path / "m"), "install", str(bogus), "--name", "x", "--lang", "en"
    )
    assert result.returncode == 2, result.stderr
    assert str(bogus) in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert installed_vosk_models(tmp_path / "m") == []


def test_archive_without_a_model_is_refused(tmp_path: Path) -> None:
    """An archive with no am/final.mdl or graph is not installed, and says what is missing."""
    archive = tmp_path / "photos.zip"
    make_zip(archive, {"holiday/a.jpg": b"\xff\xd8" * 100})
    models = tmp_path / "models"
    with pytest.raises(NotAModel, match="am/final.mdl"):
        install_archive(archive, models, _catalog(), lang="en")
    assert list(models.iterdir()) == []


def test_safe_tar_installs_through_the_cli(tmp_path: Path) -> None:
    """A well-formed .tar.gz installs through `voicehost models install` with the files intact."""
    archive = tmp_path / "vosk-model-small-de-test.tar.gz"
    contents = model_contents(seed=7)
    make_tar(archive, contents, prefix="vosk-model-small-de-test")
    result = run_voicehost("models", "install", str(archive), "--models-dir", str(tmp_path / "m"))
    assert result.returncode == 0, result.stderr
    installed = tmp_path / "m" / "vosk-model-small-de-test"
    assert all((installed / name).read_bytes() == data for name, data in contents.items())
    assert "(de)" in result.stdout and result.stderr == ""
