"""A race's shout the recogniser rejected or was unsure of, taken as its best guess when another
seat's clear shout of the same expected animal agrees (``ListenConfig.agree``; README, "Hearing the
shouts", item 51). The pipeline's logic on committed races with a scripted recogniser (the code above
the recogniser), and the real recogniser's guess, score and lead on a committed race."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pytest

from tests.conftest import ROOT
from tools.listen_fixtures import BIMBAMM_PHRASES, Fixture, read_fixture
from voicehost.listen.messages import Recognition, Segment, Shout
from voicehost.listen.pipeline import ListenConfig, Listener
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer
from voicehost.listen.sources import FileSource

ANIMALS = ("cat", "dog", "pig", "donkey", "hen")
LIVE = ListenConfig(report_uncertain=True)
"""As a live host listens: a shout the recogniser is unsure of is asked back."""


@dataclass
class Scripted:
    """Answers each seat's shout from a script: a rejection with a guess, else the truth (accepted);
    a sound that is no shout: rejected without a guess."""

    fixture: Fixture
    rejected: dict[str, Recognition]
    """Seat → what the recogniser makes of its sound (the others: the truth, accepted)."""
    name: str = "scripted"

    def recognize(self, segment: Segment, phrases: Sequence[str], likely: Sequence[str] = ()) -> Recognition:
        seat = segment.event.seat
        sound = self.fixture.sound_at(seat, segment.event.onset)
        if sound is None or sound["kind"] != "shout":
            return Recognition(None, 0.0, engine=self.name, rejected_as="low_confidence")
        if seat in self.rejected:
            return self.rejected[seat]
        return Recognition(str(sound["phrase"]), 0.9, engine=self.name, score=2.0, lead=5.0)


def _low(guess: str, score: float = -4.0, lead: float = 3.0, why: str = "low_confidence") -> Recognition:
    return Recognition(
        None,
        0.0,
        engine="scripted",
        rejected_as=why,
        candidate=guess if why == "uncertain" else None,
        candidate_confidence=0.3,
        guess=guess,
        score=score,
        lead=lead,
    )


def _race(
    name: str,
    rejected: dict[str, Recognition],
    likely: Sequence[str],
    config: ListenConfig | None = None,
    racing: Sequence[str] = ANIMALS,
) -> list[list[Shout]]:
    """The shouts of each feed call that handed any out, in the order handed out."""
    fixture = read_fixture(ROOT / "audio_fixtures" / f"{name}.json")
    rec = fixture.load()
    listener = Listener(rec.seats, Scripted(fixture, rejected), BIMBAMM_PHRASES, config=config or LIVE)
    listener.set_phrases(BIMBAMM_PHRASES, likely, None, racing)
    batches = [listener.feed(block) for block in FileSource(rec, 320).blocks()]
    batches.append(listener.flush())
    return [b for b in batches if b]


def _heard(batches: list[list[Shout]]) -> list[tuple[str, str, bool]]:
    return [(s.player, s.phrase, s.uncertain) for b in batches for s in b]


def test_the_first_shouter_s_unclear_dog_is_taken_when_the_next_seat_clearly_shouts_dog() -> None:
    """race3_pink20: Cleo "dog", Ben "dog" 20 ms later, Anna "pig" (a mistake). Cleo's sound
    rejected with "dog" as the best guess 4 nats under the line: taken, and handed out first, no
    later than Ben's; with ``agree`` off Ben wins the race."""
    batches = _race("race3_pink20", {"Cleo": _low("dog")}, ["dog"])
    assert _heard(batches) == [("Cleo", "dog", False), ("Ben", "dog", False), ("Anna", "pig", False)]
    assert [s.player for s in batches[0]][:2] == ["Cleo", "Ben"]
    off = _race("race3_pink20", {"Cleo": _low("dog")}, ["dog"], replace(LIVE, agree=None))
    assert _heard(off) == [("Ben", "dog", False), ("Anna", "pig", False)]


def test_an_unsure_shout_is_taken_too_and_so_is_one_after_the_agreeing_shout() -> None:
    """race4_babble20: Dev "dog" (a mistake), then Ben, Anna and Cleo "pig". Ben's asked-back "pig"
    (uncertain) and Cleo's rejected one are both taken (Anna's clear "pig" agrees)."""
    rejected = {"Ben": _low("pig", -1.0, 2.0, "uncertain"), "Cleo": _low("pig", -7.5, 1.6)}
    batches = _race("race4_babble20", rejected, ["pig"])
    assert _heard(batches) == [
        ("Dev", "dog", False),
        ("Ben", "pig", False),
        ("Anna", "pig", False),
        ("Cleo", "pig", False),
    ]


