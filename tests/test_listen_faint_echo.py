"""The last guard against leaks: a far fainter sound during another seat's shout is not a shout."""

from __future__ import annotations

from voicehost.listen.messages import EventKind, Shout
from voicehost.listen.pipeline import Listener


def _shout(player: str, onset: float, end: float, level: float, phrase: str = "two bum bum") -> Shout:
    return Shout(player, phrase, onset, end, 0.9, kind=EventKind.VOICE, level_db=level)


def test_a_shout_far_fainter_during_a_neighbours_shout_is_dropped() -> None:
    """-45 dB on Ben's microphone while Cem shouts at -11 dB is Cem's leak, whatever it sounded like."""
    listener = Listener(("Ben", "Cem"), None, [])
    cem = _shout("Cem", 34.58, 35.25, -11.4)
    ben = _shout("Ben", 34.60, 35.26, -45.2, "bam bam")
    assert listener._drop_faint_echoes([cem, ben]) == [cem]


def test_two_real_shouts_at_once_are_both_kept() -> None:
    """Two players shouting together are both close-talk loud on their own microphones: both stay."""
    listener = Listener(("Anna", "Ben"), None, [])
    anna = _shout("Anna", 10.00, 10.40, -14.0, "pig")
    ben = _shout("Ben", 10.02, 10.45, -19.0, "pig")
    assert listener._drop_faint_echoes([anna, ben]) == [anna, ben]


def test_a_faint_sound_after_the_loud_one_ended_is_kept() -> None:
    """The guard only covers the loud shout's own time: a quiet line said later stays."""
    listener = Listener(("Anna", "Ben"), None, [])
    anna = _shout("Anna", 10.00, 10.40, -10.0, "pig")
    ben = _shout("Ben", 10.60, 10.90, -35.0, "pig")
    assert listener._drop_faint_echoes([anna, ben]) == [anna, ben]


def test_a_faint_echo_of_a_rejected_sound_is_dropped_too() -> None:
    """Cem's loud line was not a target (rejected); its faint leak on Ben's microphone must not become Ben's shout."""
    from voicehost.listen.messages import AcousticEvent

    listener = Listener(("Ben", "Cem"), None, [])
    cem_sound = AcousticEvent("Cem", EventKind.VOICE, 55.06, 55.29, -12.1)
    ben = _shout("Ben", 55.06, 55.35, -49.1, "ten")
    assert listener._drop_faint_echoes([ben], [cem_sound]) == []
