"""A race's later shouts judged with every racing phrase as likely (real decoding of a committed
race): a sound that starts just after another seat's own voice sound is a racing shout more likely
than not (``ListenConfig.corroborate``; README, "Hearing the shouts", item 31)."""

from __future__ import annotations

from tests.conftest import ROOT
from tools.listen_fixtures import BIMBAMM_PHRASES, read_fixture
from voicehost.listen.messages import Shout
from voicehost.listen.pipeline import ListenConfig, Listener
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer
from voicehost.listen.sources import FileSource

ANIMALS = ("cat", "dog", "pig", "donkey", "hen")


def _race(whisper: WhisperRecognizer, corroborate: float | None) -> list[Shout]:
    fixture = read_fixture(ROOT / "audio_fixtures" / "race4_babble20.json")
    rec = fixture.load()
    listener = Listener(rec.seats, whisper, BIMBAMM_PHRASES, config=ListenConfig(corroborate=corroborate))
    listener.set_phrases(BIMBAMM_PHRASES, likely=["dog"], racing=ANIMALS)  # Dev's dog won the race
    return [s for b in FileSource(rec, 4096).blocks() for s in listener.feed(b)] + listener.flush()


def test_a_shout_just_after_the_winners_is_heard_with_the_race_as_its_context(whisper: WhisperRecognizer) -> None:
    """race4_babble20 (Dev "dog", then Ben, Anna and Cleo "pig" 10-135 ms later, 20 dB babble): with
    the race's animals likely for the shouts after Dev's, Cleo's "pig" is heard outright; judged
    with the race's animal alone ("dog") it is only asked back (its fused score about 1 nat under
    the line, 7 under with the race). The first shout is judged the same either way."""
    raced = _race(whisper, ListenConfig().corroborate)
    alone = _race(whisper, None)
    heard = {(s.player, s.phrase) for s in raced if not s.uncertain}
    assert {("Dev", "dog"), ("Ben", "pig"), ("Cleo", "pig")} <= heard
    assert not any(s.player == "Cleo" and s.phrase == "pig" and not s.uncertain for s in alone)
    assert [(s.player, s.phrase, s.onset) for s in raced if s.player == "Dev"] == [
        (s.player, s.phrase, s.onset) for s in alone if s.player == "Dev"
    ]
