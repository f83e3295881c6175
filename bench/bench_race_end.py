"""Shouts at the end of a Bim Bamm! race window: scored, or lost because their verdict came after it?

A whole recorded session through the real stack, as ``voicehost replay`` runs it (the host's
voice rendered by espeak-ng and cancelled, the players' synthetic voices, PocketSphinx): the start
of audio_fixtures/sessions/bimbamm_two_players.toml (Anna and Ben flip the two tiles that make
five dogs; Ben holds the dog), with Ben's "dog" beginning DELTA seconds before the race window's
end. For each of the 8 synthetic English voices for Ben (the race's end found by a replay without
the shout) and each DELTA, the session is replayed twice: with the race held while the listener
still judges a sound that began inside it (session.HOLD_MAX, README item 36) and without
(HOLD_MAX 0, as before). Prints, per DELTA, how many of the shouts were heard at all, how many
scored each way, and how long the race's end was held (seconds after the deadline).

    python bench/bench_race_end.py [--work DIR] [--deltas 0.1,0.3,...] [--voices 0,1,...] [--engine auto]

``--engine auto``: the replays with the recogniser 'voicehost play' ships (Whisper + PocketSphinx +
Moonshine) instead of the sessions' own PocketSphinx (README item 38: most voices' flips are then
not taken, so few races open).

``--talk``: what the wait costs instead: the Bim Bamm! recordings of bench_listen.py's held-out
set (held-out voices, seed 21: races, solo shouts and 20 s of table talk, per noise condition)
through the listener with a race window open, a deadline every 0.25 s; per class and condition,
how many deadlines a timer would wait at and how long (``Listener.judging``, at most HOLD_MAX).

    python bench/bench_race_end.py --talk [--work DIR] [--seed 21] [--rounds 4]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SPEC = """game = "bimbamm"
