"""Sessions that listen to audio: live microphones (``--input mic``) and recorded sessions (replay).

Both run the same flow, session loop and listening pipeline; they differ in where the blocks
come from (sounddevice streams on the wall clock, or a WAV on a simulated clock) and where the
host's voice goes (sound devices, or a timeline).
"""

from __future__ import annotations

import json
import random
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Sequence, TextIO

import numpy as np

from voicehost.clock import SimClock
from voicehost.errors import InputError
from voicehost.eventlog import EventLogWriter
from voicehost.files import CONFIG_LIMIT, parse_json, read_text
from voicehost.host.build import (
    Built,
    PlaySettings,
    SettingsError,
    build_flow,
    host_voice,
    timeline_outputs,
    transcript_printer,
)
from voicehost.host.listening import (
    EVENTS_FILE,
    MICS_FILE,
    SESSION_FILE,
    SPANS_FILE,
    AudioInput,
    ReferenceTap,
    SessionRecorder,
    Span,
    file_reader,
    host_path,
    mics_path,
    read_spans,
)
from voicehost.host.mouth import Mouth
from voicehost.host.session import Host
from voicehost.listen.echo import Reference
from voicehost.listen.messages import AudioBlock


@dataclass(frozen=True)
class ListenSettings:
    """How to listen."""

    lang: str = "en"
    engine: str = "auto"
    """'auto', 'vosk', 'whisper' or 'sphinx'."""
    model: Path | None = None
    """A Vosk model folder (overrides the choice by language)."""
    enrolment: Path | None = None
    """A folder with one subfolder of enrolment takes per player (``voicehost enrol``), if any."""


def session_settings(settings: PlaySettings, listen: ListenSettings) -> dict[str, Any]:
    """What a recording keeps about its session (enough to replay it)."""
    options = {
        k: (list(v) if isinstance(v, tuple) else v)
        for k, v in settings.options.items()
        if isinstance(v, (str, int, float, bool, list, tuple)) or v is None
    }
    return {
        "game": settings.game,
        "players": list(settings.players),
        "seed": settings.seed,
        "options": options,
        "lang": listen.lang,
        "engine": listen.engine,
        "model": str(listen.model) if listen.model else None,
        "speech_rate": settings.speech_rate,
        "voice": settings.voice,
        "events": str(Path(settings.log).resolve()) if settings.log else None,
    }


def make_listener(
    seats: tuple[str, ...], listen: ListenSettings, offsets: dict[str, float], stdout: TextIO, helper: bool = False
) -> Any:
    """The listening pipeline with the recogniser for the language (built once, shared by all seats);
    ``helper`` (live tables): a second recogniser in its own process takes every other sound of a
    race (listen/helper.py; ``VOICEHOST_HELPER=off`` turns it off)."""
    from functools import partial

    from voicehost.host.words import COMMAND_PHRASES
    from voicehost.listen import helper as helpers
    from voicehost.listen.pipeline import ListenConfig, Listener

    enrolled = {
        name: listen.enrolment / name
        for name in seats
        if listen.enrolment is not None and (listen.enrolment / name).is_dir()
    }
    recognizer = helpers.table_recognizer(listen.lang, listen.engine, listen.model, enrolled)
    if enrolled and getattr(recognizer, "enrol", None) is None:
        print(f"(enrolment takes in {listen.enrolment} are not used: {recognizer.name} cannot use them)", file=stdout)
    print(f"(listening with {getattr(recognizer, 'description', recognizer.name)})", file=stdout, flush=True)
    second = None
    if helper and not helpers.disabled():
        second = helpers.Helper(partial(helpers.table_recognizer, listen.lang, listen.engine, listen.model, enrolled))
    return Listener(
        seats,
        recognizer,
        [],
        offsets=offsets,
        config=ListenConfig(report_uncertain=True),
        helper=second,
        strict=frozenset(COMMAND_PHRASES),
    )


def listening_phrases(flow: Any) -> list[str]:
    """What the microphones listen for: the game's phrases of the moment, the session's "yes"/"no"
    while it asks a player back, and the global commands ("repeat", "pause", "continue", "quit" …)
    that any player may say at any time — also while the game is paused, when nothing else is
    accepted; "goodbye" only once the game is over (``session.microphone_grammar``)."""
    from voicehost.host.session import microphone_grammar

    return microphone_grammar(flow)


def seat_phrases(flow: Any, every: Sequence[str]) -> dict[str, list[str]]:
    """The seats that listen for less than ``every`` (:func:`listening_phrases` now), each with
    its phrases (``Flow.not_heard_from``)."""
    from voicehost.host.session import seat_grammar

    return seat_grammar(flow, list(flow.host.players), every)


