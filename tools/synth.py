"""Synthetic players: speech from flite and espeak-ng, plus claps, slaps, coughs, laughter and room
noise, for test fixtures and benchmarks.

Every renderer returns float32 mono at the requested sample rate, trimmed so that sample 0 is the
true start of the sound (the first millisecond whose level comes within ``ONSET_DB`` of the clip's
peak). A fixture that places a clip at time t therefore knows its onset is exactly t.

The TTS engines run as subprocesses (the ``flite`` and ``espeak-ng`` programs), so any number of
voices can be used in one process and nothing is cached between calls. Randomised sounds take a
seeded :class:`numpy.random.Generator`; nothing here reads the clock or global random state.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import dataclass
from enum import Enum

import numpy as np

from voicehost.audio.resample import resample
from voicehost.errors import InputError, SpeechError

ONSET_DB = -35.0
"""A clip starts at the first millisecond whose RMS comes within this many dB of its peak RMS."""
END_DB = -45.0
"""A clip ends after the last millisecond whose RMS comes within this many dB of its peak RMS."""
DEFAULT_RATE = 16000
"""Hz: the recognisers' rate."""


class TtsEngine(Enum):
    """Which speech synthesiser renders a voice."""

    ESPEAK = "espeak"
    FLITE = "flite"
    FESTIVAL = "festival"


@dataclass(frozen=True)
class SynthVoice:
    """A synthetic speaker."""

    engine: TtsEngine
    name: str
    """espeak-ng voice with optional variant ('en-us+m3', 'en+f2', 'ko'), flite voice ('slt') or
    Festival voice ('kal_diphone')."""
    pitch: int = 50
    """espeak-ng base pitch 0..99 (ignored by flite and Festival)."""
    wpm: int = 175
    """Speaking rate, words per minute (flite and Festival: converted to a duration stretch)."""

    @property
    def label(self) -> str:
        """Short id for manifests, e.g. 'espeak:en-us+m3@p60,w190'."""
        return f"{self.engine.value}:{self.name}@p{self.pitch},w{self.wpm}"


ENGLISH_VOICES: tuple[SynthVoice, ...] = (
    SynthVoice(TtsEngine.FLITE, "slt", wpm=175),
    SynthVoice(TtsEngine.FLITE, "awb", wpm=165),
    SynthVoice(TtsEngine.FLITE, "rms", wpm=185),
    SynthVoice(TtsEngine.FLITE, "kal16", wpm=175),
    SynthVoice(TtsEngine.ESPEAK, "en-us+m3", pitch=45, wpm=170),
    SynthVoice(TtsEngine.ESPEAK, "en+f2", pitch=65, wpm=180),
    SynthVoice(TtsEngine.ESPEAK, "en-us+f4", pitch=70, wpm=190),
    SynthVoice(TtsEngine.ESPEAK, "en-gb-scotland+m1", pitch=35, wpm=160),
)
"""Distinct English voices (female and male, four flite and four espeak-ng variants)."""

HELDOUT_ENGLISH_VOICES: tuple[SynthVoice, ...] = (
    SynthVoice(TtsEngine.FESTIVAL, "kal_diphone", wpm=170),
    SynthVoice(TtsEngine.FESTIVAL, "ked_diphone", wpm=180),
    SynthVoice(TtsEngine.FESTIVAL, "cmu_us_slt_arctic_hts", wpm=175),
    SynthVoice(TtsEngine.FLITE, "kal", wpm=170),
    SynthVoice(TtsEngine.ESPEAK, "en-us+m1", pitch=40, wpm=175),
    SynthVoice(TtsEngine.ESPEAK, "en+f3", pitch=60, wpm=165),
    SynthVoice(TtsEngine.ESPEAK, "en-gb-x-rp+m7", pitch=50, wpm=185),
    SynthVoice(TtsEngine.ESPEAK, "en-029+f1", pitch=65, wpm=170),
)
"""English voices never used to choose a setting: a third engine (Festival), flite's 8 kHz voice and
espeak-ng variants and accents outside :data:`ENGLISH_VOICES` (benchmarks report on these)."""

KOREAN_VOICES: tuple[SynthVoice, ...] = (
    SynthVoice(TtsEngine.ESPEAK, "ko", pitch=50, wpm=160),
    SynthVoice(TtsEngine.ESPEAK, "ko+f2", pitch=70, wpm=170),
    SynthVoice(TtsEngine.ESPEAK, "ko+m3", pitch=40, wpm=150),
)
"""espeak-ng's Korean voice with variants (the only Korean TTS available offline here)."""


def voices_for(lang: str) -> tuple[SynthVoice, ...]:
    """The synthetic voices usable for language ``lang`` ('en' or 'ko')."""
    if lang == "en":
        return ENGLISH_VOICES
    if lang == "ko":
        return KOREAN_VOICES
    return (SynthVoice(TtsEngine.ESPEAK, lang),)


