"""A live session whose microphones and private earphones are the players' phones.

``voicehost play GAME --input phones`` (everyone), or ``--config TABLE`` whose seats say
``input = "phone"`` (those players, beside the others' microphones): the host serves the page,
says and prints the address (with a QR code), waits until every phone player has joined,
measures each phone's acoustic delay with a click train on the table speaker (lined up with the
microphone seats, if any), and then runs the game exactly as with microphones
(:func:`voicehost.host.live.build_live`'s parts): a phone that stops is a lost microphone, and
one that comes back is measured again (:mod:`voicehost.phones.rejoin`).
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, TextIO

from voicehost.host.build import Built, PlaySettings, SettingsError, build_flow, host_voice, transcript_printer
from voicehost.host.calibrate import SinkClicks
from voicehost.host.listening import AudioInput, ReferenceTap, SessionRecorder
from voicehost.host.live import (
    ListenSettings,
    LiveMicrophones,
    TableClock,
    _span_forwarder,
    likely_phrases,
    listening_phrases,
    make_listener,
    racing_phrases,
    seat_phrases,
    session_settings,
)
from voicehost.host.mouth import Mouth
from voicehost.host.session import Host

if TYPE_CHECKING:
    from voicehost.host.table import Table

DEFAULT_PORT = 8443


@dataclass(frozen=True)
class PhoneSettings:
    """Where and how the phones' page is served."""

    host: str = "0.0.0.0"
    """Address to listen on (all interfaces by default)."""
    port: int = DEFAULT_PORT
    tls: bool = True
    """HTTPS with the machine's self-signed certificate (browsers give microphones only to secure
    pages; ``localhost`` is secure without it)."""
    cert_dir: Path | None = None
    calibrate: bool = True
    """Measure each phone's delay with clicks on the table speaker before the game."""
    search: float = 1.0
    """Seconds after the clicks left the speaker within which a phone may hear them begin."""
    join_timeout: float | None = None
    """Seconds to wait for every player to join (None: until Ctrl-C)."""


def page_address(settings: PhoneSettings, port: int) -> tuple[str, list[str]]:
    """The address to announce and every address the page is reachable at (``port``: the one
    the server got)."""
    from voicehost.phones.cert import local_addresses

    scheme = "https" if settings.tls else "http"
    if settings.host in ("0.0.0.0", ""):
        hosts = local_addresses() or ["127.0.0.1"]
    else:
        hosts = [settings.host]
    urls = [f"{scheme}://{h}:{port}/" for h in hosts]
    return urls[0], urls


def spoken_address(url: str) -> str:
    """How the host says an address: '192 dot 168 dot 1 dot 20, port 8443'."""
    rest = url.split("://", 1)[-1].rstrip("/")
    host, _, port = rest.rpartition(":")
    said = " dot ".join(host.split("."))
    return f"{said}, port {port}" if port else said


