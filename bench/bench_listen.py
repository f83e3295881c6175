"""Benchmark of the listening pipeline: who shouted first, what, and when, on a fixture set
generated with a different seed than the committed one, plus real human voices if given.

    .venv/bin/python bench/bench_listen.py                     # seed 7, 60 races, 2 min of chatter
    .venv/bin/python bench/bench_listen.py --engine sphinx --speech-commands ../shared/data/speech_commands
    .venv/bin/python bench/bench_listen.py --oracle            # recogniser replaced by the truth
    .venv/bin/python bench/bench_listen.py --heldout --speech-commands ../shared/data/speech_commands

--heldout: the held-out split (README, "Listening: measured"): voices no setting was chosen on
(Festival, flite kal, espeak-ng variants outside the tuning voices; tools.synth.
HELDOUT_ENGLISH_VOICES), seed 21, and per class (solo shouts, races, Bim Bam Bum! calls with pile
numbers, slap races after "bim bam bum", table talk) and condition (SNR >= 10 dB: pink 30/20,
quiet 40, babble 20; and babble 10 dB apart): recall, phrase accuracy, false alarms per 10 minutes
of table talk, first shouter (every race, races whose first two shouts are >= 20 ms apart, and the
winner the game awards: the first reported shout of the race's animal), and the listener's
latency (end of a shout to the moment the pipeline hands it over, fed in 20 ms blocks, including
the compute of that block); then the
shouts heard right by the voice that made them, the worst first. With
--speech-commands, the same for real voices (races and solo shouts of cat/dog, table talk made of
the 100 other real words). With --enrol every synthetic player has enrolled first (3 takes of each
shouted word, pitch and rate jittered, quiet room: see voice_takes); real voices cannot be.
With --learn (tried, off as shipped: README item 19) the recogniser learns takes during play, each
base voice one player through the whole set; --jitter renders every sound's voice anew (the
baseline for --learn: the same recordings).

Prints a table: first-shouter accuracy, pairwise order accuracy by onset gap, phrase accuracy,
onset error (median, p95), false alarms per minute of chatter, real-time factor (CPU seconds
per second of audio) for 1, 4 and 8 seats, and the same accuracy figures for a naive baseline
that takes the recogniser's first word start as the onset.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as voicehost/__init__.py sets it, before NumPy loads

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tools.listen_fixtures as fx  # noqa: E402
from voicehost.listen.fake import FakeRecognizer  # noqa: E402
from voicehost.listen.messages import Recognizer, Segment, Shout  # noqa: E402
from voicehost.listen.pipeline import Decision, listen_to  # noqa: E402
from voicehost.listen.sources import Recording  # noqa: E402

if TYPE_CHECKING:
    from voicehost.listen.helper import Helper
    from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer

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

    def add_race(
        self, expected: Sequence[dict[str, object]], found: Sequence[dict[str, object]], condition: str, snr: float
    ) -> None:
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


def run_set(
    fixtures: Sequence[fx.Fixture],
    make: Callable[[fx.Fixture, str], Recognizer],
    totals: Totals,
    phrases_for: Callable[[str], tuple[str, ...]],
) -> None:
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


def rtf(
    recognizer: Recognizer, phrases: Sequence[str], seats: Sequence[int], seed: int, work: Path
) -> dict[int, float]:
    """CPU seconds per second of audio for the whole pipeline with ``n`` seats all shouting
    (8 s recordings, babble at 20 dB, one race)."""
    out = {}
    renderer = fx.Renderer()
    for n in seats:
        rng = np.random.default_rng(seed + n)
        scenario = fx.race(
            f"rtf{n}",
            rng,
            [float(g) for g in rng.choice(GAPS_MS, n - 1)] if n > 1 else [],
            noise="babble",
            snr_db=20,
            seed=seed + n,
            seats=n,
        )
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


def onset_of(clip: np.ndarray) -> float:
    """Start of the word: walk back from its loudest millisecond while the level stays
    within 30 dB of it and 6 dB over the clip's floor (gaps up to 15 ms), so a breath or a
    click well before the word is not taken for its start. The floor is the 10th percentile of
    the level averaged over 50 ms: the room noise's level, not its dips (from the level of each
    millisecond, a clip whose noise lies 27 dB under its word, cat 62581901, had its word start
    at 0 s instead of about 0.63 s). A walk that reaches the clip's first 10 ms means the clip was
    cut inside a sound: the walk is done again with the level 4 dB over that sound's (the median
    level before the first millisecond within 15 dB of the peak), so the word starts where it
    rises out of it (cat 8d4cdc60_nohash_1 opens with 180 ms of a background sound 20-30 dB under
    its word, whose /k/ is a 14 dB step at 0.18 s; its truth was 0 s until 2026-12-07). The level is
    smoothed with its ends repeated: padded with zeros (0 dB, full scale), a quiet clip's last
    millisecond read as its loudest (wow fac74f6a_nohash_1: 0.995 s for a word at 0.27 s, and the
    fade of :func:`gated` silenced the word; until 2026-12-07)."""
    from tools.synth import envelope_db

    raw = envelope_db(clip, 16000)
    env = np.convolve(np.pad(raw, 1, mode="edge"), np.ones(3) / 3, mode="valid")
    floor = float(np.percentile(np.convolve(raw, np.ones(50) / 50, mode="same")[50:-50], 10))
    start = _walk_back(env, max(float(env.max()) - 30, floor + 6))
    loud = int(np.argmax(env >= env.max() - 15))
    if start < CUT_INSIDE_MS and loud > 0:  # the word starts where it rises out of the sound it was cut in
        start = _walk_back(env, max(float(np.median(env[:loud])) + 4, floor + 6))
    return start / 1000


CUT_INSIDE_MS = 10
"""A walk back (:func:`onset_of`) ending this near the clip's first millisecond: cut inside a sound."""


def _walk_back(env: np.ndarray, level: float) -> int:
    """The first millisecond of the run, from the loudest millisecond back, at or over ``level``
    (gaps up to 15 ms)."""
    t, gap, start = int(np.argmax(env)), 0, int(np.argmax(env))
    while t > 0 and gap <= 15:
        t -= 1
        gap = 0 if env[t] >= level else gap + 1
        if gap == 0:
            start = t
    return start


LEAD = (0.10, 0.06)
"""A real clip is faded in over LEAD[1] s ending LEAD[0] s before its word (and out likewise after
it): each Speech Commands clip carries its own room noise, and pasted whole that noise starts with a
step 0.3-0.5 s before the word, which the onset detector rightly takes for a sound (half the real
races' "extra" reports and their misses were that step). A microphone at a table hears its room
continuously: the shouts are pasted gated, and each clip's room is added all along (:class:`Room`)."""


def gated(clip: np.ndarray) -> np.ndarray:
    """``clip`` silent until LEAD before its word and after LEAD past its end, with raised-cosine ramps.
    The word still starts at ``onset_of(clip)``: the mixes take their truth from the clip as
    recorded, not from the gated one, whose digital silence before the lead became
    :func:`onset_of`'s floor, so its walk back ran on into the clip's own room noise in the
    lead (four of the twenty cat/dog clips' truth 124-149 ms early, the shouts of those clips
    counted late, missed and "extra" by up to 0.15 s; until 2026-12-07)."""
    return np.asarray(clip * gate_of(clip), dtype=np.float32)


def gate_of(clip: np.ndarray) -> np.ndarray:
    """The gain :func:`gated` applies to each sample of ``clip`` (0 to 1)."""
    onset, end = onset_of(clip), word_end_of(clip)
    rate, (lead, ramp) = 16000, LEAD
    gain = np.zeros(len(clip), np.float32)
    a, b = int(max(0.0, onset - lead - ramp) * rate), int(max(0.0, onset - lead) * rate)
    c, d = int(min(len(clip), (end + lead) * rate)), int(min(len(clip), (end + lead + ramp) * rate))
    gain[b:c] = 1.0
    if b > a:
        gain[a:b] = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, b - a))
    if d > c:
        gain[c:d] = 0.5 + 0.5 * np.cos(np.linspace(0, np.pi, d - c))
    return gain


ROOM_ALL_ALONG = True
"""Each real clip's own room noise is heard all along at the seat it is pasted on (:class:`Room`);
False: only in the gated clip (until 2026-12-07: see :class:`Room`)."""


def room_noise_of(clip: np.ndarray) -> tuple[np.ndarray, float]:
    """The room noise a clip was recorded in: its power spectrum's shape (32 ms frames, 257 bins,
    summing to 1) and its RMS, from the quieter half of the frames outside the gated span (a breath
    or a click there is not the room), or of the whole clip's frames when fewer than 6 lie outside."""
    onset, end = onset_of(clip), word_end_of(clip)
    lead, ramp = LEAD
    n, hop, rate = 512, 256, 16000
    starts = range(0, max(1, len(clip) - n + 1), hop)
    outside = [a for a in starts if a + n <= (onset - lead - ramp) * rate or a >= (end + lead + ramp) * rate]
    chosen = outside if len(outside) >= 6 else list(starts)
    frames = np.stack([clip[a : a + n] for a in chosen]).astype(np.float64)
    power = np.mean(frames**2, axis=1)
    quiet = frames[power <= np.median(power)]
    spectrum = np.mean(np.abs(np.fft.rfft(quiet * np.hanning(n), axis=1)) ** 2, axis=0)
    return spectrum / (spectrum.sum() + 1e-30), float(np.sqrt(np.mean(quiet**2)))


