"""Only the player whose turn it is is listened to for a Bim Bam Bum! yell alone (real decoding of
committed clips): the same clip said on the turn's seat is heard (the host asks which pile), on
another seat it is not reported; a whole play, a slap word or a command is heard from anyone."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.test_host_bimbambum import PLAYERS, deal
from voicehost.clock import SimClock
from voicehost.host.flows.bimbambum import BimBamBumFlow
from voicehost.host.session import Host, microphone_grammar, seat_grammar
from voicehost.listen.pipeline import ListenConfig, Listener
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer
from voicehost.listen.sources import FileSource, Recording

WORDS = Path(__file__).resolve().parent.parent / "audio_fixtures" / "words" / "en"


def two_seats(first: str, second: str, file: str) -> Recording:
    """The committed clip ``file`` said on ``first``'s microphone, then again on ``second``'s."""
    x, rate = soundfile.read(WORDS / file, dtype="float32")
    audio = np.zeros((2 * len(x) + 2 * rate, 2), np.float32)
    audio[rate // 2 : rate // 2 + len(x), 0] = x
    audio[rate + len(x) : rate + 2 * len(x), 1] = x
    audio += np.random.default_rng(1).normal(0, 1e-3, audio.shape).astype(np.float32)
    return Recording((first, second), audio, rate, ())


@pytest.mark.parametrize(
    ("file", "said", "from_others"),
    [
        ("08_bam.wav", "bam", False),
        ("09_bam-bam.wav", "bam bam", False),
        ("31_two-bam-bam.wav", "two bam bam", True),
        ("15_ship.wav", "ship", True),
        ("38_help.wav", "help", True),
    ],
)
def test_a_lone_yell_is_heard_from_the_turns_seat_only(
    whisper: WhisperRecognizer, file: str, said: str, from_others: bool
) -> None:
    flow = BimBamBumFlow(Host(clock=SimClock(), mouth=None, players=PLAYERS, rng=random.Random(1)), 1)  # type: ignore[arg-type]
    flow.state = deal(1)
    turn = flow.state.turn
    other = next(p for p in PLAYERS if p != turn)
    recording = two_seats(turn, other, file)
    listener = Listener(recording.seats, whisper, [], config=ListenConfig(report_uncertain=True))
    seats = {s: p for s, p in seat_grammar(flow, PLAYERS).items() if s in recording.seats}
    assert set(seats) == {turn, other} and "three" not in seats[turn] and "bam" in seats[turn]
    listener.set_phrases(microphone_grammar(flow), flow.likely(), seats)
    shouts = [s for b in FileSource(recording, 1024).blocks() for s in listener.feed(b)] + listener.flush()
    heard = [(s.player, s.phrase) for s in shouts]
    assert heard == ([(turn, said), (other, said)] if from_others else [(turn, said)])
