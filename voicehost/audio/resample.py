"""The one resampler for whole buffers: soxr, high quality, float32 in and out.

Streams that arrive block by block (live microphones, long files) use soxr's ``ResampleStream``
in their readers instead; this is for a buffer that is already whole (a recording read at once,
a rendered sentence, a click template).
"""

from __future__ import annotations

import numpy as np


def resample(samples: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    """``samples`` (frames,) or (frames, channels) from ``rate_in`` to ``rate_out`` Hz, as
    contiguous float32 (``samples`` itself when the rates match and it already is). soxr's HQ quality, computed
    in float32 whatever the input's type, so every caller gets the same numbers for the same sound."""
    data = np.ascontiguousarray(samples, dtype=np.float32)
    if rate_in == rate_out:
        return data
    import soxr

    return np.ascontiguousarray(soxr.resample(data, rate_in, rate_out, quality="HQ"), dtype=np.float32)