def word_end_of(clip: np.ndarray) -> float:
    """Seconds: the end of a clip's word as :func:`gated` takes it (its last millisecond within 30 dB
    of the peak)."""
    from tools.synth import envelope_db

    env = envelope_db(clip, 16000)
    return (len(env) - int(np.argmax(env[::-1] >= env.max() - 30))) / 1000


class Room:
    """The rooms of the real clips pasted into one recording, heard all along (``ROOM_ALL_ALONG``).

    Each Speech Commands clip carries its own room noise, 12-60 dB under its word; :func:`gated`
    keeps it for LEAD before and after the word. Pasted onto a quieter table noise, that room
    noise then began 0.1-0.16 s before the word with a step, and the onset detector rightly took
    the step for the start of a sound: on the real mix of seed 21, 6 of the 7 races whose first
    shouter was wrong at a first gap >= 20 ms had a cat shout placed 94-154 ms early (README item
    61). A microphone at a table hears its room all the time, so here each clip's room noise
    (:func:`room_noise_of`: its shape and level, as noise) is added at its seat over the whole
    recording, at the clip's own level and, like the clip, leaked to the other seats; within the
    clip's gated span it fades out as the clip's own noise fades in (equal power), and between two
    clips pasted on one seat it crosses from one room to the next. What the clip holds besides a
    steady room (a breath or a chair 0.1 s before the word) stays where it was."""

    def __init__(self, frames: int, seats: int, seed: Sequence[int]) -> None:
        self.frames, self.seats, self.seed = frames, seats, list(seed)
        self.placed: list[tuple[int, int, np.ndarray, np.ndarray, float, list[float]]] = []
        """Per clip: its seat, start frame, gate, room spectrum, room RMS as pasted, gain at each seat."""

    def paste(self, raw: np.ndarray, pasted: np.ndarray, start: float, who: int, gains: Sequence[float]) -> None:
        """Note a clip pasted on seat ``who`` from ``start`` seconds: ``raw`` as recorded, ``pasted``
        gated and levelled, ``gains`` its gain at each seat (1 at its own)."""
        gate = gate_of(raw)
        energy = np.sum((raw * gate).astype(np.float64) ** 2) + 1e-30
        scale = float(np.sqrt(np.sum(pasted.astype(np.float64) ** 2) / energy))
        shape, rms = room_noise_of(raw)
        self.placed.append((who, int(round(start * 16000)), gate, shape, rms * scale, list(gains)))

    def add_to(self, tracks: np.ndarray) -> None:
        """Add every noted clip's room to ``tracks`` (frames × seats)."""
        if not ROOM_ALL_ALONG:
            return
        t = np.arange(self.frames)
        for who in range(self.seats):
            mine = sorted((p for p in self.placed if p[0] == who), key=lambda p: p[1])
            spans = []
            for _, start, gate, _, _, _ in mine:
                nonzero = np.flatnonzero(gate > 0.0)
                first, last = (int(nonzero[0]), int(nonzero[-1]) + 1) if nonzero.size else (0, len(gate))
                spans.append((start + first, start + last))
            for i, (_, start, gate, shape, level, gains) in enumerate(mine):
                a, b = spans[i]
                weight = np.ones(self.frames)
                if i > 0:
                    prev = spans[i - 1][1]
                    weight[t < a] = np.sqrt(np.clip((t[t < a] - prev) / max(1, a - prev), 0.0, 1.0))
                if i + 1 < len(mine):
                    nxt = spans[i + 1][0]
                    weight[t >= b] = np.sqrt(np.clip(1.0 - (t[t >= b] - b) / max(1, nxt - b), 0.0, 1.0))
                inside = np.arange(max(0, a), min(self.frames, b))
                if inside.size:
                    weight[inside] = np.sqrt(1.0 - gate[inside - start] ** 2)
                rng = np.random.default_rng([*self.seed, who, i])
                white = np.fft.rfft(rng.standard_normal(self.frames))
                bins = np.interp(np.linspace(0, 1, len(white)), np.linspace(0, 1, len(shape)), shape)
                noise = np.fft.irfft(white * np.sqrt(bins), n=self.frames)
                noise *= level / (np.sqrt(np.mean(noise**2)) + 1e-30)
                for j in range(self.seats):
                    tracks[:, j] += noise * weight * gains[j]


def speech_commands(folder: Path) -> tuple[dict[str, list[np.ndarray]], list[np.ndarray], list[np.ndarray]]:
    """The Speech Commands subset: cat/dog clips by word, every other word's clips, the noises."""
    import soundfile

    def clips(word: str) -> list[np.ndarray]:
        return [soundfile.read(str(p), dtype="float32")[0] for p in sorted((folder / "words" / word).glob("*.wav"))]

    words = {w: clips(w) for w in ("cat", "dog")}
    others = [c for p in sorted((folder / "words").iterdir()) if p.name not in words for c in clips(p.name)]
    noises = [soundfile.read(str(p), dtype="float32")[0] for p in sorted((folder / "noise").glob("*.wav"))]
    return words, others, noises


def speakers_of(folder: Path) -> dict[str, list[str]]:
    """The speaker of each cat/dog clip of :func:`speech_commands`, in its order (Speech Commands
    names a clip SPEAKER_nohash_N.wav)."""
    return {w: [p.stem.split("_")[0] for p in sorted((folder / "words" / w).glob("*.wav"))] for w in ("cat", "dog")}


def real_voice_set(folder: Path, seed: int, work: Path, races: int) -> list[fx.Fixture]:
    """Races built from real people saying 'cat'/'dog' (Speech Commands) over its real noise,
    with other words as chatter. Truth onsets come from the clips themselves (see ``onset_of``);
    the clips carry their own room noise, so the truth is approximate (a few ms)."""
    words, others, noises = speech_commands(folder)
    rng = np.random.default_rng(seed)
    out = []
    for k in range(races):
        n = 2 + k % 2
        gaps = [float(rng.choice(GAPS_MS)) for _ in range(n - 1)]
        snr = float(rng.choice([30, 20, 10]))
        out.append(_real_race(k, rng, words, others, noises, gaps, snr, onset_of, work, speakers_of(folder)))
    return out


def _real_race(
    k: int,
    rng: np.random.Generator,
    words: dict[str, list[np.ndarray]],
    others: list[np.ndarray],
    noises: list[np.ndarray],
    gaps: list[float],
    snr: float,
    onset_of: Callable[[np.ndarray], float],
    work: Path,
    speakers: dict[str, list[str]],
) -> fx.Fixture:
    """One race of real clips. Its players are different people: a clip whose speaker already
    shouted in this race is replaced by the next clip of the word (until 2026-12-04 two seats could
    shout the very same recording a few ms apart, which no crosstalk stage can tell from a leak)."""
    import json

    import soundfile

    n = len(gaps) + 1
    seats = fx.PLAYERS[:n]
    frames = int(3.5 * 16000)
    tracks = np.zeros((frames, n))
    expected, sounds = [], []
    t = float(rng.uniform(0.8, 1.1))
    room = Room(frames, n, (k, int(t * 1e6)))
    order = rng.permutation(n)
    used: set[str] = set()
    for i in range(n):
        if i:
            t += gaps[i - 1] / 1000
        who = int(order[i])
        word = str(rng.choice(["cat", "dog"]))
        pick = int(rng.integers(len(words[word])))
        for step in range(len(words[word])):
            if speakers[word][(pick + step) % len(words[word])] not in used:
                pick = (pick + step) % len(words[word])
                break
        used.add(speakers[word][pick])
        clip = fx.set_active_level(gated(words[word][pick]), fx.SHOUT_DB)
        start = t - onset_of(words[word][pick])  # the raw clip's truth: see gated
        gains = []
        for j in range(n):
            gain = 1.0 if j == who else 10 ** (rng.uniform(-25, -8) / 20)
            delay = 0.0 if j == who else rng.uniform(0.001, 0.008)
            fx.add_at(tracks[:, j], fx.shift(clip * gain, start + delay))
            gains.append(gain)
        room.paste(words[word][pick], clip, start, who, gains)
        expected.append(
            {"player": seats[who], "phrase": word, "onset": round(t, 5), "end": round(start + len(clip) / 16000, 5)}
        )
        sounds.append(
            {
                "seat": seats[who],
                "kind": "shout",
                "text": word,
                "onset": round(t, 5),
                "end": round(start + len(clip) / 16000, 5),
                "voice": "speech_commands",
            }
        )
    talker = int(rng.integers(n))
    said = others[int(rng.integers(len(others)))]
    chatter = fx.set_active_level(gated(said), fx.SHOUT_DB)
    fx.add_at(tracks[:, talker], (int(2.4 * 16000), chatter))
    room.paste(said, chatter, 2.4, talker, [float(j == talker) for j in range(n)])
    room.add_to(tracks)
    sounds.append(
        {
            "seat": seats[talker],
            "kind": "chatter",
            "text": "(other word)",
            "onset": 2.4,
            "end": 2.4 + len(chatter) / 16000,
            "voice": "speech_commands",
        }
    )
    noise = noises[int(rng.integers(len(noises)))]
    level = 10 ** ((fx.SHOUT_DB - snr) / 20)
    for j in range(n):
        a = int(rng.integers(0, max(1, len(noise) - frames)))
        piece = np.resize(noise[a : a + frames], frames)
        tracks[:, j] += piece / (np.sqrt(np.mean(piece**2)) + 1e-9) * level
    name = f"real_race{k:03d}"
    soundfile.write(str(work / f"{name}.wav"), tracks.astype(np.float32), 16000, subtype="PCM_16")
    manifest = {
        "name": name,
        "game": "bimbamm",
        "lang": "en",
        "seed": k,
        "rate": 16000,
        "duration": frames / 16000,
        "seats": list(seats),
        "noise": {"kind": "real", "snr_db": snr},
        "multichannel": f"{name}.wav",
        "sounds": sounds,
        "expected": sorted(expected, key=lambda e: e["onset"]),
    }
    path = work / f"{name}.json"
    path.write_text(json.dumps(manifest, indent=1))
    return fx.read_fixture(path)


