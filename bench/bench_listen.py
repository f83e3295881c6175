"""Benchmark of the listening pipeline: who shouted first, what, and when, on a fixture set
generated with a different seed than the committed one, plus real human voices if given.

    .venv/bin/python bench/bench_listen.py                     # seed 7, 60 races, 2 min of chatter
    .venv/bin/python bench/bench_listen.py --engine sphinx --speech-commands ../shared/data/speech_commands
    .venv/bin/python bench/bench_listen.py --oracle            # recogniser replaced by the truth

Prints a table: first-shouter accuracy, pairwise order accuracy by onset gap, phrase accuracy,
onset error (median, p95), false alarms per minute of chatter, real-time factor (CPU seconds
per second of audio) for 1, 4 and 8 seats, and the same accuracy figures for a naive baseline
that takes the recogniser's first word start as the onset.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from voicehost.listen import fixtures as fx  # noqa: E402
from voicehost.listen.fake import FakeRecognizer  # noqa: E402
from voicehost.listen.messages import Recognizer, Segment, Shout  # noqa: E402
from voicehost.listen.pipeline import Decision, listen_to  # noqa: E402
from voicehost.listen.sources import Recording  # noqa: E402

GAPS_MS = (5, 10, 20, 30, 50, 100)
BIMBAMBUM = fx.BIMBAMBUM_CALLS + ("slap",)


@dataclass
class Tally:
    """Counts for one way of taking onsets (the pipeline's, or the recogniser's first word)."""

    races: int = 0
    first_right: int = 0
    clean_races: int = 0
    """Races whose onsets all differ by ≥ 20 ms, at SNR ≥ 20 dB."""
    clean_first_right: int = 0
    pairs: dict[int, list[int]] = field(default_factory=lambda: {g: [0, 0] for g in GAPS_MS})
    """gap (ms) → [right, total] for pairs of shouts in a race."""
    errors: dict[str, list[float]] = field(default_factory=dict)
    """condition → onset errors (s)."""

    def add_race(self, expected: Sequence[dict[str, object]], found: Sequence[dict[str, object]], condition: str, snr: float) -> None:
        """Score one race: first shouter, pairwise order, onset errors."""
        self.races += 1
        right = bool(found) and found[0]["player"] == expected[0]["player"]
        self.first_right += right
        onsets = [float(e["onset"]) for e in expected]  # type: ignore[arg-type]
        gaps = np.diff(sorted(onsets))
        if snr >= 20 and (gaps.size == 0 or gaps.min() >= 0.0195):
            self.clean_races += 1
            self.clean_first_right += right
        match = fx.match(found, expected)
        self.errors.setdefault(condition, []).extend(match.onset_errors())
        where = {str(e["player"]): float(f["onset"]) for e, f in match.pairs}  # type: ignore[arg-type]
        for a, b in itertools.combinations(expected, 2):
            gap = abs(float(a["onset"]) - float(b["onset"])) * 1000  # type: ignore[arg-type]
            bucket = min(GAPS_MS, key=lambda g: abs(g - gap))
            self.pairs[bucket][1] += 1
            pa, pb = where.get(str(a["player"])), where.get(str(b["player"]))
            if pa is not None and pb is not None and (pa - pb) * (float(a["onset"]) - float(b["onset"])) > 0:  # type: ignore[arg-type]
                self.pairs[bucket][0] += 1


@dataclass
class Totals:
    """Everything measured."""

    pipeline: Tally = field(default_factory=Tally)
    baseline: Tally = field(default_factory=Tally)
    expected: int = 0
    phrases_right: int = 0
    found: int = 0
    chatter_seconds: float = 0.0
    false_alarms: int = 0
    false_alarm_phrases: list[str] = field(default_factory=list)
    cpu: float = 0.0
    audio: float = 0.0


def baseline_shouts(decisions: Sequence[Decision]) -> list[dict[str, object]]:
    """The same shouts, with the recogniser's first word start as the onset."""
    out = []
    for d in decisions:
        if d.shout is None:
            continue
        onset = d.shout.onset
        if d.recognition is not None and d.recognition.words:
            onset = d.segment_start + d.recognition.words[0].start
        out.append({**d.shout.to_json(), "onset": onset})
    return sorted(out, key=lambda s: float(s["onset"]))  # type: ignore[arg-type]


def oracle(fixture: fx.Fixture) -> Recognizer:
    """A recogniser that knows the truth (measures everything but recognition)."""
    def answer(segment: Segment) -> str | None:
        sound = fixture.sound_at(segment.event.seat, segment.event.onset)
        return str(sound.get("phrase") or sound["text"]) if sound and sound["kind"] == "shout" else None
    return FakeRecognizer(answer, name="oracle")


