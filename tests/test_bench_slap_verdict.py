"""bench/bench_listen.py's slap-race verdict: the last slap reported against the true last one."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import bench_listen
from tools.listen_fixtures import Fixture
from voicehost.listen.messages import Shout


def _fixture() -> Fixture:
    expected = [
        {"player": "Anna", "phrase": "bim bam bum", "onset": 0.5, "end": 1.3},
        {"player": "Ben", "phrase": "slap", "onset": 1.80, "end": 1.85},
        {"player": "Cleo", "phrase": "slap", "onset": 1.86, "end": 1.90},
    ]
    manifest = {"name": "ho_slaps_pink20_0", "noise": {"kind": "pink", "snr_db": 20}, "expected": expected}
    return Fixture(manifest, Path("ho_slaps_pink20_0.json"))


def _shouts(*heard: tuple[str, str, float]) -> list[tuple[Shout, float]]:
    return [(Shout(player, phrase, onset, onset + 0.05), 0.5) for player, phrase, onset in heard]


def test_the_last_slap_reported_is_checked_against_the_true_last_one() -> None:
    """Every slap heard and the last one right: counted right; the caller's leak reported as a slap
    after everyone's, or the last slap placed before the other one: counted wrong; a slap not
    heard: the race is not counted."""
    bench = bench_listen()
    cases = [
        (_shouts(("Anna", "bim bam bum", 0.5), ("Ben", "slap", 1.80), ("Cleo", "slap", 1.86)), (1, 1)),
        (
            _shouts(
                ("Anna", "bim bam bum", 0.5), ("Ben", "slap", 1.80), ("Cleo", "slap", 1.86), ("Anna", "slap", 1.87)
            ),
            (1, 0),
        ),
        (_shouts(("Anna", "bim bam bum", 0.5), ("Ben", "slap", 1.80), ("Cleo", "slap", 1.79)), (1, 0)),
        (_shouts(("Anna", "bim bam bum", 0.5), ("Ben", "slap", 1.80)), (0, 0)),
    ]
    for shouts, (races, right) in cases:
        tallies: dict[tuple[str, str], object] = {}
        bench.score_heldout(_fixture(), shouts, tallies)  # type: ignore[attr-defined]
        tally = tallies[("slaps", "SNR >= 10 dB")]
        assert (tally.slap_races, tally.last_slap_right) == (races, right), shouts  # type: ignore[attr-defined]
