"""Benchmark the host's reaction: from the end of the deciding shout to the start of the verdict.

    .venv/bin/python bench/bench_host.py [--sessions DIR] [--only NAME ...]

Each session fixture (audio_fixtures/sessions/NAME, rendered on first use) is replayed from its
recorded microphones through the real listening pipeline, recogniser and game flow on a simulated
clock. For every verdict the host announces — a point or a mistake in Bim Bamm!, a judged play,
skip, reverse, mistake or penalty in Bim Bam Bum!, the best/worst and the game's end in BAM! — it
measures, on the session clock, the time from the end of the deciding shout (the last thing heard
before the verdict) to the first sample of the host's next words at the table speaker, and adds
the compute time the machine really spent between receiving that shout and queueing those words.
The session clock part includes the listener's decision delay (it decides a shout once every seat
has heard past its end) and the host's barge-in on its own earlier words.
Verdicts that wait on purpose (the Bim Bamm! race window, the Bim Bam Bum! slap window) are
reported separately, with their wait.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VERDICTS = {
    "bimbamm": {"point", "mistake", "challenge", "game_over"},
    "bimbambum": {"play", "skip", "reverse", "mistake", "penalty", "game_over"},
    "bam": {"best", "worst", "game_over"},
}
WAITED = {"bimbamm": {"point", "mistake"}, "bimbambum": {"penalty"}}
"""Verdicts that follow a timer (race or slap window) rather than the shout itself."""


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def measure(folder: Path) -> dict[str, Any]:
    """Replay one session and time every verdict."""
    import io
    import tempfile

    from voicehost.host.live import build_replay
    from voicehost.host.session import Session
    from voicehost.speak.output import TABLE

    with tempfile.TemporaryDirectory() as tmp:
        built, data = build_replay(folder, log=Path(tmp) / "events.jsonl", stdout=io.StringIO())
        game = str(data["game"])
        marks: list[dict[str, Any]] = []
        state: dict[str, Any] = {"heard": None, "mark": None}
        record, say = built.host.record, built.host.mouth.service.say

        def on_heard(heard: Any) -> None:
            state["mark"] = {
                "heard": heard,
                "wall": time.perf_counter(),
                "kinds": set(),
                "spoken": None,
                "queued_wall": None,
            }
            marks.append(state["mark"])

        def timed_record(events: Any) -> Any:
            objs = record(events)
            mark = state["mark"]
            if mark is not None:
                mark["kinds"] |= {o.TYPE for o in objs} & VERDICTS[game]
            return objs

        def timed_say(text: str, to: Any = TABLE, **kw: Any) -> Any:
            spoken = say(text, to, **kw)
            mark = state["mark"]
            if mark is not None and mark["spoken"] is None and to == TABLE:
                mark["spoken"], mark["queued_wall"] = spoken, time.perf_counter()
            return spoken

        built.host.record = timed_record  # type: ignore[method-assign]
        built.host.mouth.service.say = timed_say  # type: ignore[method-assign]
        started = time.perf_counter()
        try:
            Session(built.flow, built.input, built.host, on_heard=on_heard).run()
        finally:
            built.close()
        elapsed = time.perf_counter() - started
    rows = []
    for mark in marks:
        spoken = mark["spoken"]
        if not mark["kinds"] or spoken is None or spoken.span is None:
            continue
        compute = mark["queued_wall"] - mark["wall"]
        rows.append(
            {
                "kinds": mark["kinds"],
                "sim": spoken.span.start - mark["heard"].end,
                "compute": compute,
                "waited": bool(mark["kinds"] & WAITED.get(game, set())),
            }
        )
    return {"name": folder.name, "game": game, "rows": rows, "elapsed": elapsed, "audio": built.host.clock.now()}


def main() -> int:
    """Print the table."""
    from tools import session_fixtures as fixtures

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=Path, default=fixtures.DEFAULT_DIR)
    parser.add_argument("--only", action="append", metavar="NAME")
    args = parser.parse_args()
    names = [p.stem for p in sorted(args.sessions.glob("*.toml")) if not args.only or p.stem in args.only]
    immediate: list[float] = []
    waited: list[float] = []
    computes: list[float] = []
    print(f"{'session':24} {'verdicts':>8} {'replay x real time':>19}")
    for name in names:
        result = measure(fixtures.ensure_session(name, args.sessions))
        print(f"{name:24} {len(result['rows']):>8} {result['audio'] / max(result['elapsed'], 1e-9):>18.1f}x")
        for row in result["rows"]:
            total = row["sim"] + row["compute"]
            (waited if row["waited"] else immediate).append(total)
            computes.append(row["compute"])
    print()
    for label, values in (("immediate verdicts", immediate), ("after a race/slap window", waited)):
        if values:
            print(
                f"{label:28} n={len(values):3}  median {statistics.median(values) * 1000:7.0f} ms   "
                f"p95 {percentile(values, 95) * 1000:7.0f} ms"
            )
    if computes:
        print(
            f"{'  of which compute':28} n={len(computes):3}  median {statistics.median(computes) * 1000:7.1f} ms   "
            f"p95 {percentile(computes, 95) * 1000:7.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