def run_set(fixtures: Sequence[fx.Fixture], make: Callable[[fx.Fixture, str], Recognizer], totals: Totals, phrases_for: Callable[[str], tuple[str, ...]]) -> None:
    """Replay every fixture and score it."""
    for k, fixture in enumerate(fixtures, 1):
        rec = fixture.load()
        game = str(fixture.manifest["game"])
        recognizer = make(fixture, game)
        t0 = time.process_time()
        shouts, listener = listen_to(rec, recognizer, phrases_for(game))
        totals.cpu += time.process_time() - t0
        totals.audio += rec.duration
        score(fixture, shouts, listener.decisions, totals)
        print(f"\r[{k}/{len(fixtures)}] {fixture.name:40}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def score(fixture: fx.Fixture, shouts: Sequence[Shout], decisions: Sequence[Decision], totals: Totals) -> None:
    """Add one fixture's results."""
    expected = fixture.expected
    found = [s.to_json() for s in shouts]
    noise = fixture.manifest["noise"]
    condition = f"{noise['kind']} {noise['snr_db']:g} dB"  # type: ignore[index]
    if not expected:
        totals.chatter_seconds += float(fixture.manifest["duration"])  # type: ignore[arg-type]
        totals.false_alarms += len(found)
        totals.false_alarm_phrases.extend(str(f["phrase"]) for f in found)
        return
    match = fx.match(found, expected)
    totals.expected += len(expected)
    totals.found += len(match.pairs)
    totals.phrases_right += match.phrases_right()
    totals.false_alarms += len(match.extra)
    snr = float(noise["snr_db"])  # type: ignore[index]
    totals.pipeline.add_race(expected, found, condition, snr)
    totals.baseline.add_race(expected, baseline_shouts(decisions), condition, snr)


def rtf(recognizer: Recognizer, phrases: Sequence[str], seats: Sequence[int], seed: int, work: Path) -> dict[int, float]:
    """CPU seconds per second of audio for the whole pipeline with ``n`` seats all shouting
    (8 s recordings, babble at 20 dB, one race)."""
    out = {}
    renderer = fx.Renderer()
    for n in seats:
        rng = np.random.default_rng(seed + n)
        scenario = fx.race(f"rtf{n}", rng, [float(g) for g in rng.choice(GAPS_MS, n - 1)] if n > 1 else [], noise="babble", snr_db=20, seed=seed + n, seats=n)
        scenario = replace(scenario, duration=max(scenario.duration, 8.0))
        fixture = fx.read_fixture(fx.write(renderer.render(scenario), work))
        rec = fixture.load()
        t0 = time.process_time()
        listen_to(rec, recognizer, phrases)
        out[n] = (time.process_time() - t0) / rec.duration
    return out


def engines_for_rtf(spec: str) -> list[tuple[str, Recognizer, tuple[str, ...]]]:
    """(label, recogniser, phrases) for each ``engine[:lang]`` in ``spec`` ('none' = no recogniser)."""
    from voicehost.commands.rank import game_phrases
    from voicehost.listen.recognize import build_recognizer

    out: list[tuple[str, Recognizer, tuple[str, ...]]] = []
    for item in spec.split(","):
        engine, _, lang = item.partition(":")
        lang = lang or "en"
        if engine == "none":
            out.append(("no recogniser", FakeRecognizer(lambda s: None, name="none"), fx.BIMBAMM_PHRASES))
        else:
            recognizer = build_recognizer(lang, engine, None)
            out.append((f"{engine} ({lang})", recognizer, game_phrases("bimbamm", lang)))
    return out


def real_voice_set(folder: Path, seed: int, work: Path, races: int) -> list[fx.Fixture]:
    """Races built from real people saying 'cat'/'dog' (Speech Commands) over its real noise,
    with other words as chatter. Truth onsets come from the clips themselves (see ``onset_of``);
    the clips carry their own room noise, so the truth is approximate (a few ms)."""
    import soundfile

    from voicehost.listen.synth import envelope_db

    def clips(word: str) -> list[np.ndarray]:
        return [soundfile.read(str(p), dtype="float32")[0] for p in sorted((folder / "words" / word).glob("*.wav"))]

    def onset_of(clip: np.ndarray) -> float:
        """Start of the word: walk back from its loudest millisecond while the level stays
        within 30 dB of it and 6 dB over the clip's floor (gaps up to 15 ms), so a breath or a
        click well before the word is not taken for its start."""
        env = np.convolve(envelope_db(clip, 16000), np.ones(3) / 3, mode="same")
        floor = float(np.percentile(env, 10))
        level = max(float(env.max()) - 30, floor + 6)
        t, gap, start = int(np.argmax(env)), 0, int(np.argmax(env))
        while t > 0 and gap <= 15:
            t -= 1
            gap = 0 if env[t] >= level else gap + 1
            if gap == 0:
                start = t
        return start / 1000

    words = {w: clips(w) for w in ("cat", "dog")}
    others = [c for p in sorted((folder / "words").iterdir()) if p.name not in words for c in clips(p.name)]
    noises = [soundfile.read(str(p), dtype="float32")[0] for p in sorted((folder / "noise").glob("*.wav"))]
    rng = np.random.default_rng(seed)
    out = []
    for k in range(races):
        n = 2 + k % 2
        gaps = [float(rng.choice(GAPS_MS)) for _ in range(n - 1)]
        snr = float(rng.choice([30, 20, 10]))
        out.append(_real_race(k, rng, words, others, noises, gaps, snr, onset_of, work))
    return out


def _real_race(k: int, rng: np.random.Generator, words: dict[str, list[np.ndarray]], others: list[np.ndarray],
               noises: list[np.ndarray], gaps: list[float], snr: float, onset_of: Callable[[np.ndarray], float], work: Path) -> fx.Fixture:
    import json

    import soundfile

    n = len(gaps) + 1
    seats = fx.PLAYERS[:n]
    frames = int(3.5 * 16000)
    tracks = np.zeros((frames, n))
    expected, sounds = [], []
    t = float(rng.uniform(0.8, 1.1))
    order = rng.permutation(n)
    for i in range(n):
        if i:
            t += gaps[i - 1] / 1000
        who = int(order[i])
        word = str(rng.choice(["cat", "dog"]))
        clip = words[word][int(rng.integers(len(words[word])))]
        clip = fx.set_active_level(clip, fx.SHOUT_DB)
        start = t - onset_of(clip)
        for j in range(n):
            gain = 1.0 if j == who else 10 ** (rng.uniform(-25, -8) / 20)
            delay = 0.0 if j == who else rng.uniform(0.001, 0.008)
            fx.add_at(tracks[:, j], fx.shift(clip * gain, start + delay))
        expected.append({"player": seats[who], "phrase": word, "onset": round(t, 5), "end": round(start + len(clip) / 16000, 5)})
        sounds.append({"seat": seats[who], "kind": "shout", "text": word, "onset": round(t, 5), "end": round(start + len(clip) / 16000, 5), "voice": "speech_commands"})
    talker = int(rng.integers(n))
    chatter = fx.set_active_level(others[int(rng.integers(len(others)))], fx.SHOUT_DB)
    fx.add_at(tracks[:, talker], (int(2.4 * 16000), chatter))
    sounds.append({"seat": seats[talker], "kind": "chatter", "text": "(other word)", "onset": 2.4, "end": 2.4 + len(chatter) / 16000, "voice": "speech_commands"})
    noise = noises[int(rng.integers(len(noises)))]
    level = 10 ** ((fx.SHOUT_DB - snr) / 20)
    for j in range(n):
        a = int(rng.integers(0, max(1, len(noise) - frames)))
        piece = np.resize(noise[a : a + frames], frames)
        tracks[:, j] += piece / (np.sqrt(np.mean(piece**2)) + 1e-9) * level
    name = f"real_race{k:03d}"
    soundfile.write(str(work / f"{name}.wav"), tracks.astype(np.float32), 16000, subtype="PCM_16")
    manifest = {"name": name, "game": "bimbamm", "lang": "en", "seed": k, "rate": 16000, "duration": frames / 16000,
                "seats": list(seats), "noise": {"kind": "real", "snr_db": snr}, "multichannel": f"{name}.wav",
                "sounds": sounds, "expected": sorted(expected, key=lambda e: e["onset"])}
    path = work / f"{name}.json"
    path.write_text(json.dumps(manifest, indent=1))
    return fx.read_fixture(path)


def report(title: str, totals: Totals, rtfs: dict[str, dict[int, float]]) -> None:
    """Print the table."""
    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:5.1f}% ({a}/{b})" if b else "   -"

    def errs(tally: Tally) -> list[str]:
        rows = []
        every = [e for v in tally.errors.values() for e in v]
        for name, values in sorted(tally.errors.items()) + [("all", every)]:
            if values:
                ms = np.abs(np.array(values)) * 1000
                signed = np.array(values) * 1000
                rows.append(f"    {name:14} median |err| {np.median(ms):6.1f} ms  p95 {np.percentile(ms, 95):6.1f} ms  (signed median {np.median(signed):+.1f}, n={len(values)})")
        return rows

    print(f"\n== {title} ==")
    for label, tally in (("pipeline (onset detector)", totals.pipeline), ("baseline (recogniser's first word)", totals.baseline)):
        print(f"  {label}")
        print(f"    first shouter, all races        {pct(tally.first_right, tally.races)}")
        print(f"    first shouter, gaps>=20ms SNR>=20 {pct(tally.clean_first_right, tally.clean_races)}")
        print("    pair order by gap: " + "  ".join(f"{g}ms {pct(*tally.pairs[g]).split(' (')[0].strip()}" for g in GAPS_MS))
        for row in errs(tally):
            print(row)
    print(f"  shouts found                      {pct(totals.found, totals.expected)}")
    print(f"  phrase accuracy                   {pct(totals.phrases_right, totals.expected)}")
    minutes = totals.chatter_seconds / 60
    if minutes:
        print(f"  false alarms                      {totals.false_alarms} in {minutes:.1f} min of chatter (+ race extras) = "
              f"{totals.false_alarms / minutes:.2f}/min {sorted(set(totals.false_alarm_phrases))}")
    else:
        print(f"  false alarms                      {totals.false_alarms} shouts nobody made, in {totals.pipeline.races} races (one other word each)")
    for label, values in rtfs.items():
        print(f"  real-time factor, {label:18} (CPU s per s of audio): " + "  ".join(f"{n} seat(s) {v:.3f}" for n, v in values.items()))


