"""An event's faint trailing bursts (the room's babble holding it open) are not the shout.

The onset stage keeps bursts up to 15 dB under an event's loudest; in 10 dB babble the other
tables' syllables after a shout are 5-15 dB under it and became part of the event: the recogniser
heard "dog" and the babble after it, and the bursts counted as words. The pipeline now gives the
recogniser the event as if it had ended with its last burst within ``faint_tail_db`` of its
loudest (README, "Hearing the shouts", item 25). The recogniser here is a stand-in: these tests
are of the pipeline above it.
"""

from __future__ import annotations

import numpy as np

from voicehost.listen.fake import FakeRecognizer
from voicehost.listen.messages import AcousticEvent, EventKind, Segment
from voicehost.listen.pipeline import ListenConfig, Listener, without_faint_tail
from voicehost.listen.sources import FileSource, Recording

RATE = 16000


def voiced(seconds: float, level_db: float, f0: float = 180.0) -> np.ndarray:
    """A vowel-like sound: harmonics of ``f0`` under a smooth envelope, at ``level_db`` RMS."""
    t = np.arange(int(seconds * RATE)) / RATE
    wave = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 12))
    shaped = wave * np.sin(np.pi * np.arange(len(t)) / len(t)) ** 0.5
    return np.asarray(shaped / np.sqrt(np.mean(shaped**2)) * 10 ** (level_db / 20), dtype=np.float32)


def shout_then_murmur(murmur_db: float) -> Recording:
    """A shout at -12 dBFS, then four short murmurs at ``murmur_db`` within the merge gap."""
    audio = (np.random.default_rng(3).standard_normal(3 * RATE) * 10 ** (-62 / 20)).astype(np.float32)

    def put(at: float, clip: np.ndarray) -> None:
        audio[int(at * RATE) : int(at * RATE) + len(clip)] += clip

    put(0.8, voiced(0.35, -12))
    for k in range(4):
        put(1.25 + 0.22 * k, voiced(0.12, murmur_db, 140 + 20 * k))
    return Recording(("Anna",), audio[:, None], RATE, ())


def hear(recording: Recording, config: ListenConfig) -> tuple[Listener, FakeRecognizer]:
    fake = FakeRecognizer(lambda segment: "dog")
    listener = Listener(recording.seats, fake, ("dog", "cat"), config=config)
    for block in FileSource(recording, 320).blocks():
        listener.feed(block)
    listener.flush()
    return listener, fake


def test_the_murmur_after_a_shout_is_neither_heard_nor_counted_as_words() -> None:
    recording = shout_then_murmur(-24.0)  # 12 dB under the shout: kept by the onset stage
    listener, fake = hear(recording, ListenConfig(early=False))
    (decision,) = listener.decisions
    assert len(decision.event.bursts) == 5 and decision.event.end > 2.0  # the event as heard
    assert decision.shout is not None and decision.shout.phrase == "dog"
    assert decision.shout.end == decision.event.end  # the reported shout keeps it
    ((segment, _),) = fake.calls
    assert len(segment.event.bursts) == 1 and abs(segment.event.end - 1.16) < 0.02  # the shout alone
    assert abs(len(segment.samples) / RATE - (segment.event.end - segment.start + 0.3)) < 0.001

    # as shipped (ListenConfig.early) the shout is judged once it has ended, while the murmur still
    # holds its event open: the same shout, reported as the sound that ended (item 30)
    early, fake = hear(recording, ListenConfig())
    (judged,) = early.decisions
    assert judged.shout is not None and judged.shout.phrase == "dog" and judged.shout.onset == decision.shout.onset
    assert len(judged.event.bursts) == 1 and abs(judged.shout.end - 1.16) < 0.02
    ((segment, _),) = fake.calls
    assert len(segment.event.bursts) == 1 and abs(segment.event.end - 1.16) < 0.02

    before, fake = hear(recording, ListenConfig(faint_tail_db=None))
    assert before.decisions[0].shout is None and before.decisions[0].reason == "too_many_bursts"
    assert fake.calls[0][0].event.end == decision.event.end


def test_words_said_alike_are_all_kept() -> None:
    recording = shout_then_murmur(-15.0)  # 3 dB under: a word said after the shout, not the room
    listener, fake = hear(recording, ListenConfig())
    ((segment, _),) = fake.calls
    assert segment.event == listener.decisions[0].event
    assert listener.decisions[0].reason == "too_many_bursts"


def test_only_a_faint_end_is_cut() -> None:
    audio = np.zeros(2 * RATE, dtype=np.float32)
    spans = ((0.3, 0.5), (0.6, 0.7), (0.8, 1.0), (1.1, 1.2))
    for (a, b), level in zip(spans, (-12.0, -30.0, -14.0, -30.0)):
        first, last = int(round(a * RATE)), int(round(b * RATE))
        audio[first:last] = voiced((last - first) / RATE, level)
    event = AcousticEvent("Anna", EventKind.VOICE, 0.3, 1.2, -12.0, bursts=spans)
    segment = Segment(event, audio, RATE, 0.0)
    cut = without_faint_tail(segment, 10.0, 0.3)
    assert cut.event.bursts == spans[:3] and cut.event.end == 1.0  # the faint middle burst stays
    assert len(cut.samples) == int(1.3 * RATE) and np.array_equal(cut.samples, audio[: len(cut.samples)])
    assert without_faint_tail(segment, 20.0, 0.3) is segment
    assert without_faint_tail(segment, None, 0.3) is segment
