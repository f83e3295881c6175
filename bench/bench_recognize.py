"""Benchmark the recognisers: phrase accuracy and false accepts, per engine, with a table.

    .venv/bin/python bench/bench_recognize.py --lang en [--engine sphinx] [--seed 2]
    .venv/bin/python bench/bench_recognize.py --lang ko --engine vosk
    .venv/bin/python bench/bench_recognize.py --lang en --speech-commands ../shared/data/speech_commands
    .venv/bin/python bench/bench_recognize.py --lang en --seed 1 --learn   # write tuning.toml

Synthetic clips: every target phrase of Bim Bamm! and Bim Bam Bum! spoken by each synthetic voice
(pitch and rate jittered by the seed) in pink noise, and chatter words that must be rejected
(confusable words like "pick" and everyday words; see CHATTER). With --speech-commands DIR, the real
recordings: 10 speakers × cat/dog (targets) and 100 clips of other words (must be rejected).
--holdout-decoys removes every chatter word of the run from the pack's decoys, to measure
rejection on words the grammar has never seen. --no-decoys runs the plain-grammar baseline (no
decoys, no learnt tuning) for comparison. --learn writes the learnt per-phrase decoy
exclusions, precision and confidence thresholds to voicehost/listen/recognize/tuning.toml (learn
with one seed, report with another).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from voicehost.listen.recognize import build_recognizer  # noqa: E402
from voicehost.listen.recognize.clips import Clip, render_clip, vary  # noqa: E402
from voicehost.listen.recognize.rejection import TUNING_FILE  # noqa: E402
from voicehost.listen.synth import voices_for  # noqa: E402
from voicehost.listen.vocab import phrases_for  # noqa: E402

CHATTER = {
    "en": [
        "pick", "dock", "monkey", "bomb", "kitten", "piggy", "hand", "ten", "bean", "boom", "bang",
        "shop", "chip", "sheep", "ham", "bin", "hello", "coffee", "table", "seven", "yes please",
        "no way", "my turn", "hat", "pen", "bug", "big", "cut", "bird", "happy", "house", "tree",
        "water", "really", "come on", "what", "okay", "nice one", "good game", "wait a second",
    ],
    "ko": [
        "안녕하세요", "감사합니다", "사랑해", "학교", "자동차", "컴퓨터", "바나나", "사과", "의자",
        "책상", "고마워", "배고파", "괜찮아", "기차", "비행기", "선생님", "강아지", "고양", "당근",
        "닭고기", "밤나무", "빵", "봄", "범", "개미", "돼지고기", "나귀", "시계", "우유", "노래",
    ],
}
"""Words and short phrases said around the table that are not shouts (the bench's own list)."""

CONFUSABLE = {
    "en": {"pick", "dock", "monkey", "bomb", "kitten", "piggy", "hand", "ten", "bean", "boom", "bang", "shop",
           "chip", "sheep", "ham", "bin", "hat", "pen", "bug", "big", "cut"},
    "ko": {"강아지", "고양", "밤나무", "봄", "범", "개미", "돼지고기", "나귀", "빵"},
}
"""Chatter one sound away from a target ("pick"/"pig"): reported apart from everyday chatter."""


@dataclass
class Outcome:
    clip_set: str
    truth: str | None
    said: str
    phrase: str | None
    rejected_as: str | None
    words: tuple[str, ...]
    confidence: float
    seconds: float
    duration: float


def synthetic_clips(lang: str, seed: int, per_voice: int, snr: float) -> list[Clip]:
    """Targets (both games) and chatter, each said by every voice ``per_voice`` times."""
    from voicehost.listen.vocab import load_pack

    pack = load_pack(lang)
    rng = np.random.default_rng(seed)
    targets = [p for g in ("bimbamm", "bimbambum") for p in phrases_for(g, lang, pack=pack)]
    clips = []
    voices = voices_for(lang)
    for phrase in targets:
        for voice in voices:
            for _ in range(per_voice):
                clips.append(render_clip(pack.spoken_forms(phrase)[0], phrase, vary(voice, rng), rng, snr))
    for text in CHATTER.get(lang, []):
        for voice in voices:
            for _ in range(per_voice):
                clips.append(render_clip(text, None, vary(voice, rng), rng, snr))
    return clips


def real_clips(folder: Path) -> list[Clip]:
    """Speech Commands: cat and dog are targets, every other word must be rejected."""
    import soundfile

    clips = []
    for path in sorted((folder / "words").glob("*/*.wav")):
        samples, rate = soundfile.read(path, dtype="float32")
        if rate != 16000:
            from voicehost.listen.synth import resample

            samples = resample(samples, rate, 16000)
        word = path.parent.name
        truth = word if word in ("cat", "dog") else None
        clips.append(Clip(word, truth, "human", samples.astype(np.float32), 0.0, len(samples) / 16000))
    return clips


def game_of(truth: str | None, text: str, lang: str) -> str:
    """Which game's grammar a clip is judged against (chatter alternates between both)."""
    if truth is not None:
        return "bimbamm" if truth in phrases_for("bimbamm", lang) else "bimbambum"
    return "bimbamm" if sum(map(ord, text)) % 2 else "bimbambum"


def run(recognizer: object, clips: list[Clip], lang: str, name: str) -> list[Outcome]:
    out = []
    phrases = {g: phrases_for(g, lang) for g in ("bimbamm", "bimbambum")}
    for i, clip in enumerate(clips):
        game = game_of(clip.truth, clip.text, lang)
        start = time.perf_counter()
        result = recognizer.recognize(clip.segment(), phrases[game])  # type: ignore[attr-defined]
        seconds = time.perf_counter() - start
        out.append(Outcome(name, clip.truth, clip.text, result.phrase, result.rejected_as,
                           tuple(w.word for w in result.words), result.confidence, seconds,
                           len(clip.samples) / 16000))
        if i % 20 == 0 or i == len(clips) - 1:
            print(f"\r{name}: {i + 1}/{len(clips)} clips", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return out


def summarise(outcomes: list[Outcome], engine: str) -> list[str]:
    targets = [o for o in outcomes if o.truth is not None]
    chatter = [o for o in outcomes if o.truth is None]
    right = sum(o.phrase == o.truth for o in targets)
    wrong = sum(o.phrase is not None and o.phrase != o.truth for o in targets)
    fa = sum(o.phrase is not None for o in chatter)
    secs = sum(o.seconds for o in outcomes)
    dur = sum(o.duration for o in outcomes)
    set_name = outcomes[0].clip_set if outcomes else "-"
    lang = "ko" if any("\uac00" <= ch <= "\ud7a3" for o in chatter for ch in o.said) else "en"
    near = [o for o in chatter if o.said in CONFUSABLE[lang]]
    far = [o for o in chatter if o.said not in CONFUSABLE[lang]]
    split = (f"        of which: confusable words {sum(o.phrase is not None for o in near)}/{len(near)}, "
             f"everyday chatter {sum(o.phrase is not None for o in far)}/{len(far)}")
    return [
        f"{engine:7s} {set_name:10s} {right:4d}/{len(targets):<4d} {100 * right / max(1, len(targets)):6.1f}% "
        f"{wrong:6d} {fa:5d}/{len(chatter):<4d} {100 * fa / max(1, len(chatter)):6.1f}% "
        f"{1000 * secs / max(1, len(outcomes)):8.1f} {secs / max(dur, 1e-9):7.3f}",
        split,
    ]


def print_confusions(outcomes: list[Outcome]) -> None:
    errors = Counter()
    for o in outcomes:
        if o.truth is not None and o.phrase != o.truth:
            errors[f"{o.truth} → {o.phrase or 'rejected (' + ' '.join(o.words) + ')'}"] += 1
        if o.truth is None and o.phrase is not None:
            errors[f"{o.said} (chatter) → {o.phrase}"] += 1
    for text, n in errors.most_common(12):
        print(f"    {n:3d} × {text}")


FA_COST = 3.0
"""A false accept costs this many missed shouts when thresholds are learnt."""


def learn(outcomes: list[Outcome], engine: str, lang: str) -> None:
    """Write learnt per-phrase decoy exclusions, precision and thresholds to tuning.toml.

    A decoy is left out while a phrase is allowed when it stole at least two of that phrase's clips
    and stole more of them than it caught chatter. A phrase's confidence threshold maximises
    (right accepts - FA_COST x false accepts) over the run."""
    from voicehost.listen.vocab import load_pack

    pack = load_pack(lang)
    target_words = pack.spoken_words(pack.all_phrases())
    steals: dict[str, Counter[str]] = defaultdict(Counter)
    catches: Counter[str] = Counter()
    for o in outcomes:
        decoys = set(o.words) - target_words
        if o.truth is not None and o.phrase is None and o.rejected_as == "out_of_grammar":
            for word in decoys:
                steals[o.truth][word] += 1
        if o.truth is None and o.phrase is None:
            for word in decoys:
                catches[word] += 1
    drops = {p: sorted(w for w, n in c.items() if n >= 2 and n > catches[w]) for p, c in steals.items()}
    drops = {p: ws for p, ws in drops.items() if ws}
    accepted: dict[str, list[bool]] = defaultdict(list)
    scored: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for o in outcomes:
        if o.phrase is not None:
            accepted[o.phrase].append(o.phrase == o.truth)
            scored[o.phrase].append((o.confidence, o.phrase == o.truth))
    precision = {p: round(float(np.mean(v)), 3) for p, v in accepted.items()}
    all_ok = [x for v in accepted.values() for x in v]
    precision["default"] = round(float(np.mean(all_ok)), 3) if all_ok else 0.5
    thresholds = {"default": 0.0}
    if engine == "vosk":
        for p, items in scored.items():
            gain = {t: sum(ok for c, ok in items if c >= t) - FA_COST * sum(not ok for c, ok in items if c >= t)
                    for t in sorted({0.0, *(c for c, _ in items)})}
            best = max(gain.values())
            thresholds[p] = round(min(t for t, g in gain.items() if g == best), 3)
    write_tuning(engine, lang, drops, precision, thresholds)


def write_tuning(engine: str, lang: str, drops: dict[str, list[str]], precision: dict[str, float],
                 thresholds: dict[str, float]) -> None:
    import tomllib

    data = tomllib.loads(TUNING_FILE.read_text(encoding="utf-8")) if TUNING_FILE.is_file() else {}
    data.setdefault(engine, {})[lang] = {
        "min_confidence": thresholds, "precision": precision, "drop_decoys": drops,
    }
    lines = [
        "# Learnt by bench/bench_recognize.py --learn from synthetic fixtures (one seed; the",
        "# benchmark reports on another). Per engine and language:",
        "#   min_confidence: phrase -> lowest accepted confidence (0..1)",
        "#   precision: phrase -> share of accepted fixtures that were right (PocketSphinx's confidence)",
        "#   drop_decoys: phrase -> decoy words left out while that phrase is allowed",
        "",
    ]
    for eng in sorted(data):
        for lg in sorted(data[eng]):
            for table in ("min_confidence", "precision", "drop_decoys"):
                lines.append(f"[{eng}.{lg}.{table}]")
                for key, value in sorted(data[eng][lg].get(table, {}).items()):
                    rendered = "[" + ", ".join(f'"{w}"' for w in value) + "]" if isinstance(value, list) else repr(value)
                    lines.append(f'"{key}" = {rendered}')
                lines.append("")
    TUNING_FILE.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {TUNING_FILE}")


def main() -> int:
    parser = argparse.ArgumentParser(description="Phrase accuracy and false accepts of the recognisers.")
    parser.add_argument("--lang", default="en", help="language pack (en, ko)")
    parser.add_argument("--engine", default="auto", choices=["auto", "vosk", "sphinx"])
    parser.add_argument("--model", default=None, help="Vosk model folder")
    parser.add_argument("--seed", type=int, default=2, help="seed of the synthetic clips (learn on another)")
    parser.add_argument("--per-voice", type=int, default=2, help="renditions of each phrase per voice")
    parser.add_argument("--snr", type=float, default=30.0, help="dB of speech above the pink-noise floor")
    parser.add_argument("--speech-commands", type=Path, default=None, help="folder of the Speech Commands subset")
    parser.add_argument("--holdout-decoys", action="store_true", help="remove the run's chatter words from the decoys")
    parser.add_argument("--learn", action="store_true", help="write tuning.toml from this run")
    parser.add_argument("--no-decoys", action="store_true", help="baseline: plain grammar, no decoys, no tuning")
    parser.add_argument("--no-synthetic", action="store_true", help="only the real recordings")
    args = parser.parse_args()

    start = time.perf_counter()
    recognizer = build_recognizer(args.lang, args.engine, args.model)
    print(f"engine: {recognizer.description} (built in {time.perf_counter() - start:.2f} s)")
    if args.learn:
        from voicehost.listen.recognize.rejection import Tuning

        recognizer.tuning = Tuning()  # type: ignore[attr-defined]  # learn from the untuned decisions
    if args.no_decoys:
        from dataclasses import replace

        from voicehost.listen.recognize.rejection import Tuning

        recognizer.pack = replace(recognizer.pack, decoys=())  # type: ignore[attr-defined]
        recognizer.tuning = Tuning()  # type: ignore[attr-defined]
        print("baseline: plain grammar of the targets (no decoys, no learnt tuning)")
    if args.holdout_decoys:
        from dataclasses import replace

        held = set(CHATTER.get(args.lang, [])) | {w for t in CHATTER.get(args.lang, []) for w in t.split()}
        if args.speech_commands:
            held |= {p.name for p in (args.speech_commands / "words").iterdir()} - {"cat", "dog"}
        pack = recognizer.pack  # type: ignore[attr-defined]
        recognizer.pack = replace(pack, decoys=tuple(w for w in pack.decoys if w not in held))  # type: ignore[attr-defined]
        print(f"held out {len(set(pack.decoys) & held)} decoy words that the run says")
    results: list[list[Outcome]] = []
    if not args.no_synthetic:
        clips = synthetic_clips(args.lang, args.seed, args.per_voice, args.snr)
        results.append(run(recognizer, clips, args.lang, "synthetic"))
    if args.speech_commands:
        results.append(run(recognizer, real_clips(args.speech_commands), args.lang, "real"))
    print(f"{'engine':7s} {'set':10s} {'targets right':>10s} {'acc':>7s} {'wrong':>6s} {'false acc.':>10s} "
          f"{'rate':>6s} {'ms/clip':>8s} {'RTF':>7s}")
    for outcomes in results:
        for line in summarise(outcomes, recognizer.name):
            print(line)
    for outcomes in results:
        print(f"  most frequent errors ({outcomes[0].clip_set}):")
        print_confusions(outcomes)
    if args.learn:
        learn([o for r in results if r and r[0].clip_set == "synthetic" for o in r], recognizer.name, args.lang)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
