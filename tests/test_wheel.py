"""An installed (non-editable) wheel works on its own: run from another folder, it has its model
catalog and its demo recording, and it carries none of the developer tools.

The wheel is built once from a copy of pyproject.toml, README.md and voicehost/ and installed
without dependencies into a fresh virtual environment that borrows the test environment's
installed libraries (a ``.pth`` file), so nothing is downloaded. About 45 s on the shared 2-core
machine, most of it the demo's replay. The same check against PyPI (a real ``pip install .`` into
an empty venv) is in the README's "Installing" section.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """(the venv's bin folder, a working folder outside the checkout, the environment), with the wheel installed."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "voicehost", source / "voicehost", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VOICEHOST_MODELS", "VIRTUAL_ENV")}
    env.update(HOME=str(base / "home"), XDG_DATA_HOME=str(base / "home" / "data"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(base / "dist"),
            str(source),
        ],
        base,
        env,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((base / "dist").glob("voicehost-*.whl"))
    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], base, env)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], base, env
    ).stdout.strip()
    # the test environment's libraries, after the venv's own site-packages (its editable voicehost is
    # a .pth finder there, which a plain path entry does not run)
    Path(purelib, "borrowed-libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)], base, env
    )
    assert install.returncode == 0, install.stdout + install.stderr
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return venv / "bin", elsewhere, {**env, "wheel": str(wheel)}


def test_the_wheel_holds_the_package_data_and_no_developer_tools(installed: tuple[Path, Path, dict[str, str]]) -> None:
    """The catalog, vocabulary packs, deck and demo recording are in the wheel; tools/ and tests/ are not."""
    names = zipfile.ZipFile(installed[2]["wheel"]).namelist()
    for data in (
        "voicehost/models/catalog.toml",
        "voicehost/listen/vocab/en.toml",
        "voicehost/decks/base.toml",
        "voicehost/listen/recognize/tuning.toml",
        "voicehost/data/demo/bimbambum_quick/mics.flac",
        "voicehost/data/demo/bimbambum_quick/host.flac",
        "voicehost/data/demo/bimbambum_quick/events.jsonl",
        "voicehost/data/demo/bimbambum_quick/session.json",
    ):
        assert data in names, data
    assert not [n for n in names if n.startswith(("tools/", "tests/", "bench/")) or "fixtures" in n or "synth" in n]


def test_the_installed_commands_work_from_another_folder(installed: tuple[Path, Path, dict[str, str]]) -> None:
    """models list, simulate, bam render and demo run from the wheel alone (not the checkout)."""
    bin_dir, cwd, env = installed
    where = _run([str(bin_dir / "python"), "-c", "import voicehost; print(voicehost.__file__)"], cwd, env)
    assert Path(where.stdout.strip()).is_relative_to(bin_dir.parent), where.stdout + where.stderr
    tools = _run([str(bin_dir / "python"), "-c", "import tools.session_fixtures"], cwd, env)
    assert tools.returncode != 0
    voicehost = str(bin_dir / "voicehost")
    listed = _run([voicehost, "models", "list"], cwd, env)
    assert listed.returncode == 0 and "vosk-model-small-en-us-0.15" in listed.stdout, listed.stdout + listed.stderr
    assert "your user data folder" in listed.stdout, listed.stdout
    simulated = _run([voicehost, "simulate", "bimbamm", "--games", "10"], cwd, env)
    assert simulated.returncode == 0 and "10" in simulated.stdout, simulated.stdout + simulated.stderr
    rendered = _run(
        [
            voicehost,
            "bam",
            "render",
            "BAM! makes BAM! taste better.",
            "Ketchup",
            "Broccoli",
            "--mass",
            "1",
            "--mass",
            "2",
        ],
        cwd,
        env,
    )
    assert rendered.returncode == 0 and "Ketchup makes broccoli taste better." in rendered.stdout, (
        rendered.stdout + rendered.stderr
    )
    demo = _run([voicehost, "demo", "--no-play"], cwd, env, timeout=600)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr
    assert "the replay reproduced the recorded game exactly" in demo.stdout, demo.stdout[-3000:]
    assert (cwd / "demo-out" / "demo.wav").stat().st_size > 100_000


def test_the_packaged_demo_is_rendered_from_the_current_spec() -> None:
    """voicehost/data/demo/ holds the render of today's spec by today's generator
    (else: python -m tools.session_fixtures --demo)."""
    import json

    from tools.session_fixtures import DEFAULT_DIR, DEMO, DEMO_DIR, load_spec, spec_digest

    session = json.loads((DEMO_DIR / DEMO / "session.json").read_text())
    assert session["spec_sha256"] == spec_digest(load_spec(DEFAULT_DIR / f"{DEMO}.toml")), (
        "the demo recording is stale: run python -m tools.session_fixtures --demo and check it with voicehost replay"
    )
