"""The stock takes: the game's shouted words said by the eight synthetic tuning voices.

Tried and off as shipped (README, "Hearing the shouts", item 12): a player who did not enrol
matched against these instead of their own takes (``voicehost/listen/recognize/enrol.py``;
``bench/bench_listen.py --stock``). Each voice says every word ``voicehost enrol`` asks for
three times, its pitch and rate jittered per take (``tools.clips.vary``), in a quiet room (pink
noise 40 dB under the voice); the sound is found as ``voicehost enrol`` finds it and stored as
Whisper tiny.en encoder frames (float16). Only the tuning voices (``tools.synth.ENGLISH_VOICES``)
are used: the held-out voices and real people the benchmarks report on never are.

    python -m tools.stock_takes --out stock_takes_en.npz

Deterministic for a given seed and synthesiser versions (the measured set: seed 1, 3.4 MB).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from tools.synth import ENGLISH_VOICES, SynthVoice

if TYPE_CHECKING:
    from voicehost.listen.recognize.whisper.engine import WhisperEngine

TAKES = 3
"""Takes per voice and word."""
DEFAULT_OUT = Path("stock_takes_en.npz")


def render_takes(
    voices: Sequence[SynthVoice],
    encode: Callable[[np.ndarray], np.ndarray],
    seed: int,
    takes: int = TAKES,
    progress: bool = True,
) -> dict[str, dict[str, list[np.ndarray]]]:
    """Voice label → word → takes as encoder frames (``voicehost enrol``'s words for both shouting
    games). The random generator is seeded with ``seed + 7777``, as the benchmark's ``--enrol``."""
    from tools.clips import render_clip, vary
    from voicehost.commands.enrol import enrol_words
    from voicehost.listen.recognize.enrol import take_frames

    words = enrol_words("all", "en")
    rng = np.random.default_rng(seed + 7777)
    out: dict[str, dict[str, list[np.ndarray]]] = {}
    t0 = time.perf_counter()
    for voice in voices:
        mine: dict[str, list[np.ndarray]] = {}
        for word in words:
            for _ in range(takes):
                clip = render_clip(word, word, vary(voice, rng), rng, 40.0)
                mine.setdefault(word, []).append(take_frames(clip.samples, encode))
        out[voice.label] = mine
    if progress:
        print(
            f"rendered {len(voices)} voices x {len(words)} words x {takes} takes in {time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
        )
    return out


def write_stock(out: Path, engine: "WhisperEngine", seed: int = 1) -> Path:
    """Render the tuning voices' takes with ``engine``'s encoder and save them to ``out``, marked
    with the size of the model they fit."""
    from voicehost.listen.recognize.enrol import save_stock

    takes = render_takes(ENGLISH_VOICES, engine.encode, seed)
    save_stock(out, takes, (engine.folder / "model.bin").stat().st_size)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.stock_takes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="random seed (the measured set: 1)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where to write (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    from voicehost.listen.recognize.whisper.engine import WhisperEngine

    write_stock(args.out, WhisperEngine(), args.seed)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
