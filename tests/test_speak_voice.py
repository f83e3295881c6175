"""The espeak-ng adapter: rendering to buffers, settings per call, several voices and threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from voicehost.audio.buffer import Audio
from voicehost.speak.voice import SAMPLE_RATE, BadRate, EspeakVoice, UnknownVoice, trim_silence

SENTENCE = "Short-statured circus artists have influenced my family planning."


@pytest.fixture(scope="module")
def voice() -> EspeakVoice:
    """One espeak-ng voice for the module."""
    return EspeakVoice()


def test_render_gives_speech_at_22050_hz(voice: EspeakVoice) -> None:
    """A sentence renders to a mono float32 buffer of plausible length and level."""
    audio = voice.render(SENTENCE)
    assert audio.rate == SAMPLE_RATE and audio.samples.ndim == 1 and audio.samples.dtype == np.float32
    assert 2.5 < audio.duration < 5.0
    assert 0.2 < np.abs(audio.samples).max() <= 1.0


def test_rate_per_call_changes_duration(voice: EspeakVoice) -> None:
    """The rate given to render applies to that call (espeak-ng speaks twice as fast at twice the rate)."""
    slow = voice.render(SENTENCE, rate=120).duration
    fast = voice.render(SENTENCE, rate=240).duration
    assert 1.6 < slow / fast < 2.4
    assert voice.rate == 175  # the object's own setting is untouched


def test_voice_per_call_changes_the_sound(voice: EspeakVoice) -> None:
    """A different voice given to render changes the sound of the same words."""
    english = voice.render("Bonjour tout le monde")
    french = voice.render("Bonjour tout le monde", voice=voice.resolve("fr"))
    assert abs(english.duration - french.duration) > 0.05 or not np.allclose(
        english.samples[:1000], french.samples[:1000]
    )


def test_several_voices_coexist_in_one_process() -> None:
    """Two EspeakVoice objects both render (espeak-ng has one callback per process)."""
    a, b = EspeakVoice(), EspeakVoice(rate=250)
    assert b.render("hello there").duration > 0.3
    assert a.render("hello there").duration > b.render("hello there").duration


def test_renders_from_several_threads_all_succeed(voice: EspeakVoice) -> None:
    """Concurrent renders take turns and each gets its own complete audio (espeak-ng runs asynchronously)."""
    results: dict[int, Audio] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(8):
                results[k * 100 + i] = voice.render(f"Player {k} scored {i} points.")
        except BaseException as error:  # noqa: BLE001 — collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and len(results) == 24
    assert min(a.duration for a in results.values()) > 1.0


def test_render_prints_nothing(voice: EspeakVoice, capfd: pytest.CaptureFixture[str]) -> None:
    """Rendering leaves stdout clean (pyttsx3's save path printed 'Audio saved to …')."""
    voice.render("Quiet please.")
    out, _ = capfd.readouterr()
    assert out == ""


def test_bad_voice_and_rate_are_input_errors(voice: EspeakVoice) -> None:
    """An unknown voice or an out-of-range rate is refused with a message saying what to do."""
    with pytest.raises(UnknownVoice, match="--list-voices"):
        voice.resolve("klingon-xx")
    with pytest.raises(BadRate, match="80 to 450"):
        voice.render("hi", rate=1000)


def test_trim_silence_keeps_the_words_only(voice: EspeakVoice) -> None:
    """Trimming removes espeak-ng's trailing pause but keeps every audible sample, with 10 ms margins."""
    raw = voice.render(SENTENCE)
    trimmed = trim_silence(raw)
    assert trimmed.duration < raw.duration - 0.15
    assert np.sum(trimmed.samples**2) > 0.999 * np.sum(raw.samples**2)
    silent = Audio(np.zeros(22050, np.float32), 22050)
    assert trim_silence(silent).frames == 0
    padded = Audio(np.concatenate([np.zeros(2205), raw.samples, np.zeros(2205)]).astype(np.float32), 22050)
    assert trim_silence(padded).frames == trimmed.frames


def test_a_collected_voice_leaves_the_synthesis_callback_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyttsx3's driver, garbage-collected, would set espeak-ng's one process-wide synthesis callback
    to NULL, at any moment, even during another voice's synthesis (a test worker died of it:
    segfault in Synth). A collected EspeakVoice never unsets it; the next voice still speaks."""
    import gc

    from pyttsx3.drivers import _espeak

    voice = EspeakVoice()
    voice.render("hello there")
    calls: list[object] = []
    monkeypatch.setattr(_espeak, "SetSynthCallback", calls.append)
    del voice
    gc.collect()
    assert None not in calls, calls
    monkeypatch.undo()
    assert EspeakVoice().render("hello there").samples.size > 0


def test_a_new_voice_while_another_speaks_does_not_disturb_it(voice: EspeakVoice) -> None:
    """A second EspeakVoice built (its voices listed) while another thread renders: every render
    works. Listing the voices outside the espeak-ng lock made SetVoiceByName fail within 5 s of
    this (EE_INTERNAL_ERROR), and a test worker once died of a segfault in Synth beside it."""
    import time

    errors: list[BaseException] = []
    renders = 0
    stop = time.monotonic() + 4.0

    def speak() -> None:
        nonlocal renders
        try:
            while time.monotonic() < stop:
                voice.render("Anna begins. Anna, flip a tile: say a number from one to fifteen.")
                renders += 1
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    thread = threading.Thread(target=speak)
    thread.start()
    built = 0
    while time.monotonic() < stop:
        EspeakVoice()
        built += 1
    thread.join()
    assert errors == [] and renders > 10 and built > 100, (errors, renders, built)


def test_espeak_synthesises_in_the_callers_thread(voice: EspeakVoice, monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng runs in its synchronous mode: the audio arrives in the thread that asked, before
    render returns (no espeak-ng thread of its own that a voice change could race)."""
    import voicehost.speak.voice as module

    threads: list[int] = []

    class Chunks(list[bytes]):
        def append(self, chunk: bytes) -> None:
            threads.append(threading.get_ident())
            super().append(chunk)

    class Collector(module._Collector):
        def __init__(self) -> None:
            super().__init__()
            self.chunks = Chunks()

    monkeypatch.setattr(module, "_Collector", Collector)
    assert voice.render(SENTENCE).duration > 2.0
    assert module._synchronous and threads and set(threads) == {threading.get_ident()}


