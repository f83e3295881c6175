"""Building a session from settings: clock, input, speech outputs, log, flow (done once in main)."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable, TextIO

from voicehost import games
from voicehost.clock import Clock, SimClock, WallClock
from voicehost.errors import InputError
from voicehost.eventlog import EventLogWriter, LogWriteError
from voicehost.files import CONFIG_LIMIT, atomic_write_text, parse_json, read_text
from voicehost.host.inputs import Input, ScriptInput, TextInput, read_script
from voicehost.host.mouth import Mouth
from voicehost.host.options import check_options, check_seed
from voicehost.host.session import Flow, Host, Outcome
from voicehost.rules.base import JsonObject
from voicehost.speak.output import TABLE, NullSink, Route, Sink, WavSink, seat
from voicehost.speak.service import Kind, SpeechService, TranscriptLine
from voicehost.text import players_problem

if TYPE_CHECKING:
    from voicehost.speak.voice import EspeakVoice


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
    """Print private lines on the transcript (text and script mode by default: there is only one
    screen; never by default with microphones, where the terminal is shared)."""
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


MAX_PLAYERS = 16
"""More players than any of the games seats."""


def check_players(names: list[str]) -> tuple[str, ...]:
    """Names from '--players Anna,Ben,Cem' or a log: 2 to 16, each valid and distinct ignoring case
    (see :func:`voicehost.text.name_problem`, the one name check every command uses)."""
    cleaned = tuple(n.strip() if isinstance(n, str) else "" for n in names)
    if len(cleaned) < 2:
        raise SettingsError("give at least two players: --players Anna,Ben,Cem")
    if len(cleaned) > MAX_PLAYERS:
        raise SettingsError(f"{len(cleaned)} players: at most {MAX_PLAYERS} can sit at the table")
    problem = players_problem(cleaned)
    if problem is not None:
        raise SettingsError(f"{problem} (players: write NAME,NAME,...)")
    return cleaned


SHOWN_SOUNDS = {
    "(sound: race open)": "(race sound: the race is open!)",
    "(sound: time running out)": "(sound: time is running out)",
}
"""Earcons printed on the transcript (the others repeat what a line already says)."""


def transcript_printer(
    players: tuple[str, ...], stream: TextIO, show_private: bool
) -> Callable[[TranscriptLine], None]:
    """Print what the host says: 'host: ...' for the table, 'host → Anna: ...' for private lines."""

    def show(line: TranscriptLine) -> None:
        if line.kind is Kind.EARCON:
            # The sounds that open or close a window are news a reader must see too.
            if not line.route.private and line.text in SHOWN_SOUNDS:
                print(f"host: {SHOWN_SOUNDS[line.text]}", file=stream, flush=True)
            return
        if line.route.private:
            name = (
                players[line.route.seat - 1] if line.route.seat and line.route.seat <= len(players) else str(line.route)
            )
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
    """The module of a game's flow, from the game registry (:mod:`voicehost.games`).

    It defines ``HELP``, ``add_arguments(parser)`` (the game's own ``play`` options),
    ``options_from_args(args) -> dict`` and ``make_flow(host, seed, options) -> Flow``.
    """
    return games.game(game).flow_module()


def build_flow(settings: PlaySettings, host: Host) -> Flow:
    """The game's flow with its options (checked: see :mod:`voicehost.host.options`)."""
    module = flow_module(settings.game)
    options = check_options(settings.game, settings.options, "game options")
    return module.make_flow(host, settings.seed, options)  # type: ignore[no-any-return]


@dataclass
class Built:
    """A ready session's parts (the caller closes them)."""

    flow: Flow
    input: Input
    host: Host
    service: SpeechService
    log: EventLogWriter | None

    def close(self) -> None:
        """Close speech (writes the WAV sink), the input and the log (LogWriteError if some events
        could not be saved: the message says how far the log goes and how to resume)."""
        try:
            self.service.close()
        finally:
            try:
                self.input.close()
            finally:
                if self.log is not None:
                    self._close_log(self.log)

    @staticmethod
    def _close_log(log: EventLogWriter) -> None:
        try:
            log.close()
        except LogWriteError as error:
            if not log.path.exists() or log.path.stat().st_size == 0:
                raise LogWriteError(
                    f"{error}: no event of this game could be saved; make room, then start it again", error.reason
                ) from None
            raise LogWriteError(
                f"{error}: the log keeps the game up to the last saved event; make room, then "
                f"continue with 'voicehost resume {log.path}'",
                error.reason,
            ) from None


def build_offline(settings: PlaySettings, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> Built:
    """A text or script session (no sound devices); ``stdin``/``stdout`` default to the streams of
    the moment of the call (not of the import: a test or a caller may have replaced them)."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout

    clock: Clock
    source: Input
    if settings.script is not None:
        clock = SimClock(settings.start_time)
        source = ScriptInput(read_script(settings.script, settings.players), clock)
    elif settings.input == "text":
        clock = WallClock(settings.start_time)
        source = TextInput(stdin, settings.players, clock, echo=stdout)
        shown = (
            "private lines (secret cards) are shown on this shared screen as 'host → NAME'; "
            "--no-show-private hides them"
            if settings.show_private
            else "private lines are hidden"
        )
        print(f"(text mode: type NAME: words, e.g. '{settings.players[0]}: help'; {shown})", file=stdout, flush=True)
    else:
        raise SettingsError(f"unknown input {settings.input!r}: use mic, text or script:FILE")
    service = SpeechService(
        host_voice(settings),
        timeline_outputs(settings.players, settings.speech_wav),
        clock,
        transcript=transcript_printer(settings.players, stdout, settings.show_private),
    )
    log = EventLogWriter(settings.log) if settings.log else None
    host = Host(
        clock=clock,
        mouth=Mouth(service, settings.players),
        players=settings.players,
        rng=random.Random(settings.seed),
        log=log,
    )
    return Built(build_flow(settings, host), source, host, service, log)


def run_session(
    settings: PlaySettings,
    *,
    resume: list[JsonObject] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> Outcome:
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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SettingsError(f"cannot write {path}: {error.strerror or error}") from None
    atomic_write_text(path, json.dumps(data, indent=2, allow_nan=False) + "\n", "session file")


def _plain_data(value: object) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain_data(v) for v in value)
    return False


def saved_options(log: Path, setup: JsonObject | None = None) -> dict[str, object]:
    """The options saved next to ``log``, checked (empty when there is no session file).

    With ``setup`` (the log's first event) the file must belong to that game: same game, players
    and seed; a session file of another game is an error, not a source of options."""
    path = session_file(log)
    if not path.exists():
        return {}
    try:
        data = parse_json(read_text(path, limit=CONFIG_LIMIT, what="session file"), path)
    except InputError as error:
        raise SettingsError(f"cannot read the saved game options: {error}") from None
    except ValueError as error:
        raise SettingsError(f"{path}: cannot read the saved game options (not JSON: {error})") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: the saved game options must be a JSON object")
    if setup is not None:
        for key in ("game", "players", "seed"):
            if key in data and data[key] != setup.get(key):
                raise SettingsError(
                    f"{path}: belongs to another game ({key} {data[key]!r}, the log says "
                    f"{setup.get(key)!r}); move it away to resume with the default options"
                )
    game = setup.get("game") if setup is not None else data.get("game")
    options = check_options(str(game), data.get("options", {}), str(path), from_file=True)
    return {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}


def settings_for_resume(events: list[JsonObject], log: Path, base: PlaySettings) -> PlaySettings:
    """Play settings for continuing the game of ``events``: game, players and seed from its setup."""
    setup = events[0]
    if setup.get("type") != "setup" or setup.get("game") not in games.NAMES:
        raise SettingsError(f"{log}: the first event is not a voicehost game setup")
    raw_players = setup.get("players")
    if not isinstance(raw_players, list) or not all(isinstance(p, str) for p in raw_players):
        raise SettingsError(f"{log}: the setup event's players must be a list of names")
    try:
        players = check_players(raw_players)
    except SettingsError as error:
        raise SettingsError(f"{log}: the setup event's players: {error}") from None
    seed = check_seed(setup.get("seed", 0), f"{log}: setup event")
    last_t = max(float(e["t"]) for e in events)
    options = {**saved_options(log, setup), **base.options}
    return PlaySettings(
        str(setup["game"]),
        players,
        base.input,
        seed,
        log,
        base.speech_wav,
        base.show_private,
        options,
        start_time=last_t + 1.0,
        speech_rate=base.speech_rate,
        voice=base.voice,
    )
