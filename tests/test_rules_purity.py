"""The rules core is pure: it imports no audio, TTS, recogniser, clock or global randomness."""

from __future__ import annotations

import subprocess
import sys

BLOCKED = ["time", "random", "sounddevice", "soundfile", "pyttsx3", "vosk", "pocketsphinx", "numpy", "voicehost.audio", "voicehost.listen", "voicehost.speak"]

PROBE = f"""
import importlib, pkgutil, sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in {BLOCKED!r}):
            raise ImportError("rules must not import " + name)
        return None
sys.meta_path.insert(0, Blocker())
import voicehost.rules as rules
names = []
for info in pkgutil.walk_packages(rules.__path__, "voicehost.rules."):
    if info.name.endswith(".sim"):
        continue  # simulators are drivers around the rules (they may use random/time)
    importlib.import_module(info.name)
    names.append(info.name)
print(len(names))
"""


def test_rules_import_nothing_impure() -> None:
    """Importing every rules module with time/random/audio/recognisers blocked succeeds."""
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) >= 1
