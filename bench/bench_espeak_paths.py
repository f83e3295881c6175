"""Three ways to render the host's words with espeak-ng, measured against each other.

    .venv/bin/python bench/bench_espeak_paths.py [--rounds 3]

- ``callback`` (shipped, :class:`voicehost.speak.voice.EspeakVoice`): pyttsx3 chooses voice and rate,
  the samples come from espeak-ng's synthesis callback through pyttsx3's private ``_espeak`` binding;
- ``pyttsx3``: pyttsx3's public API only, ``save_to_file`` + ``runAndWait`` into a temporary WAV;
- ``cli``: the ``espeak-ng`` program, ``--stdout`` (a process per sentence, no shared state).

Each path runs in its own process (the callback path takes over espeak-ng's one callback). Per
sentence: render time, the audio's length, where the words start and end (the 5 ms frames above
-50 dBFS, as :func:`voicehost.speak.voice.trim_silence` sees them) and whether the samples equal
the shipped path's. Every sentence is rendered ``--rounds`` times to see whether a path gives the
same samples every time.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SENTENCES = [
    "Welcome to Bim Bam Bum! Players, clockwise: Anna, Ben and Cem. Each of you has three cards.",
    "Anna starts. Anna: bim.",
    "Skip Anna! Ben: bam.",
    "Short-statured circus artists have influenced my family planning.",
    "My grandmother always brings a unicorn to the dentist.",
    "The Pope was seen dancing with an Englishman in Paris.",
    "Nobody expected a one-legged pirate at the wedding.",
    "An hour of yoga is more dangerous than a haunted castle.",
    "That was Anna's last card: Anna wins Bim Bam Bum!",
    "Ben, your turn.",
]
VOICE, RATE = "gmw/en-us", 175


def _words(samples: np.ndarray, rate: int) -> tuple[float, float]:
    """(first, last) second of a 5 ms frame louder than -50 dBFS."""
    n = int(0.005 * rate)
    frames = len(samples) // n
    rms = np.sqrt(np.mean(np.square(samples[: frames * n].reshape(frames, n)), axis=1) + 1e-12)
    loud = np.flatnonzero(20 * np.log10(rms) > -50)
    return (float(loud[0] * n / rate), float((loud[-1] + 1) * n / rate)) if loud.size else (0.0, 0.0)


def _render_callback() -> object:
    from voicehost.speak.voice import EspeakVoice

    voice = EspeakVoice(VOICE, RATE)
    return lambda text: (voice.render(text).samples, 22050)


def _render_pyttsx3() -> object:
    import pyttsx3
    import soundfile

    engine = pyttsx3.init("espeak")
    engine.setProperty("voice", VOICE)
    engine.setProperty("rate", RATE)
    folder = Path(tempfile.mkdtemp(prefix="vh-espeak-"))

    def render(text: str) -> tuple[np.ndarray, int]:
        path = folder / "out.wav"
        path.unlink(missing_ok=True)
        engine.save_to_file(text, str(path))
        engine.runAndWait()
        samples, rate = (
            soundfile.read(str(path), dtype="float32") if path.exists() else (np.zeros(0, np.float32), 22050)
        )
        return samples, rate

    return render


def _render_cli() -> object:
    import soundfile

    def render(text: str) -> tuple[np.ndarray, int]:
        wav = subprocess.run(
            ["espeak-ng", "-v", VOICE, "-s", str(RATE), "--stdout", text], capture_output=True, check=True, timeout=30
        ).stdout
        samples, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
        return samples, rate

    return render


PATHS = {"callback": _render_callback, "pyttsx3": _render_pyttsx3, "cli": _render_cli}


def run_path(name: str, rounds: int, out: Path) -> None:
    """Render every sentence ``rounds`` times with one path; samples and times into ``out`` (npz + json)."""
    render = PATHS[name]()  # type: ignore[operator]
    rows, arrays = [], {}
    for r in range(rounds):
        for k, text in enumerate(SENTENCES):
            started = time.perf_counter()
            samples, rate = render(text)
            took = time.perf_counter() - started
            arrays[f"{r}_{k}"] = np.round(np.asarray(samples, dtype=np.float32) * 32768).astype(np.int16)
            first, last = _words(np.asarray(samples, dtype=np.float32), rate) if len(samples) else (0.0, 0.0)
            rows.append(
                {
                    "round": r,
                    "sentence": k,
                    "ms": took * 1000,
                    "seconds": len(samples) / rate,
                    "rate": rate,
                    "first": first,
                    "last": last,
                }
            )
    np.savez(out.with_suffix(".npz"), **arrays)
    out.write_text(json.dumps(rows))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--path", choices=sorted(PATHS), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.path:
        run_path(args.path, args.rounds, args.out)
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="vh-espeak-bench-"))
    results = {}
    for name in PATHS:
        out = tmp / f"{name}.json"
        subprocess.run(
            [sys.executable, __file__, "--path", name, "--rounds", str(args.rounds), "--out", str(out)], check=True
        )
        results[name] = (json.loads(out.read_text()), dict(np.load(out.with_suffix(".npz"))))
    base_rows, base = results["callback"]
    print(f"{len(SENTENCES)} sentences x {args.rounds} rounds, voice {VOICE}, {RATE} wpm")
    print(
        "path      render ms median / p95 / max   empty  same samples as callback  same every round  "
        "words start / end vs callback, ms (max |diff|)"
    )
    for name, (rows, arrays) in results.items():
        ms = sorted(r["ms"] for r in rows)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        empty = sum(1 for r in rows if r["seconds"] == 0)
        same = sum(1 for key in arrays if key in base and np.array_equal(arrays[key], base[key]))
        stable = sum(
            1
            for k in range(len(SENTENCES))
            if all(np.array_equal(arrays[f"{r}_{k}"], arrays[f"0_{k}"]) for r in range(args.rounds))
        )
        by = {(r["round"], r["sentence"]): r for r in base_rows}
        start = max(abs(r["first"] - by[(r["round"], r["sentence"])]["first"]) * 1000 for r in rows)
        end = max(abs(r["last"] - by[(r["round"], r["sentence"])]["last"]) * 1000 for r in rows)
        print(
            f"{name:9} {statistics.median(ms):6.1f} / {p95:6.1f} / {ms[-1]:6.1f}        {empty:5}  "
            f"{same:3}/{len(arrays):<3}                  {stable:3}/{len(SENTENCES):<3}            "
            f"{start:6.1f} / {end:6.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