# --- held-out split: per class and condition ------------------------------------------------------

CLASSES = ("solo", "race", "call", "slaps", "chatter")


@dataclass
class ClassTally:
    """Counts for one (class, condition group)."""

    expected: int = 0
    right: int = 0
    reported: int = 0
    """Expected shouts matched by a reported shout (right phrase or not)."""
    false_alarms: int = 0
    chatter_seconds: float = 0.0
    races: int = 0
    first_right: int = 0
    clean: int = 0
    """Races at gaps >= 20 ms whose every shout was heard with the right phrase."""
    clean_first_right: int = 0
    gap_races: int = 0
    """Races whose first two true onsets are >= 20 ms apart (the issue's first-shouter target)."""
    gap_first_right: int = 0
    winner_right: int = 0
    """Races whose first reported shout of the race's animal (the first true shout's phrase: the one
    the game awards; a shout of another animal is a mistake) is the first true shout."""
    slap_races: int = 0
    """Slap races (two or more slaps) whose every slap was heard as a slap."""
    last_slap_right: int = 0
    """… of which the last slap reported (the slapper the rules penalise) is the true last one."""
    near_miss_said: int = 0
    """Table talk: the near-miss words said alone at shouting level (``tools.listen_fixtures.
    CONFUSABLE_WORDS``: "dock", "dug", "pick" …, a wrong shout more than talk)."""
    near_miss_taken: int = 0
    """… false alarms on them (the rest of ``false_alarms`` fell on everyday talk, coughs, laughs)."""
    uncertain: int = 0
    asked_right: int = 0
    """Missed shouts that an uncertain report would have asked back with the right phrase ("Ben: cat?")."""
    likely_expected: int = 0
    likely_right: int = 0
    """--context: shouts of the phrase the game expected (the race's animal), and those heard right."""
    latencies: list[float] = field(default_factory=list)
    verdicts: list[float] = field(default_factory=list)
    """Latency of the shout a verdict waits for: the first shout (solo, race, call) or the last slap
    of a slap race, when heard right."""
    waits: list[float] = field(default_factory=list)
    """… of which the wait for the audio: from the shout's end to the end of the block it came out
    after (the detector's merge gap and the sound's tail; no computing counted)."""


def listen_timed(
    recording: "Recording",
    recognizer: Recognizer,
    phrases: Sequence[str],
    block: int = 320,
    report_uncertain: bool = True,
    decisions: list[Decision] | None = None,
    likely: Sequence[str] = (),
    queued: bool | None = None,
    seat_phrases: Mapping[str, Sequence[str]] | None = None,
    strict: Collection[str] = (),
    strict_way: Mapping[str, Any] | None = None,
    racing: Sequence[str] = (),
    waited: dict[tuple[str, float], float] | None = None,
) -> tuple[list[tuple[Shout, float]], float]:
    """The pipeline fed in ``block``-frame blocks: each shout with the latency at which it came out
    (session time at the end of that block + the CPU time of that feed call − the shout's end), and
    the total CPU seconds. ``queued`` (default: --queued): a live listener is one worker taking the
    blocks in order, so a block waits while an earlier one is still being worked on; the latency
    then ends when the worker is done with the block (the CPU time of every earlier call counts
    where it overlaps). ``strict``: the listener's strict phrases (a live host's: its commands);
    ``strict_way``: ListenConfig settings when not as shipped (item 24's ``ask_strict``/``strict_again``,
    item 31's ``corroborate``); ``racing``: the listener's racing phrases (item 31); ``waited``:
    filled with each shout's wait for the audio, by (player, onset rounded to 0.1 ms): the end of
    the block it came out after (the recording's end for the last ones) − its end, the latency it
    would have if judging took no time."""
    if queued is None:
        queued = QUEUED
    from voicehost.listen.pipeline import ListenConfig, Listener
    from voicehost.listen.sources import FileSource

    listener = Listener(
        recording.seats,
        recognizer,
        phrases,
        config=replace(ListenConfig(report_uncertain=report_uncertain), **(strict_way or {})),
        helper=HELPER,
        strict=frozenset(strict),
    )
    listener.set_phrases(phrases, likely, seat_phrases, racing)
    out: list[tuple[Shout, float]] = []
    cpu = 0.0
    busy = 0.0
    for chunk in FileSource(recording, block).blocks():
        t0 = CLOCK()
        shouts = listener.feed(chunk)
        spent = CLOCK() - t0
        cpu += spent
        now = (chunk.start_frame + chunk.samples.shape[0]) / chunk.rate
        busy = max(now, busy) + spent
        done = busy if queued else now + spent
        out.extend((sh, done - sh.end) for sh in shouts)
        if waited is not None:
            waited.update(((sh.player, round(sh.onset, 4)), now - sh.end) for sh in shouts)
    t0 = CLOCK()
    final = listener.flush()
    spent = CLOCK() - t0
    cpu += spent
    done = max(recording.duration, busy) + spent if queued else recording.duration + spent
    out.extend((sh, done - sh.end) for sh in final)
    if waited is not None:
        waited.update(((sh.player, round(sh.onset, 4)), recording.duration - sh.end) for sh in final)
    if decisions is not None:
        decisions.extend(listener.decisions)
    return sorted(out, key=lambda p: p[0].onset), cpu


QUEUED = False
"""--queued: latencies as a one-worker live listener has them (see :func:`listen_timed`)."""
HELPER: "Helper | None" = None
"""--helper: the listener's helper recogniser (a second process; listen/helper.py)."""
CLOCK: Callable[[], float] = time.process_time
"""What a feed call's cost is measured with: CPU time, or with --helper or --wall the wall clock
(the helper's work runs in another process, on the other core; the machine must be idle)."""


def miss_reasons(
    fixture: fx.Fixture, shouts: Sequence[tuple[Shout, float]], decisions: Sequence[Decision]
) -> list[str]:
    """Why each expected shout was not reported with the right phrase: 'no event' (the onset stage
    found nothing on that seat near it), a decision reason ('rejected', 'too_long', ...), 'uncertain'
    (asked back), 'wrong phrase: X'."""
    found = [s.to_json() for s, _ in shouts if not s.uncertain]
    match = fx.match(found, list(fixture.expected))
    good = {id(e) for e, f in match.pairs if f["phrase"] == e["phrase"]}
    out = []
    for e in fixture.expected:
        if id(e) in good:
            continue
        onset, seat = float(e["onset"]), str(e["player"])  # type: ignore[arg-type]
        near = [d for d in decisions if d.event.seat == seat and abs(d.event.onset - onset) <= 0.25]
        if not near:
            out.append("no event")
            continue
        d = min(near, key=lambda d: abs(d.event.onset - onset))
        if d.shout is not None and d.reason != "uncertain":
            out.append(f"wrong phrase: {e['phrase']} -> {d.shout.phrase}")
        elif d.reason in ("rejected", "uncertain") and d.recognition is not None:
            cand = d.recognition.candidate
            said = "" if cand is None else f"; candidate {'right' if cand == e['phrase'] else 'wrong'}"
            out.append(f"{d.reason} ({d.recognition.rejected_as or '?'}{said})")
        else:
            out.append(d.reason or "?")
    return out


def voice_of(fixture: fx.Fixture, expected: Mapping[str, object]) -> str:
    """The voice that made an expected shout (the manifest's sound of that seat and onset; "slap"
    for a slap, "?" when the manifest does not say, as in real recordings)."""
    if expected["phrase"] == "slap":
        return "slap"
    for sound in fixture.manifest.get("sounds", ()):  # type: ignore[attr-defined]
        if sound.get("seat") == expected["player"] and abs(float(sound["onset"]) - float(expected["onset"])) < 1e-3:  # type: ignore[arg-type]
            return str(sound.get("voice", "?"))
    return "?"


def near_misses(fixture: fx.Fixture) -> list[tuple[str, float, float]]:
    """The near-miss words a table-talk recording says alone at shouting level ("dock", "dug" …:
    ``tools.listen_fixtures.CONFUSABLE_WORDS``) as (seat, onset, end); none in real talk."""
    return [
        (str(s["seat"]), float(s["onset"]), float(s["end"]))
        for s in fixture.manifest.get("sounds", ())  # type: ignore[attr-defined]
        if s.get("kind") == "chatter" and s.get("text") in fx.CONFUSABLE_WORDS
    ]


