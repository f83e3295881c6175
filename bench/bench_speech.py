"""Benchmark the host's voice: how soon the first audio starts, and how fast a barge-in silences it.

    .venv/bin/python bench/bench_speech.py [--runs 40] [--device DEV] [--seed 7]

Without --device it starts a private PulseAudio daemon with virtual sinks (as the test suite
does) and plays on its table speaker, recording the speaker's monitor to check what was heard.

Measured per run, on the session clock:
- first audio: from ``say()`` to the moment the first sample reaches the speaker (PortAudio's
  DAC time of that sample), cold (cache cleared: espeak-ng renders) and cached;
- stop: from ``interrupt()`` to the last audible sample recorded on the speaker's monitor
  (so it includes the device's buffer), and to the end the service published.
Also: espeak-ng render time per sentence, and the simulated-clock path (no device) per sentence.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SENTENCES = [
    "Short-statured circus artists have influenced my family planning.",
    "My grandmother always brings a unicorn to the dentist.",
    "The Pope was seen dancing with an Englishman in Paris.",
    "Nobody expected a one-legged pirate at the wedding.",
    "Angela Merkel has never understood my tax return.",
    "An hour of yoga is more dangerous than a haunted castle.",
    "Three angry geese were hiding behind the vacuum cleaner.",
    "I blame the neighbour's parrot for the broken window.",
]
"""Typical BAM! sentences: a red card with its grey cards filled in, 2.5 to 4 seconds of speech."""
RATE = 48000
AUDIBLE = 10 ** (-50 / 20)


def stats(values: list[float]) -> str:
    """'median / p95 / max' in milliseconds."""
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"{statistics.median(ms):7.1f} {p95:7.1f} {ms[-1]:7.1f}"


class Monitor:
    """Records a monitor source with its ADC times (session time of every sample)."""

    def __init__(self, device: str, clock: Any) -> None:
        import sounddevice as sd

        self.blocks: list[tuple[float, np.ndarray]] = []
        self.lock = threading.Lock()
        self.stream = sd.InputStream(
            device=device, channels=1, samplerate=RATE, dtype="float32", latency=0.05, callback=self._callback
        )
        self.stream.start()
        self.offset = clock.now() - float(self.stream.time)

    def _callback(self, data: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        with self.lock:
            self.blocks.append((float(time_info.inputBufferAdcTime), data[:, 0].copy()))

    def last_audible(self, since: float, until: float) -> float | None:
        """Session time of the last audible sample between ``since`` and ``until``."""
        with self.lock:
            blocks = list(self.blocks)
        adc = np.array([t for t, _ in blocks])
        before = np.concatenate([[0], np.cumsum([b.shape[0] for _, b in blocks])[:-1]]) / RATE
        base = float(np.median((adc - before)[-400:])) + self.offset
        data = np.concatenate([b for _, b in blocks])
        lo, hi = max(0, int((since - base) * RATE)), max(0, int((until - base) * RATE))
        loud = np.flatnonzero(np.abs(data[lo:hi]) > AUDIBLE)
        return None if loud.size == 0 else base + (lo + loud[-1] + 1) / RATE

    def close(self) -> None:
        self.stream.stop()
        self.stream.close()


def measure_device(args: argparse.Namespace) -> None:
    from voicehost.audio.devices import find_device
    from voicehost.clock import WallClock
    from voicehost.speak.output import TABLE, DeviceSink
    from voicehost.speak.service import SpeechService
    from voicehost.speak.voice import EspeakVoice

    rng = random.Random(args.seed)
    started = time.perf_counter()
    voice = EspeakVoice()
    voice_init = time.perf_counter() - started
    clock = WallClock()
    device = find_device(args.device, output=True)
    assert device is not None
    sink = DeviceSink(device, None, clock)
    started = time.perf_counter()
    sink.open()
    stream_open = time.perf_counter() - started
    service = SpeechService(voice, {TABLE: sink}, clock).open()
    monitor = Monitor(args.monitor, clock) if args.monitor else None
    time.sleep(1.0)
    renders = []
    for text in SENTENCES * 3:
        t = time.perf_counter()
        voice.render(text)
        renders.append(time.perf_counter() - t)
    first: dict[str, list[float]] = {"cold": [], "cached": []}
    published_stop: list[float] = []
    heard_stop: list[float] = []
    total = 2 * args.runs
    for i in range(total):
        mode = "cold" if i % 2 == 0 else "cached"
        text = rng.choice(SENTENCES)
        if mode == "cold":
            service.cache.clear()
        else:
            service.warm([text])
        called = clock.now()
        spoken = service.say(text)
        deadline = time.monotonic() + 5
        while spoken.span is None and time.monotonic() < deadline:
            time.sleep(0.001)
        assert spoken.span is not None, spoken.error
        first[mode].append(spoken.span.start - called)
        clock.sleep(spoken.span.start + rng.uniform(0.3, 1.2) - clock.now())
        cut = clock.now()
        silent = service.interrupt()
        published_stop.append(silent - cut)
        time.sleep(0.35)
        if monitor is not None:
            last = monitor.last_audible(cut - 0.5, cut + 0.3)
            if last is not None:
                heard_stop.append(last - cut)
        print(f"\rrun {i + 1}/{total}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    underflows = sink.player.underflows
    latency = sink.player.output_latency
    service.close()
    if monitor is not None:
        monitor.close()
    print(
        f"device: {device.name!r}, stream {sink.rate} Hz, reported output latency {latency * 1000:.1f} ms, "
        f"underflows {underflows}"
    )
    print(f"one-off: EspeakVoice() {voice_init * 1000:.0f} ms, open + start stream {stream_open * 1000:.0f} ms")
    print()
    print(f"{'measure (ms)':44} {'median':>7} {'p95':>7} {'max':>7}   n")
    print(f"{'espeak-ng render, one BAM! sentence':44} {stats(renders)}  {len(renders)}")
    print(f"{'say() → first sample at speaker, cold':44} {stats(first['cold'])}  {len(first['cold'])}")
    print(f"{'say() → first sample at speaker, cached':44} {stats(first['cached'])}  {len(first['cached'])}")
    print(f"{'interrupt() → published end of sound':44} {stats(published_stop)}  {len(published_stop)}")
    if heard_stop:
        print(f"{'interrupt() → last audible sample (monitor)':44} {stats(heard_stop)}  {len(heard_stop)}")


def measure_timeline(args: argparse.Namespace) -> None:
    from voicehost.clock import SimClock
    from voicehost.speak.output import TABLE, NullSink
    from voicehost.speak.service import SpeechService
    from voicehost.speak.voice import EspeakVoice

    service = SpeechService(EspeakVoice(), {TABLE: NullSink()}, SimClock())
    cold, cached = [], []
    for i in range(args.runs):
        text = f"{SENTENCES[i % len(SENTENCES)]} Round {i}."
        t = time.perf_counter()
        service.say(text)
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        service.say(text)
        cached.append(time.perf_counter() - t)
    print(f"{'simulated clock: say() returns, cold':44} {stats(cold)}  {len(cold)}")
    print(f"{'simulated clock: say() returns, cached':44} {stats(cached)}  {len(cached)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=40, help="runs per measure (default 40)")
    parser.add_argument("--device", help="output device (default: a private virtual table's speaker)")
    parser.add_argument("--monitor", help="input device that hears --device (default: the virtual table's monitor)")
    parser.add_argument("--seed", type=int, default=7, help="seed for sentence choice and interrupt times")
    args = parser.parse_args()
    table = None
    if args.device is None:
        from voicehost.audio.pulse import VirtualTable

        table = VirtualTable(Path(tempfile.mkdtemp(prefix="voicehost-bench-")), seats=2).start()
        os.environ.update(table.env())  # before sounddevice is imported
        args.device, args.monitor = "vh_table", "vh_table_monitor"
    try:
        measure_device(args)
        measure_timeline(args)
    finally:
        if table is not None:
            table.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
