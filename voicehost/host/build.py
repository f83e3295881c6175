"""Building a session from settings: clock, input, speech outputs, log, flow (done once in main)."""

from __future__ import annotations

import importlib
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable, TextIO

from voicehost.clock import Clock, SimClock, WallClock
from voicehost.errors import InputError
from voicehost.eventlog import EventLogWriter
from voicehost.host.inputs import Input, ScriptInput, TextInput, read_script
from voicehost.host.mouth import Mouth
from voicehost.host.session import Flow, Host, Outcome
from voicehost.rules.base import JsonObject
from voicehost.speak.output import TABLE, NullSink, Route, Sink, WavSink, seat
from voicehost.speak.service import Kind, SpeechService, TranscriptLine

if TYPE_CHECKING:
    from voicehost.speak.voice import EspeakVoice

GAMES = ("bimbamm", "bimbambum", "bam")


class SettingsError(InputError):
    """The options of a session do not fit together."""


@dataclass(frozen=True)
class PlaySettings:
    """Everything ``voicehost play`` was asked to do."""

    game: str
    players: tuple[str, ...]
    input: str = "mic"
    """'mic', 'text' or 'script:FILE'."""
    seed: int = 1
    log: Path | None = None
    """Event log to write (appended and flushed as the game goes)."""
    speech_wav: Path | None = None
    """Write the table speaker's audio here instead of (or as well as) playing it."""
    show_private: bool = True
    """Print private lines on the transcript (text mode: there is only one screen)."""
    options: dict[str, object] = field(default_factory=dict)
    """Game options (race window, time window, deck, rounds, ...)."""
    start_time: float = 0.0
    """Session clock at the start, seconds (a resumed game continues its log's clock)."""
    speech_rate: int | None = None
    """The host's speaking rate, words per minute (None: the voice's default)."""
    voice: str | None = None
    """The host's espeak-ng voice (None: the default)."""

    @property
    def script(self) -> Path | None:
        """The script file of ``--input script:FILE``."""
        return Path(self.input.split(":", 1)[1]) if self.input.startswith("script:") else None


def check_players(names: list[str]) -> tuple[str, ...]:
    """Names from '--players Anna,Ben,Cem': non-empty, distinct (ignoring case), no ':'."""
    cleaned = tuple(n.strip() for n in names if n.strip())
    if len(cleaned) < 2:
        raise SettingsError("give at least two players: --players Anna,Ben,Cem")
    lowered = [n.lower() for n in cleaned]
    dupes = sorted({n for n in cleaned if lowered.count(n.lower()) > 1})
    if dupes:
        raise SettingsError(f"two players have the same name: {', '.join(dupes)}")
    bad = [n for n in cleaned if ":" in n]
    if bad:
        raise SettingsError(f"a name cannot contain ':' ({bad[0]!r})")
    return cleaned


def transcript_printer(players: tuple[str, ...], stream: TextIO, show_private: bool) -> Callable[[TranscriptLine], None]:
    """Print what the host says: 'host: ...' for the table, 'host → Anna: ...' for private lines."""

    def show(line: TranscriptLine) -> None:
        if line.kind is Kind.EARCON:
            return
        if line.route.private:
            name = players[line.route.seat - 1] if line.route.seat and line.route.seat <= len(players) else str(line.route)
            text = line.text if show_private else "(private)"
            print(f"host → {name}: {text}", file=stream, flush=True)
        else:
            print(f"host: {line.text}", file=stream, flush=True)

    return show


def host_voice(settings: PlaySettings) -> "EspeakVoice":
    """The host's voice with the session's voice and rate."""
    from voicehost.speak.voice import DEFAULT_RATE, EspeakVoice

    return EspeakVoice(voice=settings.voice, rate=settings.speech_rate or DEFAULT_RATE)


def timeline_outputs(players: tuple[str, ...], speech_wav: Path | None) -> dict[Route, Sink]:
    """Outputs for text and script play: no sound devices, every route on a timeline."""
    outputs: dict[Route, Sink] = {TABLE: WavSink(speech_wav) if speech_wav else NullSink()}
    for k in range(1, len(players) + 1):
        outputs[seat(k)] = NullSink()
    return outputs