RENDER_IN_A_NEW_PROCESS = """
import hashlib, sys
if sys.argv[1] == "pyttsx3-first":
    from pyttsx3.engine import Engine
    Engine("espeak")  # pyttsx3 starts espeak-ng first, in its asynchronous mode
import voicehost.speak.voice as module
voice = module.EspeakVoice()
samples = [voice.render(text, voice=voice.resolve(lang)).samples for text, lang in TEXTS]
print(module._synchronous, [(len(s), hashlib.md5(s.tobytes()).hexdigest()) for s in samples])
"""


def test_espeak_started_by_pyttsx3_first_still_renders_the_same_audio() -> None:
    """If something started espeak-ng through pyttsx3 before the host (its asynchronous mode), the
    host still renders, sample for sample what the synchronous mode gives, voice changes included
    (each in a new process: espeak-ng's output depends a little on what it said before)."""
    import subprocess
    import sys

    texts = [(SENTENCE, "en-us"), ("Guten Tag, Anna.", "de"), ("Bim! Bam! Bum!", "en-us")]
    code = f"TEXTS = {texts!r}\n{RENDER_IN_A_NEW_PROCESS}"
    runs = {
        how: subprocess.run(
            [sys.executable, "-c", code, how], capture_output=True, text=True, timeout=60, check=True
        ).stdout.split(" ", 1)
        for how in ("host-first", "pyttsx3-first")
    }
    assert runs["host-first"][0] == "True" and runs["pyttsx3-first"][0] == "False"
    assert runs["host-first"][1] == runs["pyttsx3-first"][1]


RENDER_UNTIL_INTERRUPTED = """
import voicehost.speak.voice as module
voice = module.EspeakVoice()
renders = 0
try:
    while True:
        voice.render(TEXT)
        renders += 1
        print("rendered", renders, flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_ctrl_c_during_a_synthesis_stops_the_program() -> None:
    """Ctrl-C while espeak-ng synthesises in the main thread (a host line during a game) raises
    KeyboardInterrupt there. Python runs the signal handler inside espeak-ng's callback, and
    ctypes swallows what a callback raises: the game went on and ignored Ctrl-C (CI, 2026-12-02)."""
    import signal
    import subprocess
    import sys

    code = f"TEXT = {' '.join([SENTENCE] * 8)!r}\n{RENDER_UNTIL_INTERRUPTED}"
    for _ in range(3):
        process = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            assert process.stdout is not None
            assert process.stdout.readline().startswith("rendered 1")  # now inside the next synthesis
            process.send_signal(signal.SIGINT)
            out, _ = process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
            pytest.fail("Ctrl-C during a synthesis did not stop the program:\n" + out[-2000:])
        assert out.splitlines()[-1] == "interrupted", out
