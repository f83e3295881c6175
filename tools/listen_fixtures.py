"""Synthetic table recordings with known truth, for tests and benchmarks.

A :class:`Scenario` says who makes which sound when (shouts, chatter, coughs, laughter, claps and
slaps, the host's voice from the table speaker); :func:`render` turns it into one track per seat:
each player's own sounds, every other player's sounds leaking in (-8 to -25 dB, 1 to 8 ms later,
with one reflection and a little high-frequency loss), room noise (pink noise or babble of several
voices) at the chosen SNR and a faint electrical floor (never digital silence), then a per-seat
microphone gain. The manifest next to the audio gives the expected shouts, sorted by onset.

Run ``python -m tools.listen_fixtures --help``: it recreates the committed set in
``audio_fixtures/`` (seed 1) or writes larger sets with another seed for benchmarks.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from tools import synth
from voicehost.listen.messages import SeatName
from tools.synth import SynthVoice

if TYPE_CHECKING:
    from voicehost.listen.sources import Recording

RATE = 16000
"""Hz: fixtures are rendered and stored at the recognisers' rate."""
SHOUT_DB = -18.0
"""Active RMS of a shout at its own microphone, dBFS (before the microphone gain)."""
CHATTER_DB = -24.0
"""Active RMS of conversation at the speaker's own microphone, dBFS."""
FLOOR_DB = -66.0
"""RMS of the electrical noise floor every track has, dBFS."""

BIMBAMM_PHRASES = ("cat", "dog", "pig", "donkey", "hen")
BIMBAMBUM_CALLS = (
    "bim",
    "bim bim",
    "bim bim bim",
    "bam",
    "bam bam",
    "bam bam bam",
    "bum",
    "bum bum",
    "bum bum bum",
    "bim bam bum",
    "ship",
)
CHATTER_SENTENCES = (
    "whose turn is it now",
    "I think I had it first",
    "pass me the chips please",
    "that was a good one",
    "wait a second",
    "no way that is not fair",
    "let me see your card",
    "pick a card any card",
    "the boat is at the dock",
    "my monkey is cute",
    "where is the bomb",
    "okay let us play again",
    "hold on I am thinking",
    "who is winning right now",
    "give me the pen",
    "I love this game",
    "did you hear that",
    "it was a tie",
)
"""Table talk without any target word."""
CONFUSABLE_WORDS = ("pick", "dock", "monkey", "bomb", "bin", "boom", "ten", "cut", "dug", "ship shape", "hand", "bank")
"""Single non-target words close to targets (known recogniser confusions)."""
REACTIONS = ("what", "no way", "oh no", "wait", "hey", "too slow", *CONFUSABLE_WORDS)
"""What a player who does not race may say just as the others shout (:func:`reactions_set`):
reactions, and the words a recogniser takes for game words."""


@dataclass(frozen=True)
class Sound:
    """One thing that happens at the table."""

    seat: SeatName | None
    """Who makes it; None for the table speaker (the host's voice, heard by everyone alike)."""
    kind: str
    """'shout', 'chatter', 'cough', 'laugh', 'clap', 'slap' or 'host'."""
    onset: float
    """Seconds: the true start of the sound."""
    text: str = ""
    voice: SynthVoice | None = None
    gaps: tuple[float, ...] = ()
    """Seconds of pause after each word but the last, when words are rendered one by one."""
    level_db: float = SHOUT_DB
    """Active RMS at the maker's own microphone, dBFS."""
    phrase: str | None = None
    """Canonical phrase id when ``text`` is what is said in another language ('cat' for '고양이')."""


@dataclass(frozen=True)
class Scenario:
    """A recording to render, with its truth."""

    name: str
    game: str
    """'bimbamm' or 'bimbambum'."""
    seats: tuple[SeatName, ...]
    sounds: tuple[Sound, ...]
    duration: float
    """Seconds."""
    noise: str = "pink"
    """'pink', 'babble' or 'quiet'."""
    snr_db: float = 30.0
    """Shout level over the room noise at each microphone, dB."""
    seed: int = 1
    lang: str = "en"
    multichannel: bool = False
    """Store one multichannel file instead of one file per seat."""
    leak_db: tuple[float, float] = (-25.0, -8.0)
    """Range of crosstalk gains, dB."""
    leak_ms: tuple[float, float] = (1.0, 8.0)
    """Range of crosstalk delays, ms."""
    mic_gain_db: float = 3.0
    """Microphone gains are drawn from ±this, dB."""
    note: str = ""


@dataclass
class Rendered:
    """Audio and manifest of a rendered scenario."""

    scenario: Scenario
    tracks: np.ndarray
    """float32 (frames, seats) at :data:`RATE`."""
    manifest: dict[str, object] = field(default_factory=dict)


