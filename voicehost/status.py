"""Exit statuses of the command line (after HTTPie's ``status.py``)."""

from enum import IntEnum


class ExitStatus(IntEnum):
    """What the process tells its caller."""

    OK = 0
    ERROR = 1
    USAGE = 2
    INTERRUPTED = 130
    """Ctrl-C (SIGINT)."""
    TERMINATED = 143
    """SIGTERM (128 + 15, as a shell reports a process ended by it)."""
