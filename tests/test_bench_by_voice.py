"""bench/bench_listen.py's recall by voice: which synthetic voices the misses come from."""

from __future__ import annotations

from tests.conftest import ROOT, bench_listen
from tools.listen_fixtures import read_fixture


def test_each_shout_is_counted_for_the_voice_that_made_it() -> None:
    """A committed two-voice race replayed with the truth as recogniser: each voice's one shout is
    heard right; with nothing heard, each is counted and missed; the worst voice is listed first."""
    bench = bench_listen()
    fixture = read_fixture(ROOT / "audio_fixtures" / "race2_quiet.json")
    renamed = type(fixture)({**fixture.manifest, "name": "ho_race_quiet40_0"}, fixture.path)
    shouts, _ = bench.listen_timed(  # type: ignore[attr-defined]
        fixture.load(), bench.oracle(fixture), ("cat", "dog", "pig", "donkey", "hen")
    )
    voices: dict[str, list[int]] = {}
    bench.score_heldout(renamed, shouts, {}, (), None, voices)  # type: ignore[attr-defined]
    assert voices == {"flite:slt@p50,w175": [1, 1], "espeak:en+f2@p65,w180": [1, 1]}
    bench.score_heldout(renamed, [s for s in shouts if s[0].player == "Anna"], {}, (), None, voices)  # type: ignore[attr-defined]
    assert voices == {"flite:slt@p50,w175": [2, 1], "espeak:en+f2@p65,w180": [2, 2]}
    assert bench.by_voice(voices) == "flite:slt@p50,w175 1/2; espeak:en+f2@p65,w180 2/2"  # type: ignore[attr-defined]


def test_a_slap_and_a_sound_the_manifest_does_not_name() -> None:
    bench = bench_listen()
    fixture = read_fixture(ROOT / "audio_fixtures" / "race2_quiet.json")
    assert bench.voice_of(fixture, {"player": "Ben", "phrase": "slap", "onset": 0.93106}) == "slap"  # type: ignore[attr-defined]
    assert bench.voice_of(fixture, {"player": "Ben", "phrase": "pig", "onset": 0.5}) == "?"  # type: ignore[attr-defined]
    assert bench.voice_of(fixture, {"player": "Ben", "phrase": "pig", "onset": 0.93106}) == "flite:slt@p50,w175"  # type: ignore[attr-defined]
