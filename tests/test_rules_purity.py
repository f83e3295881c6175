"""The rules core is pure: it imports no audio, TTS, recogniser, host, CLI, clock or global randomness."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import voicehost.rules

BLOCKED = [
    "time",
    "random",
    "argparse",
    "sounddevice",
    "soundfile",
    "pyttsx3",
    "vosk",
    "pocketsphinx",
    "numpy",
    "voicehost.audio",
    "voicehost.listen",
    "voicehost.speak",
    "voicehost.host",
    "voicehost.cli",
    "voicehost.commands",
    "voicehost.sim",
    "voicehost.eventlog",
    "voicehost.games",
]
"""What no module under ``voicehost.rules`` may import, even indirectly."""

EXPECTED = {
    "voicehost.rules.base",
    "voicehost.rules.bimbamm.engine",
    "voicehost.rules.bimbamm.events",
    "voicehost.rules.bimbamm.replay",
    "voicehost.rules.bimbambum.engine",
    "voicehost.rules.bimbambum.events",
    "voicehost.rules.bimbambum.replay",
    "voicehost.rules.bam.engine",
    "voicehost.rules.bam.events",
    "voicehost.rules.bam.replay",
}
"""Modules the probe must have imported (so a renamed or skipped package cannot pass silently)."""

PROBE = """
import importlib, pkgutil, sys
BLOCKED = {blocked!r}
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError("rules must not import " + name)
        return None
for name in list(sys.modules):  # forget what start-up imported (the standard library's own use of
    if name.startswith("voicehost") or name.split(".")[0] in {{"numpy", "argparse"}}:  # time stays: see below)
        del sys.modules[name]
sys.meta_path.insert(0, Blocker())
{body}
"""

ALL_RULES = """
import voicehost.rules as rules
for info in pkgutil.walk_packages(rules.__path__, "voicehost.rules."):
    importlib.import_module(info.name)
    print(info.name)
"""


def _probe(body: str) -> subprocess.CompletedProcess[str]:
    code = PROBE.format(blocked=BLOCKED, body=body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_rules_import_nothing_impure() -> None:
    """Every module under voicehost.rules imports with audio, host, CLI, argparse, time and random blocked."""
    result = _probe(ALL_RULES)
    assert result.returncode == 0, result.stderr
    imported = set(result.stdout.split())
    assert EXPECTED <= imported, sorted(EXPECTED - imported)


STDLIB_BLOCKED = {"time", "random", "argparse", "datetime", "secrets", "os", "sys"}
"""Standard modules a rules module must not import itself (the standard library may use them inside,
as ``tomllib`` uses ``datetime``): no clock, no global randomness, no command line, no environment."""


def test_rules_modules_import_no_clock_randomness_or_command_line() -> None:
    """No module under voicehost.rules names time, random, argparse, os or sys in its own imports."""
    root = Path(voicehost.rules.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{path.relative_to(root)}: {n}" for n in names if n.split(".")[0] in STDLIB_BLOCKED]
    assert found == []


def test_the_purity_probe_can_fail() -> None:
    """The blocker really blocks: a host module (which needs the clock and audio) cannot be imported."""
    result = _probe("import voicehost.host.session")
    assert result.returncode != 0
    assert "must not import" in result.stderr
