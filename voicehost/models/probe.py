"""Child process of ``voicehost models verify``: load one Vosk model, print what it cost as JSON.

Run as ``python -m voicehost.models.probe MODEL_DIR``. Exit status 1 with one line on stderr
when Vosk refuses the model.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def _peak_rss() -> int:
    """Peak resident memory of this process so far, bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv: list[str]) -> int:
    """Load the model at ``argv[0]``, decode 0.5 s of silence, print the numbers."""
    import vosk

    vosk.SetLogLevel(-1)
    baseline = _peak_rss()
    start = time.perf_counter()
    try:
        model = vosk.Model(argv[0])
    except Exception as error:  # vosk raises a bare Exception("Failed to create a model")
        print(f"{error}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    recognizer = vosk.KaldiRecognizer(model, 16000.0)
    recognizer.AcceptWaveform(bytes(16000))
    json.loads(recognizer.FinalResult())
    print(json.dumps({"load_seconds": seconds, "peak_rss": _peak_rss(), "baseline_rss": baseline}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
