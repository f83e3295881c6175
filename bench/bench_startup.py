"""Start-up time of the one-shot commands people run by hand: `voicehost bam render` (word tables
read from their compiled cache) and `voicehost --help`. Prints min / median of N runs (wall time,
a fresh process each), after one warm-up run that compiles the cache.

    .venv/bin/python bench/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "bam render": ["bam", "render", "BAM! has lost its charm", "Cats"],
    "--help": ["--help"],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    args = parser.parse_args()
    for name, argv in COMMANDS.items():
        command = [sys.executable, "-m", "voicehost", *argv]
        subprocess.run(command, capture_output=True, cwd=ROOT, check=True)
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, cwd=ROOT, check=True)
            times.append(time.perf_counter() - started)
        print(f"{name:12} min {min(times):.2f} s, median {statistics.median(times):.2f} s ({args.runs} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
