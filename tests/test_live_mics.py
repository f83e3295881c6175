"""Microphones that come and go during a game (issue 9: "sessions are not lost").

Three layers:
- the session above the input (a scripted stand-in for the microphones, on a simulated clock):
  a stopped microphone pauses the game with an announcement, its return or "continue" goes on;
- LiveSource on the virtual PulseAudio devices: a source unloaded with `pactl unload-module` is
  noticed on the session clock, its seat gets silence meanwhile, and once the source is loaded
  again the reopened (primed) stream is placed on the session clock to within milliseconds;
- `voicehost play --input mic` as a user runs it, with Ben's microphone a null sink's monitor
  that is unloaded and loaded again: the announcements, the log, the final summary.

PulseAudio moves a stream whose source vanished to the default source (PulseAudio >= 14): on a
desktop, a seat whose headset is unplugged would go on hearing the default microphone, and
nothing in PortAudio tells. These tests make the default source a dead one (a suspended null
source) while they run, which is what a table of players' own microphones looks like to a
stream: its source is gone and no sound comes.
"""

from __future__ import annotations

import io
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from tests.conftest import ROOT
from tests.live_helpers import SpeakerMonitor
from voicehost.clock import SimClock, WallClock
from voicehost.eventlog import read_events
from voicehost.host.build import PlaySettings, build_offline
from voicehost.host.inputs import ScriptInput
from voicehost.host.listening import AudioInput
from voicehost.host.live import LiveMicrophones, device_summary
from voicehost.host.session import Session
from voicehost.host.words import Heard
from voicehost.listen.messages import AudioBlock
from voicehost.listen.pipeline import Listener
from voicehost.listen.sources import STALL_SECONDS, DeviceStats, LiveInput, LiveSource

RATE = 48000
"""Hz: the virtual sinks' rate."""


# ---- the session above the microphones --------------------------------------------------------


class ScriptedMicrophones:
    """Timed typed lines plus microphone changes at given times, on a simulated clock: a stand-in
    for the live input, to test the session's handling above it."""

    def __init__(self, lines: ScriptInput, clock: SimClock, changes: list[tuple[float, tuple[str, ...], bool]]) -> None:
        self.lines = lines
        self.clock = clock
        self.changes = sorted(changes)
        self._due: list[tuple[tuple[str, ...], bool]] = []

    def next(self, deadline: float | None) -> list[Heard] | None:
        if self.changes and (deadline is None or self.changes[0][0] <= deadline):
            heard = self.lines.next(self.changes[0][0])
            if heard:
                return heard
            t, players, lost = self.changes.pop(0)
            self.clock.advance_to(t)
            self._due.append((players, lost))
            return []
        return self.lines.next(deadline)

    def microphone_changes(self) -> list[tuple[tuple[str, ...], bool]]:
        due, self._due = self._due, []
        return due

    def close(self) -> None:
        pass


def run_scripted(
    tmp: Path,
    game: str,
    script: str,
    changes: list[tuple[float, tuple[str, ...], bool]],
    options: dict[str, object] | None = None,
) -> tuple[str, list[dict[str, Any]], Session]:
    """Play ``script`` with microphone ``changes``; (transcript, events, session)."""
    (tmp / "script.txt").write_text(script)
    settings = PlaySettings(
        game,
        ("Anna", "Ben", "Cem"),
        f"script:{tmp / 'script.txt'}",
        1,
        tmp / "game.jsonl",
        None,
        True,
        options or {"first_player": "Anna"},
    )
    out = io.StringIO()
    built = build_offline(settings, stdout=out)
    clock = built.host.clock
    assert isinstance(clock, SimClock) and isinstance(built.input, ScriptInput)
    session = Session(built.flow, ScriptedMicrophones(built.input, clock, changes), built.host)
    try:
        session.run()
    finally:
        built.close()
    return out.getvalue(), read_events(tmp / "game.jsonl"), session


