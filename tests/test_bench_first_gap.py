"""bench/bench_listen.py's first shouter at a first gap >= 20 ms (the issue's definition)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import bench_listen
from tools.listen_fixtures import Fixture
from voicehost.listen.messages import Shout


def _race(first_gap: float, second: str = "cat") -> Fixture:
    """Anna's "cat" at 0.9 s, Ben's ``second`` ``first_gap`` later, Cleo's "cat" at 1.1 s."""
    expected = [
        {"player": "Anna", "phrase": "cat", "onset": 0.9, "end": 1.2},
        {"player": "Ben", "phrase": second, "onset": 0.9 + first_gap, "end": 1.2 + first_gap},
        {"player": "Cleo", "phrase": "cat", "onset": 1.1, "end": 1.4},
    ]
    manifest = {"name": "ho_race_pink20_0", "noise": {"kind": "pink", "snr_db": 20}, "expected": expected}
    return Fixture(manifest, Path("ho_race_pink20_0.json"))


def _shouts(*heard: tuple[str, float] | tuple[str, str, float]) -> list[tuple[Shout, float]]:
    """(player, onset) shouts "cat"; (player, phrase, onset) shouts the phrase."""
    out = []
    for shout in heard:
        player, phrase, onset = shout if len(shout) == 3 else (shout[0], "cat", shout[1])
        out.append((Shout(str(player), str(phrase), float(onset), float(onset) + 0.3), 0.5))
    return out


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


def test_the_winner_is_the_first_shout_of_the_races_animal() -> None:
    """A mistaken shout of another animal reported before the true first one makes the first
    shouter wrong but not the winner the game awards; a later holder reported before the first one
    makes both wrong; the first holder not heard at all: no winner right."""
    bench = bench_listen()
    race = _race(0.03, second="dog")
    cases = [
        (_shouts(("Anna", "cat", 0.90), ("Ben", "dog", 0.93), ("Cleo", "cat", 1.1)), (1, 1)),
        (_shouts(("Ben", "dog", 0.91), ("Anna", "cat", 0.92), ("Cleo", "cat", 1.1)), (0, 1)),
        (_shouts(("Cleo", "cat", 0.91), ("Anna", "cat", 0.92), ("Ben", "dog", 0.93)), (0, 0)),
        (_shouts(("Ben", "dog", 0.93), ("Cleo", "cat", 1.1)), (0, 0)),
    ]
    for shouts, (first_right, winner_right) in cases:
        tallies: dict[tuple[str, str], object] = {}
        bench.score_heldout(race, shouts, tallies)  # type: ignore[attr-defined]
        tally = tallies[("race", "SNR >= 10 dB")]
        assert (tally.first_right, tally.winner_right) == (first_right, winner_right), shouts  # type: ignore[attr-defined]
