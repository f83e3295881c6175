"""Never a silent drop: a shout the recogniser is unsure of is asked back, and keeps its onset rank."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Callable

from tests.host_helpers import HeardInput
from voicehost.clock import SimClock
from voicehost.host.build import PlaySettings, build_offline
from voicehost.host.inputs import Input
from voicehost.host.session import CONFIRM_WINDOW, Session
from voicehost.host.words import Heard
from voicehost.rules import bimbamm as bb


def _race_setup() -> tuple[int, str, list[str], list[int]]:
    """A seed where two players hold the same animal, and two tiles that show it (to open a race)."""
    for seed in range(1, 300):
        state, _ = bb.new_game(["Anna", "Ben", "Cem"], random.Random(seed), seed, first_player="Anna")
        held = [h for h in state.hands if h is not None]
        shared = [a for a in set(held) if held.count(a) >= 2]
        if shared:
            animal = shared[0]
            holders = [p for p in state.players if state.hand(p) is animal]
            tiles = [i for i, t in enumerate(state.tiles) if t.black is animal][:2]
            return seed, animal.value, holders, tiles
    raise AssertionError("no seed with a shared animal")


def play_race(
    tmp_path: Path, log_name: str, source: Callable[[list[Heard], SimClock], Input]
) -> tuple[str, list[dict[str, object]], str]:
    """The game of :func:`_race_setup` (race window 2 s): Anna and Ben flip the two tiles of the
    shared animal (said at 1.0 and 4.0 s, each ending 0.5 s later), which opens a race; the input
    is ``source(flips, clock)``. Returns (transcript, events, the raced animal)."""
    seed, animal, holders, tiles = _race_setup()
    settings = PlaySettings(
        "bimbamm",
        ("Anna", "Ben", "Cem"),
        "script:/dev/null",
        seed,
        tmp_path / log_name,
        None,
        True,
        {"first_player": "Anna", "race_window": 2.0},
    )
    out = io.StringIO()
    built = build_offline(settings, stdout=out)
    clock = built.host.clock
    assert isinstance(clock, SimClock)
    flips = [
        Heard("Anna", f"flip {tiles[0] + 1}", 1.0, 1.5, 1.0, "script"),
        Heard("Ben", f"flip {tiles[1] + 1}", 4.0, 4.5, 1.0, "script"),
    ]
    try:
        Session(built.flow, source(flips, clock), built.host).run()
    finally:
        built.close()
    return out.getvalue(), [e.to_json() for e in built.host.events], animal


def _play(tmp_path: Path, shouts: list[Heard]) -> tuple[str, list[dict[str, object]], str]:
    return play_race(tmp_path, "game.jsonl", lambda flips, clock: HeardInput(flips + shouts, clock))


def _race_time(tmp_path: Path) -> tuple[float, str, list[str]]:
    """When the race of :func:`_race_setup` opens (a dry run with no shouts)."""
    transcript, events, animal = _play(tmp_path / "dry", [])
    opened = [e for e in events if e["type"] == "race_open"] or [e for e in events if e["type"] == "race"]
    assert events, transcript
    _, _, holders, _ = _race_setup()
    start = float(opened[0]["t"]) if opened else 9.0  # type: ignore[arg-type]
    return start, animal, holders


def test_an_uncertain_shout_is_asked_back_and_keeps_its_onset_rank(tmp_path: Path) -> None:
    """Ben's uncertain shout started first; he confirms after the race window would have closed: he scores."""
    (tmp_path / "dry").mkdir()
    start, animal, holders = _race_time(tmp_path)
    early, late = holders[1], holders[0]
    t = start + 0.3
    shouts = [
        Heard(early, animal, t, t + 0.4, 0.4, "mic", -20.0, uncertain=True),
        Heard(late, animal, t + 0.2, t + 0.6, 0.9, "mic", -20.0),
        Heard(early, "yes", t + 3.5, t + 3.8, 0.9, "mic", -20.0),
    ]
    transcript, events, _ = _play(tmp_path, shouts)
    assert f"{early}: {animal}?" in transcript
    points = [e for e in events if e["type"] == "point"]
    assert points and points[0]["player"] == early, transcript


def test_an_uncertain_shout_denied_does_not_count(tmp_path: Path) -> None:
    """ "no" drops the uncertain shout; the other holder's later shout wins."""
    (tmp_path / "dry").mkdir()
    start, animal, holders = _race_time(tmp_path)
    early, late = holders[1], holders[0]
    t = start + 0.3
    shouts = [
        Heard(early, animal, t, t + 0.4, 0.4, "mic", -20.0, uncertain=True),
        Heard(late, animal, t + 0.2, t + 0.6, 0.9, "mic", -20.0),
        Heard(early, "no", t + 2.0, t + 2.3, 0.9, "mic", -20.0),
    ]
    transcript, events, _ = _play(tmp_path, shouts)
    assert f"Sorry, {early}." in transcript
    points = [e for e in events if e["type"] == "point"]
    assert points and points[0]["player"] == late, transcript


def test_an_unanswered_question_is_said_to_lapse(tmp_path: Path) -> None:
    """Without an answer the host says the shout was not heard clearly, and the race goes on without it."""
    (tmp_path / "dry").mkdir()
    start, animal, holders = _race_time(tmp_path)
    early, late = holders[1], holders[0]
    t = start + 0.3
    shouts = [
        Heard(early, animal, t, t + 0.4, 0.4, "mic", -20.0, uncertain=True),
        Heard(late, animal, t + 0.2, t + 0.6, 0.9, "mic", -20.0),
    ]
    transcript, events, _ = _play(tmp_path, shouts)
    assert f"{early}, I did not hear {animal} clearly" in transcript
    points = [e for e in events if e["type"] == "point"]
    assert points and points[0]["player"] == late, transcript
    assert CONFIRM_WINDOW > 0