def score_heldout(
    fixture: fx.Fixture,
    shouts: Sequence[tuple[Shout, float]],
    tallies: dict[tuple[str, str], ClassTally],
    likely: Sequence[str] = (),
    waited: Mapping[tuple[str, float], float] | None = None,
    voices: dict[str, list[int]] | None = None,
) -> None:
    """Add one held-out fixture to its (class, condition) tally (``waited``: see :func:`listen_timed`;
    ``voices``: voice → [shouts, heard right], see :func:`voice_of`)."""
    name = fixture.name
    cls = next((c for c in CLASSES if f"_{c}_" in name), "race")
    noise = fixture.manifest["noise"]
    group = "babble 10 dB" if noise["kind"] == "babble" and float(noise["snr_db"]) <= 10 else "SNR >= 10 dB"  # type: ignore[index]
    tally = tallies.setdefault((cls, group), ClassTally())
    certain = [(s, lat) for s, lat in shouts if not s.uncertain]
    tally.uncertain += sum(1 for s, _ in shouts if s.uncertain)
    found = [s.to_json() for s, _ in certain]
    expected = fixture.expected
    if cls == "chatter":
        tally.chatter_seconds += float(fixture.manifest["duration"])  # type: ignore[arg-type]
        tally.false_alarms += len(found)
        near = near_misses(fixture)
        tally.near_miss_said += len(near)
        tally.near_miss_taken += sum(
            any(f["player"] == seat and start - 0.15 <= float(f["onset"]) <= end + 0.1 for seat, start, end in near)  # type: ignore[arg-type]
            for f in found
        )
        return
    match = fx.match(found, expected)
    missed = [e for e in expected if not any(e is x and f["phrase"] == x["phrase"] for x, f in match.pairs)]
    asked = [s.to_json() for s, _ in shouts if s.uncertain]
    if asked and missed:
        tally.asked_right += fx.match(asked, missed).phrases_right()
    tally.expected += len(expected)
    good = {id(e) for e, f in match.pairs if f["phrase"] == e["phrase"]}
    if likely and cls in ("solo", "race"):
        tally.likely_expected += sum(1 for e in expected if e["phrase"] in likely)
        tally.likely_right += sum(1 for e in expected if e["phrase"] in likely and id(e) in good)
    tally.reported += len(match.pairs)
    tally.right += match.phrases_right()
    if voices is not None:
        for e in expected:
            counts = voices.setdefault(voice_of(fixture, e), [0, 0])
            counts[0] += 1
            counts[1] += id(e) in good
    tally.false_alarms += len(match.extra)
    ends = {(str(f["player"]), round(float(f["onset"]), 4)): lat for (s, lat), f in zip(certain, found)}  # type: ignore[arg-type]
    decisive = expected[-1] if cls == "slaps" else expected[0]
    for e, f in match.pairs:
        if f["phrase"] == e["phrase"]:
            latency = ends.get((str(f["player"]), round(float(f["onset"]), 4)), float("nan"))  # type: ignore[arg-type]
            tally.latencies.append(latency)
            if e is decisive:
                tally.verdicts.append(latency)
                key = (str(f["player"]), round(float(f["onset"]), 4))  # type: ignore[arg-type]
                tally.waits.append(waited.get(key, float("nan")) if waited is not None else float("nan"))
    slaps = [e for e in expected if e["phrase"] == "slap"]
    if cls == "slaps" and len(slaps) > 1:
        heard = [f for e, f in match.pairs if e["phrase"] == "slap" and f["phrase"] == "slap"]
        if len(heard) == len(slaps):
            reported = [f for f in found if f["phrase"] == "slap"]

            def last(rows: Sequence[dict[str, object]]) -> object:
                return max(rows, key=lambda r: float(r["onset"]))["player"]  # type: ignore[arg-type]

            tally.slap_races += 1
            tally.last_slap_right += last(reported) == last(slaps)
    if cls == "race" and len(expected) > 1:
        tally.races += 1
        right_first = (
            bool(found) and found[0]["player"] == expected[0]["player"] and found[0]["phrase"] == expected[0]["phrase"]
        )
        tally.first_right += right_first
        onsets = sorted(float(e["onset"]) for e in expected)  # type: ignore[arg-type]
        animal = expected[0]["phrase"]
        winner = next((f for f in found if f["phrase"] == animal), None)
        tally.winner_right += winner is not None and winner["player"] == expected[0]["player"]
        if onsets[1] - onsets[0] >= 0.0195:
            tally.gap_races += 1
            tally.gap_first_right += right_first
        all_heard = match.phrases_right() == len(expected) and not match.extra
        if all_heard and min(np.diff(onsets)) >= 0.0195:
            tally.clean += 1
            tally.clean_first_right += right_first


def report_heldout(title: str, tallies: dict[tuple[str, str], ClassTally], cpu: float, audio: float) -> None:
    """Print the per-class table and the overall line."""

    def pct(a: float, b: float) -> str:
        return f"{100 * a / b:5.1f}% ({a:g}/{b:g})" if b else "    -"

    print(f"\n== {title} ==")
    print(
        f"  {'class':8} {'condition':14} {'recall':>16} {'phrase right':>16} {'FA/10min':>9} {'first shouter':>16} "
        f"{'clean races':>14} {'uncertain':>9} {'+asked back':>16} {'latency p50/p95 ms':>19}"
    )
    total = ClassTally()
    for group in ("SNR >= 10 dB", "babble 10 dB"):
        for cls in CLASSES:
            t = tallies.get((cls, group))
            if t is None:
                continue
            lat = np.array([x for x in t.latencies if np.isfinite(x)]) * 1000
            fa = (
                f"{t.false_alarms / (t.chatter_seconds / 600):9.1f}"
                if t.chatter_seconds
                else f"{t.false_alarms:>6d} ex"
            )
            print(
                f"  {cls:8} {group:14} {pct(t.right, t.expected):>16} {pct(t.right, t.reported):>16} {fa} "
                f"{pct(t.first_right, t.races):>16} {pct(t.clean_first_right, t.clean):>14} {t.uncertain:9d} "
                f"{pct(t.right + t.asked_right, t.expected):>16} "
                + (f"{np.median(lat):8.0f} / {np.percentile(lat, 95):5.0f}" if lat.size else "       -")
            )
            for name in (
                "expected",
                "right",
                "reported",
                "false_alarms",
                "races",
                "first_right",
                "clean",
                "clean_first_right",
                "gap_races",
                "gap_first_right",
                "winner_right",
                "slap_races",
                "last_slap_right",
                "uncertain",
                "asked_right",
                "near_miss_said",
                "near_miss_taken",
                "likely_expected",
                "likely_right",
            ):
                setattr(total, name, getattr(total, name) + getattr(t, name))
            total.chatter_seconds += t.chatter_seconds
            total.latencies += t.latencies
            total.verdicts += t.verdicts
            total.waits += t.waits
    lat = np.array([x for x in total.latencies if np.isfinite(x)]) * 1000
    verdict = np.array([x for x in total.verdicts if np.isfinite(x)]) * 1000
    waits = np.array([x for x in total.waits if np.isfinite(x)]) * 1000
    minutes = total.chatter_seconds / 60
    asks_talk = sum(t.uncertain for (cls, _), t in tallies.items() if cls == "chatter")

    def per_ten(count: int) -> str:
        return f"{count / (minutes / 10):.1f}" if minutes > 0 else "-"

    print(
        f"  overall: recall {pct(total.right, total.expected)}, phrase right {pct(total.right, total.reported)}, "
        f"false alarms {total.false_alarms} ({per_ten(total.false_alarms)} per 10 min"
        f" of {minutes:.1f} min talk"
        f" + race extras), first shouter {pct(total.first_right, total.races)}"
        f" (at a first gap >= 20 ms: {pct(total.gap_first_right, total.gap_races)};"
        f" the first shout of the race's animal, the one the game awards: {pct(total.winner_right, total.races)}),"
        f" clean races {pct(total.clean_first_right, total.clean)},"
        f" uncertain {total.uncertain} (recall with the right ones asked back and confirmed:"
        f" {pct(total.right + total.asked_right, total.expected)}; asks in table talk {asks_talk}"
        f" = {per_ten(asks_talk)} per 10 min), latency p50/p95 "
        + (f"{np.median(lat):.0f}/{np.percentile(lat, 95):.0f} ms" if lat.size else "-")
        + (
            " (verdict: the first shout, or a slap race's last slap:"
            f" {np.median(verdict):.0f}/{np.percentile(verdict, 95):.0f} ms"
            + (
                f"; of which waiting for the audio {np.median(waits):.0f}/{np.percentile(waits, 95):.0f} ms"
                if waits.size
                else ""
            )
            + ")"
            if verdict.size
            else ""
        )
        + (", wall clock" if CLOCK is time.perf_counter else ", CPU")
        + f" {cpu / max(audio, 1e-9):.3f} s per s of audio"
    )
    talk_fa = sum(t.false_alarms for (cls, _), t in tallies.items() if cls == "chatter")
    if total.near_miss_said:
        print(
            f"  false alarms in table talk, split: on near-miss words said alone at shouting level"
            f" ({', '.join(fx.CONFUSABLE_WORDS[:3])} …) {pct(total.near_miss_taken, total.near_miss_said)}"
            " of them taken;"
            f" on everything else (everyday talk, coughs, laughs) {talk_fa - total.near_miss_taken}"
            f" = {per_ten(talk_fa - total.near_miss_taken)} per 10 min"
        )
    if total.slap_races:
        print(
            f"  slap races whose slaps were all heard: the last slap reported (the slapper penalised) is the"
            f" true last one in {pct(total.last_slap_right, total.slap_races)}"
        )
    if total.likely_expected:
        other_expected = (
            sum(t.expected for (c, _), t in tallies.items() if c in ("solo", "race")) - total.likely_expected
        )
        other_right = sum(t.right for (c, _), t in tallies.items() if c in ("solo", "race")) - total.likely_right
        print(
            f"  with the game's context (--context), solo shouts and races: shouts of the racing animal "
            f"{pct(total.likely_right, total.likely_expected)},"
            f" of other animals (mistakes) {pct(other_right, other_expected)}"
        )


