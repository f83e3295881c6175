"""Ranking: turn recognised events into the shouts a game sees, in order of corrected onset.

Also the repetition rule: "bam bam bam" said with short pauses is one shout whose phrase counts
the syllable bursts the onset detector heard, when the recogniser's count disagrees and the
signal's count is an allowed phrase.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from voicehost.listen.messages import AcousticEvent, EventKind, Recognition, Shout

REPEATABLE = ("bim", "bam", "bum")
"""Words whose repetitions are distinct phrases in Bim Bam Bum!."""
MIN_WORD_BURST = 0.06
"""Seconds: a burst shorter than this is a click or a breath, not a repeated word."""


def ranked(shouts: Iterable[Shout]) -> list[Shout]:
    """Shouts sorted by onset (then by seat name, so equal onsets have a stable order)."""
    return sorted(shouts, key=lambda s: (s.onset, s.player))


def first(shouts: Iterable[Shout], phrases: Sequence[str] | None = None) -> Shout | None:
    """The earliest shout (of one of ``phrases``, if given), or None."""
    valid = [s for s in shouts if phrases is None or s.phrase in phrases]
    return ranked(valid)[0] if valid else None


def last(shouts: Iterable[Shout], phrase: str) -> Shout | None:
    """The latest shout of ``phrase`` (Bim Bam Bum!: the last one to slap)."""
    valid = [s for s in shouts if s.phrase == phrase]
    return ranked(valid)[-1] if valid else None


def counted_phrase(recognised: str, event: AcousticEvent, phrases: Sequence[str]) -> str:
    """The phrase with its repetitions counted from the event's bursts, when that is allowed.

    "bam bam" heard as three word-long bursts becomes "bam bam bam" if that phrase is allowed;
    anything else (mixed words, a count the game does not know, one burst: words run together
    need no pause) stays as recognised.
    """
    words = recognised.split()
    if not words or any(w != words[0] for w in words) or words[0] not in REPEATABLE:
        return recognised
    bursts = [b for b in event.bursts if b[1] - b[0] >= MIN_WORD_BURST]
    candidate = " ".join([words[0]] * len(bursts))
    return candidate if len(bursts) >= 2 and candidate in phrases else recognised


def shout_from(
    event: AcousticEvent, recognition: Recognition, phrases: Sequence[str], count_bursts: bool = True
) -> Shout | None:
    """The shout for an owned event and what was recognised in it; None if it is no target."""
    if recognition.phrase is None or recognition.phrase not in phrases:
        return None
    phrase = counted_phrase(recognition.phrase, event, phrases) if count_bursts else recognition.phrase
    return Shout(
        player=event.seat,
        phrase=phrase,
        onset=event.onset,
        end=event.end,
        confidence=min(1.0, max(0.0, recognition.confidence)),
        source="mic",
        kind=event.kind,
        level_db=round(event.level_db, 1),
        details={
            "engine": recognition.engine,
            "leaked_to": list(event.leaked_to),
            "recognised": recognition.phrase,
            "bursts": len(event.bursts),
        },
    )


def slap_shout(event: AcousticEvent) -> Shout:
    """A slap or clap: its phrase is "slap", its confidence how clearly impulsive it was."""
    return Shout(
        player=event.seat,
        phrase="slap",
        onset=event.onset,
        end=event.end,
        confidence=0.9,
        source="mic",
        kind=EventKind.SLAP,
        level_db=round(event.level_db, 1),
        details={"leaked_to": list(event.leaked_to)},
    )