def test_a_stopped_microphone_pauses_the_game_until_it_is_back(tmp_path: Path) -> None:
    """Ben's microphone stops: the host says so and pauses (a flip meanwhile is refused); when it is
    back the host says so and the game goes on by itself (the same flip is then applied)."""
    transcript, events, session = run_scripted(
        tmp_path, "bimbamm", "32 Anna: flip two\n45 Anna: flip two\n", [(30.0, ("Ben",), True), (40.0, ("Ben",), False)]
    )
    assert (
        "host: Ben's microphone stopped: the game is paused until it is back. Say continue to go on without it."
    ) in transcript
    assert "host: The game is paused. Say resume to go on." in transcript
    assert "host: Ben's microphone is back. Let's go on." in transcript
    flips = [e for e in events if e["type"] == "flip"]
    assert len(flips) == 1 and flips[0]["t"] >= 45
    assert not session.paused and session.missing == []


def test_continue_goes_on_without_the_stopped_microphone(tmp_path: Path) -> None:
    """ "continue" during a microphone pause goes on without it; its return is announced, no pause."""
    transcript, events, session = run_scripted(
        tmp_path, "bimbamm", "33 Cem: continue\n36 Anna: flip two\n", [(30.0, ("Ben",), True), (40.0, ("Ben",), False)]
    )
    assert "host: We go on without Ben's microphone." in transcript
    assert [e["t"] >= 36 for e in events if e["type"] == "flip"] == [True]
    assert "host: Ben's microphone is back." in transcript and "Let's go on." not in transcript
    assert not session.paused


def test_a_microphone_back_during_a_players_pause_does_not_resume_it(tmp_path: Path) -> None:
    """The players paused: a microphone stopping and coming back meanwhile leaves the game paused."""
    transcript, events, session = run_scripted(
        tmp_path, "bimbamm", "30 Anna: pause\n37 Anna: flip two\n", [(32.0, ("Ben",), True), (35.0, ("Ben",), False)]
    )
    assert "host: Ben's microphone is back. Say resume to go on." in transcript
    assert not [e for e in events if e["type"] == "flip"] and session.paused


def test_when_every_microphone_stopped_nobody_is_asked_to_say_continue(tmp_path: Path) -> None:
    """One device for the whole table stops: the announcement names everybody and waits."""
    transcript, _, session = run_scripted(tmp_path, "bimbamm", "", [(30.0, ("Anna", "Ben", "Cem"), True)])
    assert "host: Anna's, Ben's and Cem's microphones stopped: the game is paused until they are back." in transcript
    assert "Say continue" not in transcript and session.paused


def test_a_microphone_pause_freezes_the_play_window_and_reopens_it(tmp_path: Path) -> None:
    """Bim Bam Bum!: a microphone stopping during a player's window takes no time off it (no late
    mistake while paused) and the window reopens (a "resumed" event) when the microphone is back."""
    _, events, _ = run_scripted(
        tmp_path,
        "bimbambum",
        "120 Cem: score\n",
        [(25.0, ("Ben",), True), (60.0, ("Ben",), False)],
        options={"first_player": "Anna", "quick": 3},
    )
    turn = next(e for e in events if e["type"] == "turn")
    assert turn["t"] < 25.0  # Anna's turn began: her window runs until 3 s after the host has named her card
    assert not [e for e in events if e["type"] == "mistake" and e["t"] < 60.0]
    resumed = next(e for e in events if e["type"] == "resumed")
    late = next(e for e in events if e["type"] == "mistake")
    assert resumed["t"] >= 60.0 and late["reason"] == "timeout" and late["t"] > resumed["t"] + 1.0


# ---- LiveSource on the virtual devices ----------------------------------------------------------


def pactl(*args: str) -> str:
    """Run pactl against the test session's PulseAudio daemon."""
    result = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, f"pactl {' '.join(args)}: {result.stderr}"
    return result.stdout.strip()


def module_of(sink: str) -> tuple[str, str]:
    """(module index, arguments) of the module that made sink ``sink``."""
    for line in pactl("list", "short", "modules").splitlines():
        index, name, *rest = line.split("\t")
        if name == "module-null-sink" and f"sink_name={sink} " in (rest[0] + " " if rest else ""):
            return index, rest[0]
    raise AssertionError(f"no null sink {sink}")