def flow_module(game: str) -> ModuleType:
    """The module of a game's flow: ``voicehost.host.flows.<game>``.

    It defines ``HELP``, ``add_arguments(parser)`` (the game's own ``play`` options),
    ``options_from_args(args) -> dict`` and ``make_flow(host, seed, options) -> Flow``.
    """
    if game not in GAMES:
        raise SettingsError(f"unknown game {game!r}: choose {', '.join(GAMES)}")
    return importlib.import_module(f"voicehost.host.flows.{game}")


def build_flow(settings: PlaySettings, host: Host) -> Flow:
    """The game's flow with its options."""
    return flow_module(settings.game).make_flow(host, settings.seed, dict(settings.options))  # type: ignore[no-any-return]


@dataclass
class Built:
    """A ready session's parts (the caller closes them)."""

    flow: Flow
    input: Input
    host: Host
    service: SpeechService
    log: EventLogWriter | None

    def close(self) -> None:
        """Close speech (writes the WAV sink) and the log."""
        self.service.close()
        if self.log is not None:
            self.log.close()
        self.input.close()


def build_offline(settings: PlaySettings, *, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> Built:
    """A text or script session (no sound devices)."""
    from voicehost.speak.voice import EspeakVoice

    clock: Clock
    source: Input
    if settings.script is not None:
        clock = SimClock(settings.start_time)
        source = ScriptInput(read_script(settings.script, settings.players), clock)
    elif settings.input == "text":
        clock = WallClock(settings.start_time)
        source = TextInput(stdin, settings.players, clock, echo=stdout)
    else:
        raise SettingsError(f"unknown input {settings.input!r}: use mic, text or script:FILE")
    service = SpeechService(
        host_voice(settings), timeline_outputs(settings.players, settings.speech_wav), clock,
        transcript=transcript_printer(settings.players, stdout, settings.show_private),
    )
    log = EventLogWriter(settings.log) if settings.log else None
    host = Host(clock=clock, mouth=Mouth(service, settings.players), players=settings.players,
                rng=random.Random(settings.seed), log=log)
    return Built(build_flow(settings, host), source, host, service, log)


def run_session(settings: PlaySettings, *, resume: list[JsonObject] | None = None,
                stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> Outcome:
    """Build, run (or resume) and close a session; the log is appended as the game goes."""
    from voicehost.host.session import Session

    if resume is None and settings.log is not None:
        write_session_file(settings)
    built = build_offline(settings, stdin=stdin, stdout=stdout)
    if resume is not None:
        built.host.rng.seed(settings.seed * 1_000_003 + len(resume))  # a fresh, reproducible stream
    try:
        return Session(built.flow, built.input, built.host).run(resume_from=resume)
    finally:
        built.close()


def session_file(log: Path) -> Path:
    """Where the game's options are kept next to its log (GAME.jsonl → GAME.session.json)."""
    return log.with_name(log.stem + ".session.json")


def write_session_file(settings: PlaySettings) -> None:
    """Keep the game options that are plain data (deck, windows, rounds …) for 'voicehost resume'."""
    assert settings.log is not None
    plain = {k: v for k, v in settings.options.items() if _plain_data(v)}
    data = {"game": settings.game, "players": list(settings.players), "seed": settings.seed, "options": plain}
    path = session_file(settings.log)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _plain_data(value: object) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain_data(v) for v in value)
    return False


def saved_options(log: Path) -> dict[str, object]:
    """The options saved next to ``log`` (empty when there is no session file)."""
    path = session_file(log)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise SettingsError(f"{path}: cannot read the saved game options ({error})") from error
    options = data.get("options", {}) if isinstance(data, dict) else {}
    return {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}


def settings_for_resume(events: list[JsonObject], log: Path, base: PlaySettings) -> PlaySettings:
    """Play settings for continuing the game of ``events``: game, players and seed from its setup."""
    setup = events[0]
    if setup.get("type") != "setup" or setup.get("game") not in GAMES:
        raise SettingsError(f"{log}: the first event is not a voicehost game setup")
    players = tuple(str(p) for p in setup.get("players", []))
    last_t = max(float(e.get("t", 0.0)) for e in events)
    options = {**saved_options(log), **base.options}
    return PlaySettings(str(setup["game"]), players, base.input, int(setup.get("seed", 0)), log,
                        base.speech_wav, base.show_private, options, start_time=last_t + 1.0,
                        speech_rate=base.speech_rate, voice=base.voice)