def likely_phrases(flow: Any) -> list[str]:
    """The phrases the game expects now (``Flow.likely``; none before the flow exists)."""
    likely = getattr(flow, "likely", None)
    return list(likely()) if callable(likely) else []


def racing_phrases(flow: Any) -> list[str]:
    """The phrases players race to shout now (``Flow.racing``; none for a game without races)."""
    racing = getattr(flow, "racing", None)
    return list(racing()) if callable(racing) else []


class TableClock:
    """The wall clock of a live session, started again once the table is ready (recogniser loaded,
    speaker open, sound flowing from every microphone), so that t = 0 is when the game begins —
    as in a script or a recorded session, where the host's welcome starts at t = 0."""

    def __init__(self, start: float = 0.0) -> None:
        self.start = start
        """Session seconds at the (re)start: 0 for a new game, later for a resumed one."""
        self.origin = time.monotonic() - start
        """``time.monotonic()`` (CLOCK_MONOTONIC) seconds at which the session clock reads 0."""

    def now(self) -> float:
        """Seconds on the session clock."""
        return time.monotonic() - self.origin

    def sleep(self, seconds: float) -> None:
        """Really wait."""
        if seconds > 0:
            time.sleep(seconds)

    def restart(self) -> float:
        """The clock reads ``start`` now; returns the new :attr:`origin`."""
        self.origin = time.monotonic() - self.start
        return self.origin


def build_live(
    settings: PlaySettings,
    listen: ListenSettings,
    table_path: Path | None,
    *,
    record: Path | None = None,
    start_file: Path | None = None,
    stdout: TextIO | None = None,
) -> Built:
    """A live session: microphones from the table config (or the default input), speech on its devices.

    ``start_file`` receives ``{"monotonic": X}``: the CLOCK_MONOTONIC seconds (Python's
    ``time.monotonic()``) at which the session clock reads 0, so that another program can feed the
    microphones in step with the session (the end-to-end test plays a recorded game that way)."""
    stdout = sys.stdout if stdout is None else stdout
    from voicehost.audio.devices import find_device, list_devices
    from voicehost.host.table import check_devices, load_table
    from voicehost.listen.sources import LiveSource
    from voicehost.speak.output import TABLE, DeviceSink, device_sink, seat
    from voicehost.speak.service import SpeechService

    table = load_table(table_path) if table_path else default_table(settings.players)
    if table_path is not None and listen.enrolment is None and (table_path.resolve().parent / "enrolment").is_dir():
        listen = replace(listen, enrolment=table_path.resolve().parent / "enrolment")
    if tuple(table.names) != settings.players:
        raise SettingsError(
            f"the table config seats {', '.join(table.names)}; --players must name the same players in the same order"
        )
    for warning in check_devices(table, list_devices()):
        print(f"(table: {warning})", file=stdout)
    clock = TableClock(settings.start_time)
    outputs: dict[Any, Any] = {}
    speaker = device_sink(table.speaker, None, clock)
    if speaker is None:
        raise SettingsError("no speaker: connect one or name it in the table config ([table] speaker = ...)")
    tap = ReferenceTap(speaker)
    outputs[TABLE] = tap
    for k, s in enumerate(table.seats, start=1):
        if s.output is not None:
            device = find_device(s.output.device, output=True)
            assert device is not None
            outputs[seat(k)] = DeviceSink(device, s.output.index, clock)
    log = EventLogWriter(settings.log) if settings.log else None
    recorder = SessionRecorder(record, table.names, 16000, session_settings(settings, listen)) if record else None
    source = LiveSource(table.live_inputs(), clock)
    listener = make_listener(table.names, listen, table.latencies, stdout, helper=True)
    holder: dict[str, Any] = {}
    audio = AudioInput(
        listener,
        lambda timeout: source.read(timeout),
        clock,
        lambda: listening_phrases(holder["flow"]),
        likely=lambda: likely_phrases(holder["flow"]),
        racing=lambda: racing_phrases(holder["flow"]),
        seat_phrases=lambda every: seat_phrases(holder["flow"], every),
        recorder=recorder,
        tap=tap,
        live=True,
    )
    service = SpeechService(
        host_voice(settings),
        outputs,
        clock,
        transcript=transcript_printer(settings.players, stdout, settings.show_private),
        on_span=_span_forwarder(audio),
    )
    host = Host(
        clock=clock,
        mouth=Mouth(service, settings.players),
        players=settings.players,
        rng=random.Random(settings.seed),
        log=log,
    )
    flow = build_flow(settings, host)
    holder["flow"] = flow
    if table.single_microphone:
        print(
            "(one microphone for everybody: turns and judging work, but who shouted first cannot be told)", file=stdout
        )
    service.open()
    source.start()
    origin = clock.restart()
    source.begin()
    if start_file is not None:
        start_file.write_text(json.dumps({"monotonic": origin}) + "\n", encoding="utf-8")
    speakers = [speaker, *(o for o in outputs.values() if isinstance(o, DeviceSink))]
    return Built(flow, LiveMicrophones(audio, source, clock, stdout, speakers=speakers), host, service, log)


