"""Crash safety soak: kill -9 a game at random moments, then resume it.

    .venv/bin/python bench/bench_crash.py [--runs 50] [--seed 1]

Each run starts ``voicehost play`` on a scripted game (the three session fixtures' scripts and a
long Bim Bamm! game of alternating flips; simulated clock, so a game takes one or two seconds of
wall time), sends SIGKILL at a random moment while it is writing events, and then checks:

- the log reads back (every line whole, seq consecutive) and is a prefix of the same game run to
  its end without a kill (the game is deterministic for its seed and script);
- no acknowledged event is lost: every event the host had announced before the kill (it speaks
  about an event only after the event is synced to disk; the transcript lines on standard output
  are counted, and an undisturbed in-process run tells how many events preceded each line) is in
  the log;
- ``voicehost resume`` continues the game from that log (exit 0, a 'resumed' event appended, the
  earlier events untouched).

A run in which the game ended before the kill, or was killed before its first event was on disk,
is not counted and is drawn again (both are reported). Prints one line per run and a summary;
exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@dataclass
class Game:
    """A scripted game and what an undisturbed run of it does."""

    name: str
    argv: list[str]
    """``voicehost play ...`` arguments, without --log."""
    events: list[dict[str, Any]]
    """Every event of the undisturbed run."""
    acknowledged: list[int]
    """For the k-th transcript line: events recorded before it was printed."""
    window: tuple[float, float]
    """Seconds after start when the CLI printed its first and last host line (where kills go)."""


def _options_argv(game: str, options: dict[str, Any]) -> list[str]:
    flags = {
        "first_player": "--first",
        "first_master": "--first",
        "quick": "--quick",
        "rounds": "--rounds",
        "cards": "--cards",
        "race_window": "--race-window",
    }
    argv: list[str] = []
    for key, value in options.items():
        if key == "tags":
            for tag in value:
                argv += ["--tag", str(tag)]
        else:
            argv += [flags[key], str(value)]
    return argv


def _games(folder: Path) -> list[tuple[str, str, tuple[str, ...], int, dict[str, Any], Path]]:
    """(name, game, players, seed, options, script) for the fixtures and the long flipping game."""
    from tools.session_fixtures import load_spec

    found = []
    for spec_file in sorted((ROOT / "audio_fixtures" / "sessions").glob("*.toml")):
        spec = load_spec(spec_file)
        script = folder / f"{spec.name}.txt"
        script.write_text("".join(f"{line.t:.3f} {line.player}: {line.text}\n" for line in spec.lines))
        found.append((spec.name, spec.game, spec.players, spec.seed, dict(spec.options), script))
    flips = folder / "flips.txt"
    t, lines = 5.0, []
    for turn in range(120):
        player = ("Anna", "Ben")[turn % 2]
        lines.append(f"{t:.2f} {player}: flip {turn * 7 % 15 + 1}")
        t += 4.0
    flips.write_text("\n".join(lines) + "\n")
    found.append(("bimbamm_flips", "bimbamm", ("Anna", "Ben"), 5, {"first_player": "Anna", "cards": "dealt"}, flips))
    return found


class _Transcript(io.StringIO):
    """A stdout that notes, for each line printed, how many events the host had recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.host: Any = None
        self.marks: list[int] = []

    def write(self, text: str) -> int:
        if self.host is not None:
            self.marks.extend(len(self.host.events) for _ in range(text.count("\n")))
        return super().write(text)


def in_process(
    game: str, players: tuple[str, ...], seed: int, options: dict[str, Any], script: Path, log: Path
) -> list[int]:
    """Run the game undisturbed in this process; for each transcript line, the events recorded before it.

    Run it in a fresh process (``--acknowledgements``): espeak-ng keeps state between renders, so a
    second game in one process can get other speech durations, other times, other events."""
    from voicehost.host.build import PlaySettings, build_offline
    from voicehost.host.session import Session

    plain = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    settings = PlaySettings(game, players, f"script:{script}", seed, log, None, True, plain)
    out = _Transcript()
    built = build_offline(settings, stdout=out)
    out.host = built.host
    try:
        Session(built.flow, built.input, built.host).run()
    finally:
        built.close()
    return [out.marks[i] for i, line in enumerate(out.getvalue().splitlines()) if line.startswith("host")]


