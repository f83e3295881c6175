"""constraints.txt: the versions the suite last passed with, which scripts/setup installs.

A fresh install of newer ctranslate2, onnxruntime and numpy moved Whisper's scores by up to 1.4
nats on committed clips (README, "Dependencies and why"): the pins keep a CI machine and a new
user on the arithmetic the tests and the README's figures were measured with."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def pins() -> dict[str, str]:
    """Package name (canonical) → pinned version, from constraints.txt."""
    out: dict[str, str] = {}
    for number, line in enumerate((ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, pinned = line.partition("==")
        assert sep and name.strip() and pinned.strip(), f"constraints.txt line {number}: not NAME==VERSION: {line!r}"
        out[canonicalize_name(name.strip())] = pinned.strip()
    return out


def requirements() -> list[Requirement]:
    """Every requirement of pyproject.toml: the dependencies and the extras scripts/setup installs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    return [Requirement(r) for r in [*project["dependencies"], *extras["plot"], *extras["print"], *extras["test"]]]


def test_every_requirement_is_pinned_within_its_floor() -> None:
    pinned = pins()
    for requirement in requirements():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} (pyproject.toml) has no pin in constraints.txt"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {requirement.name}=={pinned[name]}, outside pyproject.toml's {requirement.specifier}"
        )


def test_the_environment_has_the_pinned_versions() -> None:
    """The suite runs on the versions it is pinned to (scripts/setup installs with the pins; a
    package upgraded by hand, or a machine where the pins did not install, shows here)."""
    differ = []
    for name, pinned in pins().items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            differ.append(f"{name}: pinned {pinned}, not installed")
            continue
        if Version(installed) != Version(pinned):
            differ.append(f"{name}: pinned {pinned}, installed {installed}")
    assert not differ, "run scripts/setup, or update constraints.txt after a green scripts/test: " + "; ".join(differ)
