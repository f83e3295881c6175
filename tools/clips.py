"""Synthetic word clips for recogniser fixtures, tuning and benchmarks.

A clip is one phrase spoken by a synthetic voice inside a realistic noise floor (pink noise, never
digital silence: PocketSphinx does much worse on zero-padded audio), shaped like the segments the
onset stage hands to the recogniser: a little audio before the onset and after the end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from voicehost.listen.messages import AcousticEvent, EventKind, Segment
from tools.synth import SynthVoice, pink_noise, render_speech

RATE = 16000
"""Hz."""


@dataclass(frozen=True)
class Clip:
    """One rendered phrase with its truth."""

    text: str
    """What the voice says (spoken form, in the clip's language)."""
    truth: str | None
    """Canonical phrase id when the clip is a target, None for chatter."""
    voice: str
    """Voice label (engine, name, pitch, rate)."""
    samples: np.ndarray
    """float32 mono at :data:`RATE`."""
    onset: float
    """Seconds from the clip start to the first speech sample."""
    end: float
    """Seconds from the clip start to the last speech sample."""

    def segment(self, seat: str = "seat") -> Segment:
        """The clip as the onset stage would deliver it (no bursts: the recogniser measures them)."""
        event = AcousticEvent(seat, EventKind.VOICE, self.onset, self.end, -6.0)
        return Segment(event, self.samples, RATE, 0.0)


def vary(voice: SynthVoice, rng: np.random.Generator) -> SynthVoice:
    """The same voice with its pitch and speaking rate jittered (a different speaker of the kind)."""
    pitch = int(np.clip(voice.pitch + rng.integers(-12, 13), 0, 99))
    wpm = int(np.clip(voice.wpm + rng.integers(-25, 26), 110, 240))
    return replace(voice, pitch=pitch, wpm=wpm)


def render_clip(
    text: str,
    truth: str | None,
    voice: SynthVoice,
    rng: np.random.Generator,
    snr_db: float = 30.0,
    lead: float = 0.25,
    tail: float = 0.3,
    noise_kind: str = "pink",
) -> Clip:
    """Speak ``text`` with ``voice`` in noise ``snr_db`` dB below the speech's RMS level: pink noise,
    or ``noise_kind='babble'`` (other tables talking, tools.listen_fixtures.babble)."""
    speech = render_speech(text, voice, RATE)
    start = int((lead + rng.uniform(-0.05, 0.05)) * RATE)
    total = start + len(speech) + int(tail * RATE)
    level = float(np.sqrt(np.mean(speech.astype(np.float64) ** 2)) + 1e-9)
    if noise_kind == "babble":
        from tools.listen_fixtures import babble

        noise = babble(total, rng).astype(np.float64)
    else:
        noise = pink_noise(total, rng).astype(np.float64)
    noise *= level * 10 ** (-snr_db / 20) / (float(np.sqrt(np.mean(noise**2))) + 1e-12)
    mix = noise.astype(np.float32)
    mix[start : start + len(speech)] += speech
    return Clip(text, truth, voice.label, mix, start / RATE, (start + len(speech)) / RATE)


PLAYERS = ("anna", "ben", "cleo", "dev")
"""Player names in the host phrase sets (all in CMUdict)."""
NUMBERS = (
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
)
"""Number words the hosts accept (tiles 1-15, cards, piles)."""
COMMAND_WORDS = (
    "repeat",
    "say again",
    "score",
    "help",
    "what can i say",
    "slower",
    "faster",
    "pause",
    "resume",
    "quit",
    "stop the game",
    "tiles",
    "table",
    "my card",
    "my hand",
)
"""The voice commands every game accepts (voicehost.host.words.COMMAND_PHRASES)."""


def command_sets() -> dict[str, tuple[str, ...]]:
    """Phrase sets like the ones the game hosts listen for (voicehost/host/flows/*.phrases()): the
    recogniser must handle multi-word phrases with numbers and player names as well as single shouts."""
    eight = NUMBERS[:8]
    four = NUMBERS[:4]
    yells = [" ".join([w] * n) for w in ("bim", "bam", "bum") for n in (1, 2, 3)] + ["bim bam bum"]
    return {
        "BAM! playing": (
            *eight,
            *(f"{a} then {b}" for a in eight for b in eight if a != b),
            "then",
            "best",
            "worst",
            *COMMAND_WORDS,
        ),
        "BAM! judging": (
            *(f"best {a} worst {b}" for a in four for b in four if a != b),
            *(f"best {a}" for a in four),
            *(f"worst {a}" for a in four),
            *(f"read {a}" for a in four),
            *four,
            "best",
            "worst",
            *COMMAND_WORDS,
        ),
        "Bim Bamm! turn": (
            "cat",
            "dog",
            "pig",
            "donkey",
            "hen",
            *NUMBERS,
            *(f"flip {n}" for n in NUMBERS),
            "swap",
            "exchange",
            *(f"exchange with {p}" for p in PLAYERS),
        ),
        "Bim Bam Bum! turn": (
            *(f"{pile} {y}" for pile in NUMBERS[:3] for y in yells),
            *NUMBERS[:3],
            *yells,
            "ship",
            *COMMAND_WORDS,
        ),
    }