def context_of(fixture: fx.Fixture, k: int) -> tuple[str, ...]:
    """--context: what the game would expect during this recording. A Bim Bamm! race or solo shout:
    the first shouter's animal (five of it show; other shouters' animals are mistakes). Table talk:
    a race window open all along, for an animal taken in turn. A Bim Bam Bum! turn: every yell of
    the caller's word (the host named the card); the slap race: the call "bim bam bum"."""
    game = fixture.manifest["game"]
    if game == "bimbambum":  # the slap race after the call: the host saw the three words on the piles
        return ("bim bam bum",)
    if game == "bimbambum_turn" and fixture.expected:  # a turn: the host named the card (not the count or pile)
        return yells_of(str(fixture.expected[0]["phrase"]).split()[-1])
    if game != "bimbamm":
        return ()
    if fixture.expected:
        return (str(fixture.expected[0]["phrase"]),)
    animals = ("cat", "dog", "pig", "donkey", "hen")
    return (animals[k % len(animals)],)


def racing_of(fixture: fx.Fixture) -> tuple[str, ...]:
    """--context: what players race to shout (``Listener.set_phrases``' ``racing``): every animal
    while a Bim Bamm! race window is open (its races, solo shouts and table talk); else nothing."""
    return fx.BIMBAMM_PHRASES if fixture.manifest["game"] == "bimbamm" else ()


def voice_takes(recognizer: Recognizer, voices: Sequence[object], seed: int, takes: int = 3) -> dict[str, object]:
    """--enrol: every synthetic voice's enrolment takes of every shouted word (``voicehost enrol``'s
    words), as encoder frames: voice label -> word -> takes. Each take is the voice with its pitch
    and rate jittered (tools.clips.vary: ±12 pitch, ±25 wpm, so never the fixture's own rendering),
    said in a quiet room (pink noise 40 dB under it), its sound found as ``voicehost enrol`` finds it
    (the same renderer makes the stock takes: tools.stock_takes)."""
    from tools.stock_takes import render_takes

    encode = recognizer.engine.encode  # type: ignore[attr-defined]
    return dict(render_takes(voices, encode, seed, takes))  # type: ignore[arg-type]


def with_stock(recognizer: object, path: str, work: Path) -> "WhisperRecognizer":
    """--stock: the Whisper recogniser again, matching players who did not enrol against the stock
    takes in ``path`` (empty: rendered now into the work folder, as python -m tools.stock_takes)."""
    from tools.stock_takes import write_stock
    from voicehost.listen.recognize.enrol import load_stock
    from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer

    if not isinstance(recognizer, WhisperRecognizer):
        raise SystemExit("--stock needs the Whisper recogniser (--engine whisper or auto)")
    file = Path(path) if path else write_stock(work / "stock_takes_en.npz", recognizer.engine)
    return WhisperRecognizer(
        recognizer.pack,
        recognizer.engine,
        recognizer.tuning,
        second=recognizer.second,
        stock=load_stock(file),
        third=recognizer.third,
    )


def enrolled_seats(fixture: fx.Fixture, takes: dict[str, object], base_of: dict[str, str] | None = None) -> object:
    """The fixture's seats with their voice's enrolment takes (seats of unknown voices: none);
    ``base_of``: a sound's voice label → the player's (--jitter), whose takes are then made as needed."""
    from voicehost.listen.recognize.enrol import Templates

    templates = Templates()
    for sound in fixture.manifest.get("sounds", ()):  # type: ignore[attr-defined]
        seat, voice = sound.get("seat"), sound.get("voice")
        if base_of is not None and str(voice) in base_of:
            voice = base_of[str(voice)]
            takes.setdefault(voice, {})
        if seat and voice in takes and seat not in templates.words:
            templates.words[str(seat)] = takes[voice]  # type: ignore[assignment]
    return templates


JITTER_SPEED = 0.04
"""--jitter: each rendering is also played up to this much faster or slower (tape speed: pitch and
formants move together), since flite and Festival ignore the pitch setting."""


class JitterRenderer(fx.Renderer):
    """--jitter: the fixture renderer, each voice rendering played at a tape speed within ±
    :data:`JITTER_SPEED` chosen by its (jittered) voice label, so no two shouts of a player sound alike."""

    def speech(self, text: str, voice: object) -> np.ndarray:
        from voicehost.audio.resample import resample

        samples = super().speech(text, voice)  # type: ignore[arg-type]
        label = voice.label  # type: ignore[attr-defined]
        speed = 1.0 + JITTER_SPEED * (2 * (zlib.crc32(label.encode()) % 1001) / 1000 - 1)
        return np.asarray(resample(samples, int(round(fx.RATE * speed)), fx.RATE), dtype=np.float32)


def jittered(scenarios: Sequence[fx.Scenario], seed: int) -> tuple[list[fx.Scenario], dict[str, str]]:
    """--jitter: every sound's voice jittered anew (tools.clips.vary: pitch ±12, rate ±25 wpm; and the
    :class:`JitterRenderer`'s tape speed), so a player's shouts are never one rendering twice; also
    the jittered label → the player's voice (the base voice's label)."""
    from tools.clips import vary

    rng = np.random.default_rng(seed * 7919 + 13)
    base_of: dict[str, str] = {}
    out = []
    for scenario in scenarios:
        sounds = []
        for sound in scenario.sounds:
            if sound.voice is not None:
                voice = vary(sound.voice, rng)
                base_of[voice.label] = sound.voice.label
                sound = replace(sound, voice=voice)
            sounds.append(sound)
        out.append(replace(scenario, sounds=tuple(sounds)))
    return out, base_of


@dataclass
class Learning:
    """--learn: takes learned in play, per player (a base voice), over the whole held-out set."""

    base_of: dict[str, str]
    takes: dict[str, object] = field(default_factory=dict)
    """Player (base voice) → word → takes."""
    learned: list[tuple[fx.Fixture, str, str, float]] = field(default_factory=list)
    """(fixture, seat, phrase, onset) of every shout learned."""
    fixture: fx.Fixture | None = None
    confirmed: int = 0
    """Uncertain shouts confirmed (and learned)."""

    def seats(self, fixture: fx.Fixture) -> object:
        """The fixture's seats with their player's takes so far (None: a fixture of unknown voices)."""
        self.fixture = fixture
        templates = enrolled_seats(fixture, self.takes, self.base_of)
        return templates if templates.words else None  # type: ignore[attr-defined]

    def confirm(self, recognizer: object, fixture: fx.Fixture, shouts: Sequence[tuple[Shout, float]]) -> None:
        """The players answer the host's questions: each uncertain shout whose candidate was right
        (as the recall "+asked back" counts it) is confirmed, and becomes a take."""
        asked = [s for s, _ in shouts if s.uncertain]
        if not asked or not self.base_of:
            return
        match = fx.match([s.to_json() for s in asked], fixture.expected)
        for e, f in match.pairs:
            if f["phrase"] == e["phrase"]:
                onset = float(f["onset"])  # type: ignore[arg-type]
                if recognizer.confirm(str(f["player"]), onset, str(f["phrase"])):  # type: ignore[attr-defined]
                    self.confirmed += 1

    def heard(self, segment: Segment, phrase: str) -> None:
        assert self.fixture is not None
        self.learned.append((self.fixture, segment.event.seat, phrase, segment.event.onset))

    def report(self) -> None:
        """How many shouts were learned, and how many of them were not that player's shout of that phrase."""
        wrong = talk = 0
        by_fixture: dict[str, list[dict[str, object]]] = {}
        fixtures = {}
        for fixture, seat, phrase, onset in self.learned:
            by_fixture.setdefault(fixture.name, []).append({"player": seat, "phrase": phrase, "onset": onset})
            fixtures[fixture.name] = fixture
        for name, found in by_fixture.items():
            match = fx.match(found, fixtures[name].expected)
            bad = len(match.extra) + sum(1 for e, f in match.pairs if f["phrase"] != e["phrase"])
            wrong += bad
            talk += bad if "_chatter_" in name else 0
        takes = sum(len(t) for words in self.takes.values() for t in words.values())  # type: ignore[attr-defined,misc]
        print(
            f"\ntakes learned in play: {len(self.learned)} shouts learned ({takes} word takes kept), "
            f"{wrong} of them wrong ({talk} from table talk); {self.confirmed} uncertain shouts confirmed "
            "when asked back and learned"
        )