class LiveMicrophones:
    """The live session's input: what the microphones heard (an :class:`AudioInput` over a
    :class:`~voicehost.listen.sources.LiveSource`), plus which microphones stopped or came back
    (:meth:`microphone_changes`, for the session), overflow notes on the terminal, and a summary
    of both when it is closed (with a line for each speaker that ran dry: the host's voice had gaps)."""

    NOTE_EVERY = 5.0
    """Seconds between two overflow notes on the terminal."""

    def __init__(
        self,
        audio: AudioInput,
        source: Any,
        clock: Any,
        stdout: TextIO,
        *,
        step: float = 0.25,
        speakers: Sequence[Any] = (),
    ) -> None:
        self.audio = audio
        self.speakers = tuple(speakers)
        """Device outputs (:class:`~voicehost.speak.output.DeviceSink`) whose underruns the summary reports."""
        self.source = source
        self.clock = clock
        self.stdout = stdout
        self.step = step
        """Seconds: how often a waiting :meth:`next` looks at the devices."""
        self._changes: list[tuple[tuple[str, ...], bool]] = []
        self._overflows = 0
        self._noted_at = -self.NOTE_EVERY
        self.summary: list[str] = []
        """The closing summary (one line per device), once closed."""

    def next(self, deadline: float | None) -> list[Any] | None:
        """What was heard up to ``deadline``; returns early when a microphone stopped or came back."""
        while True:
            step = self.clock.now() + self.step
            heard = self.audio.next(step if deadline is None else min(deadline, step))
            self._watch()
            if heard is None or heard or self._changes or (deadline is not None and self.clock.now() >= deadline):
                return heard

    def judging(self, before: float) -> bool:
        """True while a sound that began before ``before`` is still being judged (:meth:`AudioInput.judging`)."""
        return self.audio.judging(before)

    def microphone_changes(self) -> list[tuple[tuple[str, ...], bool]]:
        """(players, lost) for every microphone device that stopped (lost) or came back since the last call."""
        changes, self._changes = self._changes, []
        return changes

    def _watch(self) -> None:
        for change in self.source.changes():
            who = ", ".join(change.seats)
            if change.lost:
                note = (
                    f"microphone {change.device!r} ({who}) stopped: {change.reason}; trying to reopen it every second"
                )
            else:
                note = f"microphone {change.device!r} ({who}) is back"
            print(f"({note})", file=self.stdout, flush=True)
            self._changes.append((change.seats, change.lost))
        overflows = sum(s.overflows for s in self.source.stats)
        if overflows > self._overflows and self.clock.now() - self._noted_at >= self.NOTE_EVERY:
            print(
                f"(microphones: {overflows} input overflow{'s' if overflows != 1 else ''} so far: "
                "the computer fell behind "
                "and a little sound was lost; the game goes on)",
                file=self.stdout,
                flush=True,
            )
            self._overflows, self._noted_at = overflows, self.clock.now()

    def close(self) -> None:
        """Stop the streams, finish the recording, print the summary."""
        stats = self.source.stats
        self.source.stop()
        self.audio.close()
        self.summary = [device_summary(s) for s in stats]
        helper = getattr(self.audio.listener, "helper", None)
        if helper is not None and helper.failed:
            self.summary.append(f"{helper.failed}; the listener recognised everything itself")
        for line in self.summary:
            print(f"(microphones: {line})", file=self.stdout, flush=True)
        for sink in self.speakers:
            dry = sink.player.underflows
            if dry:
                line = (
                    f"speaker {sink.name}: {dry} underrun{'s' if dry != 1 else ''}: the computer fell behind "
                    "and the host's voice had short gaps (close other programs that keep the processor busy)"
                )
                self.summary.append(line)
                print(f"({line})", file=self.stdout, flush=True)


