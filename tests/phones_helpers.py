"""Phones in the tests: headless chromium instances with fake microphones playing WAV files.

Chromium plays a ``--use-file-for-fake-audio-capture`` file in a loop, from the moment the page
opens the microphone; each loop adds a few milliseconds of its own (4.3 ms for a 3 s 16 kHz
file, measured). So a test WAV is one self-contained *scene* that repeats: the calibration click
train "from the table speaker" at :data:`TRAIN_AT`, then a race fixture's track at
:data:`RACE_AT`. Truth is always taken relative to the click train of the same loop: the room
the file stands for is one loop long.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "audio_fixtures"
RATE = 16000
TRAIN_AT = 0.3
"""Seconds into the loop where the click train's buffer begins."""
RACE_AT = 3.0
"""Seconds into the loop where the race fixture's track begins."""
TAIL = 0.5
"""Seconds after the race track before the loop repeats."""
TRAIN_GAIN = 0.3
"""The clicks as a phone at the table hears them (quieter than the speaker's 0.7 peak)."""


@dataclass(frozen=True)
class RaceFixture:
    """A committed race with its truth."""

    name: str
    seats: tuple[str, ...]
    tracks: dict[str, np.ndarray]
    """float32 mono at 16 kHz."""
    truth: dict[str, tuple[str, float]]
    """seat → (phrase, onset seconds in its track)."""


def race_fixture(name: str) -> RaceFixture:
    """A race from audio_fixtures (per-seat WAVs or one multichannel WAV)."""
    from voicehost.listen.sources import load_multichannel, load_tracks

    data = json.loads((FIXTURES / f"{name}.json").read_text())
    seats = tuple(data["seats"])
    whole = FIXTURES / f"{name}.wav"
    rec = (
        load_multichannel(whole, seats)
        if whole.exists()
        else load_tracks([(s, FIXTURES / f"{name}.{s}.wav") for s in seats])
    )
    tracks = {s: rec.samples[:, i].copy() for i, s in enumerate(seats)}
    truth = {s["seat"]: (s["phrase"], float(s["onset"])) for s in data["sounds"] if s["kind"] == "shout"}
    return RaceFixture(name, seats, tracks, truth)


def loop_wav(track: np.ndarray, path: Path, seed: int) -> float:
    """Write the scene for one phone: noise like the track's start, the click train, the track.
    Returns the loop's length in seconds (as written)."""
    import soundfile

    from voicehost.phones.calibrate import click_train

    length = RACE_AT + track.shape[0] / RATE + TAIL
    level = float(np.sqrt(np.mean(track[: int(0.4 * RATE)] ** 2))) or 1e-4
    scene = (np.random.default_rng(seed).standard_normal(int(round(length * RATE))) * level).astype(np.float32)
    train = click_train(RATE).samples * TRAIN_GAIN
    at = int(round(TRAIN_AT * RATE))
    scene[at : at + train.shape[0]] += train
    at = int(round(RACE_AT * RATE))
    scene[at : at + track.shape[0]] = track
    soundfile.write(str(path), np.clip(scene, -1, 1), RATE, subtype="PCM_16")
    return scene.shape[0] / RATE