def run_heldout(
    fixtures: Sequence[fx.Fixture],
    make: Callable[[fx.Fixture, str], Recognizer],
    phrases_for: Callable[[str], tuple[str, ...]],
    title: str,
    context: bool = False,
    after: Callable[[fx.Fixture, Sequence[tuple[Shout, float]]], None] | None = None,
) -> None:
    """Replay the held-out fixtures (20 ms blocks) and print their table (``after``: called with
    each fixture and its shouts)."""
    tallies: dict[tuple[str, str], ClassTally] = {}
    voices: dict[str, list[int]] = {}
    cpu = audio = 0.0
    why: dict[str, int] = {}
    for k, fixture in enumerate(fixtures, 1):
        rec = fixture.load()
        game = str(fixture.manifest["game"])
        decisions: list[Decision] = []
        likely = context_of(fixture, k) if context else ()
        racing = racing_of(fixture) if context else ()
        waited: dict[tuple[str, float], float] = {}
        shouts, spent = listen_timed(
            rec,
            make(fixture, game),
            phrases_for(game),
            decisions=decisions,
            likely=likely,
            racing=racing,
            waited=waited,
        )
        cpu += spent
        audio += rec.duration
        if after is not None:
            after(fixture, shouts)
        score_heldout(fixture, shouts, tallies, likely, waited, voices)
        for reason in miss_reasons(fixture, shouts, decisions):
            why[reason] = why.get(reason, 0) + 1
        print(f"\r[{k}/{len(fixtures)}] {fixture.name:40}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    report_heldout(title, tallies, cpu, audio)
    if voices and set(voices) != {"?"}:
        print("  heard right, by voice: " + by_voice(voices))
    if why:
        print(
            "  missed shouts, by reason: " + "; ".join(f"{n} {r}" for r, n in sorted(why.items(), key=lambda p: -p[1]))
        )


def by_voice(voices: Mapping[str, Sequence[int]]) -> str:
    """``voice n/m`` for each voice of :func:`score_heldout`'s tally, the worst heard first."""
    rows = sorted(voices.items(), key=lambda kv: (kv[1][1] / kv[1][0] if kv[1][0] else 1.0, kv[0]))
    return "; ".join(f"{voice} {right}/{count}" for voice, (count, right) in rows)


def yells_of(word: str) -> tuple[str, ...]:
    """A Bim Bam Bum! turn's expectation once the host named the card: every yell of its word
    (once, twice, thrice), with and without a pile number."""
    yells = [" ".join([word] * n) for n in (1, 2, 3)]
    return (*yells, *(f"{pile} {y}" for pile in ("one", "two", "three") for y in yells))


def turn_context(k: int) -> tuple[str, ...]:
    """The turn's expectation for the k-th recording of talk (the three words taken in turn)."""
    return yells_of(("bim", "bam", "bum")[k % 3])


def talk_kinds(fixture: fx.Fixture, shouts: Sequence[tuple[Shout, float]]) -> list[tuple[str, str]]:
    """(kind, phrase) of each shout reported in table talk, uncertain ones left out: 'slaps', 'said'
    (an allowed word the talk did say: a real "three" is a pile number) or 'words' (a false alarm)."""
    out = []
    for shout, _ in shouts:
        if shout.uncertain:
            continue
        truth = fixture.sound_at(shout.player, shout.onset)
        said = truth is not None and str(truth.get("text", "")).lower() == shout.phrase
        out.append(("slaps" if shout.phrase == "slap" else "said" if said else "words", shout.phrase))
    return out


def tally(words: Sequence[str]) -> str:
    """ "help 8, pause 2" (each phrase with its count), or "none"."""
    return ", ".join(f"{p} {words.count(p)}" for p in sorted(set(words))) or "none"


def run_talk_in_bim_bam_bum(
    fixtures: Sequence[fx.Fixture],
    make: Callable[[fx.Fixture, str], Recognizer],
    phrases_for: Callable[[str], tuple[str, ...]],
    title: str,
) -> None:
    """--context: the table talk again, with Bim Bam Bum!'s windows open all through instead of a
    Bim Bamm! race's: a turn's yells expected (the turn's phrases allowed: yells, pile numbers,
    commands), then the call "bim bam bum" expected (the slap race's phrases). Prints per 10
    minutes of talk (SNR >= 10 dB; babble 10 dB apart) the words reported that the talk did not
    say (false alarms), the slaps reported (a clatter or a laugh in a slap race's window) and, not
    counted, allowed words the talk did say (a real "three" is a pile number).

    Each twice: every seat listening for every phrase, and as the host listens (shipped): no seat
    listens for a pile number alone, and only the seat whose turn it is (seats taken in turn, one
    per recording) for a yell alone (``BimBamBumFlow.not_heard_from``), and the commands are strict
    (``Listener.strict``, item 24). Also prints the questions asked back."""
    from voicehost.host.flows.bimbambum import ALONE_WORDS, PILE_ALONE
    from voicehost.host.words import COMMAND_PHRASES

    talk = [f for f in fixtures if "_chatter_" in f.name]
    if not talk:
        return
    print(f"\n{title}: table talk with Bim Bam Bum!'s windows open all through")
    for label, game, likely_of in (
        ("a turn's yells expected", "bimbambum_turn", turn_context),
        ("the call expected", "bimbambum", lambda k: ("bim bam bum",)),
    ):
        for per_seat in (False, True):
            found: dict[tuple[bool, str], list[str]] = {}
            asked: dict[bool, list[str]] = {True: [], False: []}
            seconds = {True: 0.0, False: 0.0}
            phrases = phrases_for(game)
            others = [p for p in phrases if p not in ALONE_WORDS]
            own = [p for p in phrases if p not in PILE_ALONE]
            for k, fixture in enumerate(talk, 1):
                loud = "babble10" not in fixture.name
                turn = fixture.seats[k % len(fixture.seats)]
                seats = {s: own if s == turn else others for s in fixture.seats} if per_seat else None
                recognizer = make(fixture, game)
                strict = COMMAND_PHRASES if per_seat else ()
                shouts, _ = listen_timed(
                    fixture.load(), recognizer, phrases, likely=likely_of(k), seat_phrases=seats, strict=strict
                )
                for kind, phrase in talk_kinds(fixture, shouts):
                    found.setdefault((loud, kind), []).append(phrase)
                asked[loud] += [shout.phrase for shout, _ in shouts if shout.uncertain]
                seconds[loud] += float(fixture.manifest["duration"])  # type: ignore[arg-type]
                print(f"\r[{k}/{len(talk)}] {label:28} {fixture.name:30}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            who = "as the host listens" if per_seat else "every seat, every phrase"
            for loud, where in ((True, "SNR >= 10 dB"), (False, "babble 10 dB")):
                if not seconds[loud]:
                    continue
                words, slaps, allowed = (found.get((loud, kind), []) for kind in ("words", "slaps", "said"))
                taken = tally(words)
                per10 = seconds[loud] / 600
                print(
                    f"  {label}, {who:29} {where:13} {seconds[loud] / 60:4.1f} min: {len(words)} false alarms"
                    f" ({len(words) / per10:.1f} per 10 min; taken for: {taken});"
                    f" slaps {len(slaps)} ({len(slaps) / per10:.1f}); allowed words the talk said {len(allowed)};"
                    f" asked back {len(asked[loud])} ({len(asked[loud]) / per10:.1f}: {tally(asked[loud])})"
                )


def run_talk_with_commands(
    fixtures: Sequence[fx.Fixture],
    make: Callable[[fx.Fixture, str], Recognizer],
    title: str,
    goodbye: bool = False,
) -> None:
    """--context: the table talk again with a Bim Bamm! race window open all through, the phrases
    as a live host's microphones listen for them in a race (the animals, "a player has left" and
    the commands of voicehost.host.words.COMMAND_PHRASES, which every game's grammar holds at
    every moment; "goodbye" only once the game is over, or with ``goodbye`` during the game too,
    as before item 23) instead of the animals alone. Prints the words taken per 10 minutes of
    talk and the questions asked back four ways: the commands as any phrase (before item 24),
    strict and asked back when unclear (tried), strict and dropped when unclear, and the same but
    an unclear command said again by the same seat within 10 s taken (shipped: taken only when
    accepted outright and nearly written by the recogniser itself, or said again)."""
    from voicehost.commands.rank import game_phrases
    from voicehost.host.session import GOODBYE_PHRASES
    from voicehost.host.words import COMMAND_PHRASES, LEAVING_PHRASES

    talk = [(k, f) for k, f in enumerate(fixtures, 1) if "_chatter_" in f.name]
    if not talk:
        return
    commands = [p for p in COMMAND_PHRASES if goodbye or p not in GOODBYE_PHRASES]
    phrases = tuple(dict.fromkeys([*game_phrases("bimbamm", "en"), *LEAVING_PHRASES, *commands]))
    which = "every command, goodbye too" if goodbye else "the commands as the microphones listen"
    print(f"\n{title}: table talk, a Bim Bamm! race window open, {which} ({len(phrases)} phrases)")
    ways: tuple[tuple[str, bool, dict[str, float | bool]], ...] = (("commands as any phrase", False, {}),)
    if not goodbye:
        ways += (
            ("strict, asked back", True, {"ask_strict": True}),
            ("strict, dropped", True, {"strict_again": 0.0}),
            ("strict, dropped, 2nd taken", True, {}),
        )
    for how, strict, way in ways:
        found: dict[bool, list[str]] = {True: [], False: []}
        asked: dict[bool, list[str]] = {True: [], False: []}
        seconds = {True: 0.0, False: 0.0}
        for n, (k, fixture) in enumerate(talk, 1):  # k as in the held-out table: the same race animal
            loud = "babble10" not in fixture.name
            shouts, _ = listen_timed(
                fixture.load(),
                make(fixture, "bimbamm"),
                phrases,
                likely=context_of(fixture, k),
                racing=racing_of(fixture),
                strict=commands if strict else (),
                strict_way=way,
            )
            found[loud] += [phrase for kind, phrase in talk_kinds(fixture, shouts) if kind == "words"]
            asked[loud] += [shout.phrase for shout, _ in shouts if shout.uncertain]
            seconds[loud] += float(fixture.manifest["duration"])  # type: ignore[arg-type]
            print(f"\r[{n}/{len(talk)}] commands too {fixture.name:30}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        for loud, where in ((True, "SNR >= 10 dB"), (False, "babble 10 dB")):
            if seconds[loud]:
                words, questions = found[loud], asked[loud]
                per10 = seconds[loud] / 600
                print(
                    f"  {how:26} {where:13} {seconds[loud] / 60:4.1f} min: {len(words)} false alarms"
                    f" ({len(words) / per10:.1f} per 10 min; taken for: {tally(words)}); asked back"
                    f" {len(questions)} ({len(questions) / per10:.1f}: {tally(questions)})"
                )


def run_reactions(fixtures: Sequence[fx.Fixture], make: Callable[[fx.Fixture, str], Recognizer], title: str) -> None:
    """--context: the races with a reaction (tools.listen_fixtures.reactions_set), as shipped and
    with the race's corroboration off (``ListenConfig.corroborate``): the reactions taken for a game
    word (false alarms) and asked back, and the race shouts heard right."""
    from voicehost.commands.rank import game_phrases
    from voicehost.listen.pipeline import ListenConfig

    print(f"\n{title}: races with a reaction 0.05-0.3 s after the first shout ({len(fixtures)} recordings)")
    for how, window in (("shipped (corroborate 0.3 s)", ListenConfig().corroborate), ("corroboration off", None)):
        taken: list[str] = []
        asked: list[str] = []
        heard = total = 0
        for n, fixture in enumerate(fixtures, 1):
            shouts, _ = listen_timed(
                fixture.load(),
                make(fixture, "bimbamm"),
                game_phrases("bimbamm", "en"),
                likely=context_of(fixture, n),
                racing=racing_of(fixture),
                strict_way={"corroborate": window},
            )
            for shout, _ in shouts:
                truth = fixture.sound_at(shout.player, shout.onset)
                if truth is not None and truth["kind"] == "chatter":
                    (asked if shout.uncertain else taken).append(shout.phrase)
            found = [shout.to_json() for shout, _ in shouts if not shout.uncertain]
            heard += fx.match(found, fixture.expected).phrases_right()
            total += len(fixture.expected)
            print(f"\r[{n}/{len(fixtures)}] reactions {fixture.name:30}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        print(
            f"  {how:28} reactions taken for a game word {len(taken)} of {len(fixtures)} ({tally(taken)}),"
            f" asked back {len(asked)} ({tally(asked)}); race shouts heard right {heard}/{total}"
        )


def real_heldout_set(folder: Path, seed: int, work: Path, rounds: int) -> list[fx.Fixture]:
    """Real voices for the held-out table: races (as :func:`real_voice_set`), solo shouts (one
    player, same clips) and table talk made of the real other words (named *_chatter_*)."""
    races = real_voice_set(folder, seed, work, rounds)
    out = [_renamed(f, f"real_race_{k:03d}", work) for k, f in enumerate(races)]
    out += real_solo_and_chatter(folder, seed + 1, work, rounds)
    return out


def _renamed(fixture: fx.Fixture, name: str, work: Path) -> fx.Fixture:
    import json

    manifest = dict(fixture.manifest)
    manifest["name"] = name
    path = work / f"{name}.json"
    path.write_text(json.dumps(manifest, indent=1))
    if fixture.path != path:  # one manifest per recording in the work folder (--fixtures reads them all)
        fixture.path.unlink(missing_ok=True)
    return fx.read_fixture(path)


def real_solo_and_chatter(folder: Path, seed: int, work: Path, count: int) -> list[fx.Fixture]:
    """Solo shouts (cat/dog clips of real people over their real noise at 30/20/10 dB) and 20 s of
    talk made of the other real words, one every ~1.6 s."""
    import json

    import soundfile

    words, others, noises = speech_commands(folder)
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        for kind in ("solo", "chatter"):
            seconds = 3.0 if kind == "solo" else 20.0
            frames = int(seconds * 16000)
            seats = fx.PLAYERS[:3]
            tracks = np.zeros((frames, 3))
            room = Room(frames, 3, (seed, k, len(kind)))
            expected, sounds = [], []
            placements = (
                [(int(rng.integers(3)), 0.8)]
                if kind == "solo"
                else [(int(rng.integers(3)), t) for t in np.arange(0.5, seconds - 1.5, 1.6)]
            )
            for who, t in placements:
                word = str(rng.choice(["cat", "dog"])) if kind == "solo" else None
                raw = (
                    words[word][int(rng.integers(len(words[word])))] if word else others[int(rng.integers(len(others)))]
                )
                clip = fx.set_active_level(gated(raw), fx.SHOUT_DB if word else fx.SHOUT_DB - float(rng.uniform(0, 6)))
                start = t - onset_of(raw)  # the raw clip's truth: see gated
                gains = []
                for j in range(3):
                    gain = 1.0 if j == who else 10 ** (rng.uniform(-25, -8) / 20)
                    fx.add_at(
                        tracks[:, j], fx.shift(clip * gain, start + (0.0 if j == who else rng.uniform(0.001, 0.008)))
                    )
                    gains.append(gain)
                room.paste(raw, clip, start, who, gains)
                if word:
                    expected.append(
                        {
                            "player": seats[who],
                            "phrase": word,
                            "onset": round(t, 5),
                            "end": round(start + len(clip) / 16000, 5),
                        }
                    )
                sounds.append(
                    {
                        "seat": seats[who],
                        "kind": "shout" if word else "chatter",
                        "text": word or "(other word)",
                        "onset": round(t, 5),
                        "end": round(start + len(clip) / 16000, 5),
                        "voice": "speech_commands",
                    }
                )
            room.add_to(tracks)
            snr = float(rng.choice([30, 20, 10]))
            noise = noises[int(rng.integers(len(noises)))]
            level = 10 ** ((fx.SHOUT_DB - snr) / 20)
            for j in range(3):
                a = int(rng.integers(0, max(1, len(noise) - frames)))
                piece = np.resize(noise[a : a + frames], frames)
                tracks[:, j] += piece / (np.sqrt(np.mean(piece**2)) + 1e-9) * level
            name = f"real_{kind}_{k:03d}"
            soundfile.write(str(work / f"{name}.wav"), tracks.astype(np.float32), 16000, subtype="PCM_16")
            manifest = {
                "name": name,
                "game": "bimbamm",
                "lang": "en",
                "seed": k,
                "rate": 16000,
                "duration": seconds,
                "seats": list(seats),
                "noise": {"kind": "real", "snr_db": snr},
                "multichannel": f"{name}.wav",
                "sounds": sounds,
                "expected": expected,
            }
            path = work / f"{name}.json"
            path.write_text(json.dumps(manifest, indent=1))
            out.append(fx.read_fixture(path))
    return out


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
                rows.append(
                    f"    {name:14} median |err| {np.median(ms):6.1f} ms  p95 {np.percentile(ms, 95):6.1f} ms"
                    f"  (signed median {np.median(signed):+.1f}, n={len(values)})"
                )
        return rows

    print(f"\n== {title} ==")
    for label, tally in (
        ("pipeline (onset detector)", totals.pipeline),
        ("baseline (recogniser's first word)", totals.baseline),
    ):
        print(f"  {label}")
        print(f"    first shouter, all races        {pct(tally.first_right, tally.races)}")
        print(f"    first shouter, gaps>=20ms SNR>=20 {pct(tally.clean_first_right, tally.clean_races)}")
        print(
            "    pair order by gap: "
            + "  ".join(f"{g}ms {pct(*tally.pairs[g]).split(' (')[0].strip()}" for g in GAPS_MS)
        )
        for row in errs(tally):
            print(row)
    print(f"  shouts found                      {pct(totals.found, totals.expected)}")
    print(f"  phrase accuracy                   {pct(totals.phrases_right, totals.expected)}")
    minutes = totals.chatter_seconds / 60
    if minutes:
        print(
            f"  false alarms                      {totals.false_alarms} in {minutes:.1f} min of chatter"
            " (+ race extras) = "
            f"{totals.false_alarms / minutes:.2f}/min {sorted(set(totals.false_alarm_phrases))}"
        )
    else:
        print(
            f"  false alarms                      {totals.false_alarms} shouts nobody made,"
            f" in {totals.pipeline.races} races (one other word each)"
        )
    for label, values in rtfs.items():
        print(
            f"  real-time factor, {label:18} (CPU s per s of audio): "
            + "  ".join(f"{n} seat(s) {v:.3f}" for n, v in values.items())
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Generate, replay, print."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=7, help="fixture seed (the committed set uses 1; default 7)")
    parser.add_argument("--races", type=int, default=60, help="synthetic races (default 60)")
    parser.add_argument(
        "--chatter-minutes", type=float, default=2.0, help="minutes of synthetic table talk (default 2)"
    )
    parser.add_argument(
        "--fixtures", type=Path, help="use fixtures already written to this folder instead of generating"
    )
    parser.add_argument("--work", type=Path, help="folder for generated audio (default: a temporary folder)")
    parser.add_argument(
        "--engine", default="auto", choices=("auto", "vosk", "whisper", "sphinx"), help="recogniser (default auto)"
    )
    parser.add_argument(
        "--heldout", action="store_true", help="the held-out split, per class and condition (see the module doc)"
    )
    parser.add_argument(
        "--tune",
        action="store_true",
        help="--heldout's classes on the tuning split instead (tuning voices, seed 1; for choosing settings)",
    )
    parser.add_argument(
        "--context",
        action="store_true",
        help="--heldout/--tune: give the recogniser the game's expectation (a race's animal; see context_of)",
    )
    parser.add_argument(
        "--real-only", action="store_true", help="--heldout: only the real voices (needs --speech-commands)"
    )
    parser.add_argument(
        "--enrol",
        action="store_true",
        help="--heldout/--tune: every synthetic player enrolled (--takes of each shouted word, pitch and rate "
        "jittered, quiet room); real voices are not (Speech Commands has one take per speaker and word)",
    )
    parser.add_argument(
        "--takes",
        type=int,
        default=3,
        metavar="N",
        help="--enrol: takes of each word per player (voicehost enrol --takes; 1 to 5, default 3)",
    )
    parser.add_argument(
        "--jitter",
        action="store_true",
        help="--heldout/--tune: every synthetic sound's voice jittered anew (pitch, rate, tape speed), so a "
        "player never says a word twice alike (the baseline of --learn: the same recordings)",
    )
    parser.add_argument(
        "--learn",
        action="store_true",
        help="--heldout/--tune (implies --jitter): the recogniser keeps clearly heard shouts as takes of their "
        "player (a base voice) through the whole synthetic set, in order; real voices are not learned from "
        "(their races reuse one clip per speaker and word)",
    )
    parser.add_argument(
        "--queued",
        action="store_true",
        help="latency as a live listener has it: one worker takes the blocks in order, so a block waits "
        "while an earlier one is being worked on (without: the block's own CPU time only)",
    )
    parser.add_argument(
        "--helper",
        action="store_true",
        help="the listener gets a helper recogniser in a second process (as live tables have it); "
        "costs are then wall-clock time, so run it on an idle machine (implies --wall)",
    )
    parser.add_argument(
        "--wall",
        action="store_true",
        help="measure each feed call's cost with the wall clock instead of CPU time (compare with --helper)",
    )
    parser.add_argument(
        "--stock",
        nargs="?",
        const="",
        metavar="FILE",
        help="Whisper: match players who did not enrol against stock takes (tried, off as shipped): FILE "
        "from python -m tools.stock_takes, or without FILE rendered now (seed 1, about 20 s)",
    )
    parser.add_argument(
        "--rounds", type=int, default=4, help="--heldout: rounds of every class and condition (default 4)"
    )
    parser.add_argument(
        "--oracle", action="store_true", help="replace the recogniser by the truth (measures onsets and crosstalk only)"
    )
    parser.add_argument(
        "--speech-commands",
        type=Path,
        metavar="DIR",
        help="also run races of real voices from this Speech Commands folder",
    )
    parser.add_argument("--real-races", type=int, default=40, help="races built from real voices (default 40)")
    parser.add_argument(
        "--gated-rooms",
        action="store_true",
        help="real voices mixed as before 2026-12-07 (item 61): a clip's own room noise only in its gated "
        "span, not all along at its seat (see Room)",
    )
    parser.add_argument("--rtf-seats", default="1,4,8", help="seat counts for the real-time factor (default 1,4,8)")
    parser.add_argument(
        "--rtf-engines",
        default="none,sphinx,vosk:ko",
        help="engines for the real-time factor, ENGINE[:LANG] or none (default none,sphinx,vosk:ko)",
    )
    args = parser.parse_args(argv)
    global QUEUED, HELPER, CLOCK, ROOM_ALL_ALONG
    QUEUED = args.queued
    ROOM_ALL_ALONG = not args.gated_rooms
    if args.helper or args.wall:
        CLOCK = time.perf_counter

    work = args.work or Path(tempfile.mkdtemp(prefix="voicehost-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    from voicehost.commands.rank import game_phrases

    def phrases(game: str) -> tuple[str, ...]:
        if game == "bimbambum_turn":  # a Bim Bam Bum! turn: pile numbers with every yell (the host's set)
            from tools.clips import command_sets

            return tuple(p for p in command_sets()["Bim Bam Bum! turn"]) + ("slap",)
        return game_phrases(game, "en")

    if args.oracle:

        def make(fixture: fx.Fixture, game: str) -> Recognizer:
            return oracle(fixture)

        engine = "oracle"
    else:
        from voicehost.listen.recognize import build_recognizer

        shared = build_recognizer("en", args.engine, None)
        engine = shared.name
        if args.stock is not None:
            shared = with_stock(shared, args.stock, work)

        def make(fixture: fx.Fixture, game: str) -> Recognizer:
            return shared

    if args.helper:
        from voicehost.listen.helper import Helper, table_recognizer

        if args.oracle or args.enrol or args.stock is not None:
            parser.error("--helper builds the plain recogniser: not with --oracle, --enrol or --stock")
        HELPER = Helper(partial(table_recognizer, "en", args.engine, None, {}))
        if not HELPER.ready():
            parser.error(str(HELPER.failed))

    if args.heldout or args.tune:
        from tools.synth import ENGLISH_VOICES, HELDOUT_ENGLISH_VOICES

        seed = args.seed if args.seed != 7 else (1 if args.tune else 21)
        if args.enrol:
            from voicehost.commands.enrol import TAKES

            if not TAKES[0] <= args.takes <= TAKES[1]:
                parser.error(f"--takes: {TAKES[0]} to {TAKES[1]} takes of each word")
            if args.oracle or not hasattr(shared, "templates"):
                parser.error("--enrol needs the Whisper recogniser (--engine whisper or auto)")
            takes = voice_takes(shared, ENGLISH_VOICES if args.tune else HELDOUT_ENGLISH_VOICES, seed, args.takes)

            def make(fixture: fx.Fixture, game: str) -> Recognizer:
                shared.templates = enrolled_seats(fixture, takes)  # type: ignore[attr-defined]
                return shared

        renderer = fx.Renderer()
        scenarios = fx.heldout_set(seed, ENGLISH_VOICES if args.tune else HELDOUT_ENGLISH_VOICES, args.rounds)
        learning = None
        if args.jitter or args.learn:
            scenarios, base_of = jittered(scenarios, seed)
            renderer = JitterRenderer()
            if args.learn:
                if args.oracle or args.enrol or not hasattr(shared, "templates"):
                    parser.error("--learn needs the Whisper recogniser, and not with --enrol or --oracle")
                learning = Learning(base_of)
                shared.on_learn = learning.heard  # type: ignore[attr-defined]

                def make(fixture: fx.Fixture, game: str) -> Recognizer:
                    assert learning is not None
                    shared.templates = learning.seats(fixture)
                    shared.learn = shared.templates is not None  # type: ignore[attr-defined]
                    shared._asked.clear()  # type: ignore[attr-defined]  # onsets restart with each recording
                    return shared

        held = []
        for k, scenario in enumerate([] if args.real_only else scenarios, 1):
            held.append(fx.read_fixture(fx.write(renderer.render(scenario), work)))
            print(f"\rrendering [{k}/{len(scenarios)}]", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        if held:
            split = "tuning" if args.tune else "held-out"
            run_heldout(
                held,
                make,
                phrases,
                f"{split} synthetic voices, seed {seed}, recogniser {engine}, {len(held)} recordings"
                + (", with the game's context" if args.context else "")
                + (f", every player enrolled ({args.takes} takes of each word)" if args.enrol else "")
                + (", voices jittered" if args.jitter or args.learn else "")
                + (", takes learned in play" if args.learn else ""),
                args.context,
                after=None if learning is None else partial(learning.confirm, shared),
            )
            if learning is not None:
                learning.report()
            if args.context and learning is None:
                run_talk_in_bim_bam_bum(held, make, phrases, f"{split} synthetic voices")
                run_talk_with_commands(held, make, f"{split} synthetic voices", goodbye=True)
                run_talk_with_commands(held, make, f"{split} synthetic voices")
                plain = fx.Renderer()  # never jittered: the reactions are measured as rendered
                voices = ENGLISH_VOICES if args.tune else HELDOUT_ENGLISH_VOICES
                reactions = [
                    fx.read_fixture(fx.write(plain.render(scenario), work))
                    for scenario in fx.reactions_set(seed, voices, args.rounds)
                ]
                run_reactions(reactions, make, f"{split} synthetic voices")
        if args.speech_commands:
            real = real_heldout_set(args.speech_commands, seed, work, args.real_races)
            run_heldout(
                real,
                make,
                phrases,
                f"real voices (Speech Commands), recogniser {engine}, {len(real)} recordings"
                + (", with the game's context" if args.context else ""),
                args.context,
            )
            if args.context:
                run_talk_in_bim_bam_bum(real, make, phrases, "real voices")
                run_talk_with_commands(real, make, "real voices", goodbye=True)
                run_talk_with_commands(real, make, "real voices")
        print(f"\naudio written to {work}")
        return 0
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
    rtfs = {
        label: rtf(recognizer, phrases_, seats, args.seed, work)
        for label, recognizer, phrases_ in engines_for_rtf(args.rtf_engines)
    }
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
