"""The helper recogniser in its own process (voicehost.listen.helper): the same decisions as the
listener alone on committed recordings (real decoding in both processes), and a helper that
cannot start or dies leaves the listener to recognise everything itself, with one line saying why.
(How much sooner the decisions come is measured in bench/, not here.)"""

from __future__ import annotations

import functools
import os
import signal
import time
from pathlib import Path

import pytest

from tools.listen_fixtures import read_fixture
from voicehost.commands.rank import game_phrases
from voicehost.listen.fake import FakeRecognizer
from voicehost.listen.helper import Helper, table_recognizer
from voicehost.listen.messages import Recognizer, Segment
from voicehost.listen.pipeline import listen_to
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer

FIXTURES = Path(__file__).resolve().parents[1] / "audio_fixtures"


def broken() -> Recognizer:
    """A recogniser that cannot be built (as a missing model would be, in the helper's process)."""
    raise RuntimeError("no model here")


def nothing() -> Recognizer:
    """A recogniser that hears nothing (for the failure tests: what it says does not matter)."""
    return FakeRecognizer(lambda segment: None, name="nothing")


@pytest.fixture(scope="module")
def helper() -> Helper:
    helper = Helper(functools.partial(table_recognizer, "en", "whisper", None, {}))
    assert helper.ready(120), helper.failed
    # the listener waits for the helper's share of a sound as long as it takes: whether it was
    # shared then does not depend on how busy the machine is (the decisions are the same either way)
    helper.share_wait = 60.0
    yield helper
    helper.close()


@pytest.mark.parametrize(
    ("name", "raced", "words"),
    [
        ("race4_babble20", True, None),  # shared or not: whether the helper is idle then is timing
        ("race3_pink20", True, True),
        ("slaps_pink20", False, True),
        ("coughs_bimbambum", False, True),
    ],
)
def test_the_helper_gives_the_listeners_own_decisions(
    whisper: WhisperRecognizer, helper: Helper, name: str, raced: bool, words: bool | None
) -> None:
    """In a race it recognises a sound beside the listener; while it is idle it decodes
    PocketSphinx's share of the sound the listener recognises (its hypothesis and phone loop, while
    Whisper works; the slaps fixture holds its call too); slaps need no recogniser. In the
    four-seat race the helper may still be busy with its own sound when the listener's starts, so
    whether it shares one there depends on timing (``words`` None: not checked)."""
    fixture = read_fixture(FIXTURES / f"{name}.json")
    phrases = game_phrases(str(fixture.manifest["game"]), "en")
    recording = fixture.load()
    alone, by_one = listen_to(recording, whisper, phrases)
    together, by_two = listen_to(recording, whisper, phrases, helper=helper)
    assert [(s.player, s.phrase, s.onset) for s in together] == [(s.player, s.phrase, s.onset) for s in alone]
    assert [(d.reason, d.recognition) for d in by_two.decisions] == [
        (d.reason, d.recognition) for d in by_one.decisions
    ]
    assert (by_two.helped >= 1) == raced and by_one.helped == 0
    assert words is None or (by_two.shared >= 1) == words
    assert by_one.shared == 0
    assert helper.failed is None


def test_a_helper_that_cannot_start_says_why_and_the_listener_goes_on(whisper: WhisperRecognizer) -> None:
    helper = Helper(broken)
    assert not helper.ready(120)
    assert helper.failed == "the helper recogniser did not start: RuntimeError: no model here"
    fixture = read_fixture(FIXTURES / "race4_babble20.json")
    phrases = game_phrases(str(fixture.manifest["game"]), "en")
    alone, _ = listen_to(fixture.load(), whisper, phrases)
    together, listener = listen_to(fixture.load(), whisper, phrases, helper=helper)
    assert together == alone and listener.helped == 0


def test_a_helper_that_dies_is_not_asked_again() -> None:
    from tests.test_moonshine import clip

    helper = Helper(nothing)
    assert helper.ready(120)
    pids = list(helper._pool._processes) if helper._pool is not None else []  # type: ignore[attr-defined]
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    future = helper.submit(clip("cat"), ["cat"])
    result = helper.result(future) if future is not None else None
    assert result is None and helper.failed is not None and "stopped" in helper.failed
    assert helper.submit(clip("cat"), ["cat"]) is None