class Phone:
    """One headless chromium showing the phones' page, its microphone fed from a WAV file."""

    def __init__(self, url: str, wav: Path | None, env: dict[str, str] | None = None, *, debug: bool = False) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="voicehost-chromium-"))
        args = [
            "chromium",
            "--headless=new",
            "--no-sandbox",
            "--no-first-run",
            "--disable-gpu",
            "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream",
            "--autoplay-policy=no-user-gesture-required",
            "--ignore-certificate-errors",
            f"--user-data-dir={self.profile}",
        ]
        if wav is not None:
            args.append(f"--use-file-for-fake-audio-capture={wav}")
        if debug:
            args.append("--remote-debugging-port=0")
        self.process = subprocess.Popen(
            [*_priority(), *args, url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )

    def evaluate(self, expression: str, timeout: float = 10.0) -> Any:
        """The value of a JavaScript expression in the page (Chrome DevTools Protocol)."""
        import urllib.request

        from websockets.sync.client import connect

        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not open its debugging port")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as answer:
            pages = [p for p in json.loads(answer.read()) if p.get("type") == "page"]
        with connect(pages[0]["webSocketDebuggerUrl"], open_timeout=timeout, max_size=None) as ws:
            ws.send(
                json.dumps(
                    {"id": 1, "method": "Runtime.evaluate", "params": {"expression": expression, "returnByValue": True}}
                )
            )
            while True:
                reply = json.loads(ws.recv(timeout=timeout))
                if reply.get("id") == 1:
                    return reply["result"]["result"].get("value")

    def stop(self) -> None:
        """End this chromium (its process group's children go with it)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


BIMBAMM_ANIMALS = ("cat", "dog", "pig", "donkey", "hen")


@dataclass
class RaceRun:
    """What a race session through phones gave."""

    seats: tuple[str, ...]
    loop: float
    """Seconds of one loop as written."""
    shifts: dict[str, float]
    """Seconds each phone was moved earlier by the calibration."""
    spread: dict[str, float]
    """Seconds: how much single clicks disagreed per phone."""
    shouts: list[Any]
    """Every Shout heard, in onset order."""
    audio: dict[str, np.ndarray]
    """Each seat's placed audio from :attr:`first_frame` on (16 kHz)."""
    first_frame: int
    stats: dict[str, Any]
    """seat → PhoneStats at the end."""
    jitter: dict[str, float]
    """seat → median minus shortest ping round trip, seconds."""


def run_race(
    fixture: RaceFixture,
    folder: Path,
    seconds: float,
    *,
    recognizer: Any,
    env: dict[str, str] | None = None,
    speaker: Any = None,
    log: Any = print,
) -> RaceRun:
    """Phones (one chromium each) play the fixture's scene in a loop; the host calibrates with
    its click train (``speaker``: a ClickPlayer, default a silent one) and listens for
    ``seconds`` through the real pipeline."""
    from voicehost.clock import WallClock
    from voicehost.listen.pipeline import Listener
    from voicehost.host.calibrate import SetupFailed
    from voicehost.phones.calibrate import SeatRecorder, measure_delays
    from voicehost.phones.server import PhoneServer
    from voicehost.phones.source import PhoneSource

    seats = fixture.seats
    loops = {s: loop_wav(fixture.tracks[s], folder / f"{s}.wav", seed=i + 1) for i, s in enumerate(seats)}
    loop = max(loops.values())
    clock = WallClock()
    server = PhoneServer(seats, host="127.0.0.1", port=0).start()
    phones = []
    try:
        for s in seats:
            phones.append(Phone(f"http://127.0.0.1:{server.port}/?name={s}&join=1", folder / f"{s}.wav", env))
        if not server.wait_for(seats, 60.0):
            raise TimeoutError(f"phones did not join: {set(seats) - set(server.seated())}")
        source = PhoneSource(server, seats, clock)
        source.start(timeout=30.0)
        settle(source, log=log)
        recorder = SeatRecorder(source, seats, RATE).start()
        try:
            try:
                delays = measure_delays(recorder, speaker or SilentSpeaker(clock), search=(-0.05, loop + 0.2), log=log)
            except SetupFailed:
                # A just-started chromium may lose its first buffers (seen in a clean run: Ben heard
                # 1 of 6 clicks); the product plays the clicks again too (phones/live.py, TRIES).
                delays = measure_delays(recorder, speaker or SilentSpeaker(clock), search=(-0.05, loop + 0.2), log=log)
        finally:
            recorder.stop()
        shifts = {str(k): float(v) for k, v in delays.offsets.offsets.items()}
        source.set_shifts(shifts)
        listener = Listener(seats, recognizer, list(BIMBAMM_ANIMALS))
        chunks: dict[str, list[tuple[int, np.ndarray]]] = {s: [] for s in seats}
        shouts: list[Any] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for block in source.read(0.1):
                chunks[block.seats[0]].append((block.start_frame, block.samples[:, 0]))
                shouts.extend(listener.feed(block))
        shouts.extend(listener.flush())
        first = max(c[0][0] for c in chunks.values())
        last = min(c[-1][0] + c[-1][1].shape[0] for c in chunks.values())
        audio = {s: _assemble(chunks[s], first, last) for s in seats}
        stats = {s: source.phone_stats(s) for s in seats}
        jitter = {}
        for s in seats:
            link = server.link(s)
            jitter[s] = link.sync.jitter() if link is not None else float("nan")
        return RaceRun(
            seats,
            loop,
            shifts,
            {str(k): float(v) for k, v in delays.offsets.spread.items()},
            sorted(shouts, key=lambda x: x.onset),
            audio,
            first,
            stats,
            jitter,
        )
    finally:
        for phone in phones:
            phone.stop()
        server.stop()


class SilentSpeaker:
    """A table speaker nobody hears: the phones' files hold the clicks (see the module's doc)."""

    rate = 48000

    def __init__(self, clock: Any) -> None:
        self.clock = clock

    def play(self, samples: np.ndarray) -> float:
        """Return now, as if the clicks left the speaker now."""
        return float(self.clock.now())


def _assemble(chunks: list[tuple[int, np.ndarray]], first: int, last: int) -> np.ndarray:
    out = np.zeros(max(0, last - first), np.float32)
    for start, samples in chunks:
        lo, hi = max(first, start), min(last, start + samples.shape[0])
        if lo < hi:
            out[lo - first : hi - first] = samples[lo - start : hi - start]
    return out


@dataclass(frozen=True)
class LoopCheck:
    """One loop of the scene as the host placed it."""

    train: dict[str, float]
    """Session seconds where each phone's click train begins (after the shift)."""
    onset_errors: dict[str, float]
    """seat → heard onset minus truth (seconds), truth placed from the loop's click train."""
    order: tuple[str, ...]
    """Seats in the order heard."""


def check_loops(run: RaceRun, fixture: RaceFixture) -> list[LoopCheck]:
    """Find every loop whose click train is whole in every seat's placed audio; compare what was
    heard in it with the truth."""
    from voicehost.phones.calibrate import click_train

    template = click_train(RATE).samples
    trains = {s: _trains(run.audio[s], template, run.loop) for s in run.seats}
    checks = []
    for at in trains[run.seats[0]]:
        found = {}
        for s in run.seats:
            near = [v for v in trains[s] if abs(v - at) < run.loop * RATE / 2]
            if near:
                found[s] = near[0]
        if len(found) < len(run.seats):
            continue
        train = {s: (run.first_frame + v) / RATE for s, v in found.items()}
        common = float(np.median(list(train.values())))
        race_start = common - TRAIN_AT + RACE_AT
        heard = [x for x in run.shouts if race_start <= x.onset < race_start + run.loop - RACE_AT]
        errors = {
            x.player: x.onset - (race_start + fixture.truth[x.player][1]) for x in heard if x.player in fixture.truth
        }
        checks.append(LoopCheck(train, errors, tuple(x.player for x in heard)))
    return checks


def _trains(audio: np.ndarray, template: np.ndarray, loop: float) -> list[int]:
    """Where whole click trains begin in ``audio`` (sample indices, in order): the best match of
    ``template``, then the best at least half a loop from every one found, while a match is at
    least half as strong as the best (the scene's trains all have one level). A train cut off at
    either end of the audio is not found (before 2026-12-02 a fixed first window could hold only
    a cut train, and a shout was taken for it)."""
    from voicehost.phones.calibrate import match_strength

    magnitude = match_strength(audio, template)
    if magnitude.shape[0] <= 0:
        return []
    best = float(magnitude.max())
    if best <= 1e-9 or best < 8.0 * float(np.median(magnitude)):
        return []
    half = int(loop * RATE / 2)
    found = []
    while True:
        peak = int(np.argmax(magnitude))
        if magnitude[peak] < 0.5 * best:
            break
        found.append(peak)
        magnitude[max(0, peak - half) : peak + half] = 0.0
    return sorted(found)


def _priority() -> list[str]:
    """A command to run chromium under, from VOICEHOST_CHROMIUM_PREFIX (e.g. ``chrt -r 5``;
    bench/bench_phones.py); unset: ``nice -n -10`` where allowed (as root, as CI runs), else
    nothing. Chromium's fake audio devices lose 10 ms buffers when they are woken late, which a
    phone's real audio device does not; the host itself keeps its normal priority."""
    import os
    import shlex

    prefix = os.environ.get("VOICEHOST_CHROMIUM_PREFIX")
    if prefix is not None:
        return shlex.split(prefix)
    return ["nice", "-n", "-10"] if os.geteuid() == 0 else []


def settle(source: Any, seconds: float = 4.0, timeout: float = 40.0, log: Any = print) -> float:
    """Read (and drop) the phones' sound until every phone has delivered sound at the real-time
    rate for ``seconds`` in a row (within :data:`SETTLED`), at most ``timeout`` s; returns the
    seconds waited. A just-started chromium's fake microphone runs slow and drops buffers while
    the browser is still starting on a loaded 2-core machine (seen in CI: a phone heard 1 of 6
    clicks, or its sound slipped by seconds); a phone is started long before the game."""
    start = time.monotonic()
    history: list[tuple[float, dict[str, int]]] = []
    frames = {s: 0 for s in source.seats}
    while True:
        for block in source.read(0.1):
            frames[block.seats[0]] += block.samples.shape[0]
        now = time.monotonic()
        history.append((now, dict(frames)))
        while len(history) > 1 and now - history[1][0] >= seconds:
            history.pop(0)
        then, before = history[0]
        if now - then >= seconds:
            rates = {s: (frames[s] - before[s]) / (RATE * (now - then)) for s in frames}
            if all(abs(r - 1.0) <= SETTLED for r in rates.values()):
                return now - start
        if now - start >= timeout:
            log(f"the phones did not settle within {timeout:g} s; going on")
            return now - start


SETTLED = 0.015
"""How far from the real-time rate (a fraction) a settled phone's sound may come: 60 ms in 4 s,
more than blocks arriving in bursts, less than a starting chromium's slow fake microphone."""
