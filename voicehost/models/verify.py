"""Is an installed model complete, and does Vosk really load and run it?

The file check is instant and names what is missing. The load check runs Vosk in a child process
(:mod:`voicehost.models.probe`), so a model that makes Kaldi abort cannot take the command down
with it, and the child's peak memory is the model's own, not the parent's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from voicehost.models.errors import ModelIncomplete, ModelLoadFailed

#: Files every Vosk model has.
REQUIRED = ("am/final.mdl", "conf/model.conf", "conf/mfcc.conf")
#: A decoding graph: a static HCLG, or the lookahead pair of small models.
GRAPHS = (("graph/HCLG.fst",), ("graph/HCLr.fst", "graph/Gr.fst"))
#: Needed together once ivector/final.ie is there (Vosk then turns i-vectors on).
IVECTOR = ("ivector/final.ie", "ivector/final.mat", "ivector/final.dubm", "ivector/global_cmvn.stats",
           "ivector/online_cmvn.conf", "ivector/splice.conf")
LOAD_TIMEOUT = 300.0


@dataclass(frozen=True)
class LoadReport:
    """What loading a model took."""

    path: Path
    load_seconds: float
    """Wall time of ``vosk.Model(path)``, seconds."""
    peak_rss: int
    """Peak resident memory of the process that loaded it and decoded a little silence, bytes."""
    baseline_rss: int
    """Peak resident memory of that process before loading (Python + vosk library), bytes."""

    @property
    def model_rss(self) -> int:
        """Memory the model itself added, bytes."""
        return max(0, self.peak_rss - self.baseline_rss)


def missing_files(folder: Path) -> list[str]:
    """Files a Vosk model needs that ``folder`` lacks (empty when complete)."""
    missing = [name for name in REQUIRED if not (folder / name).is_file()]
    if not any(all((folder / name).is_file() for name in option) for option in GRAPHS):
        missing.append("graph/HCLG.fst (or graph/HCLr.fst with graph/Gr.fst)")
    if (folder / IVECTOR[0]).is_file():
        missing += [name for name in IVECTOR[1:] if not (folder / name).is_file()]
    return missing


def check_files(folder: Path) -> None:
    """Raise ModelIncomplete naming every missing file."""
    missing = missing_files(folder)
    if missing:
        raise ModelIncomplete(f"{folder}: incomplete Vosk model, missing {', '.join(missing)} (install it again)")


def load_model(folder: Path, timeout: float = LOAD_TIMEOUT) -> LoadReport:
    """Load ``folder`` with Vosk in a child process and decode half a second of silence."""
    check_files(folder)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "voicehost.models.probe", str(folder)],
            capture_output=True, text=True, errors="replace", timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise ModelLoadFailed(f"{folder}: Vosk did not finish loading the model within {timeout:.0f} s") from None
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        lines = result.stderr.strip().splitlines() or [f"exit status {result.returncode}"]
        errors = [re.sub(r"^ERROR \(\S+\)\s*", "", line) for line in lines if line.startswith("ERROR")]
        why = f"{errors[-1]} ({lines[-1]})" if errors else lines[-1]
        raise ModelLoadFailed(f"{folder}: Vosk could not load the model: {why}")
    data = json.loads(lines[-1])
    return LoadReport(folder, float(data["load_seconds"]), int(data["peak_rss"]), int(data["baseline_rss"]))