class Renderer:
    """Renders scenarios, caching synthesised speech by (text, voice)."""

    def __init__(self) -> None:
        self._speech: dict[tuple[str, str], np.ndarray] = {}

    def speech(self, text: str, voice: SynthVoice) -> np.ndarray:
        """``text`` spoken by ``voice`` (cached), trimmed to its true start."""
        key = (text, voice.label)
        if key not in self._speech:
            self._speech[key] = synth.render_speech(text, voice, RATE)
        return self._speech[key]

    def clip(self, sound: Sound, rng: np.random.Generator) -> np.ndarray:
        """The clean sound, starting at its true onset, at its level."""
        if sound.kind in ("clap", "slap", "cough", "laugh"):
            maker: Callable[[int, np.random.Generator], np.ndarray] = getattr(synth, sound.kind)
            raw = maker(RATE, rng)
        elif sound.gaps:
            raw = self._words(sound.text.split(), sound.gaps, sound)
        else:
            assert sound.voice is not None, f"{sound.kind} needs a voice"
            raw = self.speech(sound.text, sound.voice)
        return set_active_level(raw, sound.level_db)

    def _words(self, words: list[str], gaps: Sequence[float], sound: Sound) -> np.ndarray:
        assert sound.voice is not None
        parts: list[np.ndarray] = []
        for i, word in enumerate(words):
            parts.append(audible(self.speech(word, sound.voice)))
            if i < len(words) - 1:
                parts.append(np.zeros(int(gaps[min(i, len(gaps) - 1)] * RATE), dtype=np.float32))
        return np.concatenate(parts)

    def render(self, scenario: Scenario) -> Rendered:
        """Mix the scenario into one track per seat and build its manifest."""
        rng = np.random.default_rng(scenario.seed)
        n, frames = len(scenario.seats), int(round(scenario.duration * RATE))
        index = {s: i for i, s in enumerate(scenario.seats)}
        leak_gain = rng.uniform(*scenario.leak_db, size=(n, n))
        leak_delay = rng.uniform(*scenario.leak_ms, size=(n, n)) / 1000
        reflect = rng.uniform(0.002, 0.007, size=(n, n))
        mic_gain = rng.uniform(-scenario.mic_gain_db, scenario.mic_gain_db, size=n)
        tracks = np.zeros((frames, n), dtype=np.float64)
        truth: list[dict[str, object]] = []
        for sound in scenario.sounds:
            sound = replace(sound, onset=round(sound.onset * RATE) / RATE)
            clip = self.clip(sound, rng)
            truth.append(_truth(sound, clip, scenario.game))
            if sound.seat is None:
                for j in range(n):
                    level = 10 ** (rng.uniform(-1.5, 1.5) / 20)
                    add_at(tracks[:, j], shift(clip * level, sound.onset + rng.uniform(0.002, 0.006)))
                continue
            i = index[sound.seat]
            add_at(tracks[:, i], shift(clip, sound.onset))
            for j in range(n):
                if j != i:
                    leak = soften(clip) * 10 ** (leak_gain[i, j] / 20)
                    add_at(tracks[:, j], shift(leak, sound.onset + leak_delay[i, j]))
                    add_at(tracks[:, j], shift(leak * 0.3, sound.onset + leak_delay[i, j] + reflect[i, j]))
        noise = room_noise(scenario, frames, rng)
        tracks = (tracks + noise) * 10 ** (mic_gain / 20)
        peak = float(np.max(np.abs(tracks)))
        if peak > 0.99:
            tracks *= 0.99 / peak
        return Rendered(
            scenario, tracks.astype(np.float32), _manifest(scenario, truth, leak_gain, leak_delay, mic_gain)
        )


def active_rms_db(samples: np.ndarray, rate: int = RATE) -> float:
    """RMS over the 10 ms frames within 30 dB of the loudest frame, dBFS."""
    env = synth.envelope_db(samples, rate, 0.010)
    if env.size == 0:
        return -120.0
    active = env[env >= env.max() - 30]
    return float(10 * np.log10(np.mean(10 ** (active / 10))))