def main(argv: Sequence[str] | None = None) -> int:
    """Generate, replay, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7, help="fixture seed (the committed set uses 1; default 7)")
    parser.add_argument("--races", type=int, default=60, help="synthetic races (default 60)")
    parser.add_argument("--chatter-minutes", type=float, default=2.0, help="minutes of synthetic table talk (default 2)")
    parser.add_argument("--fixtures", type=Path, help="use fixtures already written to this folder instead of generating")
    parser.add_argument("--work", type=Path, help="folder for generated audio (default: a temporary folder)")
    parser.add_argument("--engine", default="auto", choices=("auto", "vosk", "sphinx"), help="recogniser (default auto)")
    parser.add_argument("--oracle", action="store_true", help="replace the recogniser by the truth (measures onsets and crosstalk only)")
    parser.add_argument("--speech-commands", type=Path, metavar="DIR", help="also run races of real voices from this Speech Commands folder")
    parser.add_argument("--real-races", type=int, default=40, help="races built from real voices (default 40)")
    parser.add_argument("--rtf-seats", default="1,4,8", help="seat counts for the real-time factor (default 1,4,8)")
    parser.add_argument("--rtf-engines", default="none,sphinx,vosk:ko",
                        help="engines for the real-time factor, ENGINE[:LANG] or none (default none,sphinx,vosk:ko)")
    args = parser.parse_args(argv)

    work = args.work or Path(tempfile.mkdtemp(prefix="voicehost-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    from voicehost.commands.rank import game_phrases

    def phrases(game: str) -> tuple[str, ...]:
        return game_phrases(game, "en")

    if args.oracle:
        def make(fixture: fx.Fixture, game: str) -> Recognizer:
            return oracle(fixture)
        engine = "oracle"
    else:
        from voicehost.listen.recognize import build_recognizer

        shared = build_recognizer("en", args.engine, None)
        engine = shared.name

        def make(fixture: fx.Fixture, game: str) -> Recognizer:
            return shared

    if args.fixtures:
        fixtures = fx.fixtures_in(args.fixtures)
    else:
        renderer = fx.Renderer()
        scenarios = fx.bench_set(args.seed, args.races, args.chatter_minutes)
        fixtures = []
        for k, scenario in enumerate(scenarios, 1):
            fixtures.append(fx.read_fixture(fx.write(renderer.render(scenario), work)))
            print(f"\rrendering [{k}/{len(scenarios)}]", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    totals = Totals()
    run_set(fixtures, make, totals, phrases)
    seats = [int(n) for n in args.rtf_seats.split(",")]
    rtfs = {label: rtf(recognizer, phrases_, seats, args.seed, work) for label, recognizer, phrases_ in engines_for_rtf(args.rtf_engines)}
    report(f"synthetic voices, seed {args.seed}, recogniser {engine}, {len(fixtures)} recordings", totals, rtfs)
    if args.speech_commands:
        real = real_voice_set(args.speech_commands, args.seed, work, args.real_races)
        real_totals = Totals()
        run_set(real, make, real_totals, phrases)
        report(f"real voices (Speech Commands), recogniser {engine}, {len(real)} races", real_totals, {})
    print(f"\naudio written to {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