players = ["Anna", "Ben"]
seed = 2
options = {{ first_player = "Anna", cards = "dealt" }}
voices = [2, {voice}]
script = \"\"\"
22.00 Anna: flip nine
25.28 Ben: flip twelve
{shout}\"\"\"
"""


ENGINE: str | None = None
"""--engine: the recogniser the replays use (None: the session's own, PocketSphinx)."""


def replay(folder: Path, hold: float | None) -> list[dict[str, Any]]:
    """The session's events replayed through the real listener (``hold``: HOLD_MAX; None: as shipped)."""
    from voicehost.eventlog import read_events
    from voicehost.host import session
    from voicehost.host.live import ListenSettings, build_replay

    shipped = session.HOLD_MAX
    session.HOLD_MAX = shipped if hold is None else hold
    log = folder.parent / f"{folder.name}-{hold}.jsonl"
    log.unlink(missing_ok=True)
    try:
        listen = ListenSettings("en", ENGINE, None) if ENGINE is not None else None
        built, _ = build_replay(folder, listen=listen, log=log, stdout=io.StringIO())
        try:
            session.Session(built.flow, built.input, built.host).run()
        finally:
            built.close()
    finally:
        session.HOLD_MAX = shipped
    return read_events(log)


def render(work: Path, name: str, voice: int, shout: str) -> Path:
    from tools.session_fixtures import generate_fresh

    spec = work / f"{name}.toml"
    spec.write_text(SPEC.format(voice=voice, shout=shout))
    with contextlib.redirect_stdout(io.StringIO()):
        generate_fresh(spec, work)
    return work / name


def race_end(events: list[dict[str, Any]]) -> float:
    """When the race closed: the time of the first event after it that is not a shout (the point, a
    mistake or the next turn)."""
    race = next(i for i, e in enumerate(events) if e["type"] == "race")
    return float(next(e for e in events[race + 1 :] if e["type"] != "shout")["t"])


def outcome(events: list[dict[str, Any]]) -> tuple[str, float]:
    """(what became of Ben's dog, when the race closed)."""
    race = next((i for i, e in enumerate(events) if e["type"] == "race"), None)
    if race is None:
        return "no race", 0.0
    later = events[race + 1 :]
    shout = next((e for e in later if e["type"] == "shout" and e["player"] == "Ben"), None)
    if shout is None:
        what = "missed"
    elif not shout["in_race"]:
        what = "after"
    elif any(e["type"] == "point" and e["player"] == "Ben" for e in later):
        what = "point"
    else:
        what = "wrong"
    return what, race_end(events)


def tally(outcomes: list[str]) -> str:
    """'point 40, after 5, ...' in a fixed order."""
    order = ("point", "wrong", "after", "missed")
    return ", ".join(f"{k} {outcomes.count(k)}" for k in order if outcomes.count(k))


def talk(work: Path, seed: int, rounds: int) -> None:
    """--talk: how long a timer due at each 0.25 s would wait, in races, solo shouts and talk."""
    from tools import listen_fixtures as fx
    from tools.synth import HELDOUT_ENGLISH_VOICES
    from voicehost.commands.rank import game_phrases
    from voicehost.host.session import HOLD_MAX
    from voicehost.listen.pipeline import Listener
    from voicehost.listen.recognize import build_recognizer
    from voicehost.listen.sources import FileSource

    renderer = fx.Renderer()
    scenarios = [s for s in fx.heldout_set(seed, HELDOUT_ENGLISH_VOICES, rounds) if s.game == "bimbamm"]
    recognizer = build_recognizer("en", "auto", None)
    phrases = game_phrases("bimbamm", "en")
    held: dict[tuple[str, str], list[float]] = {}
    for n, scenario in enumerate(scenarios, 1):
        path = work / f"{scenario.name}.json"
        if not path.exists():
            fx.write(renderer.render(scenario), work)
        fixture = fx.read_fixture(path)
        recording = fixture.load()
        expected = [str(e["phrase"]) for e in fixture.expected][:1]
        listener = Listener(recording.seats, recognizer, phrases)
        listener.set_phrases(phrases, expected or phrases, None, phrases)  # a race window open all along
        waiting: list[float] = []
        waits: list[float] = []
        due = 0.25
        for block in FileSource(recording, 320).blocks():
            now = (block.start_frame + len(block.samples)) / block.rate
            listener.feed(block)
            while due <= now:
                waiting.append(due)
                due += 0.25
            for deadline in list(waiting):
                judging = listener.judging(deadline)
                if judging and now < deadline + HOLD_MAX:
                    continue
                # the block that brought the deadline is read before it is looked at: no wait
                waits.append(HOLD_MAX if judging else max(0.0, now - deadline - 0.02))
                waiting.remove(deadline)
        kind, condition = scenario.name.split("_")[1:3]
        held.setdefault((kind, condition), []).extend(waits)
        print(f"\r[{n}/{len(scenarios)}] {scenario.name:30}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"A timer due every 0.25 s, held-out voices, seed {seed}, a race window open (Bim Bamm! recordings):")
    print("| recordings | deadlines | waited | wait p50 / p95 / max | waited the full HOLD_MAX |")
    print("|---|---|---|---|---|")
    for (kind, condition), waits in sorted(held.items()):
        ordered = sorted(waits)
        count = len(ordered)
        waited = sum(1 for w in ordered if w > 0)
        print(
            f"| {kind} {condition} | {count} | {waited} ({100 * waited / max(count, 1):.0f}%) | "
            f"{statistics.median(ordered):.2f} / {ordered[int(0.95 * (count - 1))]:.2f} / {ordered[-1]:.2f} s | "
            f"{sum(1 for w in ordered if w >= HOLD_MAX)} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--work", type=Path, default=None, help="folder for the rendered sessions (default: a temporary one)"
    )
    parser.add_argument(
        "--deltas", default="0.1,0.3,0.5,0.7,0.9,1.1", help="seconds before the race's end Ben's shout begins"
    )
    parser.add_argument("--voices", default="0,1,2,3,4,5,6,7", help="Ben's synthetic voices (indices)")
    parser.add_argument(
        "--engine",
        default=None,
        help="recogniser for the replays (default: the sessions' own, sphinx; auto: as 'voicehost play' ships)",
    )
    parser.add_argument("--talk", action="store_true", help="measure the wait's cost in races, solo shouts and talk")
    parser.add_argument("--seed", type=int, default=21, help="--talk: the held-out set's seed (default 21)")
    parser.add_argument("--rounds", type=int, default=4, help="--talk: rounds of the held-out set (default 4)")
    args = parser.parse_args(argv)
    global ENGINE
    ENGINE = args.engine
    deltas = [float(d) for d in args.deltas.split(",")]
    voices = [int(v) for v in args.voices.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-race-end-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.talk:
        talk(work, args.seed, args.rounds)
        return 0
    rows: dict[float, list[tuple[str, str, float]]] = {d: [] for d in deltas}
    quiet: list[float] = []
    skipped: list[int] = []
    for voice in voices:
        dry = render(work, f"dry{voice}", voice, "")
        alone = replay(dry, 0.0)
        if not any(e["type"] == "race" for e in alone):
            print(f"voice {voice}: the replay without the shout missed a flip (no race): voice left out", flush=True)
            skipped.append(voice)
            continue
        deadline = race_end(alone)
        quiet.append(race_end(replay(dry, None)) - deadline)
        for delta in deltas:
            at = round(deadline - delta, 2)
            folder = render(work, f"v{voice}d{delta}", voice, f"{at:.2f} Ben: dog\n")
            before, (after, closed) = outcome(replay(folder, 0.0)), outcome(replay(folder, None))
            rows[delta].append((before[0], after, closed - deadline))
            print(
                f"voice {voice} delta {delta:.1f}: race ends {deadline:.2f} s; Ben's dog at {at:.2f}: "
                f"race not held: {before[0]}; held: {after}, the race closed {closed - deadline:+.2f} s",
                flush=True,
            )
    print()
    print("Ben's dog: point (scored), wrong (heard as another animal: a mistake), after (a shout after the race),")
    print("missed (not reported); 'no race': the replay missed a flip (excluded).")
    print()
    print(
        "| shout begins before the race's end | race not held (before) | race held (item 36) "
        "| race's end held, p50 / max |"
    )
    print("|---|---|---|---|")
    everything: list[tuple[str, str, float]] = []
    for delta in deltas:
        got = [r for r in rows[delta] if "no race" not in r[:2]]
        everything += got
        holds = [h for *_, h in got] or [0.0]
        print(
            f"| {delta:.1f} s | {tally([b for b, _, _ in got])} | {tally([a for _, a, _ in got])} | "
            f"{statistics.median(holds):.2f} / {max(holds):.2f} s |"
        )
    excluded = sum(len(rows[d]) for d in deltas) - len(everything)
    print(
        f"| all ({len(everything)}; {excluded} without a race) | {tally([b for b, _, _ in everything])} "
        f"| {tally([a for _, a, _ in everything])} | |"
    )
    if quiet:
        print(
            f"Races nobody shouted in (race held): its end held p50/max {statistics.median(quiet):.2f} / "
            f"{max(quiet):.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