def audible(clip: np.ndarray, floor_db: float = -30.0) -> np.ndarray:
    """Cut the quiet tail after the last millisecond within ``floor_db`` of the peak, so the
    pause between repeated words is the pause a listener hears."""
    env = synth.envelope_db(clip, RATE)
    if env.size == 0:
        return clip
    last = int(np.flatnonzero(env >= env.max() + floor_db)[-1]) + 1
    return clip[: last * (RATE // 1000)]


def set_active_level(samples: np.ndarray, level_db: float) -> np.ndarray:
    """Scale so the active RMS is ``level_db`` dBFS."""
    return (samples * 10 ** ((level_db - active_rms_db(samples)) / 20)).astype(np.float32)


def shift(clip: np.ndarray, seconds: float) -> tuple[int, np.ndarray]:
    """(start frame, clip): placed at the nearest sample (62.5 µs at 16 kHz). Whole-sample
    delays keep the clip's silence before its onset exactly silent (a fractional delay's ringing
    would put a faint pre-echo before the true onset)."""
    return int(round(seconds * RATE)), clip


def add_at(track: np.ndarray, placed: tuple[int, np.ndarray]) -> None:
    """Add a clip placed at a start frame, cutting what falls outside the track."""
    start, clip = placed
    if start < 0:
        start, clip = 0, clip[-start:]
    end = min(len(track), start + len(clip))
    if end > start:
        track[start:end] += clip[: end - start]


def soften(clip: np.ndarray) -> np.ndarray:
    """A little high-frequency loss, as a voice heard off-axis from across the table."""
    return np.convolve(clip, [0.25, 0.5, 0.25], mode="full")[1:-1].astype(np.float32) if len(clip) > 2 else clip


def room_noise(scenario: Scenario, frames: int, rng: np.random.Generator) -> np.ndarray:
    """Noise at every microphone: the room's (pink or babble) at the scenario's SNR plus an
    independent electrical floor."""
    n = len(scenario.seats)
    floor = np.stack(
        [synth.pink_noise(frames, rng) * 0.5 + rng.standard_normal(frames) * 0.5 for _ in range(n)], axis=1
    )
    noise = floor * 10 ** (FLOOR_DB / 20)
    level = 10 ** ((SHOUT_DB - scenario.snr_db) / 20)
    if scenario.noise == "pink":
        noise += np.stack([synth.pink_noise(frames, rng) for _ in range(n)], axis=1) * level
    elif scenario.noise == "babble":
        bed = babble(frames, rng, scenario.lang)
        for j in range(n):
            delay = int(rng.uniform(0, 0.005) * RATE)
            gain = 10 ** (rng.uniform(-2, 2) / 20)
            noise[delay:, j] += bed[: frames - delay] * gain * level * 0.9
            noise[:, j] += synth.pink_noise(frames, rng) * level * 0.3
    elif scenario.noise != "quiet":
        raise ValueError(f"unknown noise kind {scenario.noise!r}")
    return noise


_BABBLE_RENDERER = Renderer()


def babble(frames: int, rng: np.random.Generator, lang: str = "en", talkers: int = 6) -> np.ndarray:
    """Several voices talking at once (table talk from other tables), unit RMS."""
    voices = synth.voices_for(lang)
    bed = np.zeros(frames, dtype=np.float64)
    for k in range(talkers):
        voice = voices[k % len(voices)]
        voice = replace(voice, pitch=int(np.clip(voice.pitch + rng.integers(-15, 16), 0, 99)))
        pos = -int(rng.uniform(0, 1.0) * RATE)
        while pos < frames:
            text = str(rng.choice(CHATTER_SENTENCES))
            clip = set_active_level(_BABBLE_RENDERER.speech(text, voice), -20 + rng.uniform(-4, 4))
            add_at(bed, (pos, clip))
            pos += len(clip) + int(rng.uniform(0.1, 0.6) * RATE)
    return np.asarray(bed / (np.sqrt(np.mean(bed**2)) + 1e-12), dtype=np.float32)


def phrase_of(sound: Sound, game: str) -> str | None:
    """The phrase ``voicehost rank`` must report for ``sound`` in ``game``, or None."""
    if sound.kind in ("clap", "slap"):
        return "slap" if game.startswith("bimbambum") else None
    if sound.kind != "shout":
        return None
    return sound.phrase or " ".join(sound.text.lower().split())


def _truth(sound: Sound, clip: np.ndarray, game: str) -> dict[str, object]:
    return {
        "seat": sound.seat,
        "kind": sound.kind,
        "text": sound.text,
        "phrase": phrase_of(sound, game),
        "onset": round(sound.onset, 5),
        "end": round(sound.onset + len(clip) / RATE, 5),
        "voice": sound.voice.label if sound.voice else None,
    }


def _manifest(
    scenario: Scenario, truth: list[dict[str, object]], gain: np.ndarray, delay: np.ndarray, mic: np.ndarray
) -> dict[str, object]:
    expected = []
    for sound, t in zip(scenario.sounds, truth):
        phrase = phrase_of(sound, scenario.game)
        if phrase is not None and sound.seat is not None:
            expected.append({"player": sound.seat, "phrase": phrase, "onset": t["onset"], "end": t["end"]})
    expected.sort(key=lambda e: float(e["onset"]))  # type: ignore[arg-type]
    seats = scenario.seats
    return {
        "name": scenario.name,
        "game": scenario.game,
        "lang": scenario.lang,
        "seed": scenario.seed,
        "rate": RATE,
        "duration": scenario.duration,
        "seats": list(seats),
        "noise": {"kind": scenario.noise, "snr_db": scenario.snr_db},
        "note": scenario.note,
        "mic_gain_db": {s: round(float(mic[i]), 2) for i, s in enumerate(seats)},
        "crosstalk": [
            {
                "from": a,
                "to": b,
                "gain_db": round(float(gain[i, j]), 2),
                "delay_ms": round(float(delay[i, j]) * 1000, 3),
            }
            for i, a in enumerate(seats)
            for j, b in enumerate(seats)
            if i != j
        ],
        "sounds": truth,
        "expected": expected,
    }


def write(rendered: Rendered, folder: Path) -> Path:
    """Write the audio (16-bit WAV) and the manifest; return the manifest's path."""
    import soundfile

    scenario = rendered.scenario
    folder.mkdir(parents=True, exist_ok=True)
    manifest = dict(rendered.manifest)
    if scenario.multichannel:
        name = f"{scenario.name}.wav"
        soundfile.write(str(folder / name), rendered.tracks, RATE, subtype="PCM_16")
        manifest["multichannel"] = name
    else:
        files = {}
        for i, seat in enumerate(scenario.seats):
            name = f"{scenario.name}.{seat}.wav"
            soundfile.write(str(folder / name), rendered.tracks[:, i], RATE, subtype="PCM_16")
            files[seat] = name
        manifest["tracks"] = files
    path = folder / f"{scenario.name}.json"
    path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# --- scenario builders --------------------------------------------------------------------------

PLAYERS = ("Anna", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana")


def _voices(
    rng: np.random.Generator, n: int, lang: str = "en", pool: Sequence[SynthVoice] | None = None
) -> list[SynthVoice]:
    pool = list(pool or synth.voices_for(lang))
    order = rng.permutation(len(pool))
    return [pool[order[k % len(pool)]] for k in range(n)]


def race(
    name: str,
    rng: np.random.Generator,
    gaps_ms: Sequence[float],
    *,
    noise: str = "pink",
    snr_db: float = 30,
    seed: int = 1,
    phrases: Sequence[str] = BIMBAMM_PHRASES,
    chatter: bool = False,
    multichannel: bool = False,
    lang: str = "en",
    seats: int | None = None,
    voices: Sequence[SynthVoice] | None = None,
) -> Scenario:
    """Bim Bamm!: players shout (an animal) at onsets ``gaps_ms`` apart, in random seat order."""
    n = len(gaps_ms) + 1
    names = PLAYERS[: max(n, seats or n)]
    voices = _voices(rng, len(names), lang, voices)
    order = rng.permutation(n)
    t = float(rng.uniform(0.6, 1.0))
    sounds = []
    for k in range(n):
        if k:
            t += gaps_ms[k - 1] / 1000
        who = int(order[k])
        phrase = str(rng.choice(list(phrases)))
        said = spoken(phrase, lang)
        sounds.append(
            Sound(
                names[who],
                "shout",
                t,
                said,
                voices[who],
                level_db=SHOUT_DB + rng.uniform(-3, 3),
                phrase=phrase if said != phrase else None,
            )
        )
    end = t + 1.2
    if chatter:
        talker = int(rng.integers(len(names)))
        sounds.append(
            Sound(
                names[talker], "chatter", end, str(rng.choice(CHATTER_SENTENCES)), voices[talker], level_db=CHATTER_DB
            )
        )
        end += 2.0
    return Scenario(
        name, "bimbamm", tuple(names), tuple(sounds), round(end + 0.4, 3), noise, snr_db, seed, lang, multichannel
    )


def spoken(phrase: str, lang: str) -> str:
    """What a player says for canonical ``phrase`` in ``lang`` (the vocabulary pack's first form)."""
    if lang == "en":
        return phrase
    from voicehost.listen.vocab import load_pack

    return load_pack(lang).spoken_forms(phrase)[0]


def repeat_call(
    name: str,
    rng: np.random.Generator,
    phrase: str,
    pause: float,
    *,
    noise: str = "pink",
    snr_db: float = 25,
    seed: int = 1,
    players: int = 3,
) -> Scenario:
    """Bim Bam Bum!: one player calls a repeated word with pauses (one shout), then slaps."""
    names = PLAYERS[:players]
    voices = _voices(rng, players)
    words = phrase.split()
    t = float(rng.uniform(0.5, 0.8))
    sounds = [
        Sound(names[0], "shout", t, phrase, voices[0], gaps=tuple(pause + rng.uniform(-0.03, 0.03) for _ in words[1:]))
    ]
    return Scenario(
        name,
        "bimbambum",
        names,
        tuple(sounds),
        round(t + 0.5 * len(words) + pause * len(words) + 0.8, 3),
        noise,
        snr_db,
        seed,
    )


def slap_round(
    name: str,
    rng: np.random.Generator,
    gaps_ms: Sequence[float],
    *,
    noise: str = "pink",
    snr_db: float = 20,
    seed: int = 1,
    multichannel: bool = False,
) -> Scenario:
    """Bim Bam Bum!: the caller says 'bim bam bum', then everybody else slaps or claps."""
    n = len(gaps_ms) + 2
    names = PLAYERS[:n]
    voices = _voices(rng, n)
    t = float(rng.uniform(0.4, 0.7))
    sounds = [Sound(names[0], "shout", t, "bim bam bum", voices[0])]
    t += 1.2 + rng.uniform(0, 0.2)
    order = 1 + rng.permutation(n - 1)
    for k, who in enumerate(order):
        if k:
            t += gaps_ms[k - 1] / 1000
        sounds.append(
            Sound(names[int(who)], str(rng.choice(["slap", "clap"])), t, level_db=SHOUT_DB + rng.uniform(0, 6))
        )
    return Scenario(
        name, "bimbambum", names, tuple(sounds), round(t + 0.8, 3), noise, snr_db, seed, multichannel=multichannel
    )


def chatter_scene(
    name: str,
    rng: np.random.Generator,
    duration: float,
    *,
    game: str = "bimbamm",
    noise: str = "babble",
    snr_db: float = 20,
    seed: int = 1,
    players: int = 3,
    lang: str = "en",
) -> Scenario:
    """Table talk with no target phrase: sentences, confusable single words, coughs, laughter."""
    names = PLAYERS[:players]
    voices = _voices(rng, players, lang)
    sounds: list[Sound] = []
    t = float(rng.uniform(0.3, 0.6))
    while t < duration - 1.5:
        who = int(rng.integers(players))
        pick = rng.random()
        if pick < 0.45:
            sound = Sound(
                names[who],
                "chatter",
                t,
                str(rng.choice(CHATTER_SENTENCES)),
                voices[who],
                level_db=CHATTER_DB + rng.uniform(-3, 6),
            )
        elif pick < 0.75:
            sound = Sound(
                names[who],
                "chatter",
                t,
                str(rng.choice(CONFUSABLE_WORDS)),
                voices[who],
                level_db=SHOUT_DB + rng.uniform(-3, 3),
            )
        else:
            sound = Sound(names[who], str(rng.choice(["cough", "laugh"])), t, level_db=CHATTER_DB + rng.uniform(0, 6))
        sounds.append(sound)
        t += 1.6 + float(rng.uniform(0.0, 1.0))
    return Scenario(name, game, names, tuple(sounds), duration, noise, snr_db, seed, lang)


def host_scene(name: str, rng: np.random.Generator, *, seed: int = 1, players: int = 3) -> Scenario:
    """The host's voice from the table speaker (with target words in it) reaches every seat alike."""
    names = PLAYERS[:players]
    host = synth.SynthVoice(synth.TtsEngine.ESPEAK, "en-us", 50, 175)
    sounds = (
        Sound(None, "host", 0.4, "Anna said cat", host, level_db=-24),
        Sound(None, "host", 2.0, "dog", host, level_db=-22),
    )
    return Scenario(name, "bimbamm", names, sounds, 3.0, "pink", 30, seed)


def committed_set(seed: int = 1) -> list[Scenario]:
    """The small set kept in ``audio_fixtures/`` (a few MB), tests replay it."""
    rng = np.random.default_rng(seed)
    return [
        race("race2_quiet", rng, [30], noise="quiet", seed=seed + 1),
        race("race3_pink20", rng, [20, 50], noise="pink", snr_db=20, seed=seed + 2, multichannel=True),
        race("race4_babble20", rng, [10, 25, 100], noise="babble", snr_db=20, seed=seed + 3),
        race("race2_babble10", rng, [100], noise="babble", snr_db=10, seed=seed + 4),
        race("race2_close", rng, [4], noise="pink", snr_db=30, seed=seed + 5),
        race(
            "race2_ko",
            np.random.default_rng(seed + 105),
            [80],
            noise="pink",
            snr_db=30,
            seed=seed + 5,
            lang="ko",
            phrases=("dog", "pig"),
            voices=synth.KOREAN_VOICES[1:2],
        ),
        repeat_call("repeat_bam3", rng, "bam bam bam", 0.2, seed=seed + 6),
        repeat_call("repeat_bim2", rng, "bim bim", 0.12, seed=seed + 7, noise="babble", snr_db=25),
        slap_round("slaps_pink20", rng, [40, 90], seed=seed + 8, multichannel=True),
        chatter_scene("chatter_babble20", rng, 9.0, seed=seed + 9),
        chatter_scene("coughs_bimbambum", rng, 6.0, game="bimbambum", noise="pink", snr_db=25, seed=seed + 10),
        host_scene("host_voice", rng, seed=seed + 11),
    ]


def bench_set(seed: int, races: int = 60, chatter_minutes: float = 2.0) -> list[Scenario]:
    """A larger, differently seeded set: races over gaps 5-100 ms and SNRs 10-30 dB, chatter."""
    rng = np.random.default_rng(seed)
    out: list[Scenario] = []
    gaps = (5, 10, 20, 30, 50, 100)
    conditions = (("pink", 30), ("pink", 20), ("babble", 20), ("babble", 10), ("quiet", 40))
    for k in range(races):
        noise, snr = conditions[k % len(conditions)]
        players = 2 + k % 3
        race_gaps = [float(rng.choice(gaps)) for _ in range(players - 1)]
        out.append(
            race(f"bench_race{k:03d}_{noise}{snr}", rng, race_gaps, noise=noise, snr_db=snr, seed=seed * 1000 + k)
        )
    for k in range(max(1, int(chatter_minutes * 60 / 20))):
        noise, snr = conditions[k % 4]
        out.append(
            chatter_scene(
                f"bench_chatter{k:02d}_{noise}{snr}", rng, 20.0, noise=noise, snr_db=snr, seed=seed * 1000 + 500 + k
            )
        )
    return out


PILE_WORDS = ("one", "two", "three")
"""Bim Bam Bum!'s piles as players name them ("two bam bam": the yell for a card played on pile 2)."""


def solo(
    name: str,
    rng: np.random.Generator,
    *,
    noise: str = "pink",
    snr_db: float = 30,
    seed: int = 1,
    voices: Sequence[SynthVoice] | None = None,
    seats: int = 3,
) -> Scenario:
    """Bim Bamm!: one player shouts an animal alone (the others are quiet)."""
    return race(name, rng, [], noise=noise, snr_db=snr_db, seed=seed, voices=voices, seats=seats)


def turn_call(
    name: str,
    rng: np.random.Generator,
    *,
    noise: str = "pink",
    snr_db: float = 25,
    seed: int = 1,
    voices: Sequence[SynthVoice] | None = None,
    players: int = 3,
) -> Scenario:
    """Bim Bam Bum!: a player names a pile and yells ("two bam bam", "bum"), words with short pauses;
    the game is 'bimbambum_turn' (the host's phrase set of a turn: pile numbers with every yell)."""
    names = PLAYERS[:players]
    pool = _voices(rng, players, "en", voices)
    yell = str(rng.choice([c for c in BIMBAMBUM_CALLS if c != "bim bam bum"]))
    phrase = f"{rng.choice(PILE_WORDS)} {yell}" if rng.random() < 0.6 else yell
    pause = float(rng.uniform(0.08, 0.25))
    who = int(rng.integers(players))
    t = float(rng.uniform(0.5, 0.8))
    words = phrase.split()
    sounds = (
        Sound(
            names[who],
            "shout",
            t,
            phrase,
            pool[who],
            gaps=tuple(pause for _ in words[1:]),
            level_db=SHOUT_DB + rng.uniform(-3, 3),
        ),
    )
    return Scenario(
        name,
        "bimbambum_turn",
        names,
        sounds,
        round(t + 0.55 * len(words) + pause * len(words) + 0.8, 3),
        noise,
        snr_db,
        seed,
    )


HELDOUT_GAPS_MS = (5, 10, 20, 30, 50, 100)
"""Onset gaps (ms) between a held-out race's shouts and slaps."""
HELDOUT_CONDITIONS = (("pink", 30), ("pink", 20), ("quiet", 40), ("babble", 20), ("babble", 10))
"""Room noise and SNR (dB) of each held-out round."""


def heldout_set(seed: int, voices: Sequence[SynthVoice], rounds: int = 4) -> list[Scenario]:
    """The held-out listening set (README, "Listening: measured"): per round and condition, a solo
    shout, a race of 2-4 players, a Bim Bam Bum! call with pile number, a slap race after "bim bam
    bum", and 20 s of table talk; conditions pink 30/20 dB, quiet 40 dB, babble 20 dB, and babble
    10 dB (reported apart). ``voices`` should be voices no setting was chosen on."""
    rng = np.random.default_rng(seed)
    out: list[Scenario] = []
    k = 0
    for r in range(rounds):
        for noise, snr in HELDOUT_CONDITIONS:
            base = seed * 10000 + k * 10
            tag = f"{noise}{snr}_{r}"
            out.append(solo(f"ho_solo_{tag}", rng, noise=noise, snr_db=snr, seed=base + 1, voices=voices))
            players = 2 + k % 3
            out.append(
                race(
                    f"ho_race_{tag}",
                    rng,
                    [float(rng.choice(HELDOUT_GAPS_MS)) for _ in range(players - 1)],
                    noise=noise,
                    snr_db=snr,
                    seed=base + 2,
                    voices=voices,
                )
            )
            out.append(turn_call(f"ho_call_{tag}", rng, noise=noise, snr_db=snr, seed=base + 3, voices=voices))
            slap_gaps = [float(rng.choice(HELDOUT_GAPS_MS)) for _ in range(1 + k % 2)]
            out.append(_voiced_slaps(f"ho_slaps_{tag}", rng, noise, snr, base + 4, voices, slap_gaps))
            out.append(_voiced_chatter(f"ho_chatter_{tag}", rng, 20.0, noise, snr, base + 5, voices))
            k += 1
    return out


def reactions_set(seed: int, voices: Sequence[SynthVoice], rounds: int = 4) -> list[Scenario]:
    """Races with a reaction (README, "Hearing the shouts", item 31): per round and condition (as
    :func:`heldout_set`), a race of 2 or 3 players at a table of four, and a player who does not
    race says one of :data:`REACTIONS` 0.05-0.3 s after the first shout's onset, as loud as talk
    or as a shout. The reaction is table talk: any game word heard from it is a false alarm.
    Its own random stream (``seed`` + 7777): the other sets stay as they were."""
    rng = np.random.default_rng(seed + 7777)
    out: list[Scenario] = []
    k = 0
    for r in range(rounds):
        for noise, snr in HELDOUT_CONDITIONS:
            players = 2 + k % 2
            scenario = race(
                f"ho_react_{noise}{snr}_{r}",
                rng,
                [float(rng.choice(HELDOUT_GAPS_MS)) for _ in range(players - 1)],
                noise=noise,
                snr_db=snr,
                seed=seed * 10000 + 5000 + k,
                seats=4,
                voices=voices,
            )
            shouters = {s.seat for s in scenario.sounds}
            quiet = [seat for seat in scenario.seats if seat not in shouters]
            seat = quiet[int(rng.integers(len(quiet)))]
            pool = _voices(rng, 1, "en", voices)
            first = min(s.onset for s in scenario.sounds)
            reaction = Sound(
                seat,
                "chatter",
                first + float(rng.uniform(0.05, 0.3)),
                str(rng.choice(REACTIONS)),
                pool[0],
                level_db=float(rng.uniform(CHATTER_DB, SHOUT_DB)),
            )
            out.append(replace(scenario, sounds=(*scenario.sounds, reaction)))
            k += 1
    return out


def _voiced_slaps(
    name: str,
    rng: np.random.Generator,
    noise: str,
    snr: float,
    seed: int,
    voices: Sequence[SynthVoice],
    gaps_ms: Sequence[float],
) -> Scenario:
    scenario = slap_round(name, rng, gaps_ms, noise=noise, snr_db=snr, seed=seed)
    caller = scenario.sounds[0]
    pool = _voices(rng, 1, "en", voices)
    return replace(scenario, sounds=(replace(caller, voice=pool[0]), *scenario.sounds[1:]))


def _voiced_chatter(
    name: str,
    rng: np.random.Generator,
    duration: float,
    noise: str,
    snr: float,
    seed: int,
    voices: Sequence[SynthVoice],
) -> Scenario:
    scenario = chatter_scene(name, rng, duration, noise=noise, snr_db=snr, seed=seed)
    pool = _voices(rng, len(scenario.seats), "en", voices)
    index = {s: i for i, s in enumerate(scenario.seats)}
    sounds = tuple(
        replace(s, voice=pool[index[s.seat]]) if s.voice is not None and s.seat is not None else s
        for s in scenario.sounds
    )
    return replace(scenario, sounds=sounds)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: recreate the committed fixtures or write a benchmark set."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.listen_fixtures",
        description=(
            "Render synthetic table recordings (one track per player, crosstalk, room noise) with JSON truth files."
        ),
    )
    parser.add_argument(
        "--out", type=Path, default=Path("audio_fixtures"), help="folder to write into (default: audio_fixtures)"
    )
    parser.add_argument(
        "--set", choices=("committed", "bench"), default="committed", help="which set (default: committed)"
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="random seed (committed set: 1; use another for benchmarks)"
    )
    parser.add_argument("--races", type=int, default=60, help="bench set: number of races (default: 60)")
    parser.add_argument(
        "--chatter-minutes", type=float, default=2.0, help="bench set: minutes of table talk (default: 2)"
    )
    args = parser.parse_args(argv)
    scenarios = (
        committed_set(args.seed) if args.set == "committed" else bench_set(args.seed, args.races, args.chatter_minutes)
    )
    renderer = Renderer()
    for k, scenario in enumerate(scenarios, 1):
        path = write(renderer.render(scenario), args.out)
        print(f"[{k}/{len(scenarios)}] {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())


# --- reading fixtures back ----------------------------------------------------------------------


@dataclass(frozen=True)
class Fixture:
    """A rendered scenario read back from disk."""

    manifest: dict[str, object]
    path: Path
    """The manifest file."""

    @property
    def name(self) -> str:
        """Scenario name."""
        return str(self.manifest["name"])

    @property
    def seats(self) -> tuple[SeatName, ...]:
        """Seat names, in channel order."""
        return tuple(str(s) for s in self.manifest["seats"])  # type: ignore[attr-defined]

    @property
    def expected(self) -> list[dict[str, object]]:
        """Expected shouts, sorted by onset."""
        expected: list[dict[str, object]] = list(self.manifest["expected"])  # type: ignore[call-overload]
        return expected

    def audio_args(self) -> list[str]:
        """``voicehost rank`` arguments naming this fixture's audio."""
        folder = self.path.parent
        if "multichannel" in self.manifest:
            return ["--multichannel", str(folder / str(self.manifest["multichannel"])), "--seats", ",".join(self.seats)]
        tracks: dict[str, str] = self.manifest["tracks"]  # type: ignore[assignment]
        return [arg for seat in self.seats for arg in ("--track", f"{seat}={folder / tracks[seat]}")]

    def load(self, rate: int = RATE) -> "Recording":
        """The audio as a :class:`~voicehost.listen.sources.Recording`."""
        from voicehost.listen.sources import load_multichannel, load_tracks

        folder = self.path.parent
        if "multichannel" in self.manifest:
            return load_multichannel(folder / str(self.manifest["multichannel"]), self.seats, rate)
        tracks: dict[str, str] = self.manifest["tracks"]  # type: ignore[assignment]
        return load_tracks([(seat, folder / tracks[seat]) for seat in self.seats], rate)

    def sound_at(self, seat: SeatName, t: float, slack: float = 0.1) -> dict[str, object] | None:
        """The sound this seat was making at time ``t`` (within ``slack`` seconds), if any."""
        for sound in self.manifest["sounds"]:  # type: ignore[attr-defined]
            if sound["seat"] == seat and float(sound["onset"]) - slack <= t <= float(sound["end"]) + slack:
                return dict(sound)
        return None


def read_fixture(path: Path) -> Fixture:
    """Read a manifest written by :func:`write`."""
    return Fixture(json.loads(Path(path).read_text(encoding="utf-8")), Path(path))


def fixtures_in(folder: Path) -> list[Fixture]:
    """Every fixture in ``folder``, by name."""
    return [read_fixture(p) for p in sorted(Path(folder).glob("*.json"))]


@dataclass(frozen=True)
class Match:
    """How a list of shouts compares with a fixture's expected shouts."""

    pairs: tuple[tuple[dict[str, object], dict[str, object]], ...]
    """(expected, found) pairs: same player, onsets within the tolerance."""
    missed: tuple[dict[str, object], ...]
    extra: tuple[dict[str, object], ...]

    def onset_errors(self) -> list[float]:
        """found - expected onset, seconds, per pair."""
        return [float(f["onset"]) - float(e["onset"]) for e, f in self.pairs]  # type: ignore[arg-type]

    def phrases_right(self) -> int:
        """Pairs whose phrase is right."""
        return sum(1 for e, f in self.pairs if e["phrase"] == f["phrase"])


def match(found: Sequence[dict[str, object]], expected: Sequence[dict[str, object]], tolerance: float = 0.15) -> Match:
    """Pair found shouts (``Shout.to_json`` dicts) with expected ones: same player, closest onset."""
    left = list(found)
    pairs, missed = [], []
    for e in expected:
        near = [
            f for f in left if f["player"] == e["player"] and abs(float(f["onset"]) - float(e["onset"])) <= tolerance
        ]  # type: ignore[arg-type]
        if not near:
            missed.append(e)
            continue
        best = min(near, key=lambda f: abs(float(f["onset"]) - float(e["onset"])))  # type: ignore[arg-type]
        left.remove(best)
        pairs.append((e, best))
    return Match(tuple(pairs), tuple(missed), tuple(left))
