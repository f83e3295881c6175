"""The phones' web server: the page, and one WebSocket per phone (aiohttp, in its own thread).

Everything that arrives is stamped on the host's monotonic clock and handed to the listening
side through thread-safe queues; nothing is decoded beyond the block header here. The rest of
the program talks to phones through :meth:`PhoneServer.send_line` and
:meth:`PhoneServer.send_speech`, which are safe to call from any thread.

Wire format (little-endian):
- phone → host, audio: ``u32 kind=1, u32 seq, f64 frame`` then int16 mono PCM at the phone's
  audio-context rate; ``frame`` is the audio-context frame of the first sample.
- host → phone, speech: ``u32 kind=2, u32 id, u32 rate, u32 0`` then int16 mono PCM.
- JSON text both ways: join/seated/refused, ping/pong (clock), line (transcript), status,
  played and shown (what the page did with a line or a sound: the tests read these).
"""

from __future__ import annotations

import asyncio
import json
import queue
import ssl
import struct
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable, Sequence

import numpy as np

from voicehost.errors import AudioDeviceError, InputError
from voicehost.phones.clocksync import ClockSync, Exchange

AUDIO_KIND = 1
SPEECH_KIND = 2
HEADER = struct.Struct("<IId")
"""Audio block header: kind, sequence number, audio-context frame of the first sample."""
SPEECH_HEADER = struct.Struct("<IIII")
PING_FAST = 0.1
"""Seconds between pings during a phone's first :data:`FAST_PINGS` exchanges (a quick start)."""
FAST_PINGS = 20
PING_SLOW = 0.5
"""Seconds between pings afterwards (2 Hz: a few hundred bytes a second)."""
MAX_BLOCK_FRAMES = 48000
"""Frames: a larger audio message is refused (a block is normally 20 ms)."""
MIN_RATE, MAX_RATE = 8000, 96000
PAGE_FILES = {
    "/": ("index.html", "text/html"),
    "/phone.js": ("phone.js", "text/javascript"),
    "/capture.js": ("capture.js", "text/javascript"),
}


class PhoneServerError(AudioDeviceError):
    """The phones' web server cannot start (the port is taken, the certificate cannot be read)."""


@dataclass(frozen=True)
class PhoneBlock:
    """One block of microphone audio from a phone, as it arrived."""

    seq: int
    frame: int
    """Audio-context frame of the first sample (the phone's audio clock)."""
    samples: np.ndarray
    """float32 mono, values in [-1, 1]."""
    arrived: float
    """Host seconds (monotonic)."""


@dataclass
class PhoneLink:
    """One phone connection seated at one seat (a phone that reconnects gets a new link)."""

    seat: str
    rate: int
    """Hz of the phone's audio context."""
    generation: int
    """Counts the links of this seat: a new number means a new audio clock."""
    agent: str = ""
    sync: ClockSync = field(default_factory=ClockSync)
    blocks: "queue.Queue[PhoneBlock]" = field(default_factory=queue.Queue)
    connected: bool = True
    joined_at: float = field(default_factory=time.monotonic)
    closed_at: float | None = None
    reports: list[dict[str, Any]] = field(default_factory=list)
    """What the page said it did ('shown' lines, 'played' sounds), in order."""
    lock: threading.Lock = field(default_factory=threading.Lock)


def page_file(name: str) -> bytes:
    """One of the page's files, from the package data."""
    return resources.files("voicehost.phones").joinpath("page", name).read_bytes()


