"""Phones through the browser path: onset error and clock drift per phone over a long session.

Every phone is a headless chromium whose fake microphone loops a scene made from a committed race
fixture (the click train "from the table speaker", then the race; see tests/phones_helpers.py).
The host calibrates once with its click train, then listens through the real pipeline for
``--seconds``. For every loop it reports, per phone: where its click train landed relative to the
other phones' (alignment drift since calibration), and each heard shout's onset minus the truth
placed from that loop's click train; at the end each phone's fitted clock drift, shortest round
trip, jitter and how far the placement was slewed.

    .venv/bin/python bench/bench_phones.py                      # 60 s, race3_pink20 (3 phones)
    .venv/bin/python bench/bench_phones.py --seconds 600        # the 10-minute session

VOICEHOST_CHROMIUM_PREFIX (e.g. "nice -n -10" or "chrt -r 5") runs each chromium under that
command: on a loaded machine chromium's fake audio devices lose 10 ms buffers (see docs/table.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def main() -> int:
    """Run the session and print the table."""
    from phones_helpers import check_loops, race_fixture, run_race

    from voicehost.models.engine import user_recognizer

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds to listen after calibration (default 60)")
    parser.add_argument("--fixture", default="race3_pink20", help="race fixture (default race3_pink20)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULSE")}
    fixture = race_fixture(args.fixture)
    print(f"phones: {', '.join(fixture.seats)}; listening {args.seconds:.0f} s after calibration ...", flush=True)
    run = run_race(
        fixture,
        Path(tempfile.mkdtemp(prefix="bench-phones-")),
        args.seconds,
        recognizer=user_recognizer("en"),
        env=env,
        log=lambda line: print(line, flush=True),
    )
    print(
        "calibration shifts (ms):",
        {k: round(v * 1000, 2) for k, v in run.shifts.items()},
        "click spread (ms):",
        {k: round(v * 1000, 2) for k, v in run.spread.items()},
    )
    errors: dict[str, list[float]] = {s: [] for s in run.seats}
    spreads: list[float] = []
    for n, check in enumerate(check_loops(run, fixture)):
        spreads.append(max(check.train.values()) - min(check.train.values()))
        mean = statistics.fmean(check.train.values())
        trains = ", ".join(f"{s} {(t - mean) * 1000:+.2f}" for s, t in check.train.items())
        heard = ", ".join(f"{s} {e * 1000:+.1f}" for s, e in check.onset_errors.items())
        print(
            f"loop {n:3d} at {mean:7.1f} s: click train vs mean (ms) {trains}; "
            f"order {'>'.join(check.order)}; onset - truth (ms) {heard}"
        )
        for seat, error in check.onset_errors.items():
            errors[seat].append(error)
    for seat in run.seats:
        st = run.stats[seat]
        e = sorted(abs(x) for x in errors[seat])
        med = f"{statistics.median(e) * 1000:.1f}" if e else "-"
        print(
            f"{seat}: shouts {len(e)}, |onset - truth| median {med} ms; drift {st.drift_ppm:+.1f} ppm; "
            f"rtt min {st.rtt_min * 1000:.2f} ms; jitter {run.jitter[seat] * 1000:.2f} ms; slewed {st.slewed} frames; "
            f"lost {st.lost_frames} frames; re-anchored {st.reanchors} times"
        )
    every = sorted(abs(x) for seat in run.seats for x in errors[seat])
    if every:
        within = sum(x <= 0.010 for x in every)
        print(
            f"all shouts: |onset - truth| median {statistics.median(every) * 1000:.1f} ms, "
            f"max {every[-1] * 1000:.1f} ms, within 10 ms {within}/{len(every)}"
        )
    if spreads:
        late = [s for s in spreads if s > 0.010]
        print(
            f"click trains across phones per loop: max spread {max(spreads) * 1000:.1f} ms, "
            f"median {statistics.median(spreads) * 1000:.1f} ms; loops over 10 ms: {len(late)}/{len(spreads)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