def render_speech(text: str, voice: SynthVoice, rate: int = DEFAULT_RATE) -> np.ndarray:
    """Speak ``text`` with ``voice``: float32 mono at ``rate`` Hz, trimmed to the true speech start
    and end, peak normalised to 0.5 (about -6 dBFS)."""
    if not text.strip():
        raise InputError("nothing to synthesise: the text is empty")
    raw, raw_rate = _run_tts(text, voice)
    samples = resample(raw, raw_rate, rate)
    return normalise(trim(samples, rate), 0.5)


def _run_tts(text: str, voice: SynthVoice) -> tuple[np.ndarray, int]:
    import soundfile

    if voice.engine is TtsEngine.FESTIVAL:
        return _run_festival(text, voice)
    if voice.engine is TtsEngine.ESPEAK:
        argv = ["espeak-ng", "-v", voice.name, "-s", str(voice.wpm), "-p", str(voice.pitch), "--stdout", text]
    else:
        stretch = 175.0 / max(voice.wpm, 1)
        argv = [
            "flite",
            "-voice",
            voice.name,
            "--setf",
            f"duration_stretch={stretch:.3f}",
            "-t",
            text,
            "-o",
            "/dev/stdout",
        ]
    program = argv[0]
    if shutil.which(program) is None:
        raise SpeechError(f"{program} is not installed; fix: sudo apt-get install {program}")
    try:
        done = subprocess.run(argv, capture_output=True, timeout=60, check=True)
        data, raw_rate = soundfile.read(io.BytesIO(done.stdout), dtype="float32", always_2d=False)
    except subprocess.CalledProcessError as error:
        message = error.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SpeechError(f"{program} failed for voice {voice.name!r}: {message[-1] if message else error}") from error
    except (subprocess.TimeoutExpired, RuntimeError) as error:
        raise SpeechError(f"{program} produced no usable audio for voice {voice.name!r}: {error}") from error
    if data.ndim == 2:
        data = data.mean(axis=1)
    if data.size == 0 or not np.any(np.abs(data) > 1e-4):
        raise SpeechError(f"{program} produced silence for {text[:40]!r} with voice {voice.name!r}")
    return data.astype(np.float32), int(raw_rate)


def _run_festival(text: str, voice: SynthVoice) -> tuple[np.ndarray, int]:
    """Festival's text2wave (it cannot write a usable WAV to a pipe, so through a temporary file)."""
    import soundfile
    import tempfile

    if shutil.which("text2wave") is None:
        raise SpeechError("festival is not installed; fix: sudo apt-get install festival festvox-kallpc16k")
    stretch = 175.0 / max(voice.wpm, 1)
    with tempfile.TemporaryDirectory(prefix="voicehost-festival-") as tmp:
        out = f"{tmp}/speech.wav"
        argv = [
            "text2wave",
            "-eval",
            f"(voice_{voice.name})",
            "-eval",
            f"(Parameter.set 'Duration_Stretch {stretch:.3f})",
            "-o",
            out,
        ]
        try:
            subprocess.run(argv, input=text.encode("utf-8"), capture_output=True, timeout=60, check=True)
            data, raw_rate = soundfile.read(out, dtype="float32", always_2d=False)
        except subprocess.CalledProcessError as error:
            message = error.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SpeechError(
                f"festival failed for voice {voice.name!r}: {message[-1] if message else error}"
            ) from error
        except (subprocess.TimeoutExpired, RuntimeError) as error:
            raise SpeechError(f"festival produced no usable audio for voice {voice.name!r}: {error}") from error
    if data.ndim == 2:
        data = data.mean(axis=1)
    if data.size == 0 or not np.any(np.abs(data) > 1e-4):
        raise SpeechError(f"festival produced silence for {text[:40]!r} with voice {voice.name!r}")
    return data.astype(np.float32), int(raw_rate)


def envelope_db(samples: np.ndarray, rate: int, frame: float = 0.001) -> np.ndarray:
    """RMS level per ``frame`` seconds, in dB (re full scale)."""
    n = max(1, int(round(rate * frame)))
    frames = len(samples) // n
    if frames == 0:
        return np.zeros(0, dtype=np.float64)
    blocks = samples[: frames * n].astype(np.float64).reshape(frames, n)
    return np.asarray(10.0 * np.log10(np.mean(blocks**2, axis=1) + 1e-20), dtype=np.float64)


def sound_bounds(samples: np.ndarray, rate: int) -> tuple[int, int]:
    """(first, last+1) sample of the sound per ``ONSET_DB``/``END_DB`` on a 1 ms envelope."""
    env = envelope_db(samples, rate)
    if env.size == 0:
        return 0, len(samples)
    n = max(1, int(round(rate * 0.001)))
    peak = float(env.max())
    start = int(np.flatnonzero(env >= peak + ONSET_DB)[0]) * n
    end = (int(np.flatnonzero(env >= peak + END_DB)[-1]) + 1) * n
    return start, min(end, len(samples))


def trim(samples: np.ndarray, rate: int) -> np.ndarray:
    """Cut everything before the true start and after the end of the sound."""
    start, end = sound_bounds(samples, rate)
    return np.ascontiguousarray(samples[start:end], dtype=np.float32)