def qr_text(url: str) -> str:
    """The address as a QR code drawn with block characters (for those who can see the terminal)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def start_server(players: tuple[str, ...], settings: PhoneSettings, stdout: TextIO) -> Any:
    """Serve the page (making the certificate on first use); returns the running server."""
    from voicehost.phones.cert import ensure_certificate, local_addresses, server_context
    from voicehost.phones.server import PhoneServer

    tls = None
    if settings.tls:
        addresses = local_addresses() if settings.host in ("0.0.0.0", "") else [settings.host]
        certificate = ensure_certificate([a for a in addresses if a.count(".") == 3], settings.cert_dir)
        if certificate.created:
            print(f"(made a certificate for the phones' page: {certificate.cert})", file=stdout)
        print(f"(certificate fingerprint, SHA-256: {certificate.fingerprint})", file=stdout)
        tls = server_context(certificate)
    server = PhoneServer(
        players,
        host=settings.host,
        port=settings.port,
        tls=tls,
        log=lambda line: print(f"({line})", file=stdout, flush=True),
    )
    return server.start()


def wait_for_players(
    server: Any, players: tuple[str, ...], say: Callable[[str], None], url: str, settings: PhoneSettings
) -> None:
    """Say who has joined as they come, remind of the address every 30 s; SettingsError on timeout."""
    import time

    announced: set[str] = set()
    last = [time.monotonic()]

    def tick(missing: tuple[str, ...]) -> None:
        for name in players:
            if name not in missing and name not in announced:
                announced.add(name)
                say(f"{name} is here.")
        if time.monotonic() - last[0] >= 30.0:
            last[0] = time.monotonic()
            say(f"Still waiting for {' and '.join(missing)}. Open {spoken_address(url)} on your phone.")

    if not server.wait_for(players, settings.join_timeout, tick, every=0.5):
        missing = [p for p in players if p not in server.seated()]
        raise SettingsError(f"{', '.join(missing)} did not join within {settings.join_timeout:g} s")
    tick(())


def phone_table(players: tuple[str, ...], table_path: Path | None, everyone: bool) -> Table:
    """The seats of a session on phones: every player on a phone (``--input phones``; a table
    config then gives only the speaker), or the table config's seats, phones and microphones,
    which must be the players in order."""
    from voicehost.host.table import PHONE, Seat, Table, load_table

    if everyone:
        speaker = load_table(table_path).speaker if table_path is not None else None
        return Table(speaker, tuple(Seat(name, PHONE) for name in players))
    if table_path is None:
        raise SettingsError("a table of phone seats needs its table config (--config)")
    table = load_table(table_path)
    if tuple(table.names) != players:
        raise SettingsError(
            f"the table config seats {', '.join(table.names)}; --players must name the same players in the same order"
        )
    return table


def build_phones(
    settings: PlaySettings,
    listen: ListenSettings,
    phones: PhoneSettings,
    table_path: Path | None,
    *,
    everyone: bool = True,
    record: Path | None = None,
    start_file: Path | None = None,
    stdout: TextIO | None = None,
) -> Built:
    """A live session with players on phones: every player (``everyone``, ``--input phones``),
    or the table config's phone seats beside its microphone seats (``--config`` with seats
    whose input is "phone"). The table speaker comes from the table config (or is the default
    output)."""
    stdout = sys.stdout if stdout is None else stdout
    import json
    from dataclasses import replace

    from voicehost.audio.devices import find_device, list_devices
    from voicehost.host.table import Table, check_devices
    from voicehost.listen.sources import LiveSource
    from voicehost.phones.mixed import MixedSource
    from voicehost.phones.output import PhoneSink, phone_transcript
    from voicehost.phones.rejoin import RejoinCalibration, SpeechClicks
    from voicehost.phones.source import PhoneSource
    from voicehost.speak.output import TABLE, DeviceSink, device_sink, seat
    from voicehost.speak.service import SpeechService

    players = settings.players
    table = phone_table(players, table_path, everyone)
    on_phones = tuple(s.name for s in table.phone_seats)
    microphones = Table(table.speaker, table.microphone_seats, table.source)
    for warning in check_devices(microphones, list_devices()) if microphones.seats else ():
        print(f"(table: {warning})", file=stdout)
    if table_path is not None and listen.enrolment is None and (table_path.resolve().parent / "enrolment").is_dir():
        listen = replace(listen, enrolment=table_path.resolve().parent / "enrolment")
    clock = TableClock(settings.start_time)
    speaker = device_sink(table.speaker, None, clock)
    if speaker is None:
        raise SettingsError("no speaker: connect one or name it in the table config ([table] speaker = ...)")
    server = start_server(on_phones, phones, stdout)
    url, urls = page_address(phones, server.port)
    mics: LiveSource | None = None
    try:
        tap = ReferenceTap(speaker)
        outputs: dict[Any, Any] = {TABLE: tap}
        for k, place in enumerate(table.seats, start=1):
            if place.by_phone:
                outputs[seat(k)] = PhoneSink(server, place.name, clock)
            elif place.output is not None:
                device = find_device(place.output.device, output=True)
                if device is None:
                    raise SettingsError(f"{place.name}'s earphone {place.output} is not there")
                outputs[seat(k)] = DeviceSink(device, place.output.index, clock)
        transcript = phone_transcript(server, players, transcript_printer(players, stdout, False))
        holder: dict[str, Any] = {}
        service = SpeechService(
            host_voice(settings),
            outputs,
            clock,
            transcript=transcript,
            on_span=lambda span: holder["forward"](span) if "forward" in holder else None,
        )
        service.open()

        def say(text: str) -> None:
            service.say(text).wait(30.0)

        print(f"\n{_who(on_phones, players)}, open this page on your phone: {url}", file=stdout)
        for other in urls[1:]:
            print(f"  (also reachable at {other})", file=stdout)
        try:
            print(qr_text(url), file=stdout, flush=True)
        except ImportError:
            pass
        say(
            f"Welcome. {_who(on_phones, players, spoken=True)}, open {spoken_address(url)} on your phone, "
            "and type your name."
        )
        wait_for_players(server, on_phones, say, url, phones)
        phone_source = PhoneSource(server, on_phones, clock)
        if microphones.seats:
            mics = LiveSource(microphones.live_inputs(), clock).start()
        phone_source.start(timeout=15.0)
        source: Any = phone_source if mics is None else MixedSource([mics, phone_source])
        latencies = {s.name: s.latency for s in microphones.seats}
        reference = (
            _calibrate(source, phone_source, latencies, speaker, phones, say, stdout) if phones.calibrate else None
        )
        if reference is not None:
            # A phone that comes back is lined up with what the others were lined up with.
            fixed = {s: latencies[s] for s in reference if s in latencies}
            source = RejoinCalibration(
                source,
                phone_source,
                SpeechClicks(service, tap.rate),
                latencies=fixed,
                search=(-0.05, phones.search),
                announce=lambda seats: say(
                    f"{' and '.join(seats)}, your phone is back. Please stay quiet while "
                    "I measure it again: a few clicks."
                ),
                log=lambda line: print(f"(phones: {line})", file=stdout, flush=True),
            )
        log = _open_log(settings)
        recorder = SessionRecorder(record, players, 16000, session_settings(settings, listen)) if record else None
        listener = make_listener(players, listen, table.latencies, stdout, helper=True)
        audio = AudioInput(
            listener,
            source.read,
            clock,
            lambda: listening_phrases(holder["flow"]),
            recorder=recorder,
            tap=tap,
            live=True,
            likely=lambda: likely_phrases(holder["flow"]),
            racing=lambda: racing_phrases(holder["flow"]),
            seat_phrases=lambda every: seat_phrases(holder["flow"], every),
        )
        holder["forward"] = _span_forwarder(audio)
        host = Host(
            clock=clock, mouth=Mouth(service, players), players=players, rng=random.Random(settings.seed), log=log
        )
        flow = build_flow(settings, host)
        holder["flow"] = flow
        origin = clock.restart()
        source.begin()
        if start_file is not None:
            start_file.write_text(json.dumps({"monotonic": origin}) + "\n", encoding="utf-8")
        speakers = [speaker, *(o for o in outputs.values() if isinstance(o, DeviceSink))]
        return Built(flow, PhoneMicrophones(audio, source, clock, stdout, server, speakers), host, service, log)
    except BaseException:
        if mics is not None:
            mics.stop()
        server.stop()
        raise


def _who(on_phones: tuple[str, ...], players: tuple[str, ...], *, spoken: bool = False) -> str:
    """Who is asked to open the page: 'Players' or 'Each player' when everyone is on a phone,
    else their names."""
    if not on_phones or on_phones == players:
        return "Each player" if spoken else "Players"
    return ", ".join(on_phones[:-1]) + (" and " if len(on_phones) > 1 else "") + on_phones[-1]


def _open_log(settings: PlaySettings) -> Any:
    from voicehost.eventlog import EventLogWriter

    return EventLogWriter(settings.log) if settings.log else None


def _calibrate(
    source: Any,
    phones: Any,
    latencies: dict[str, float],
    speaker: Any,
    settings: PhoneSettings,
    say: Callable[[str], None],
    stdout: TextIO,
) -> tuple[str, ...] | None:
    """Measure each phone's delay and shift its audio by it, lined up with the microphone seats
    (``latencies``) that heard the clicks, else with the earliest phone. On failure say so and go
    on unshifted (None); else the microphone seats lined up with (none: the phones among
    themselves)."""
    from voicehost.phones.calibrate import SeatRecorder, align, time_train
    from voicehost.phones.rejoin import TRIES

    def note(line: str) -> None:
        print(f"(phones: {line})", file=stdout, flush=True)

    say("Now I will measure each phone. Please stay quiet and hold your phone still: you will hear a few clicks.")
    recorder = SeatRecorder(source, (*phones.seats, *latencies), phones.rate).start()
    try:
        for attempt in range(1, TRIES + 1):
            # A phone that just joined may lose some of its first audio: up to TRIES trains.
            heard = time_train(
                recorder,
                SinkClicks(speaker),
                search=(-0.05, settings.search),
                log=lambda line: print(line, file=stdout, flush=True),
            )
            result = align(heard, phones.seats, latencies)
            if not result.failed or attempt == TRIES:
                break
            note(f"not every phone heard the clicks ({', '.join(result.failed)}): playing them again")
    finally:
        recorder.stop()
    if result.failed:
        for seat, why in result.failed.items():
            note(
                f"phone calibration failed: {seat} {why}; turn the table speaker up, keep the room quiet and "
                "hold the phones still"
            )
        say("I could not hear the clicks on every phone, so who shouted first may be off by a little.")
        return None
    if latencies and not result.reference:
        note("no microphone heard the clicks: the phones are lined up with each other, not with the microphones")
    phones.set_shifts(result.moves)
    against = "the microphones" if result.reference else "the earliest phone"
    for seat, value in result.moves.items():
        note(
            f"{seat}'s phone hears {value * 1000:.1f} ms after {against}; clicks agreed within "
            f"{result.spread[seat] * 1000:.1f} ms"
        )
    say("Thank you, all phones are measured.")
    return tuple(str(seat) for seat in result.reference)


class PhoneMicrophones(LiveMicrophones):
    """The live input over phones: as for microphones, and the server is stopped at the end."""

    def __init__(
        self, audio: AudioInput, source: Any, clock: Any, stdout: TextIO, server: Any, speakers: Sequence[Any] = ()
    ) -> None:
        super().__init__(audio, source, clock, stdout, speakers=speakers)
        self.server = server

    def close(self) -> None:
        """Close as microphones do, then stop serving the page."""
        try:
            super().close()
        finally:
            self.server.stop()


def phone_settings_from(args: Any) -> PhoneSettings:
    """The command line's --phones-* options."""
    return PhoneSettings(
        host=args.phones_host,
        port=args.phones_port,
        tls=not args.phones_http,
        calibrate=not args.phones_no_clicks,
        search=args.phones_search,
        join_timeout=args.phones_wait,
    )
