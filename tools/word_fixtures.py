"""Render the committed recogniser fixtures: audio_fixtures/words/<lang>/*.wav + manifest.json.

    .venv/bin/python -m tools.word_fixtures [--seed 7] [--out audio_fixtures/words]

Each language gets every target phrase of Bim Bamm! and Bim Bam Bum! (one clip each, voices
taken in turn) and chatter clips that must be rejected. English also gets the hosts' multi-word
phrases (numbers, player names, commands: HOST_CLIPS), each judged against the phrase set named in
its manifest entry ("grammar", a key of tools.clips.command_sets()); they use
their own random generator, so adding them left the other clips unchanged. 16 kHz 16-bit mono WAVs
in a pink-noise floor 30 dB below the speech (never digital silence). The manifest gives each file's
text, truth (canonical phrase or null), voice and speech span in seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.clips import RATE, command_sets, render_clip, vary  # noqa: E402
from tools.synth import voices_for  # noqa: E402
from voicehost.listen.vocab import load_pack, phrases_for  # noqa: E402

CHATTER = {
    "en": [
        "pick",
        "dock",
        "bomb",
        "hello",
        "coffee",
        "table",
        "seven",
        "yes please",
        "my turn",
        "happy",
        "water",
        "nice one",
    ],
    "ko": ["안녕하세요", "감사합니다", "학교", "자동차", "바나나", "선생님", "고마워", "컴퓨터"],
}

HOST_CLIPS = [
    ("flip seven", True, "Bim Bamm! turn"),
    ("exchange with ben", True, "Bim Bamm! turn"),
    ("swap", True, "Bim Bamm! turn"),
    ("two bam bam", True, "Bim Bam Bum! turn"),
    ("three bim bam bum", True, "Bim Bam Bum! turn"),
    ("best two worst four", True, "BAM! judging"),
    ("read three", True, "BAM! judging"),
    ("seven then three", True, "BAM! playing"),
    ("repeat", True, "BAM! playing"),
    ("score", True, "Bim Bam Bum! turn"),
    ("help", True, "BAM! judging"),
    ("quit", True, "BAM! playing"),
    ("pass me the cards", False, "Bim Bamm! turn"),
    ("whose turn is it", False, "Bim Bam Bum! turn"),
    ("i think so", False, "BAM! judging"),
    ("good luck everyone", False, "BAM! playing"),
    ("that was close", False, "Bim Bamm! turn"),
    ("let me see", False, "BAM! judging"),
]
"""English host phrases: (text, is a target of the set, phrase set it is judged against)."""


def main() -> int:
    import soundfile

    parser = argparse.ArgumentParser(description="Render the recogniser's word fixtures.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "audio_fixtures" / "words")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    for lang in ("en", "ko"):
        pack = load_pack(lang)
        voices = voices_for(lang)
        folder = args.out / lang
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.wav"):
            old.unlink()
        items: list[tuple[str, str | None]] = [
            (pack.spoken_forms(p)[0], p) for g in ("bimbamm", "bimbambum") for p in phrases_for(g, lang, pack=pack)
        ]
        items += [(text, None) for text in CHATTER[lang]]
        manifest = []
        for i, (text, truth) in enumerate(items):
            voice = vary(voices[i % len(voices)], rng)
            clip = render_clip(text, truth, voice, rng)
            name = f"{i:02d}_{(truth or 'chatter').replace(' ', '-')}.wav"
            soundfile.write(folder / name, clip.samples, RATE, subtype="PCM_16")
            manifest.append(
                {
                    "file": name,
                    "text": text,
                    "truth": truth,
                    "voice": clip.voice,
                    "onset": round(clip.onset, 4),
                    "end": round(clip.end, 4),
                }
            )
            print(f"\r{lang}: {i + 1}/{len(items)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        if lang == "en":
            manifest += host_clips(folder, voices, np.random.default_rng(args.seed + 1000), len(manifest))
        (folder / "manifest.json").write_text(
            json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    return 0


def host_clips(folder: Path, voices: tuple, rng: np.random.Generator, first: int) -> list[dict[str, object]]:
    """Render HOST_CLIPS into ``folder``; their manifest entries (with the phrase set's name)."""
    import soundfile

    sets = command_sets()
    entries: list[dict[str, object]] = []
    for i, (text, target, grammar) in enumerate(HOST_CLIPS):
        assert (text in sets[grammar]) == target, (text, grammar)
        voice = vary(voices[i % len(voices)], rng)
        clip = render_clip(text, text if target else None, voice, rng)
        name = f"{first + i:02d}_{(text if target else 'chatter').replace(' ', '-')}.wav"
        soundfile.write(folder / name, clip.samples, RATE, subtype="PCM_16")
        entries.append(
            {
                "file": name,
                "text": text,
                "truth": clip.truth,
                "voice": clip.voice,
                "grammar": grammar,
                "onset": round(clip.onset, 4),
                "end": round(clip.end, 4),
            }
        )
    return entries


if __name__ == "__main__":
    raise SystemExit(main())