def normalise(samples: np.ndarray, peak: float) -> np.ndarray:
    """Scale so the largest absolute sample is ``peak``."""
    top = float(np.max(np.abs(samples))) if samples.size else 0.0
    return samples if top == 0.0 else (samples * (peak / top)).astype(np.float32)


def pink_noise(frames: int, rng: np.random.Generator) -> np.ndarray:
    """Pink (1/f) noise with unit RMS, shaped in the frequency domain."""
    if frames <= 0:
        return np.zeros(0, dtype=np.float32)
    spectrum = np.fft.rfft(rng.standard_normal(frames))
    freqs = np.arange(spectrum.size, dtype=np.float64)
    freqs[0] = 1.0
    pink = np.fft.irfft(spectrum / np.sqrt(freqs), n=frames)
    return np.asarray(pink / (np.sqrt(np.mean(pink**2)) + 1e-12), dtype=np.float32)


def _decay(frames: int, rate: int, tau: float) -> np.ndarray:
    return np.exp(-np.arange(frames, dtype=np.float64) / (tau * rate))


def _resonate(noise: np.ndarray, rate: int, freq: float, bandwidth: float) -> np.ndarray:
    """A two-pole resonator (the body of a table or a cupped hand), as a plain recursion."""
    r = np.exp(-np.pi * bandwidth / rate)
    a1, a2 = -2.0 * r * np.cos(2 * np.pi * freq / rate), r * r
    out = np.zeros_like(noise)
    y1 = y2 = 0.0
    for i, x in enumerate(noise):
        y = x - a1 * y1 - a2 * y2
        out[i], y2, y1 = y, y1, y
    return out


def clap(rate: int, rng: np.random.Generator) -> np.ndarray:
    """A hand clap: a sharp broadband burst (sub-millisecond attack, about 10 ms decay) with a
    weaker echo a few milliseconds later, as the hands' cavity rings."""
    frames = int(0.12 * rate)
    noise = rng.standard_normal(frames)
    env = _decay(frames, rate, float(rng.uniform(0.006, 0.012)))
    env *= np.minimum(1.0, np.arange(frames) / (0.0005 * rate))
    k = int(rng.uniform(0.003, 0.008) * rate)
    env[k:] += float(rng.uniform(0.2, 0.45)) * _decay(frames - k, rate, 0.008)
    body = _resonate(noise * env, rate, float(rng.uniform(900, 1500)), 600.0)
    return normalise(trim((body + 0.5 * noise * env).astype(np.float32), rate), 0.7)


def slap(rate: int, rng: np.random.Generator) -> np.ndarray:
    """A slap on the table: a sharp broadband hit with a low wooden thump."""
    frames = int(0.2 * rate)
    noise = rng.standard_normal(frames)
    hit = noise * _decay(frames, rate, 0.006)
    thump = _resonate(noise * _decay(frames, rate, 0.03), rate, float(rng.uniform(120, 220)), 40.0)
    thump /= np.max(np.abs(thump)) + 1e-12
    return normalise(trim((hit + 0.8 * thump).astype(np.float32), rate), 0.8)


def cough(rate: int, rng: np.random.Generator) -> np.ndarray:
    """A cough: a burst of breathy, band-limited noise (0.25-0.4 s), one or two pulses."""
    length = float(rng.uniform(0.25, 0.4))
    frames = int(length * rate)
    t = np.arange(frames) / rate
    env = np.minimum(1.0, t / 0.015) * np.exp(-t / (length / 3))
    if rng.random() < 0.5:
        k = int(length * 0.45 * rate)
        env[k:] += 0.6 * np.minimum(1.0, t[: frames - k] / 0.01) * np.exp(-t[: frames - k] / 0.06)
    noise = _resonate(rng.standard_normal(frames), rate, float(rng.uniform(500, 900)), 900.0)
    noise += 0.3 * _resonate(rng.standard_normal(frames), rate, float(rng.uniform(1800, 2600)), 1200.0)
    return normalise(trim((noise * env).astype(np.float32), rate), 0.5)


def laugh(rate: int, rng: np.random.Generator) -> np.ndarray:
    """Laughter-like 'ha-ha-ha': breathy voiced pulses (4-6 syllables, about 5 per second)."""
    syllables = int(rng.integers(4, 7))
    period = float(rng.uniform(0.17, 0.23))
    f0 = float(rng.uniform(180, 300))
    frames = int((syllables * period + 0.1) * rate)
    t = np.arange(frames) / rate
    phase = 2 * np.pi * np.cumsum(f0 * (1 + 0.05 * np.sin(2 * np.pi * 3 * t))) / rate
    voiced = np.sign(np.sin(phase)) * 0.3 + rng.standard_normal(frames) * 0.7
    env = np.zeros(frames)
    for k in range(syllables):
        start = int(k * period * rate)
        n = int(period * 0.6 * rate)
        env[start : start + n] += np.hanning(n)[: max(0, min(n, frames - start))] * (1 - 0.1 * k)
    shaped = _resonate(voiced * env, rate, float(rng.uniform(700, 1000)), 300.0)
    return normalise(trim(shaped.astype(np.float32), rate), 0.4)
