"""A picture of a race, so a disputed call can be looked at: one row per seat with its waveform,
every event the listener decided on (a shout, a leak of someone else's shout, rejected talk, a
cough), the onsets and the final ranking.

matplotlib is an optional extra (``pip install voicehost[plot]``) and is imported only here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from voicehost.errors import VoicehostError
from voicehost.listen.messages import Shout
from voicehost.listen.pipeline import Decision
from voicehost.listen.sources import Recording

COLOURS = {"shout": "#2e7d32", "leak": "#9e9e9e", "rejected": "#ef6c00"}


class PlotError(VoicehostError):
    """The picture cannot be drawn (matplotlib missing)."""


def plot_ranking(path: Path, recording: Recording, decisions: Sequence[Decision], shouts: Sequence[Shout]) -> Path:
    """Draw ``recording`` with the listener's decisions into ``path`` (PNG)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise PlotError(f"--plot needs matplotlib ({error}); fix: pip install 'voicehost[plot]'") from error
    seats = recording.seats
    fig, axes = plt.subplots(len(seats), 1, sharex=True, figsize=(12, 1.6 * len(seats) + 1.2), squeeze=False)
    t = np.arange(recording.samples.shape[0]) / recording.rate
    step = max(1, len(t) // 20000)
    order = {id(s): k for k, s in enumerate(shouts, 1)}
    for row, seat in enumerate(seats):
        ax = axes[row][0]
        ax.plot(t[::step], recording.samples[::step, row], color="#37474f", linewidth=0.5)
        ax.set_ylabel(seat, rotation=0, ha="right", va="center")
        ax.set_ylim(-1, 1)
        ax.set_yticks([])
        for decision in decisions:
            _draw_decision(ax, decision, seat, order)
    axes[-1][0].set_xlabel("seconds from t = 0")
    ranking = ", ".join(f"{k}. {s.player} {s.phrase} {s.onset:.3f}s" for k, s in enumerate(shouts, 1)) or "no shouts"
    fig.suptitle(ranking, fontsize=10)
    fig.tight_layout()
    fig.savefig(str(path), dpi=110)
    plt.close(fig)
    return path


def _draw_decision(ax, decision: Decision, seat: str, order: dict[int, int]) -> None:  # type: ignore[no-untyped-def]
    event = decision.event
    if event.seat == seat:
        kind = "shout" if decision.shout is not None else "rejected"
        ax.axvspan(event.onset, event.end, color=COLOURS[kind], alpha=0.25)
        ax.axvline(event.onset, color=COLOURS[kind], linewidth=1.2)
        label = decision.shout.phrase if decision.shout else f"({decision.reason})"
        rank = order.get(id(decision.shout)) if decision.shout else None
        ax.text(event.onset, 0.85, f"{rank}. {label}" if rank else label, fontsize=8, color=COLOURS[kind], va="top")
    elif seat in event.leaked_to:
        ax.axvspan(event.onset, event.end, color=COLOURS["leak"], alpha=0.15, hatch="//")
        ax.text(event.onset, -0.85, f"leak of {event.seat}", fontsize=7, color=COLOURS["leak"], va="bottom")
