"""bench/bench_listen.py's first shouter at a first gap >= 20 ms (the issue's definition)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import bench_listen
from tools.listen_fixtures import Fixture
from voicehost.listen.messages import Shout


def _race(first_gap: float) -> Fixture:
    expected = [
        {"player": "Anna", "phrase": "cat", "onset": 0.9, "end": 1.2},
        {"player": "Ben", "phrase": "cat", "onset": 0.9 + first_gap, "end": 1.2 + first_gap},
        {"player": "Cleo", "phrase": "cat", "onset": 1.1, "end": 1.4},
    ]
    manifest = {"name": "ho_race_pink20_0", "noise": {"kind": "pink", "snr_db": 20}, "expected": expected}
    return Fixture(manifest, Path("ho_race_pink20_0.json"))


def _shouts(*heard: tuple[str, float]) -> list[tuple[Shout, float]]:
    return [(Shout(player, "cat", onset, onset + 0.3), 0.5) for player, onset in heard]


def test_only_races_whose_first_two_shouts_are_20_ms_apart_count() -> None:
    """A race whose first two shouters are 25 ms apart counts (right when the first is reported
    first, wrong when the second is); one 10 ms apart is left out of it (but still counts among all
    races); the gap between the second and third shouter does not matter."""
    bench = bench_listen()
    cases = [
        (0.025, _shouts(("Anna", 0.9), ("Ben", 0.925), ("Cleo", 1.1)), (1, 1, 1)),
        (0.025, _shouts(("Ben", 0.92), ("Anna", 0.93), ("Cleo", 1.1)), (1, 0, 0)),
        (0.010, _shouts(("Ben", 0.90), ("Anna", 0.91), ("Cleo", 1.1)), (0, 0, 0)),
        (0.010, _shouts(("Anna", 0.9), ("Ben", 0.91), ("Cleo", 1.1)), (0, 0, 1)),
    ]
    for gap, shouts, (races, right, first_right) in cases:
        tallies: dict[tuple[str, str], object] = {}
        bench.score_heldout(_race(gap), shouts, tallies)  # type: ignore[attr-defined]
        tally = tallies[("race", "SNR >= 10 dB")]
        got = (tally.gap_races, tally.gap_first_right, tally.first_right)  # type: ignore[attr-defined]
        assert got == (races, right, first_right), (gap, shouts)
