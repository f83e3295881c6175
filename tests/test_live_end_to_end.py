"""A recorded game played into the virtual microphones while `voicehost play --input mic` runs,
as a user would run it: the game's events equal the recording's, and the host's speech arrives
on the virtual table speaker.

The recording (audio_fixtures/live/bimbamm_live.toml, rendered on the fly) is fed into
``vh_mics_play`` in step with the session: ``play --start-file`` reports the moment t = 0 on the
system's monotonic clock, and the feeding stream places the recording's frame 0 at that moment
using its DAC times. Both ends are PulseAudio's own bookkeeping (DAC time of the feeding stream,
ADC time of voicehost's primed capture stream); they agree to within a few milliseconds (measured
by `test_live_mics`' click test), which the recorded microphones confirm below.

What this cannot prove: real microphones hear the room (here each seat hears only its own
channel plus the rendered crosstalk, not the table speaker), and real devices drift apart.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from tests.audio_helpers import active_span
from tests.conftest import ROOT
from tests.live_helpers import AUDIBLE_DB, SpeakerMonitor
from voicehost.eventlog import read_events
from tools.session_fixtures import generate_fresh, load_spec
from voicehost.host.live import compare_events
from voicehost.audio.resample import resample

SPEC = ROOT / "audio_fixtures" / "live" / "bimbamm_live.toml"
ENGINE = "sphinx"
"""The live path is proven with PocketSphinx, as the recording's voices were chosen for it: Whisper
(the default) takes Ben's late 'cat' as uncertain and asks him back, which the recording does not
answer (see the spec's comment; issue 12 stays open)."""
RATE = 48000
"""Hz: the virtual sinks' rate (feeding at it avoids PulseAudio's resampler)."""
ONSET_TOLERANCE = 0.1
"""Seconds two onsets (live vs recorded) may differ. Measured: the feed lands within 10 ms of its
place (the recorded microphones below), and the onset detector places a line within 60 ms of its
true start whatever the block boundaries (test_replay_sessions); 0.1 s covers both with room for
the 20 ms capture blocks, and is still far below the 0.45 s between two shouts of the race."""
ALIGNMENT_TOLERANCE = 0.03
"""Seconds the recorded microphones may be shifted from the fed recording (see ONSET_TOLERANCE)."""


class Feeder:
    """Plays a recording into the virtual microphones (``vh_mics_play``), frame 0 at the monotonic
    time :attr:`origin` (set once known); silence before and after."""

    def __init__(self, samples: np.ndarray, rate: int) -> None:
        import sounddevice as sd

        self.audio = np.stack([resample(samples[:, k], rate, RATE) for k in range(samples.shape[1])], axis=1)
        self.origin: float | None = None
        self.position: int | None = None
        """Frame of the recording the next buffer starts with."""
        self.underflows = 0
        """Buffers PortAudio could not play in time (the microphones then heard zeros, late audio)."""
        # 0.2 s of buffer: a busy machine (CI's two cores, the game's recogniser in another process)
        # stalled the default low-latency stream, and its underruns shifted a shout by 0.45 s.
        self._stream = sd.OutputStream(
            device="vh_mics_play",
            channels=self.audio.shape[1],
            samplerate=RATE,
            dtype="float32",
            latency=0.2,
            callback=self._callback,
        )

    def _callback(self, out: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        out.fill(0.0)
        self.underflows += bool(status.output_underflow) and self.position is not None
        if self.origin is None:
            return
        if self.position is None:
            dac = float(time_info.outputBufferDacTime) + self._offset
            self.position = int(round((dac - self.origin) * RATE))
        a, b = max(self.position, 0), min(self.position + frames, self.audio.shape[0])
        if b > a:
            out[a - self.position : b - self.position] = self.audio[a:b]
        self.position += frames

    @property
    def done(self) -> bool:
        """True once the whole recording has been played."""
        return self.position is not None and self.position >= self.audio.shape[0]

    def __enter__(self) -> "Feeder":
        self._stream.start()
        self._offset = time.monotonic() - float(self._stream.time)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.abort()
        self._stream.close()


@dataclass
class LiveRun:
    """One `voicehost play` session fed with a recording."""

    output: list[str] = field(default_factory=list)
    returncode: int | None = None
    origin: float = 0.0
    """Monotonic seconds at the session's t = 0."""
    speaker: tuple[float, np.ndarray] = (0.0, np.zeros(0, np.float32))
    """(session time of the first sample, what the table speaker played at 16 kHz)."""
    underflows: int = 0
    """Buffers the feeder could not play in time (see Feeder.underflows)."""


def table_config(path: Path, anna: int, ben: int) -> Path:
    """A table config: Anna and Ben on channels of the virtual microphone, earphones on vh_phones."""
    path.write_text(
        '[table]\nspeaker = "vh_table"\n'
        f'[[seat]]\nname = "Anna"\ninput = {{ device = "vh_mics", channel = {anna} }}\n'
        'output = { device = "vh_phones", channel = 1 }\n'
        f'[[seat]]\nname = "Ben"\ninput = {{ device = "vh_mics", channel = {ben} }}\n'
        'output = { device = "vh_phones", channel = 2 }\n'
    )
    return path


def play_live(
    recording: Path, table: Path, out: Path, *, stop_at: float | None = None, timeout: float = 100.0
) -> LiveRun:
    """Run `voicehost play` on the virtual devices and feed it ``recording`` from t = 0; stop it with
    Ctrl-C at session time ``stop_at`` (None: wait until the game ends)."""
    samples, rate = soundfile.read(str(recording), dtype="float32", always_2d=True)
    start_file = out / "start.json"
    run = LiveRun()
    args = [
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
        "--engine",
        ENGINE,
        "--config",
        str(table),
        "--log",
        str(out / "live.jsonl"),
        "--record",
        str(out / "recorded"),
        "--start-file",
        str(start_file),
    ]
    with SpeakerMonitor() as monitor, Feeder(samples, rate) as feeder:
        process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_read_lines, args=(process, lines), daemon=True).start()
        deadline = time.monotonic() + timeout
        try:
            while not start_file.exists():
                assert process.poll() is None and time.monotonic() < deadline, "play did not start:\n" + _drain(
                    lines, run
                )
                time.sleep(0.01)
            time.sleep(0.05)
            run.origin = feeder.origin = float(json.loads(start_file.read_text())["monotonic"])
            while process.poll() is None:
                assert time.monotonic() < deadline, "play did not finish in time:\n" + _drain(lines, run)
                if stop_at is not None and time.monotonic() - run.origin > stop_at:
                    process.send_signal(signal.SIGINT)
                    stop_at = None
                time.sleep(0.05)
            run.returncode = process.wait(timeout=10)
        finally:
            if process.poll() is None:
                process.kill()
        _drain(lines, run)
        run.speaker = monitor.audio(run.origin)
        run.underflows = feeder.underflows
    return run


def _read_lines(process: subprocess.Popen[str], lines: "queue.Queue[str | None]") -> None:
    for line in process.stdout or ():
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _drain(lines: "queue.Queue[str | None]", run: LiveRun) -> str:
    while True:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            break
        if line is None:
            break
        run.output.append(line)
    return "\n".join(run.output)


def recorded_shift(
    fed: np.ndarray, recorded: np.ndarray, start_frame: int, t: float, rate: int = 16000
) -> float | None:
    """Seconds by which the line fed at session time ``t`` lies later in the live recording (whose
    first frame is session frame ``start_frame``): cross-correlation of 1.5 s, searched over ±0.3 s;
    None when the recording ends too soon after the line (the game ended)."""
    a, n, search = int((t - 0.2) * rate), int(1.5 * rate), int(0.3 * rate)
    piece = fed[a : a + n]
    lo = a - start_frame - search
    assert lo >= 0, "the line lies before the live recording started"
    if lo + n + 2 * search > len(recorded):
        return None
    window = recorded[lo : lo + n + 2 * search]
    scores = [float(np.dot(piece, window[k : k + n])) for k in range(len(window) - n + 1)]
    return (int(np.argmax(scores)) - search) / rate


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The e2e game rendered as a recorded session (players only: their headsets do not hear the speaker)."""
    out = tmp_path_factory.mktemp("e2e")
    generate_fresh(SPEC, out)
    return out / SPEC.stem


def test_a_recorded_game_played_into_the_microphones_gives_the_recorded_events(session: Path, tmp_path: Path) -> None:
    """`voicehost play --input mic` hearing the recording through vh_mics gives the recording's events
    (onsets within ONSET_TOLERANCE), says its lines on the virtual speaker, and sums up its microphones.
    Anna's stray sentence on her turn ("I think I'll go for eleven", PocketSphinx on the grammar
    derived from the phrases allowed then) turns no tile: the first flip is her "flip two"."""
    run = play_live(session / "mics.flac", table_config(tmp_path / "table.toml", 1, 2), tmp_path)
    text = "\n".join(run.output)
    assert run.returncode == 0, text
    expected, live = read_events(session / "events.jsonl"), read_events(tmp_path / "live.jsonl")
    assert compare_events(expected, live, tolerance=ONSET_TOLERANCE) == [], (
        f"{text}\n(feeder underflows: {run.underflows})"
    )
    stray, flip = load_spec(SPEC).lines[:2]
    assert "eleven" in stray.text and flip.text == "flip two"
    flips = [e for e in live if e["type"] == "flip"]
    assert flips and flips[0]["t"] > flip.t, (
        f"a tile turned before Anna's 'flip two' (her stray sentence acted on?):\n{text}"
    )
    shouts = [(e["player"], round(g["onset"] - e["onset"], 3)) for e, g in zip(expected, live) if e["type"] == "shout"]
    print(f"\nonsets live - recorded: {shouts}")
    assert len(shouts) == 2

    data = json.loads((tmp_path / "recorded" / "session.json").read_text())
    recorded, _ = soundfile.read(str(tmp_path / "recorded" / "mics.wav"), dtype="float32", always_2d=True)
    fed, _ = soundfile.read(str(session / "mics.flac"), dtype="float32", always_2d=True)
    spec = load_spec(SPEC)
    found = [
        recorded_shift(
            fed[:, spec.players.index(line.player)],
            recorded[:, spec.players.index(line.player)],
            int(data["start_frame"]),
            line.t,
        )
        for line in spec.lines
    ]
    shifts = [s for s in found if s is not None]
    print(f"recorded microphones vs fed recording, per line (s): {[round(s, 4) for s in shifts]}")
    assert len(shifts) >= 4 and max(abs(s) for s in shifts) <= ALIGNMENT_TOLERANCE

    first, speaker = run.speaker
    span = active_span(speaker, 16000, floor_db=AUDIBLE_DB)
    assert span is not None, "nothing arrived on the table speaker"
    host = [json.loads(line) for line in (tmp_path / "recorded" / "spans.jsonl").read_text().splitlines()]
    arrived = first + span[0]
    print(f"host's first words: at {arrived:.3f} s on the speaker, {host[0]['start']:.3f} s in the session's spans")
    assert abs(arrived - host[0]["start"]) <= 0.05
    loud = np.abs(speaker) > 10 ** (AUDIBLE_DB / 20)
    assert loud.mean() > 0.3, "the host spoke for less than a third of the game"

    summary = [line for line in run.output if line.startswith("(microphones: 'vh_mics'")]
    print("\n".join(summary))
    assert summary and "never stopped" in summary[0]


def test_a_wrong_seat_mapping_makes_the_events_differ(session: Path, tmp_path: Path) -> None:
    """With Anna and Ben's channels swapped in the table config, Anna's first flip comes from Ben's
    seat, whose microphone does not listen for tile numbers on Anna's turn: no flip is heard and
    the events part from the recording's (the comparison can fail)."""
    stop = load_spec(SPEC).lines[1].t + 3.0
    run = play_live(session / "mics.flac", table_config(tmp_path / "table.toml", 2, 1), tmp_path, stop_at=stop)
    expected = [e for e in read_events(session / "events.jsonl") if e["t"] <= stop]
    live = read_events(tmp_path / "live.jsonl")
    assert run.returncode == 130, "\n".join(run.output)
    assert [e["type"] for e in expected] == ["setup", "turn", "flip", "turn"]
    assert compare_events(expected, live, tolerance=ONSET_TOLERANCE) != [], "\n".join(run.output)
    assert [e["type"] for e in live if e["type"] in ("flip", "turn")] == ["turn"], "\n".join(run.output)
