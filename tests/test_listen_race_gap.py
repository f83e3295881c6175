"""A shorter merge gap while players race to shout single words (``ListenConfig.race_gap``): the
race's shouts come out sooner, the same shouts; repeated yells keep the long gap; the audio a
judgement reads ends the gap after the cluster's last sound."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import ROOT
from tools.listen_fixtures import BIMBAMM_PHRASES, Fixture, read_fixture
from voicehost.listen.fake import FakeRecognizer
from voicehost.listen.messages import AudioBlock, Segment, Shout
from voicehost.listen.onset import OnsetConfig
from voicehost.listen.pipeline import ListenConfig, Listener
from voicehost.listen.sources import FileSource

FIXTURES = ROOT / "audio_fixtures"
LONG = OnsetConfig().merge_gap


def _truth(fixture: Fixture) -> FakeRecognizer:
    def answer(segment: Segment) -> str | None:
        sound = fixture.sound_at(segment.event.seat, segment.event.onset)
        return str(sound["phrase"]) if sound and sound["kind"] == "shout" else None

    return FakeRecognizer(answer)


def _out(listener: Listener, fixture: Fixture) -> list[tuple[Shout, float]]:
    """Each shout with the end of the 20 ms block it came out after."""
    rec = fixture.load()
    out: list[tuple[Shout, float]] = []
    for block in FileSource(rec, 320).blocks():
        now = (block.start_frame + len(block.samples)) / block.rate
        out += [(s, now) for s in listener.feed(block)]
    out += [(s, rec.duration) for s in listener.flush()]
    return out


@pytest.mark.parametrize("name", ["race2_quiet", "race4_babble20", "race3_pink20"])
def test_a_race_s_shouts_come_out_sooner_and_the_same(name: str) -> None:
    """Committed Bim Bamm! races, truth as recogniser: with the animals as racing phrases every
    shout is the same (player, phrase, onset, end) as with the long merge gap and out of the
    listener no later, never sooner than the gap after its end; the first (the race's winner) at
    least 0.1 s sooner (the gap is 0.15 s shorter; a later shout may wait for its cluster)."""
    fixture = read_fixture(FIXTURES / f"{name}.json")
    seats = fixture.load().seats
    ways = []
    for config in (ListenConfig(), ListenConfig(race_gap=None)):
        listener = Listener(seats, _truth(fixture), BIMBAMM_PHRASES, config=config)
        listener.set_phrases(BIMBAMM_PHRASES, (), None, BIMBAMM_PHRASES)
        ways.append(_out(listener, fixture))
    short, long = ways
    assert [s.to_json() for s, _ in short] == [s.to_json() for s, _ in long]
    assert len(short) >= 2
    for (shout, soon), (_, late) in zip(short, long):
        assert soon <= late, (shout, soon, late)
        assert soon - shout.end >= 0.2, (shout, soon)
    assert short[0][1] <= long[0][1] - 0.1


def test_the_gap_is_short_only_while_single_words_are_raced() -> None:
    """The detectors' merge gap follows the phrases: 0.2 s while animals are raced, the long gap
    again when the race is over, when a raced phrase has several words (a Bim Bam Bum! call) and
    with ``race_gap`` off."""
    listener = Listener(("Anna", "Ben"), None, BIMBAMM_PHRASES)

    def gaps() -> set[float]:
        return {d.config.merge_gap for d in listener._detectors.values()}

    assert gaps() == {LONG}
    listener.set_phrases(BIMBAMM_PHRASES, ("cat",), None, BIMBAMM_PHRASES)
    assert gaps() == {0.2}
    listener.set_phrases(BIMBAMM_PHRASES)
    assert gaps() == {LONG}
    listener.set_phrases(("bim bam bum", "slap"), (), None, ("bim bam bum",))
    assert gaps() == {LONG}
    off = Listener(("Anna",), None, BIMBAMM_PHRASES, config=replace(ListenConfig(), race_gap=None))
    off.set_phrases(BIMBAMM_PHRASES, (), None, BIMBAMM_PHRASES)
    assert {d.config.merge_gap for d in off._detectors.values()} == {LONG}


def test_a_judgement_reads_no_audio_beyond_its_horizon() -> None:
    """With a horizon set, the crosstalk stage's reads hold the seat's audio up to it (its
    latency offset counted) and zeros after it, however much more has arrived."""
    listener = Listener(("Anna", "Ben"), None, BIMBAMM_PHRASES, offsets={"Ben": 0.01})
    rng = np.random.default_rng(5)
    samples = (rng.standard_normal((16000, 2)) * 0.1).astype(np.float32)
    listener.feed(AudioBlock(samples, 0, 16000))
    audio = listener._audio
    whole = audio.read("Ben", 1000, 9000)
    audio.horizon = 0.4
    cut = audio.read("Ben", 1000, 9000)
    stop = int(round((0.4 + 0.01) * 16000)) - 1000
    assert np.array_equal(cut[:stop], whole[:stop])
    assert not np.any(cut[stop:]) and np.any(whole[stop:])
    assert np.array_equal(audio.read("Anna", 0, 3000), listener._detectors["Anna"].history.read(0, 3000))