def device_summary(stats: Any) -> str:
    """One line about one device's session: "'vh_mics' (Anna, Ben): 0 overflows, stopped once (6.1 s without sound)"."""
    overflows = f"{stats.overflows} overflow{'s' if stats.overflows != 1 else ''}"
    if stats.outages == 0:
        outages = "never stopped"
    else:
        times = "once" if stats.outages == 1 else f"{stats.outages} times"
        outages = f"stopped {times} ({stats.down_seconds:.1f} s without sound)"
    return f"{stats.device!r} ({', '.join(stats.seats)}): {overflows}, {outages}"


def _span_forwarder(audio: AudioInput) -> Any:
    def forward(span: Any) -> None:
        if not span.route.private and span.end > span.start:
            audio.add_span(Span(span.start, span.end, span.text, key=span.id))

    return forward


def default_table(players: tuple[str, ...]) -> Any:
    """Without a table config: the default input device, one channel per player if it has enough."""
    from voicehost.audio.devices import find_device
    from voicehost.host.table import Channel, Seat, Table

    device = find_device(None, output=False)
    if device is None:
        raise SettingsError(
            "no microphone found: connect one, name it in a table config (--config), or use --input text"
        )
    enough = device.max_input_channels >= len(players)
    seats = tuple(Seat(p, Channel(device.index, k + 1 if enough else 1)) for k, p in enumerate(players))
    return Table(None, seats)


# ---- replay ---------------------------------------------------------------------------------


def load_session(folder: Path) -> dict[str, Any]:
    """A recorded session's settings (session.json), checked: every value replay uses is of the
    right type and in range, so a damaged or hand-edited file is one clear error."""
    path = Path(folder) / SESSION_FILE
    if not Path(folder).is_dir():
        raise InputError(f"{folder}: not a recorded session (no such folder)")
    if not path.exists():
        raise InputError(f"{folder}: not a recorded session (no {SESSION_FILE})")
    try:
        data = parse_json(read_text(path, limit=CONFIG_LIMIT, what="session file"), path)
    except ValueError as error:
        if isinstance(error, InputError):
            raise
        raise InputError(f"{path}: cannot read ({error})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: must hold a JSON object")
    for key in ("game", "players", "seed"):
        if key not in data:
            raise InputError(f"{path}: missing field '{key}'")
    _check_session(data, path)
    if not mics_path(folder).exists():
        raise InputError(f"{folder}: the recording {MICS_FILE} is missing")
    return data


