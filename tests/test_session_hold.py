"""A timer that came due waits while the microphones' listener still judges a sound that began
before it (at most HOLD_MAX): a shout whose voice began inside a Bim Bamm! race belongs to the
race, though the listener reports it after the race window's end (README item 36)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_host_uncertain import _race_setup, play_race
from voicehost.clock import SimClock
from voicehost.host.session import HOLD_MAX, Session
from voicehost.host.words import Heard


class ReportedInput:
    """Heard items delivered at given times on a simulated clock (no ``judging``: a typed or
    scripted input, or microphones as the session saw them before item 36)."""

    def __init__(self, items: list[tuple[Heard, float]], clock: SimClock, *, tail: float = 12.0) -> None:
        self._items = sorted(items, key=lambda x: x[1])
        self._clock = clock
        self._end = max((at for _, at in self._items), default=0.0) + tail

    def next(self, deadline: float | None) -> list[Heard] | None:
        now = self._clock.now()
        if not self._items:
            if deadline is None or deadline > self._end:
                return None
            self._clock.advance_to(max(deadline, now))
            return []
        at = self._items[0][1]
        if deadline is not None and at > deadline:
            self._clock.advance_to(max(deadline, now))
            return []
        self._clock.advance_to(max(at, now))
        return [self._items.pop(0)[0]]

    def close(self) -> None:
        pass


class JudgedInput(ReportedInput):
    """The same, with the listener's ``judging``: a sound is judged from its onset until it is
    reported (the items) or dropped (``sounds``: (onset, decided at), no shout)."""

    def __init__(
        self,
        items: list[tuple[Heard, float]],
        clock: SimClock,
        *,
        sounds: tuple[tuple[float, float], ...] = (),
    ) -> None:
        super().__init__(items, clock)
        self._sounds = [(h.onset, at) for h, at in items] + list(sounds)
        self.asked: list[float] = []

    def judging(self, before: float) -> bool:
        self.asked.append(before)
        now = self._clock.now()
        return any(onset < before and at > now for onset, at in self._sounds)


def _play(
    tmp_path: Path, shouts: list[tuple[Heard, float]], *, judged: bool, sounds: tuple[tuple[float, float], ...] = ()
) -> tuple[list[dict[str, object]], str]:
    """The race of test_host_uncertain.play_race, each flip heard at its end, ``shouts`` at their times."""

    def source(flips: list[Heard], clock: SimClock) -> ReportedInput:
        items = [(flip, flip.end) for flip in flips] + shouts
        return JudgedInput(items, clock, sounds=sounds) if judged else ReportedInput(items, clock)

    transcript, events, _ = play_race(tmp_path, f"game-{judged}.jsonl", source)
    return events, transcript


def _race_end(tmp_path: Path) -> float:
    """When the race of _race_setup closes with nobody shouting (its timer's deadline)."""
    events, _ = _play(tmp_path, [], judged=False)
    race = next(i for i, e in enumerate(events) if e["type"] == "race")
    return float(events[race + 1]["t"])  # type: ignore[arg-type]


def _mic(player: str, phrase: str, onset: float, end: float) -> Heard:
    return Heard(player, phrase, onset, end, 0.9, "mic", -20.0)


def test_a_shout_that_began_before_the_race_closed_scores_though_reported_after(tmp_path: Path) -> None:
    """Ben's dog begins 0.3 s before the race window ends and is reported 0.7 s after it: the
    race waits for it and Ben scores. Without the listener's ``judging`` it is a shout after the race."""
    end = _race_end(tmp_path)
    _, animal, holders, _ = _race_setup()
    shout = _mic(holders[1], animal, end - 0.3, end + 0.1)
    events, transcript = _play(tmp_path, [(shout, end + 0.7)], judged=True)
    points = [e for e in events if e["type"] == "point"]
    assert [p["player"] for p in points] == [holders[1]], transcript
    said = next(e for e in events if e["type"] == "shout")
    assert said["in_race"] is True and abs(float(said["onset"]) - (end - 0.3)) < 1e-6  # type: ignore[arg-type]

    before, transcript = _play(tmp_path, [(shout, end + 0.7)], judged=False)
    assert not [e for e in before if e["type"] == "point"], transcript
    assert "nobody scored" in transcript


def test_a_shout_that_began_after_the_deadline_goes_to_the_game_after_the_timer(tmp_path: Path) -> None:
    """While the race waits for a shout that began inside it, another that began after its end is
    reported first: the game gets it only after the race has closed (no point for it)."""
    end = _race_end(tmp_path)
    _, animal, holders, _ = _race_setup()
    inside = _mic(holders[0], animal, end - 0.2, end + 0.2)
    after = _mic(holders[1], animal, end + 0.05, end + 0.3)
    events, transcript = _play(tmp_path, [(inside, end + 1.2), (after, end + 0.6)], judged=True)
    points = [e for e in events if e["type"] == "point"]
    assert [p["player"] for p in points] == [holders[0]], transcript
    shouts = {e["player"]: e for e in events if e["type"] == "shout"}
    assert shouts[holders[0]]["in_race"] is True
    assert shouts[holders[1]]["in_race"] is False
    assert shouts[holders[1]]["seq"] > points[0]["seq"]  # type: ignore[operator]


def test_the_race_waits_at_most_hold_max_for_a_sound(tmp_path: Path) -> None:
    """A sound that began before the deadline and is judged for long (babble holding it open)
    delays the race's end by HOLD_MAX at most; one judged 0.4 s after the deadline by 0.4 s."""
    end = _race_end(tmp_path)
    for decided, closes in ((end + 30.0, end + HOLD_MAX), (end + 0.4, end + 0.4)):
        events, transcript = _play(tmp_path, [], judged=True, sounds=((end - 0.5, decided),))
        race = next(i for i, e in enumerate(events) if e["type"] == "race")
        closed = float(events[race + 1]["t"])  # type: ignore[arg-type]
        assert closes - 0.01 <= closed <= closes + 0.06, transcript
        assert "nobody scored" in transcript


def test_a_sound_that_began_after_the_deadline_does_not_hold_the_timer(tmp_path: Path) -> None:
    """Only sounds that began before a timer's deadline hold it: the race ends on time."""
    end = _race_end(tmp_path)
    events, transcript = _play(tmp_path, [], judged=True, sounds=((end + 0.01, end + 5.0),))
    race = next(i for i, e in enumerate(events) if e["type"] == "race")
    assert float(events[race + 1]["t"]) == end, transcript  # type: ignore[arg-type]


RACE_END_SPEC = """game = "bimbamm"
players = ["Anna", "Ben"]
seed = 2
options = { first_player = "Anna", cards = "dealt" }
voices = [2, 3]
script = \"\"\"
22.00 Anna: flip nine
25.28 Ben: flip twelve
30.08 Ben: dog
\"\"\"
"""
"""The start of audio_fixtures/sessions/bimbamm_two_players.toml (whose race closes at 30.4 s),
with Ben's dog 0.32 s before the race's end."""


def _replay(folder: Path, log: Path) -> list[dict[str, object]]:
    from voicehost.eventlog import read_events
    from voicehost.host.live import build_replay

    built, _ = build_replay(folder, log=log, stdout=io.StringIO())
    try:
        Session(built.flow, built.input, built.host).run()
    finally:
        built.close()
    return read_events(log)


def test_a_recorded_shout_at_the_end_of_a_race_scores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real stack (the session rendered with espeak-ng voices, the host's voice
    cancelled, PocketSphinx): Ben's dog, begun 0.32 s before the race window's end, is reported
    after it; the race waits and Ben scores. With HOLD_MAX 0 (as before) nobody scores."""
    from tools.session_fixtures import generate_fresh
    from voicehost.host import session

    (tmp_path / "race_end.toml").write_text(RACE_END_SPEC)
    generate_fresh(tmp_path / "race_end.toml", tmp_path)
    events = _replay(tmp_path / "race_end", tmp_path / "held.jsonl")
    race = next(i for i, e in enumerate(events) if e["type"] == "race")
    shout, point = events[race + 1], events[race + 2]
    assert shout["type"] == "shout" and shout["player"] == "Ben" and shout["in_race"] is True, events
    assert 30.0 <= float(shout["onset"]) < 30.4 < float(shout["t"])  # type: ignore[arg-type]
    assert point["type"] == "point" and point["player"] == "Ben"
    assert float(point["t"]) < 30.4 + HOLD_MAX - 0.5  # type: ignore[arg-type]  # once judged, the race closes

    monkeypatch.setattr(session, "HOLD_MAX", 0.0)
    before = _replay(tmp_path / "race_end", tmp_path / "before.jsonl")
    assert not [e for e in before if e["type"] == "point"]
    assert [e["in_race"] for e in before if e["type"] == "shout"] == [False]


@pytest.mark.parametrize("name", ["race2_quiet", "race4_babble20"])
def test_the_listener_judges_a_sound_from_its_start_until_it_is_reported(name: str) -> None:
    """Committed races (truth as recogniser: the listener's bookkeeping is tested, not the
    recogniser): ``judging`` just after the first shout's onset is True from 0.15 s into the
    shout until it is reported, and False once every shout is out; 0.2 s before it, never."""
    from tests.test_listen_race_gap import _truth
    from tools.listen_fixtures import BIMBAMM_PHRASES, read_fixture
    from voicehost.listen.pipeline import Listener
    from voicehost.listen.sources import FileSource

    fixture = read_fixture(ROOT / "audio_fixtures" / f"{name}.json")
    rec = fixture.load()
    listener = Listener(rec.seats, _truth(fixture), BIMBAMM_PHRASES)
    listener.set_phrases(BIMBAMM_PHRASES, (), None, BIMBAMM_PHRASES)
    first = float(fixture.expected[0]["onset"])  # type: ignore[arg-type]
    out: list[float] = []
    looks: list[tuple[float, bool, bool]] = []
    for block in FileSource(rec, 320).blocks():
        now = (block.start_frame + len(block.samples)) / block.rate
        out += [now for _ in listener.feed(block)]
        looks.append((now, listener.judging(first + 0.01), listener.judging(first - 0.2)))
    assert len(out) == len(fixture.expected)
    assert all(judged for now, judged, _ in looks if first + 0.15 <= now < out[0])
    assert not any(judged for now, judged, _ in looks if now >= out[-1])
    assert not any(early for _, _, early in looks)
