"""The simulators' soak: 10,000 bot games of each game over every table size (a fresh
`voicehost simulate` process per table size, 2% mistakes), every one must end without an engine
error. Prints games and games per second per game. The test suite plays 2,004 Bim Bam Bum! games
(tests/test_bimbambum_sim.py); this is the long run.

    .venv/bin/python bench/bench_sim.py [--games N] [--game bimbamm|bimbambum|bam]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"bimbamm": range(2, 9), "bimbambum": range(3, 9), "bam": range(3, 9)}
"""Table sizes each simulator takes."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10000, help="games per game, spread over the table sizes")
    parser.add_argument("--game", choices=sorted(SIZES), action="append", help="only this game (repeatable)")
    args = parser.parse_args()
    failed = 0
    for game in args.game or sorted(SIZES):
        sizes = list(SIZES[game])
        per = -(-args.games // len(sizes))
        started = time.perf_counter()
        for players in sizes:
            command = [sys.executable, "-m", "voicehost", "simulate", game, "--players", str(players)]
            command += ["--games", str(per), "--seed", str(players), "--mistake-rate", "0.02"]
            result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
            if result.returncode != 0:
                failed += 1
                print(f"{game}, {players} players: exit {result.returncode}\n{result.stdout}{result.stderr}")
        seconds = time.perf_counter() - started
        games = per * len(sizes)
        print(
            f"{game:10} {games} games in {seconds:.1f} s ({games / seconds:.0f} games/s), sizes {sizes[0]}-{sizes[-1]}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
