"""Files voicehost writes go only where a regular file can be: never over a device node, FIFO or folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import run_voicehost

AUDIO = Path(__file__).resolve().parents[1] / "audio_fixtures"


def commands(target: Path, tmp: Path) -> dict[str, list[str]]:
    """Every command option that writes a file, aimed at ``target``."""
    script = tmp / "s.txt"
    script.write_text("1 Anna: help\n")
    return {
        "say --out": ["say", "hi", "--no-play", "--out", str(target)],
        "play --speech-wav": [
            "play",
            "bimbamm",
            "--players",
            "Anna,Ben",
            "--input",
            f"script:{script}",
            "--log",
            str(tmp / "g.jsonl"),
            "--speech-wav",
            str(target),
        ],
        "play --log": ["play", "bimbamm", "--players", "Anna,Ben", "--input", f"script:{script}", "--log", str(target)],
        "deck print --out": ["deck", "print", "--out", str(target)],
        "rank --plot": [
            "rank",
            "--game",
            "bimbamm",
            "--track",
            f"Anna={AUDIO / 'race2_close.Anna.wav'}",
            "--plot",
            str(target),
        ],
        "demo --out": ["demo", "--no-play", "--out", str(target)],
    }


def special(kind: str, tmp: Path) -> Path:
    """A FIFO, a folder or a path in a missing folder."""
    if kind == "fifo":
        os.mkfifo(tmp / "target")
        return tmp / "target"
    if kind == "folder":
        (tmp / "target").mkdir()
        return tmp / "target"
    return tmp / "missing" / "target"


@pytest.mark.parametrize("kind", ["fifo", "folder", "missing folder"])
@pytest.mark.parametrize(
    "command", ["say --out", "play --speech-wav", "play --log", "deck print --out", "rank --plot", "demo --out"]
)
def test_outputs_refuse_fifos_folders_and_missing_folders(tmp_path: Path, kind: str, command: str) -> None:
    """Each writing option gives one line, status 2, and leaves a FIFO a FIFO (it was replaced by a regular file)."""
    target = special(kind, tmp_path)
    if command == "rank --plot":
        target = target.with_suffix(".png") if kind == "missing folder" else target
    argv = commands(target, tmp_path)[command]
    result = run_voicehost(*argv, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr
    if kind == "fifo":
        assert stat.S_ISFIFO(os.stat(target).st_mode)
    if kind == "missing folder":
        assert not target.parent.exists()


def test_device_nodes_are_never_written_over(tmp_path: Path) -> None:
    """A character device as output (like /dev/null, which 'say --out /dev/null' run as root turned
    into a WAV file) is refused."""
    from voicehost.files import OutputPathError, check_output_file

    with pytest.raises(OutputPathError, match="device"):
        check_output_file(Path("/dev/null"))
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        return  # creating a device node needs root; /dev/null above was checked without writing to it
    result = run_voicehost("say", "hi", "--no-play", "--out", str(node))
    assert result.returncode == 2 and "device" in result.stderr
    assert stat.S_ISCHR(os.stat(node).st_mode)


def test_outputs_still_replace_regular_files_atomically(tmp_path: Path) -> None:
    """An existing regular file is replaced whole; no temporary file is left behind."""
    out = tmp_path / "hello.wav"
    out.write_bytes(b"old")
    result = run_voicehost("say", "hello", "--no-play", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:4] == b"RIFF"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hello.wav"]