def test_a_live_listener_gets_a_helper_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """make_listener: live tables (helper=True) get one, replays do not, VOICEHOST_HELPER=off none."""
    import io

    from voicehost.host.live import ListenSettings, make_listener

    settings = ListenSettings("en", "sphinx")
    live = make_listener(("Anna", "Ben"), settings, {}, io.StringIO(), helper=True)
    try:
        assert live.helper is not None and live.helper.ready(120), live.helper.failed
    finally:
        live.close()
    assert make_listener(("Anna", "Ben"), settings, {}, io.StringIO()).helper is None
    monkeypatch.setenv("VOICEHOST_HELPER", "off")
    assert make_listener(("Anna", "Ben"), settings, {}, io.StringIO(), helper=True).helper is None


@pytest.mark.parametrize("sigterm", [signal.SIG_DFL, signal.SIG_IGN], ids=["sigterm-default", "sigterm-ignored"])
def test_closing_stops_a_helper_still_loading_its_models(sigterm: signal.Handlers) -> None:
    """Quitting a short game must not wait for the helper to finish loading (Python joins a pool's
    processes at exit): close() ends the process at once, also when it was started by a process
    that ignores SIGTERM (the helper inherits that; CI failed so on 2026-12-03)."""
    previous = signal.signal(signal.SIGTERM, sigterm)
    try:
        helper = Helper(slow)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert helper._pool is not None
    deadline = time.monotonic() + 60
    while not helper._pool._processes and time.monotonic() < deadline:  # type: ignore[attr-defined]
        time.sleep(0.05)
    (worker,) = helper._pool._processes.values()  # type: ignore[attr-defined]
    helper.close()
    deadline = time.monotonic() + 10  # the pool's own thread may reap it too: ask until it is gone
    while worker.is_alive() and time.monotonic() < deadline:
        worker.join(0.1)
    assert not worker.is_alive()
    assert helper.submit(clip_of("cat"), ["cat"]) is None


def slow() -> Recognizer:
    """A recogniser that takes a minute to build (as loading models on a busy machine may)."""
    time.sleep(60)
    return nothing()


def clip_of(text: str):  # type: ignore[no-untyped-def]
    from tests.test_moonshine import clip

    return clip(text)


def stuck_on(segment: Segment) -> str | None:
    """A recogniser that never answers (as a deadlocked helper would not)."""
    time.sleep(3600)
    return None


class Unhurried(FakeRecognizer):
    """A recogniser whose share of a sound (``second_parts``) comes far too late."""

    def second_parts(self, segment: Segment, phrases: object) -> object:
        time.sleep(30)
        return None


def unhurried() -> Recognizer:
    return Unhurried(lambda segment: None, name="unhurried")


def test_a_slow_share_is_done_by_the_listener_itself(whisper: WhisperRecognizer) -> None:
    """The helper's PocketSphinx passes do not come within ``share_wait``: the listener decodes
    them itself (the same decisions as alone) and the helper, only slow, stays in use."""
    fixture = read_fixture(FIXTURES / "coughs_bimbambum.json")
    phrases = game_phrases(str(fixture.manifest["game"]), "en")
    helper = Helper(unhurried)
    try:
        assert helper.ready(120), helper.failed
        helper.share_wait = 0.2
        alone, by_one = listen_to(fixture.load(), whisper, phrases)
        together, by_two = listen_to(fixture.load(), whisper, phrases, helper=helper)
        assert [(d.reason, d.recognition) for d in by_two.decisions] == [
            (d.reason, d.recognition) for d in by_one.decisions
        ]
        assert together == alone and by_two.shared == 0 and by_two.helped == 0
        assert len(by_two._shared) == 1 and not by_two._shared[0].done()  # asked once, still working
        assert helper.failed is None
    finally:
        helper.close()


def stuck() -> Recognizer:
    return FakeRecognizer(stuck_on, name="stuck")


def test_a_stuck_helper_does_not_hang_the_listener(whisper: WhisperRecognizer) -> None:
    """The listener waits ``patience`` seconds for an answer, then stops the helper, says why and
    recognises the sound itself: the same decisions as alone."""
    helper = Helper(stuck, patience=1.0)
    assert helper.ready(120)
    fixture = read_fixture(FIXTURES / "race4_babble20.json")
    phrases = game_phrases(str(fixture.manifest["game"]), "en")
    alone, _ = listen_to(fixture.load(), whisper, phrases)
    together, listener = listen_to(fixture.load(), whisper, phrases, helper=helper)
    assert together == alone and listener.helped == 0
    assert helper.failed == "the helper recogniser stopped: no answer in 1 s"
