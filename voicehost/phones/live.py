"""A live session whose microphones and private earphones are the players' phones.

``voicehost play GAME --input phones``: the host serves the page, says and prints the address
(with a QR code), waits until every player has joined, measures each phone's acoustic delay
with a click train on the table speaker, and then runs the game exactly as with microphones
(:func:`voicehost.host.live.build_live`'s parts): a phone that stops is a lost microphone.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TextIO

from voicehost.host.build import Built, PlaySettings, SettingsError, build_flow, host_voice, transcript_printer
from voicehost.host.calibrate import SetupFailed, SinkClicks
from voicehost.host.listening import AudioInput, ReferenceTap, SessionRecorder
from voicehost.host.live import (
    ListenSettings, LiveMicrophones, TableClock, _span_forwarder, likely_phrases, listening_phrases, make_listener, session_settings,
)
from voicehost.host.mouth import Mouth
from voicehost.host.session import Host

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
    server = PhoneServer(players, host=settings.host, port=settings.port, tls=tls,
                         log=lambda line: print(f"({line})", file=stdout, flush=True))
    return server.start()


def wait_for_players(server: Any, players: tuple[str, ...], say: Callable[[str], None], url: str,
                     settings: PhoneSettings) -> None:
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


def build_phones(settings: PlaySettings, listen: ListenSettings, phones: PhoneSettings, table_path: Path | None, *,
                 record: Path | None = None, start_file: Path | None = None, stdout: TextIO = sys.stdout) -> Built:
    """A live session on phones: the table speaker from the table config (or the default output),
    one phone per player."""
    import json

    from voicehost.host.table import load_table
    from voicehost.phones.output import PhoneSink, phone_transcript
    from voicehost.phones.source import PhoneSource
    from voicehost.speak.output import TABLE, device_sink, seat
    from voicehost.speak.service import SpeechService

    players = settings.players
    speaker_spec = load_table(table_path).speaker if table_path is not None else None
    clock = TableClock(settings.start_time)
    speaker = device_sink(speaker_spec, None, clock)
    if speaker is None:
        raise SettingsError("no speaker: connect one or name it in the table config ([table] speaker = ...)")
    server = start_server(players, phones, stdout)
    url, urls = page_address(phones, server.port)
    try:
        tap = ReferenceTap(speaker)
        outputs: dict[Any, Any] = {TABLE: tap}
        for k, name in enumerate(players, start=1):
            outputs[seat(k)] = PhoneSink(server, name, clock)
        transcript = phone_transcript(server, players, transcript_printer(players, stdout, False))
        holder: dict[str, Any] = {}
        service = SpeechService(host_voice(settings), outputs, clock, transcript=transcript,
                                on_span=lambda span: holder["forward"](span) if "forward" in holder else None)
        service.open()

        def say(text: str) -> None:
            service.say(text).wait(30.0)

        print(f"\nPlayers, open this page on your phone: {url}", file=stdout)
        for other in urls[1:]:
            print(f"  (also reachable at {other})", file=stdout)
        try:
            print(qr_text(url), file=stdout, flush=True)
        except ImportError:
            pass
        say(f"Welcome. Each player, open {spoken_address(url)} on your phone, and type your name.")
        wait_for_players(server, players, say, url, phones)
        source = PhoneSource(server, players, clock)
        source.start(timeout=15.0)
        if phones.calibrate:
            _calibrate(source, speaker, clock, phones, say, stdout)
        log = _open_log(settings)
        recorder = SessionRecorder(record, players, 16000, session_settings(settings, listen)) if record else None
        listener = make_listener(players, listen, {}, stdout)
        audio = AudioInput(listener, lambda timeout: source.read(timeout), clock,
                           lambda: listening_phrases(holder["flow"]), recorder=recorder, tap=tap, live=True,
                           likely=lambda: likely_phrases(holder["flow"]))
        holder["forward"] = _span_forwarder(audio)
        host = Host(clock=clock, mouth=Mouth(service, players), players=players,
                    rng=random.Random(settings.seed), log=log)
        flow = build_flow(settings, host)
        holder["flow"] = flow
        origin = clock.restart()
        source.begin()
        if start_file is not None:
            start_file.write_text(json.dumps({"monotonic": origin}) + "\n", encoding="utf-8")
        return Built(flow, PhoneMicrophones(audio, source, clock, stdout, server), host, service, log)
    except BaseException:
        server.stop()
        raise


def _open_log(settings: PlaySettings) -> Any:
    from voicehost.eventlog import EventLogWriter

    return EventLogWriter(settings.log) if settings.log else None


def _calibrate(source: Any, speaker: Any, clock: Any, phones: PhoneSettings, say: Callable[[str], None],
               stdout: TextIO) -> None:
    """Measure each phone's delay and shift its audio by it; on failure say so and go on unshifted."""
    from voicehost.phones.calibrate import SeatRecorder, measure_delays

    say("Now I will measure each phone. Please stay quiet and hold your phone still: you will hear a few clicks.")
    recorder = SeatRecorder(source, source.seats, source.rate).start()
    try:
        delays = measure_delays(recorder, SinkClicks(speaker), search=(-0.05, phones.search),
                                log=lambda line: print(line, file=stdout, flush=True))
    except SetupFailed as error:
        print(f"(phones: {error})", file=stdout, flush=True)
        say("I could not hear the clicks on every phone, so who shouted first may be off by a little.")
        return
    finally:
        recorder.stop()
    shifts = {str(seat): float(value) for seat, value in delays.offsets.offsets.items()}
    source.set_shifts(shifts)
    for seat, value in shifts.items():
        spread = delays.offsets.spread[seat]
        print(f"(phones: {seat}'s phone hears {value * 1000:.1f} ms after the earliest; clicks agreed within "
              f"{spread * 1000:.1f} ms)", file=stdout, flush=True)
    say("Thank you, all phones are measured.")


class PhoneMicrophones(LiveMicrophones):
    """The live input over phones: as for microphones, and the server is stopped at the end."""

    def __init__(self, audio: AudioInput, source: Any, clock: Any, stdout: TextIO, server: Any) -> None:
        super().__init__(audio, source, clock, stdout)
        self.server = server

    def close(self) -> None:
        """Close as microphones do, then stop serving the page."""
        try:
            super().close()
        finally:
            self.server.stop()


def phone_settings_from(args: Any) -> PhoneSettings:
    """The command line's --phones-* options."""
    return PhoneSettings(host=args.phones_host, port=args.phones_port, tls=not args.phones_http,
                         calibrate=not args.phones_no_clicks, search=args.phones_search,
                         join_timeout=args.phones_wait)

