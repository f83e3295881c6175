"""voicehost: an offline, voice-driven host for Bim Bamm!, Bim Bam Bum! and BAM!."""

import os

# NumPy's OpenBLAS would run a second thread on our small matrix products (the Whisper decoder's)
# and spin it between them: on one 8-seat race that doubled the CPU time for the same wall time
# (0.81 -> 0.48 CPU s per s of audio with one thread, 2026-12-03, README "Hearing the shouts",
# item 16). The other core is for the helper recogniser and the speech. Set before NumPy is
# imported; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
