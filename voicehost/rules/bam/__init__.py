"""BAM!: the judge game of red sentence cards and grey word cards (pure rules; see ``engine``)."""

from voicehost.rules.bam.engine import (
    Action,
    BadSetup,
    BamGame,
    BamState,
    CardFace,
    EndReason,
    Illegal,
    Judge,
    Phase,
    Quit,
    Submission,
    Submit,
    replay,
)

__all__ = ["Action", "BadSetup", "BamGame", "BamState", "CardFace", "EndReason", "Illegal", "Judge", "Phase",
           "Quit", "Submission", "Submit", "replay"]