@pytest.mark.parametrize(
    ("rejected", "likely", "why"),
    [
        (_low("dog", score=-8.5), ["dog"], "too far under the line"),
        (_low("dog", lead=1.0), ["dog"], "too close to the next phrase"),
        (_low("dog"), ["pig"], "not the race's animal (a mistake's)"),
        (replace(_low("dog"), guess=None, score=None, lead=None), ["dog"], "no guess"),
    ],
)
def test_no_agreement_without_a_close_clear_guess_of_the_expected_animal(
    rejected: Recognition, likely: list[str], why: str
) -> None:
    """The same race: Cleo's sound stays rejected when its guess is not taken."""
    heard = _heard(_race("race3_pink20", {"Cleo": rejected}, likely))
    assert heard == [("Ben", "dog", False), ("Anna", "pig", False)], why


def test_no_agreement_for_a_phrase_not_raced() -> None:
    """Only the phrases players race to shout agree (Bim Bam Bum!'s call is one player's: a
    second seat's unsure copy of it is that call's leak)."""
    rejected = {"Cleo": _low("dog")}
    assert _heard(_race("race3_pink20", rejected, ["dog"], racing=())) == [
        ("Ben", "dog", False),
        ("Anna", "pig", False),
    ]


def test_two_unsure_seats_do_not_agree_with_each_other() -> None:
    """Only a clear shout agrees: Cleo and Ben both unsure of "dog" stay asked back."""
    both = {"Cleo": _low("dog", -1.0, 3.0, "uncertain"), "Ben": _low("dog", -1.0, 3.0, "uncertain")}
    assert _heard(_race("race3_pink20", both, ["dog"])) == [
        ("Cleo", "dog", True),
        ("Ben", "dog", True),
        ("Anna", "pig", False),
    ]


def test_whisper_gives_its_guess_score_and_lead_for_a_shout_it_is_unsure_of(whisper: WhisperRecognizer) -> None:
    """Real decoding, race4_babble20 judged with the race's animal alone ("dog") and no
    corroboration: Cleo's "pig" is not taken (tests/test_race_corroboration.py); the recognition
    names "pig" as its guess, its fused score under the line and its lead over the next phrase;
    an accepted shout carries its score (>= 0) too."""
    fixture = read_fixture(ROOT / "audio_fixtures" / "race4_babble20.json")
    rec = fixture.load()
    listener = Listener(rec.seats, whisper, BIMBAMM_PHRASES, config=ListenConfig(corroborate=None))
    listener.set_phrases(BIMBAMM_PHRASES, likely=["dog"], racing=ANIMALS)
    for block in FileSource(rec, 4096).blocks():
        listener.feed(block)
    listener.flush()

    def heard(seat: str, onset: float) -> Recognition:
        near = [d for d in listener.decisions if d.event.seat == seat and abs(d.event.onset - onset) <= 0.1]
        assert len(near) == 1 and near[0].recognition is not None, (seat, listener.decisions)
        return near[0].recognition

    cleo, dev = heard("Cleo", 0.799), heard("Dev", 0.664)
    assert cleo.rejected_as in ("uncertain", "low_confidence") and cleo.guess == "pig"
    assert cleo.candidate == ("pig" if cleo.rejected_as == "uncertain" else None)
    assert cleo.score is not None and -8.0 <= cleo.score < 0.0
    assert cleo.lead is not None and cleo.lead > 0.0
    assert dev.phrase == "dog" and dev.score is not None and dev.score >= 0.0


def test_a_leak_follows_the_shouters_microphone_a_voice_of_its_own_does_not() -> None:
    """The coherence that keeps a leak from agreeing (``agree_coherence``; found on tuning seed 5:
    a solo "dog" leaking 16 dB down into a neighbour's microphone, its onset detected 32 ms late,
    rejected there with "dog" as its guess): Anna's "cat" leaking 16 dB down, 2 ms late with a
    reflection, into Ben's microphone follows Anna's at 0.8 or more; Ben shouting "dog" over that
    leak, under 0.5 (``agree_coherence`` 0.7)."""
    from tests.test_listen_crosstalk import Table
    from tests.test_listen_demix import clip
    from voicehost.listen.messages import AcousticEvent, AudioBlock, EventKind

    def coherence(ben_shouts: bool) -> float:
        table = Table(("Anna", "Ben"), 2.0, seed=3, noise_db=-55.0)
        table.shout("Anna", clip("00_cat.wav").astype("float32"), 0.5, {"Ben": (-16.0, 0.002)}, reflection=0.005)
        if ben_shouts:
            table.shout("Ben", clip("01_dog.wav").astype("float32"), 0.53, {"Anna": (-16.0, 0.002)})
        listener = Listener(("Anna", "Ben"), None, BIMBAMM_PHRASES)
        samples = np.stack([table.audio["Anna"], table.audio["Ben"]], axis=1)
        listener.feed(AudioBlock(samples, 0, 16000))
        ben = AcousticEvent("Ben", EventKind.VOICE, 0.532, 0.9, -20.0)
        return listener._coherence(ben, "Anna")

    assert coherence(ben_shouts=False) >= 0.8
    assert coherence(ben_shouts=True) < 0.5
