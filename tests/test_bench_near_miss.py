"""bench/bench_listen.py's table-talk false alarms split into near-miss words and everything else."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import bench_listen
from tools.listen_fixtures import Fixture
from voicehost.listen.messages import Shout


def _talk() -> Fixture:
    """Anna says "dock" alone (a near-miss of "dog") and a sentence; Ben says "dug" and coughs."""
    sounds = [
        {"seat": "Anna", "kind": "chatter", "text": "dock", "onset": 1.0, "end": 1.3},
        {"seat": "Anna", "kind": "chatter", "text": "whose turn is it now", "onset": 3.0, "end": 4.0},
        {"seat": "Ben", "kind": "chatter", "text": "dug", "onset": 5.0, "end": 5.3},
        {"seat": "Ben", "kind": "cough", "text": None, "onset": 7.0, "end": 7.4},
    ]
    manifest = {
        "name": "ho_chatter_pink20_0",
        "noise": {"kind": "pink", "snr_db": 20},
        "duration": 60.0,
        "sounds": sounds,
        "expected": [],
    }
    return Fixture(manifest, Path("ho_chatter_pink20_0.json"))


def _shout(player: str, phrase: str, onset: float) -> tuple[Shout, float]:
    return Shout(player, phrase, onset, onset + 0.3), 0.5


def test_false_alarms_on_near_miss_words_are_counted_apart() -> None:
    """ "dock" taken for "dog" counts as a near miss; "hen" in the sentence and "pig" in the cough
    are everyday false alarms; "dug" not taken counts as said; a near-miss word on another seat's
    microphone is not its seat's."""
    bench = bench_listen()
    tallies: dict[tuple[str, str], object] = {}
    shouts = [
        _shout("Anna", "dog", 1.02),
        _shout("Anna", "hen", 3.4),
        _shout("Ben", "pig", 7.0),
        _shout("Cleo", "dog", 5.0),
    ]
    bench.score_heldout(_talk(), shouts, tallies)  # type: ignore[attr-defined]
    tally = tallies[("chatter", "SNR >= 10 dB")]
    got = (tally.false_alarms, tally.near_miss_said, tally.near_miss_taken)  # type: ignore[attr-defined]
    assert got == (4, 2, 1)