def _check_session(data: dict[str, Any], path: Path) -> None:
    """Check (and normalise in place) the values of a recorded session file."""
    from voicehost.games import NAMES
    from voicehost.host.build import check_players
    from voicehost.host.options import Choice, Seconds, Text, Whole, check_options, check_seed
    from voicehost.speak.voice import MAX_RATE, MIN_RATE

    where = str(path)
    if data["game"] not in NAMES:
        raise InputError(f"{where}: game {data['game']!r} is not one of {', '.join(NAMES)}")
    players = data["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InputError(f"{where}: players must be a list of names")
    data["players"] = list(check_players(players))
    data["seed"] = check_seed(data["seed"], where)
    data["options"] = check_options(data["game"], data.get("options", {}), where, from_file=True)
    Whole(MIN_RATE, MAX_RATE, optional=True).check(f"{where}: speech_rate", data.get("speech_rate"))
    for key in ("voice", "lang", "model"):
        Text(optional=True, longest=4096).check(f"{where}: {key}", data.get(key))
    from voicehost.listen.recognize import ENGINES

    Choice(tuple(ENGINES), optional=True).check(f"{where}: engine", data.get("engine"))
    Whole(8000, 192000, optional=True).check(f"{where}: rate", data.get("rate"))
    Whole(0, 2**40, optional=True).check(f"{where}: start_frame", data.get("start_frame"))
    offsets = data.get("offsets", {})
    if not isinstance(offsets, dict):
        raise InputError(f"{where}: offsets must map seat names to seconds")
    for seat, value in offsets.items():
        Seconds(-1.0, 1.0, low_allowed=True).check(f"{where}: offsets: {seat}", value)


def recorded_blocks(
    folder: Path, seats: tuple[str, ...], clock: SimClock, start_frame: int, block_frames: int = 1600
) -> Iterator[AudioBlock]:
    """The recording as blocks on the session's frame axis, moving the simulated clock along."""
    from voicehost.listen.sources import load_multichannel

    recording = load_multichannel(mics_path(folder), seats)
    rate = recording.rate
    samples = recording.samples.astype(np.float32, copy=False)
    for start in range(0, samples.shape[0], block_frames):
        chunk = samples[start : start + block_frames]
        frame = start_frame + start
        clock.advance_to((frame + chunk.shape[0]) / rate)
        yield AudioBlock(chunk, frame, rate, capture_time=frame / rate, seats=seats)


def build_replay(
    folder: Path,
    *,
    listen: ListenSettings | None = None,
    log: Path,
    speech_wav: Path | None = None,
    stdout: TextIO | None = None,
) -> tuple[Built, dict[str, Any]]:
    """A session re-run from a recording on a simulated clock (faster than real time).

    The host's voice in the microphones is cancelled with the recorded speaker track (host.wav
    or host.flac); a recording without one falls back on its speaking spans."""
    stdout = sys.stdout if stdout is None else stdout
    from voicehost.speak.service import SpeechService

    data = load_session(folder)
    players = tuple(str(p) for p in data["players"])
    options = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data["options"].items()}
    settings = PlaySettings(
        str(data["game"]),
        players,
        "replay",
        int(data["seed"]),
        log,
        speech_wav,
        True,
        options,
        speech_rate=data.get("speech_rate"),
        voice=data.get("voice"),
    )
    listen = listen or ListenSettings(
        str(data.get("lang", "en")), str(data.get("engine", "auto")), Path(data["model"]) if data.get("model") else None
    )
    clock = SimClock(float(data.get("start_frame", 0)) / float(data.get("rate", 16000)))
    listener = make_listener(players, listen, {str(k): float(v) for k, v in data.get("offsets", {}).items()}, stdout)
    host_audio = host_path(folder)
    if host_audio is not None:
        listener.use_reference(
            Reference.from_file(host_audio, int(data.get("rate", 16000)), int(data.get("start_frame", 0)))
        )
    holder: dict[str, Any] = {}
    blocks = recorded_blocks(folder, players, clock, int(data.get("start_frame", 0)))
    audio = AudioInput(
        listener,
        file_reader(blocks),
        clock,
        lambda: listening_phrases(holder["flow"]),
        likely=lambda: likely_phrases(holder["flow"]),
        racing=lambda: racing_phrases(holder["flow"]),
        seat_phrases=lambda every: seat_phrases(holder["flow"], every),
        spans=read_spans(Path(folder) / SPANS_FILE),
    )
    service = SpeechService(
        host_voice(settings),
        timeline_outputs(players, speech_wav),
        clock,
        transcript=transcript_printer(players, stdout, True),
    )
    writer = EventLogWriter(log)
    host = Host(
        clock=clock, mouth=Mouth(service, players), players=players, rng=random.Random(settings.seed), log=writer
    )
    flow = build_flow(settings, host)
    holder["flow"] = flow
    return Built(flow, audio, host, service, writer), data


def compare_events(expected: list[dict[str, Any]], got: list[dict[str, Any]], *, tolerance: float = 0.05) -> list[str]:
    """Differences between two event logs, ignoring "t" and allowing ``tolerance`` seconds on onsets."""
    problems = []
    for i, (a, b) in enumerate(zip(expected, got)):
        if a.get("type") != b.get("type"):
            problems.append(f"event {i}: recorded {_brief(a)}, replayed {_brief(b)}")
            break  # the games went apart: later differences follow from this one
        diff = _diff(a, b, tolerance, "")
        if diff:
            problems.append(f"event {i} ({a.get('type')}): {diff} (recorded vs replayed)")
            if len(problems) >= 5:
                break
    if len(expected) != len(got) and len(problems) < 5:
        problems.append(f"the recording's log has {len(expected)} events, the replay {len(got)}")
    return problems


def _brief(event: dict[str, Any]) -> str:
    """An event in a few words for a report: '"play" by Anna (said "one bam")'."""
    parts = [f'"{event.get("type")}"']
    if "player" in event:
        parts.append(f"by {event['player']}")
    for key in ("said", "animal", "reason", "tile"):
        if key in event:
            parts.append(f"{key} {event[key]!r}")
    return " ".join(parts)


def _diff(a: Any, b: Any, tolerance: float, path: str) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key in ("t", "window_opens"):
                continue
            d = _diff(a.get(key), b.get(key), tolerance, f"{path}.{key}" if path else key)
            if d:
                return d
        return ""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _diff(x, y, tolerance, f"{path}[{i}]")
            if d:
                return d
        return ""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= tolerance:
            return ""
    if a != b:
        return f"{path}: {a!r} vs {b!r}"
    return ""


def replay_settings_note(data: dict[str, Any]) -> str:
    """One line describing a recorded session."""
    return f"{data['game']} with {', '.join(data['players'])} (seed {data['seed']})"


__all__ = ["ListenSettings", "build_live", "build_replay", "compare_events", "load_session", "replace", "EVENTS_FILE"]
