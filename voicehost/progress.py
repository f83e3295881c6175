"""Progress bars for long work on a terminal (tqdm), fed by ``(done, total)`` callbacks.

Only a terminal gets a bar: in a pipe or a log the callbacks are silent (the model downloader
prints a line per tenth there instead, :mod:`voicehost.models.progress`), so CI logs stay short.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

ProgressCallback = Callable[[float, float], None]
"""Called with (work done, work in total), in the bar's unit."""


def terminal_bar(label: str, unit: str = "it", stream: TextIO | None = None, **options: Any) -> ProgressCallback:
    """A callback drawing a tqdm bar on ``stream`` (stderr) if it is a terminal; closed when done reaches total."""
    out = stream if stream is not None else sys.stderr
    if not getattr(out, "isatty", lambda: False)():
        return lambda done, total: None
    from tqdm import tqdm

    bars: list[Any] = []  # made at the first report, when the total is known

    def update(done: float, total: float) -> None:
        if not bars:
            bars.append(tqdm(desc=label, total=total, unit=unit, file=out, leave=False, dynamic_ncols=True, **options))
        bar = bars[0]
        bar.total = total
        bar.update(min(done, total) - bar.n)
        if done >= total:
            bar.close()

    return update