@pytest.fixture
def dead_default_source(virtual_table: object) -> Iterator[None]:
    """While the test runs, the daemon's default source is a suspended null source (see the module
    docstring); the old default comes back afterwards."""
    old = pactl("get-default-source")
    module = pactl(
        "load-module", "module-null-source", "source_name=vh9_nowhere", f"rate={RATE}", "channels=1", "channel_map=mono"
    )
    pactl("suspend-source", "vh9_nowhere", "1")
    pactl("set-default-source", "vh9_nowhere")
    try:
        yield
    finally:
        pactl("set-default-source", old)
        pactl("unload-module", module)


@pytest.fixture
def phones_can_vanish(dead_default_source: None) -> Iterator[Any]:
    """The 'phones' sink (its monitor is vh_phones_monitor) may be unloaded by the test: it is
    loaded again with the same arguments afterwards, so later tests find it as before."""
    _, arguments = module_of("phones")
    state = {"loaded": True}

    def unload() -> None:
        pactl("unload-module", module_of("phones")[0])
        state["loaded"] = False

    def load() -> None:
        pactl("load-module", "module-null-sink", *arguments.split())
        state["loaded"] = True

    try:
        yield unload, load
    finally:
        if not state["loaded"]:
            load()


def read_until(source: LiveSource, blocks: list[AudioBlock], done: Any, timeout: float) -> list[Any]:
    """Read blocks into ``blocks`` until ``done(changes)`` holds; the changes seen."""
    changes: list[Any] = []
    deadline = time.monotonic() + timeout
    while not done(changes):
        assert time.monotonic() < deadline, f"timed out; changes so far: {changes}"
        blocks.extend(source.read(0.05))
        changes.extend(source.changes())
    return changes