def reference(
    name: str, game: str, players: tuple[str, ...], seed: int, options: dict[str, Any], script: Path, folder: Path
) -> Game:
    """Run the game undisturbed, in a fresh process (for the acknowledgements) and as the command
    (to check they agree)."""
    from voicehost.eventlog import read_events

    argv = [
        "play",
        game,
        "--players",
        ",".join(players),
        "--seed",
        str(seed),
        "--input",
        f"script:{script}",
        *_options_argv(game, options),
    ]
    ref_log = folder / f"{name}-ref.jsonl"
    spec = json.dumps([game, list(players), seed, options, str(script), str(ref_log)])
    marks = subprocess.run(
        [sys.executable, __file__, "--acknowledgements", spec],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    acknowledged = json.loads(marks.stdout)
    events = read_events(ref_log)
    log = folder / f"{name}-cli.jsonl"
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "voicehost", *argv, "--log", str(log)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    times = [time.monotonic() - started for line in process.stdout or [] if line.startswith("host")]
    process.wait(timeout=120)
    if read_events(log) != events or len(times) != len(acknowledged):
        raise SystemExit(f"{name}: the command's run differs from the in-process run: cannot judge acknowledgements")
    return Game(name, argv, events, acknowledged, (times[0], times[-1]))


@dataclass
class Run:
    game: str
    killed_at: float
    events: int
    acknowledged: int
    problems: list[str]
    total: int = 0
    """Events of the undisturbed game."""


def _read_lines(process: subprocess.Popen[str], into: list[str]) -> None:
    for line in process.stdout or []:
        into.append(line)


def one_run(game: Game, delay: float, folder: Path, index: int) -> Run | None:
    """Kill a run of ``game`` after ``delay`` seconds and check its log and its resume; None if it ended first."""
    from voicehost.eventlog import read_events

    log = folder / f"run{index:03d}.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "voicehost", *game.argv, "--log", str(log)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=_read_lines, args=(process, lines), daemon=True)
    reader.start()
    time.sleep(delay)
    if process.poll() is not None:
        reader.join(timeout=10)
        return None
    process.kill()
    process.wait(timeout=30)
    reader.join(timeout=10)
    printed = sum(line.startswith("host") for line in lines)
    acknowledged = game.acknowledged[printed - 1] if printed else 0
    problems: list[str] = []
    if not log.exists() or log.stat().st_size == 0:
        if acknowledged:
            problems.append(f"no log, but {acknowledged} events had been announced")
        return Run(game.name, delay, 0, acknowledged, problems)
    try:
        saved = read_events(log)
    except Exception as error:  # the soak reports every failure rather than stopping at the first
        return Run(game.name, delay, -1, acknowledged, [f"log unreadable: {error}"])
    if saved != game.events[: len(saved)]:
        problems.append("the log is not a prefix of the undisturbed game's events")
    if len(saved) < acknowledged:
        problems.append(f"{acknowledged - len(saved)} announced event(s) missing from the log")
    empty = folder / "empty.txt"
    empty.write_text("")
    resumed = subprocess.run(
        [sys.executable, "-m", "voicehost", "resume", str(log), "--input", f"script:{empty}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if resumed.returncode != 0:
        problems.append(f"resume failed ({resumed.returncode}): {resumed.stderr.strip()[-200:]}")
    else:
        after = read_events(log)
        over = saved[-1]["type"] == "game_over"
        if after[: len(saved)] != saved or (not over and after[len(saved)]["type"] != "resumed"):
            problems.append("resume did not continue the log as it was")
    return Run(game.name, delay, len(saved), acknowledged, problems, len(game.events))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50, help="kills to count (default 50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill moments (default 1)")
    parser.add_argument("--acknowledgements", metavar="JSON", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.acknowledgements:
        game, players, seed, options, script, log = json.loads(args.acknowledgements)
        print(json.dumps(in_process(game, tuple(players), seed, options, Path(script), Path(log))))
        return 0
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="voicehost-crash-") as tmp:
        folder = Path(tmp)
        games = [reference(*spec, folder) for spec in _games(folder)]
        for game in games:
            print(
                f"{game.name}: {len(game.events)} events, host lines between {game.window[0]:.2f} and "
                f"{game.window[1]:.2f} s after start",
                flush=True,
            )
        runs: list[Run] = []
        ended_first = before_start = 0
        index = 0
        while len(runs) < args.runs:
            game = games[index % len(games)]
            start, end = game.window
            delay = rng.uniform(max(0.05, start - 0.3), end + 0.05)
            run = one_run(game, delay, folder, index)
            index += 1
            if run is None:
                ended_first += 1
                continue
            if run.events == 0 and not run.problems:
                before_start += 1
                continue
            runs.append(run)
            verdict = "ok" if not run.problems else "; ".join(run.problems)
            print(
                f"run {len(runs):3d} {run.game:<20} killed at {run.killed_at:5.2f} s: {run.events:3d} events saved, "
                f"{run.acknowledged:3d} announced: {verdict}",
                flush=True,
            )
    failed = [r for r in runs if r.problems]
    saved = [r.events for r in runs]
    print(
        f"\n{len(runs)} kills during a game (drawn again: {ended_first} runs that ended before their kill, "
        f"{before_start} killed before their first event was saved); "
        f"events saved at the kill: min {min(saved)}, median {statistics.median(saved):.0f}, max {max(saved)}; "
        f"games killed before their end: {sum(r.events < r.total for r in runs)}; "
        f"announced events lost: {sum(max(0, r.acknowledged - r.events) for r in runs)}; "
        f"resumes failed: {sum(any('resume' in p for p in r.problems) for r in runs)}; "
        f"runs with problems: {len(failed)}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