class PhoneServer:
    """Serves the page and seats phones at the named seats (case-insensitive match)."""

    def __init__(
        self,
        seats: Sequence[str],
        *,
        host: str = "0.0.0.0",
        port: int = 8443,
        tls: ssl.SSLContext | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        if not seats:
            raise InputError("no seats for phones")
        self.seats = tuple(seats)
        self.host = host
        self.port = port
        self.tls = tls
        self.log = log or (lambda line: None)
        self._links: dict[str, PhoneLink] = {}
        self._sockets: dict[str, Any] = {}
        self._generations: dict[str, int] = {s: 0 for s in self.seats}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None
        self._error: BaseException | None = None
        self.changed = threading.Condition(self._lock)
        """Notified whenever a phone joins or leaves."""

    # -- life cycle --

    def start(self, timeout: float = 10.0) -> "PhoneServer":
        """Start serving (raises PhoneServerError when the port cannot be bound)."""
        self._thread = threading.Thread(target=self._run, name="voicehost-phones", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise PhoneServerError(f"the phones' web server did not start within {timeout:.0f} s")
        if self._error is not None:
            raise PhoneServerError(f"cannot serve the phones' page on port {self.port}: {self._error}") from self._error
        return self

    def stop(self) -> None:
        """Close every connection and stop serving (safe to call twice)."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stopping.set)
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def __enter__(self) -> "PhoneServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as error:  # reported to start(); the thread must not die silently
            self._error = error
            self._ready.set()

    async def _serve(self) -> None:
        from aiohttp import web

        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        app = web.Application()
        app.router.add_get("/ws", self._socket)
        for path in PAGE_FILES:
            app.router.add_get(path, self._page)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port, ssl_context=self.tls)
            await site.start()
            if self.port == 0:
                server = getattr(site, "_server", None)
                sockets = getattr(server, "sockets", None) or []
                if sockets:
                    self.port = int(sockets[0].getsockname()[1])
        except OSError as error:
            self._error = error
            self._ready.set()
            await runner.cleanup()
            return
        self._ready.set()
        await self._stopping.wait()
        for ws in list(self._sockets.values()):
            await ws.close()
        await runner.cleanup()

    # -- the page --

    async def _page(self, request: Any) -> Any:
        from aiohttp import web

        name, kind = PAGE_FILES[request.path]
        return web.Response(body=page_file(name), content_type=kind, headers={"Cache-Control": "no-store"})

    # -- one phone --

    async def _socket(self, request: Any) -> Any:
        from aiohttp import WSMsgType, web

        ws = web.WebSocketResponse(heartbeat=None, max_msg_size=4 * MAX_BLOCK_FRAMES + 64)
        await ws.prepare(request)
        link: PhoneLink | None = None
        pinger: asyncio.Task[None] | None = None
        pending: dict[int, float] = {}
        try:
            async for message in ws:
                if message.type == WSMsgType.BINARY:
                    if link is not None:
                        self._audio(link, message.data)
                    continue
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    data = json.loads(message.data)
                except ValueError:
                    continue
                if not isinstance(data, dict):
                    continue
                kind = data.get("type")
                if kind == "join" and link is None:
                    link = await self._join(ws, data)
                    if link is not None:
                        pinger = asyncio.ensure_future(self._ping(ws, pending))
                elif kind == "pong" and link is not None:
                    self._pong(link, data, pending)
                elif kind in ("shown", "played") and link is not None:
                    with link.lock:
                        link.reports.append(data)
        finally:
            if pinger is not None:
                pinger.cancel()
            if link is not None:
                self._leave(link, ws)
        return ws

    async def _join(self, ws: Any, data: dict[str, Any]) -> PhoneLink | None:
        name = str(data.get("name", "")).strip()
        rate = data.get("rate")
        if not isinstance(rate, (int, float)) or not MIN_RATE <= rate <= MAX_RATE:
            await ws.send_json({"type": "refused", "reason": f"This browser's audio rate {rate!r} cannot be used."})
            return None
        with self._lock:
            seat = next((s for s in self.seats if s.lower() == name.lower()), None)
            free = [s for s in self.seats if not (s in self._links and self._links[s].connected)]
            if seat is None or seat not in free:
                reason = (
                    f"{name} is already seated on another phone."
                    if seat is not None
                    else f"There is no seat for {name!r} at this table."
                )
                await ws.send_json({"type": "refused", "reason": reason + " Choose your name below.", "free": free})
                return None
            self._generations[seat] += 1
            link = PhoneLink(seat, int(rate), self._generations[seat], agent=str(data.get("agent", ""))[:200])
            self._links[seat] = link
            self._sockets[seat] = ws
            self.changed.notify_all()
        await ws.send_json({"type": "seated", "name": seat, "seat": self.seats.index(seat) + 1})
        self.log(f"{seat}'s phone joined")
        return link

    def _leave(self, link: PhoneLink, ws: Any) -> None:
        with self._lock:
            link.connected = False
            link.closed_at = time.monotonic()
            if self._sockets.get(link.seat) is ws:
                del self._sockets[link.seat]
            self.changed.notify_all()
        self.log(f"{link.seat}'s phone left")

    async def _ping(self, ws: Any, pending: dict[int, float]) -> None:
        count = 0
        while not ws.closed:
            pending[count] = time.monotonic()
            await ws.send_str(json.dumps({"type": "ping", "id": count}))
            for key in [k for k in pending if k < count - 50]:
                del pending[key]
            count += 1
            await asyncio.sleep(PING_FAST if count < FAST_PINGS else PING_SLOW)

    def _pong(self, link: PhoneLink, data: dict[str, Any], pending: dict[int, float]) -> None:
        received = time.monotonic()
        ident = data.get("id")
        sent = pending.pop(ident, None) if isinstance(ident, int) else None
        remote = data.get("remote")
        if sent is not None and isinstance(remote, (int, float)) and np.isfinite(remote):
            with link.lock:
                link.sync.add(Exchange(sent, received, float(remote)))

    def _audio(self, link: PhoneLink, data: bytes) -> None:
        if len(data) < HEADER.size:
            return
        kind, seq, frame = HEADER.unpack_from(data)
        count = (len(data) - HEADER.size) // 2
        if kind != AUDIO_KIND or not 0 < count <= MAX_BLOCK_FRAMES or not np.isfinite(frame) or frame < 0:
            return
        pcm = np.frombuffer(data, dtype="<i2", count=count, offset=HEADER.size)
        link.blocks.put(PhoneBlock(seq, int(frame), pcm.astype(np.float32) / 32768.0, time.monotonic()))

    # -- for the rest of the program (any thread) --

    def link(self, seat: str) -> PhoneLink | None:
        """The current link of ``seat`` (None before its phone joined)."""
        with self._lock:
            return self._links.get(seat)

    def seated(self) -> tuple[str, ...]:
        """Seats whose phone is connected now."""
        with self._lock:
            return tuple(s for s in self.seats if s in self._links and self._links[s].connected)

    def wait_for(
        self,
        seats: Sequence[str],
        timeout: float | None = None,
        tick: Callable[[tuple[str, ...]], None] | None = None,
        every: float = 1.0,
    ) -> bool:
        """Wait until every seat in ``seats`` has a connected phone; ``tick`` gets the missing
        seats every ``every`` seconds. False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            missing = tuple(s for s in seats if s not in self.seated())
            if not missing:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            if tick is not None:
                tick(missing)
            with self._lock:
                wait = every if deadline is None else max(0.0, min(every, deadline - time.monotonic()))
                self.changed.wait(wait)

    def _send(self, seat: str, payload: str | bytes) -> bool:
        loop = self._loop
        with self._lock:
            ws = self._sockets.get(seat)
        if loop is None or ws is None or loop.is_closed():
            return False
        coroutine = ws.send_bytes(payload) if isinstance(payload, bytes) else ws.send_str(payload)
        future = asyncio.run_coroutine_threadsafe(_quietly(coroutine), loop)
        try:
            return bool(future.result(timeout=2.0))
        except (TimeoutError, asyncio.CancelledError, RuntimeError):
            return False

    def send_line(self, seat: str, text: str, *, private: bool) -> bool:
        """Show ``text`` on ``seat``'s phone (False when that phone is not connected)."""
        return self._send(seat, json.dumps({"type": "line", "text": text, "private": private}))

    def send_status(self, seat: str, text: str) -> bool:
        """Replace the status line of ``seat``'s phone."""
        return self._send(seat, json.dumps({"type": "status", "text": text}))

    def send_hush(self, seat: str) -> bool:
        """Stop what ``seat``'s phone is playing (barge-in)."""
        return self._send(seat, json.dumps({"type": "hush"}))

    def send_speech(self, seat: str, ident: int, samples: np.ndarray, rate: int) -> bool:
        """Play mono float ``samples`` at ``rate`` Hz on ``seat``'s phone."""
        pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
        return self._send(seat, SPEECH_HEADER.pack(SPEECH_KIND, ident & 0xFFFFFFFF, rate, 0) + pcm.tobytes())


async def _quietly(coroutine: Any) -> bool:
    """Send, treating a connection that closed meanwhile as 'not sent'."""
    try:
        await coroutine
        return True
    except (ConnectionError, RuntimeError):
        return False