def click_time(source: LiveSource, clock: WallClock, blocks: list[AudioBlock], seat: str) -> tuple[float, float]:
    """Play a click into vh_phones (channel 1) and return (session time it was played at by the
    output stream's DAC time, session time where ``seat``'s captured audio has it)."""
    import sounddevice as sd

    played: dict[str, float] = {}
    click = np.zeros((RATE // 2, 2), dtype=np.float32)
    click[RATE // 10 : RATE // 10 + 48, 0] = 0.8
    position = {"at": 0}

    def callback(out: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        a = position["at"]
        chunk = click[a : a + frames]
        out.fill(0.0)
        out[: len(chunk)] = chunk
        if a <= RATE // 10 < a + frames and "dac" not in played:
            played["dac"] = float(time_info.outputBufferDacTime) + (RATE // 10 - a) / RATE
        position["at"] = a + frames

    with sd.OutputStream(device="vh_phones", channels=2, samplerate=RATE, dtype="float32", callback=callback) as stream:
        offset = clock.now() - float(stream.time)
        deadline = time.monotonic() + 3.0
        while position["at"] < len(click) + RATE // 5:
            assert time.monotonic() < deadline
            blocks.extend(source.read(0.05))
    blocks.extend(source.read(0.3))
    mine = [b for b in blocks if seat in b.seats]
    audio = np.concatenate([b.samples[:, b.seats.index(seat)] for b in mine])
    loud = np.flatnonzero(np.abs(audio) > 0.3)
    assert loud.size, "the click was not captured"
    return played["dac"] + offset, (mine[0].start_frame + loud[0]) / source.rate


def contiguous(blocks: list[AudioBlock], seats: tuple[str, ...]) -> bool:
    """True when the seat's blocks follow each other without gap or overlap."""
    mine = [b for b in blocks if b.seats == seats]
    return all(b.start_frame == a.start_frame + a.samples.shape[0] for a, b in zip(mine, mine[1:]))


def test_a_vanished_device_is_noticed_filled_with_silence_and_placed_right_when_back(phones_can_vanish: Any) -> None:
    """Unloading Ben's source: noticed within STALL_SECONDS + 0.5 s on the session clock, Ben's seat
    goes on as silence (contiguous), Anna is untouched; loaded again: noticed back, and a click into
    it is placed within 5 ms of when it was played (the reopened stream re-anchored)."""
    unload, load = phones_can_vanish
    clock = WallClock()
    blocks: list[AudioBlock] = []
    with LiveSource([LiveInput("vh_mics", ("Anna",)), LiveInput("vh_phones_monitor", ("Ben", "Cem"))], clock) as source:
        started = clock.now()
        read_until(source, blocks, lambda _: clock.now() > started + 1.0, 5)
        unload()
        gone = clock.now()
        lost = read_until(source, blocks, lambda c: any(x.lost for x in c), 5)[0]
        assert lost.seats == ("Ben", "Cem") and lost.t - gone <= STALL_SECONDS + 0.5, (lost, gone)
        assert source.lost == ("Ben", "Cem")
        read_until(source, blocks, lambda _: clock.now() > lost.t + 1.0, 5)
        silent = [b for b in blocks if b.seats == ("Ben", "Cem") and b.start_frame >= int(lost.t * source.rate)]
        assert silent and all(not np.any(b.samples) for b in silent)
        load()
        back = read_until(source, blocks, lambda c: any(not x.lost for x in c), 10)[-1]
        assert back.seats == ("Ben", "Cem") and not source.lost
        assert contiguous(blocks, ("Anna",))
        assert contiguous([b for b in blocks if b.start_frame < int(back.t * source.rate) - 1600], ("Ben", "Cem"))
        played, heard = click_time(source, clock, blocks, "Ben")
        stats = {s.device: s for s in source.stats}
    print(
        f"\nlost {lost.t - gone:.2f} s after the unload; "
        f"click placed {1000 * (heard - played):+.1f} ms from its DAC time; {stats}"
    )
    assert abs(heard - played) <= 0.005
    assert stats["vh_phones_monitor"].outages == 1 and 0.5 < stats["vh_phones_monitor"].down_seconds < 15
    assert stats["vh_mics"].outages == 0


def test_a_lost_device_is_tried_in_a_probe_process_never_in_the_readers(phones_can_vanish: Any) -> None:
    """While a device is gone, every try to open it happens in a probe process: opening a vanished
    PulseAudio source in-process crashed the process with a segmentation fault now and then
    (reproduced on the 11th cycle of unload, close and reopen). The reader opens it again (priming
    stream, then the one it reads) only once the probe's stream flows, and the probe then exits 0."""
    unload, load = phones_can_vanish
    clock = WallClock()
    blocks: list[AudioBlock] = []
    with LiveSource([LiveInput("vh_mics", ("Anna",)), LiveInput("vh_phones_monitor", ("Ben", "Cem"))], clock) as source:
        opened: list[float] = []
        real_open = source._open

        def counting_open(device: Any, phase: Any, *, quiet: bool = False) -> None:
            opened.append(clock.now())
            real_open(device, phase, quiet=quiet)

        source._open = counting_open  # type: ignore[method-assign]
        started = clock.now()
        read_until(source, blocks, lambda _: clock.now() > started + 0.5, 5)
        unload()
        read_until(source, blocks, lambda c: any(x.lost for x in c), 5)
        gone = clock.now()
        read_until(source, blocks, lambda _: clock.now() > gone + 3.0, 5)
        probe = source._devices[1].probe
        assert probe is not None and probe.poll() is None, "no probe process runs while the device is gone"
        assert opened == [], f"the reader opened the vanished device itself at {opened}"
        load()
        loaded = clock.now()
        read_until(source, blocks, lambda c: any(not x.lost for x in c), 10)
        assert opened and min(opened) >= loaded, (opened, loaded)
        assert probe.wait(timeout=5) == 0 and source._devices[1].holder is None


def test_the_probe_says_flowing_holds_its_stream_and_refuses_an_unknown_device(virtual_table: object) -> None:
    """`python -m voicehost.audio.probe`: on a device that delivers, it prints "flowing" and exits 0
    once its stdin closes; a device that is not listed is exit status 3 at once; one that does not
    open is tried until stdin closes (exit status 4)."""
    command = [sys.executable, "-m", "voicehost.audio.probe", "--channels", "2", "--rate", "48000"]
    probe = subprocess.Popen(
        [*command, "--device", "vh_mics"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert probe.stdout is not None and probe.stdin is not None
    assert probe.stdout.readline().strip() == "flowing"
    time.sleep(0.5)
    assert probe.poll() is None, "the probe let its stream go before the reader's flowed"
    probe.stdin.close()
    assert probe.wait(timeout=5) == 0
    missing = subprocess.run([*command, "--device", "no-such-device"], cwd=ROOT, capture_output=True, timeout=30)
    assert missing.returncode == 3
    # A device that will not open (64 channels asked of an 8-channel one) is tried until the game
    # closes the probe's stdin, as it does when it ends or dies: no probe outlives its game.
    trying = subprocess.Popen(
        [sys.executable, "-m", "voicehost.audio.probe", "--channels", "64", "--rate", "48000", "--device", "vh_mics"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert trying.stdin is not None
    time.sleep(1.0)
    assert trying.poll() is None, "the probe gave up on a device that may still come back"
    trying.stdin.close()
    assert trying.wait(timeout=3) == 4


def test_a_stream_on_an_idle_source_is_placed_right(virtual_table: object) -> None:
    """A source nobody plays into (an idle PulseAudio monitor, whose first stream reports capture
    times 0.3-0.5 s off) is primed and reopened: a click is placed within 5 ms of its DAC time (unprimed: 9 ms)."""
    clock = WallClock()
    blocks: list[AudioBlock] = []
    with LiveSource([LiveInput("vh_phones_monitor", ("Ben", "Cem"))], clock) as source:
        played, heard = click_time(source, clock, blocks, "Ben")
        anchors = source.stats[0].arrival_anchors
    print(f"\nclick placed {1000 * (heard - played):+.1f} ms from its DAC time ({anchors} arrival anchors)")
    assert abs(heard - played) <= 0.005


def test_overflows_are_counted_never_fatal_and_summed_up(virtual_table: object) -> None:
    """Blocks PortAudio flags as input overflow are counted, the audio goes on, the terminal gets a
    note, and the closing summary says how many. (PulseAudio's virtual devices never overflow: their
    server buffers seconds, and a 3 s stall of the reading process lost nothing; so the flag is put
    into the running stream's queue, exactly as its callback would.)"""
    clock = WallClock()
    blocks: list[AudioBlock] = []
    terminal = io.StringIO()
    source = LiveSource([LiveInput("vh_mics", ("Anna", "Ben"))], clock).start()
    audio = AudioInput(Listener(("Anna", "Ben"), None, []), lambda timeout: source.read(timeout), clock, lambda: [])
    microphones = LiveMicrophones(audio, source, clock, terminal)
    try:
        started = clock.now()
        read_until(source, blocks, lambda _: clock.now() > started + 0.3, 5)
        device = source._devices[0]
        now = float(device.stream.time)
        for _ in range(2):
            device.blocks.put((np.zeros((960, 2), np.float32), now, now, True))
        assert microphones.next(clock.now() + 0.5) == []
        after: list[AudioBlock] = []
        read_until(source, after, lambda _: clock.now() > started + 1.2, 5)
        stats = source.stats[0]
    finally:
        microphones.close()
    assert stats.overflows == 2 and stats.outages == 0
    assert contiguous(blocks, ("Anna", "Ben")) and contiguous(after, ("Anna", "Ben"))
    assert audio.blocks > 0 and after  # the listener got the blocks around the overflows; reading went on
    assert "(microphones: 2 input overflows so far: the computer fell behind" in terminal.getvalue()
    assert terminal.getvalue().endswith("(microphones: 'vh_mics' (Anna, Ben): 2 overflows, never stopped)\n")
    assert (
        device_summary(DeviceStats("usb", ("Cem",), 1, 2, 7.25))
        == "'usb' (Cem): 1 overflow, stopped 2 times (7.2 s without sound)"
    )


def test_a_speaker_that_ran_dry_is_summed_up_and_a_sound_one_is_not(virtual_table: object) -> None:
    """The closing summary has one line for a speaker whose stream underran (the host's voice had
    gaps: the count comes from its callback's underflow flags, set here as the callback would) and
    none for a speaker that never did."""
    from voicehost.audio.devices import find_device
    from voicehost.speak.output import DeviceSink

    clock = WallClock()
    terminal = io.StringIO()
    device = find_device("vh_table", output=True)
    assert device is not None
    dry, sound = DeviceSink(device, None, clock), DeviceSink(device, 0, clock)
    dry.player.underflows = 3
    source = LiveSource([LiveInput("vh_mics", ("Anna", "Ben"))], clock).start()
    audio = AudioInput(Listener(("Anna", "Ben"), None, []), lambda timeout: source.read(timeout), clock, lambda: [])
    LiveMicrophones(audio, source, clock, terminal, speakers=[dry, sound]).close()
    lines = terminal.getvalue().splitlines()
    speaker_lines = [line for line in lines if line.startswith("(speaker ")]
    assert speaker_lines == [
        "(speaker 'vh_table': 3 underruns: the computer fell behind and the host's voice had short gaps "
        "(close other programs that keep the processor busy))"
    ], lines


def test_the_phones_build_sums_up_its_speakers_too(virtual_table: object) -> None:
    """`--input phones` closes with the same speaker line (its table speaker and earphones), and
    then stops serving the page."""
    from voicehost.audio.devices import find_device
    from voicehost.phones.live import PhoneMicrophones
    from voicehost.speak.output import DeviceSink

    class Server:
        stopped = False

        def stop(self) -> None:
            self.stopped = True

    clock = WallClock()
    terminal = io.StringIO()
    device = find_device("vh_table", output=True)
    assert device is not None
    dry = DeviceSink(device, None, clock)
    dry.player.underflows = 1
    source = LiveSource([LiveInput("vh_mics", ("Anna", "Ben"))], clock).start()
    audio = AudioInput(Listener(("Anna", "Ben"), None, []), lambda timeout: source.read(timeout), clock, lambda: [])
    server = Server()
    PhoneMicrophones(audio, source, clock, terminal, server, speakers=[dry]).close()
    assert "(speaker 'vh_table': 1 underrun: the computer fell behind" in terminal.getvalue()
    assert server.stopped


# ---- `voicehost play --input mic` with a microphone that comes and goes ------------------------


class Play:
    """`voicehost play bimbamm` on the virtual devices, Anna on vh_mics channel 2 and Ben on the
    monitor of the null sink vh9_ben (an ALSA device of its own in a private ALSA config).

    (Anna is on channel 2 because a seat on channel 1 alone makes a mono stream, and a mono stream
    of the 8-channel virtual microphone hears nothing: PulseAudio's remixing is off there, so
    that each channel stays one seat's.)"""

    def __init__(self, tmp: Path, virtual_table: Any) -> None:
        self.tmp = tmp
        config = tmp / "config"
        (config / "alsa").mkdir(parents=True)
        shutil.copy(Path(virtual_table.env()["XDG_CONFIG_HOME"]) / "alsa" / "asoundrc", config / "alsa" / "asoundrc")
        with open(config / "alsa" / "asoundrc", "a") as rc:
            rc.write('pcm.vh9_ben { type pulse; device "vh9_ben.monitor" }\n')
        # A crash in native code (PortAudio, ALSA) then prints every thread's Python stack.
        self.env = {**os.environ, "XDG_CONFIG_HOME": str(config), "PYTHONFAULTHANDLER": "1"}
        (tmp / "table.toml").write_text(
            '[table]\nspeaker = "vh_table"\n'
            '[[seat]]\nname = "Anna"\ninput = { device = "vh_mics", channel = 2 }\n'
            '[[seat]]\nname = "Ben"\ninput = { device = "vh9_ben", channel = 1 }\n'
        )
        self.module: str | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        self.process: subprocess.Popen[str] | None = None

    def load(self) -> None:
        """Plug Ben's microphone in."""
        self.module = pactl(
            "load-module", "module-null-sink", "sink_name=vh9_ben", f"rate={RATE}", "channels=1", "channel_map=mono"
        )

    def unload(self) -> None:
        """Pull Ben's microphone out."""
        if self.module is not None:
            pactl("unload-module", self.module)
            self.module = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "voicehost",
                "play",
                "bimbamm",
                "--players",
                "Anna,Ben",
                "--seed",
                "1",
                "--first",
                "Anna",
                "--cards",
                "dealt",
                "--input",
                "mic",
                "--config",
                str(self.tmp / "table.toml"),
                "--log",
                str(self.tmp / "game.jsonl"),
                "--start-file",
                str(self.tmp / "start.json"),
                "--record",
                str(self.tmp / "rec"),
                "--rate",
                "320",  # words per minute: these tests wait through the welcome, not for its words
            ],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, text: str, timeout: float) -> float:
        """Wait for an output line containing ``text``; the monotonic time it came."""
        came = self.wait_for(text, timeout)
        if came is None:
            pytest.fail(f"no line with {text!r} within {timeout} s; output:\n" + "\n".join(self.output))
        return came

    def wait_for(self, text: str, timeout: float) -> float | None:
        """:meth:`expect`, but None when no such line came in time (or the output ended)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                line = ""
            if line is None:
                self.lines.put(None)  # the end stays visible to the next wait
                return None
            if time.monotonic() > deadline:
                return None
            if line:
                self.output.append(line)
            if text in line:
                return time.monotonic()

    def diagnosis(self) -> str:
        """Why a line did not come: stop the game, then what its recording holds on each seat
        (loudness per half second) and what a replay of it hears."""
        import soundfile as sf

        if self.process is not None and self.process.poll() is None:
            self.interrupt()
        else:  # it ended by itself: the rest of its output
            while (line := self.lines.get(timeout=5)) is not None:
                self.output.append(line)
            self.lines.put(None)
        status = self.process.returncode if self.process is not None else None
        out = [f"exit status {status}; output:", *self.output]
        rec = self.tmp / "rec"
        try:
            audio, rate = sf.read(str(rec / "mics.wav"), dtype="float32", always_2d=True)
        except Exception as error:  # noqa: BLE001 - a diagnosis never hides the failure it explains
            return "\n".join([*out, f"(no recording: {error})"])
        half = rate // 2
        for seat in range(audio.shape[1]):
            levels = [
                float(np.sqrt(np.mean(audio[k : k + half, seat] ** 2)) + 1e-9)
                for k in range(0, audio.shape[0] - half + 1, half)
            ]
            dbfs = " ".join(f"{20 * np.log10(v):.0f}" for v in levels)
            out.append(f"recorded seat {seat + 1}, dBFS per 0.5 s: {dbfs}")
        replay = subprocess.run(
            [sys.executable, "-m", "voicehost", "replay", str(rec), "--log", str(self.tmp / "replayed.jsonl")],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        out += ["replay of the recording:", replay.stdout, replay.stderr]
        return "\n".join(out)

    def interrupt(self) -> int:
        """Ctrl-C; wait for the end; the exit status."""
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)
        try:
            status = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:  # stuck: its threads' stacks (PYTHONFAULTHANDLER) say where
            self.process.send_signal(signal.SIGABRT)
            self.process.wait(timeout=10)
            while (line := self.lines.get(timeout=5)) is not None:
                self.output.append(line)
            pytest.fail("Ctrl-C did not end the game within 20 s; output and stacks:\n" + "\n".join(self.output))
        while (line := self.lines.get(timeout=5)) is not None:
            self.output.append(line)
        return status

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.unload()


@pytest.fixture
def ben_plays(tmp_path: Path, virtual_table: Any, dead_default_source: None) -> Iterator[Play]:
    """A `voicehost play` whose Ben microphone the test can unplug and plug in again."""
    play = Play(tmp_path, virtual_table)
    play.load()
    try:
        yield play
    finally:
        play.close()


def say_into_mics(text: str, channel: int) -> None:
    """A synthetic player says ``text`` into channel ``channel`` (from 1) of the virtual microphone."""
    import sounddevice as sd

    import tools.listen_fixtures as lf
    from voicehost.audio.resample import resample
    from tools.synth import ENGLISH_VOICES

    speech = lf.Renderer().speech(text, ENGLISH_VOICES[2]).astype(np.float32)
    speech = resample(0.3 * speech / np.max(np.abs(speech)), 16000, RATE)
    audio = np.zeros((len(speech) + RATE // 2, 2), dtype=np.float32)
    audio[RATE // 4 : RATE // 4 + len(speech), channel - 1] = speech
    sd.play(audio, RATE, device="vh_mics_play", blocking=True, latency=0.2)


def test_play_pauses_when_a_microphone_is_pulled_out_and_goes_on_when_it_is_back(ben_plays: Play) -> None:
    """Ben's source unloaded mid-game: the host announces the pause (and the terminal says why); loaded
    again: the host says it is back and goes on; the log is intact; Ctrl-C ends with the summary."""
    ben_plays.start()
    ben_plays.expect("host: Welcome to Bim Bamm!", 60)
    ben_plays.unload()
    pulled = time.monotonic()
    note = ben_plays.expect("(microphone 'vh9_ben' (Ben) stopped: no sound for", 10)
    noticed = ben_plays.expect(
        "host: Ben's microphone stopped: the game is paused until it is back. Say continue to go on without it.", 5
    )
    log_before = (ben_plays.tmp / "game.jsonl").read_text()
    ben_plays.load()
    plugged = time.monotonic()
    back = ben_plays.expect("host: Ben's microphone is back. Let's go on.", 15)
    status = ben_plays.interrupt()
    print(
        f"\nstop noticed {note - pulled:.2f} s and announced {noticed - pulled:.2f} s after the unload, "
        f"return announced {back - plugged:.2f} s after the load"
    )
    assert status == 130
    log = (ben_plays.tmp / "game.jsonl").read_text()
    assert log.startswith(log_before) and [e["type"] for e in read_events(ben_plays.tmp / "game.jsonl")][:2] == [
        "setup",
        "turn",
    ]
    assert all(json.loads(line) for line in log.splitlines())
    summary = "\n".join(ben_plays.output)
    assert "(microphones: 'vh_mics' (Anna): 0 overflows, never stopped)" in summary
    assert "(microphones: 'vh9_ben' (Ben): 0 overflows, stopped once (" in summary
    assert "ALSA lib" not in summary and "Expression" not in summary, summary  # reopening quietly


def test_play_goes_on_without_a_stopped_microphone_when_a_player_says_continue(ben_plays: Play) -> None:
    """Ben's source unloaded; once the host has said so, Anna says "continue" into her microphone:
    the game goes on without Ben's; when it is back the host just says so."""
    with SpeakerMonitor() as speaker:
        ben_plays.start()
        ben_plays.expect("host: Welcome to Bim Bamm!", 60)
        ben_plays.unload()
        ben_plays.expect("host: Ben's microphone stopped", 10)
        assert speaker.wait_until_silent(0.5, 60), "the host did not stop talking"
    say_into_mics("continue", 2)
    # In 2 of 3 full runs (and 1 of 10 runs of this file) no "continue" was answered: the game's
    # output had ended a few seconds after the pause (its recording stopped at 2 s). The path it was
    # on, reopening Ben's vanished device every second in its own process, died of a segmentation
    # fault when stressed alone. Tries now happen in a probe process (voicehost/audio/probe.py);
    # should this fail again, the message gives the exit status and what the recording holds.
    if ben_plays.wait_for("host: We go on without Ben's microphone.", 20) is None:
        pytest.fail('"continue" was not answered; ' + ben_plays.diagnosis())
    ben_plays.load()
    ben_plays.expect("host: Ben's microphone is back.", 15)
    assert ben_plays.interrupt() == 130
    assert "Let's go on." not in "\n".join(ben_plays.output)
