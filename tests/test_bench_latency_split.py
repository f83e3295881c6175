"""bench/bench_listen.py's verdict latency split: how much of it is the wait for the audio (the
shout's end to the end of the block it came out after) and how much is judging."""

from __future__ import annotations


from tests.conftest import ROOT, bench_listen
from tools.listen_fixtures import read_fixture
from voicehost.listen.onset import OnsetConfig


def test_each_shout_s_wait_for_the_audio_is_recorded_and_the_verdict_s_is_tallied() -> None:
    """A committed two-seat race replayed with the truth as recogniser (20 ms blocks): every shout
    has its wait, at least the detector's merge gap after its end and at most its latency (judging
    costs time), and the held-out tally keeps the decisive (first) shout's wait beside its latency."""
    bench = bench_listen()
    fixture = read_fixture(ROOT / "audio_fixtures" / "race2_quiet.json")
    recording = fixture.load()
    waited: dict[tuple[str, float], float] = {}
    shouts, _ = bench.listen_timed(  # type: ignore[attr-defined]
        recording,
        bench.oracle(fixture),
        ("cat", "dog", "pig", "donkey", "hen"),
        waited=waited,  # type: ignore[attr-defined]
    )
    assert len(shouts) == 2
    gap = OnsetConfig().merge_gap
    for shout, latency in shouts:
        wait = waited[(shout.player, round(shout.onset, 4))]
        assert gap <= wait < latency, (shout, wait, latency)
        assert wait < gap + 0.5  # a quiet room: the sound's tail is short
    renamed = type(fixture)({**fixture.manifest, "name": "ho_race_quiet40_0"}, fixture.path)
    tallies: dict[tuple[str, str], object] = {}
    bench.score_heldout(renamed, shouts, tallies, (), waited)  # type: ignore[attr-defined]
    tally = tallies[("race", "SNR >= 10 dB")]
    first = min(shouts, key=lambda p: p[0].onset)
    assert tally.verdicts == [first[1]]  # type: ignore[attr-defined]
    assert tally.waits == [waited[(first[0].player, round(first[0].onset, 4))]]  # type: ignore[attr-defined]
