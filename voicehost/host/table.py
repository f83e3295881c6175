"""The table: who sits where — each seat's microphone channel, private earphone and input latency.

A table config is a small TOML file, written by ``voicehost setup-table`` or by hand::

    [table]
    speaker = "vh_table"                            # omitted: the default output
    [[seat]]
    name = "Anna"
    input = { device = "vh_mics", channel = 1 }     # channels count from 1
    output = { device = "vh_phones", channel = 1 }  # optional: Anna's private earphone
    latency = 0.0                                   # seconds, see Seat.latency
    [[seat]]
    name = "Ben"
    input = "phone"                                 # Ben joins with his phone (docs/table.md)

It is validated on load, and every mistake is reported with the file, line and field, because the
file is edited by people who are about to play, not by programmers. Whether the devices it names
exist is a separate question (:func:`check_devices`): the same file travels between machines.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, TypeAlias

from voicehost.errors import AudioDeviceError, InputError
from voicehost.files import (
    CONFIG_LIMIT,
    FileFormatError,
    FileReadError,
    OutputPathError,
    atomic_write_text,
    parse_toml,
    read_text,
)
from voicehost.files import check_output_file as check_writable
from voicehost.text import name_problem

if TYPE_CHECKING:
    from voicehost.audio.devices import DeviceInfo
    from voicehost.listen.sources import LiveInput

DeviceSpec: TypeAlias = str | int
"""A PortAudio device as the user names it: its index, its name, or a unique part of the name."""

MAX_LATENCY = 1.0
"""Seconds: a larger input latency is surely a typo (milliseconds written as seconds)."""
MAX_CHANNEL = 256
"""Highest channel number accepted (the largest audio interfaces have a few dozen)."""
LATENCY_DIGITS = 5
"""Decimals kept when saving a latency: 10 microseconds, far below what can be measured."""


class TableError(InputError):
    """A table config cannot be used; the message names the file, line and field."""


class TableDeviceError(AudioDeviceError):
    """A table config names a device or channel this machine does not have."""


@dataclass(frozen=True)
class Channel:
    """One channel of one sound device."""

    device: DeviceSpec
    """PortAudio device: index or (part of) its name, as listed by ``voicehost devices``."""
    channel: int
    """Channel on that device, counting from 1 (as printed on audio interfaces)."""

    @property
    def index(self) -> int:
        """The 0-based channel index PortAudio uses."""
        return self.channel - 1

    def __str__(self) -> str:
        device = f"device {self.device}" if isinstance(self.device, int) else self.device
        return f"{device} channel {self.channel}"


@dataclass(frozen=True)
class Phone:
    """The player joins with their own phone (``input = "phone"``): its microphone is their
    channel and its earphone their private ear. Nothing about it is stored: the phone is found
    by the player's name when they join, and its delay is measured with clicks at every game
    (:mod:`voicehost.phones`), because it changes with the browser and each connection."""

    def __str__(self) -> str:
        return "phone"


PHONE = Phone()
"""The one value of :class:`Phone`."""


@dataclass(frozen=True)
class Seat:
    """A player and the channels that hear them and whisper to them."""

    name: str
    input: Channel | Phone
    """The microphone channel where this player is heard loudest, or :data:`PHONE`."""
    output: Channel | None = None
    """This player's private earphone; None when the player has none (table-cards mode) or
    hears private lines on their phone."""
    latency: float = 0.0
    """Seconds this seat's input lags behind the earliest seat's (measured by setup-table); the
    listening pipeline subtracts it from onsets. Seats on one device share a clock and a value.
    Always 0 for a phone seat (its delay is measured at each game)."""

    @property
    def by_phone(self) -> bool:
        """True when the player joins with their phone."""
        return isinstance(self.input, Phone)

    @property
    def channel(self) -> Channel:
        """The microphone channel of a seat that has one (TableError for a phone seat)."""
        if isinstance(self.input, Channel):
            return self.input
        raise TableError(f"{self.name} joins by phone: that seat has no microphone channel")


@dataclass(frozen=True)
class Table:
    """Every seat, in playing order, and the table speaker."""

    speaker: DeviceSpec | None
    """The output everybody hears; None means the default output device."""
    seats: tuple[Seat, ...]
    source: Path | None = field(default=None, compare=False)
    """The file this table was loaded from (for messages), if any."""

    @property
    def names(self) -> tuple[str, ...]:
        """Players' names in seat order."""
        return tuple(seat.name for seat in self.seats)

    @property
    def phone_seats(self) -> tuple[Seat, ...]:
        """The seats whose players join with their phones, in order."""
        return tuple(seat for seat in self.seats if seat.by_phone)

    @property
    def microphone_seats(self) -> tuple[Seat, ...]:
        """The seats heard on a microphone channel of this machine, in order."""
        return tuple(seat for seat in self.seats if not seat.by_phone)

    @property
    def private_outputs(self) -> bool:
        """True when every seat has an earphone (a phone is one): private cards can be whispered
        to each player."""
        return bool(self.seats) and all(seat.output is not None or seat.by_phone for seat in self.seats)

    @property
    def single_microphone(self) -> bool:
        """True when every seat is heard on one and the same channel: turns and judging work,
        but who shouted first cannot be told (that needs one channel per player)."""
        return not self.phone_seats and len({seat.input for seat in self.seats}) == 1

    @property
    def input_devices(self) -> dict[DeviceSpec, tuple[Seat, ...]]:
        """Each input device (in order of first use) with the microphone seats it hears: one
        stream each (phone seats have none)."""
        devices: dict[DeviceSpec, list[Seat]] = {}
        for seat in self.microphone_seats:
            devices.setdefault(seat.channel.device, []).append(seat)
        return {device: tuple(seats) for device, seats in devices.items()}

    @property
    def shared_inputs(self) -> tuple[tuple[Seat, ...], ...]:
        """Groups of two or more seats heard on the same channel (their races cannot be ranked)."""
        groups: dict[Channel, list[Seat]] = {}
        for seat in self.microphone_seats:
            groups.setdefault(seat.channel, []).append(seat)
        return tuple(tuple(group) for group in groups.values() if len(group) > 1)

    @property
    def latencies(self) -> dict[str, float]:
        """Input latency of each seat, seconds (what the listening pipeline subtracts)."""
        return {seat.name: seat.latency for seat in self.seats}

    def seat(self, name: str) -> Seat:
        """The seat of player ``name`` (case-insensitive)."""
        for seat in self.seats:
            if seat.name.lower() == name.lower():
                return seat
        raise TableError(f"{self._where()}{name!r} has no seat at this table ({', '.join(self.names)})")

    def live_inputs(self) -> list[LiveInput]:
        """One :class:`~voicehost.listen.sources.LiveInput` per input device, seats in order."""
        from voicehost.listen.sources import LiveInput

        return [
            LiveInput(device, tuple(s.name for s in seats), tuple(s.channel.index for s in seats))
            for device, seats in self.input_devices.items()
        ]

    def _where(self) -> str:
        return f"{self.source}: " if self.source is not None else ""


# ---- loading ---------------------------------------------------------------------------------

_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")


class _Lines:
    """Where each key was written, so that errors can name the line (tomllib does not say)."""

    def __init__(self, text: str) -> None:
        self._at: dict[tuple[str, int, str], int] = {}
        section, index, prefix = "", 0, ""
        seats = 0
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header:
                path = _dotted(header.group(2)) or [""]  # '[["]"]]': no readable name (tomllib decides)
                if header.group(1) == "[[" and path == ["seat"]:
                    seats += 1
                section, prefix = path[0], ".".join(path[1:])
                index = seats if section == "seat" else 0
                self._at.setdefault((section, index, prefix), number)
                continue
            key = _KEY.match(line)
            if key:
                dotted = ".".join(filter(None, [prefix, ".".join(_dotted(key.group(1)))]))
                self._at.setdefault((section, index, dotted), number)

    def line(self, section: str, index: int, key: str = "") -> int | None:
        """Line of ``key`` (dotted) in ``[section]`` (or the ``index``-th ``[[seat]]``, from 1);
        falls back to the enclosing key, then the section header."""
        parts = key.split(".") if key else []
        while True:
            found = self._at.get((section, index, ".".join(parts)))
            if found is not None or not parts:
                return found
            parts.pop()


def _dotted(key: str) -> list[str]:
    return [part.strip().strip("\"'") for part in re.findall(r"""[^."']+|"[^"]*"|'[^']*'""", key) if part.strip()]


class _Reader:
    """Validates the parsed TOML, raising TableError with file, line and field."""

    def __init__(self, source: str, text: str) -> None:
        self.source = source
        self.lines = _Lines(text)

    def fail(self, section: str, index: int, key: str, problem: str) -> TableError:
        line = self.lines.line(section, index, key)
        where = f"{self.source}:{line}" if line is not None else self.source
        what = f"seat {index}" if section == "seat" else f"[{section}]" if section else ""
        field_name = f"{what} {key}".strip()
        return TableError(f"{where}: {field_name}: {problem}" if field_name else f"{where}: {problem}")

    def table(self, data: Mapping[str, Any]) -> Table:
        for key in data:
            if key not in ("table", "seat"):
                line = self.lines.line(key, 0) or self.lines.line("", 0, key)
                where = f"{self.source}:{line}" if line is not None else self.source
                raise TableError(f"{where}: unknown section {key!r} (expected [table] and [[seat]])")
        head = data.get("table", {})
        if not isinstance(head, dict):
            raise self.fail("", 0, "table", "must be a section: [table]")
        for key in head:
            if key != "speaker":
                raise self.fail("table", 0, key, "unknown field (the [table] section has only 'speaker')")
        speaker = self.device("table", 0, "speaker", head["speaker"]) if "speaker" in head else None
        raw_seats = data.get("seat")
        if not isinstance(raw_seats, list) or not raw_seats:
            raise self.fail("", 0, "seat", "no seats: add a [[seat]] section for every player")
        seats = tuple(self.seat(i, raw) for i, raw in enumerate(raw_seats, start=1))
        self.check_together(seats)
        return Table(speaker, seats)

    def seat(self, index: int, raw: Any) -> Seat:
        if not isinstance(raw, dict):
            raise self.fail("seat", index, "", "must be a [[seat]] section")
        for key in raw:
            if key not in ("name", "input", "output", "latency"):
                raise self.fail("seat", index, key, "unknown field (a seat has name, input, output and latency)")
        if "name" not in raw:
            raise self.fail("seat", index, "", 'has no name: add name = "..."')
        if "input" not in raw:
            raise self.fail(
                "seat", index, "", 'has no input: add input = { device = "...", channel = 1 } (or input = "phone")'
            )
        name = self.name(index, raw["name"])
        if _is_phone(raw["input"]):
            return self.phone_seat(index, name, raw)
        output = self.channel(index, "output", raw["output"]) if "output" in raw else None
        latency = self.latency(index, raw.get("latency", 0.0))
        return Seat(name, self.channel(index, "input", raw["input"]), output, latency)

    def phone_seat(self, index: int, name: str, raw: Mapping[str, Any]) -> Seat:
        """``input = "phone"``: the phone is the microphone and the earphone, and its delay is
        measured at each game, so the seat can say nothing else."""
        if "output" in raw:
            raise self.fail(
                "seat",
                index,
                "output",
                "a player on a phone hears their private lines on the "
                "phone: remove output (or give the seat a microphone input)",
            )
        if "latency" in raw:
            raise self.fail(
                "seat", index, "latency", "a phone's delay is measured with clicks at every game: remove latency"
            )
        return Seat(name, PHONE)

    def name(self, index: int, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail("seat", index, "name", f"must be the player's name in quotes, not {value!r}")
        name = value.strip()
        problem = name_problem(name)
        if problem is not None:
            raise self.fail("seat", index, "name", problem)
        return name

    def channel(self, index: int, key: str, value: Any) -> Channel:
        if not isinstance(value, dict):
            also = ' or be "phone" (the player joins with their phone)' if key == "input" else ""
            raise self.fail(
                "seat", index, key, f'must look like {{ device = "vh_mics", channel = 1 }}{also}, not {value!r}'
            )
        for sub in value:
            if sub not in ("device", "channel"):
                raise self.fail("seat", index, f"{key}.{sub}", "unknown field (expected device and channel)")
        if "device" not in value:
            raise self.fail("seat", index, key, "has no device (index or name from 'voicehost devices')")
        if "channel" not in value:
            raise self.fail("seat", index, key, "has no channel (counting from 1)")
        device = self.device("seat", index, f"{key}.device", value["device"])
        channel = value["channel"]
        if isinstance(channel, bool) or not isinstance(channel, int) or not 1 <= channel <= MAX_CHANNEL:
            raise self.fail(
                "seat",
                index,
                f"{key}.channel",
                f"must be a whole number from 1 to {MAX_CHANNEL} (channels count from 1), not {channel!r}",
            )
        return Channel(device, channel)

    def device(self, section: str, index: int, key: str, value: Any) -> DeviceSpec:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise self.fail(section, index, key, f"must be a device index or name, not {value!r}")
        if isinstance(value, int):
            if value < 0:
                raise self.fail(section, index, key, f"device index {value} is negative")
            return value
        if not value.strip():
            raise self.fail(section, index, key, "device name is empty")
        return value.strip()

    def latency(self, index: int, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail("seat", index, "latency", f"must be a number of seconds, not {value!r}")
        if value < 0:
            raise self.fail(
                "seat", index, "latency", f"{value} s is negative (latencies count from the earliest seat, which has 0)"
            )
        if value > MAX_LATENCY:
            raise self.fail("seat", index, "latency", f"{value} s is too large: write seconds (0.012 for 12 ms)")
        return float(value)

    def check_together(self, seats: Sequence[Seat]) -> None:
        seen: dict[str, int] = {}
        ears: dict[Channel, int] = {}
        for index, seat in enumerate(seats, start=1):
            other = seen.setdefault(seat.name.lower(), index)
            if other != index:
                raise self.fail(
                    "seat",
                    index,
                    "name",
                    f"{seat.name!r} already sits at seat {other}: every player needs their own name",
                )
            if seat.output is not None:
                first = ears.setdefault(seat.output, index)
                if first != index:
                    raise self.fail(
                        "seat",
                        index,
                        "output",
                        f"{seat.output} is already seat {first}'s earphone: private cards would be heard by both",
                    )


def _is_phone(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() == "phone"


def parse_table(text: str, source: str | Path = "<table>") -> Table:
    """Parse and validate a table config given as TOML text (``source`` names it in errors)."""
    where = str(source)
    try:
        data = parse_toml(text, where)
    except FileFormatError as error:
        raise TableError(str(error)) from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        line = re.search(r"at line (\d+)", message)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", message)
        at = f"{where}:{line.group(1)}" if line else where
        raise TableError(f"{at}: not valid TOML: {reason}") from error
    table = _Reader(where, text).table(data)
    return Table(table.speaker, table.seats, Path(source) if isinstance(source, Path) else None)


def load_table(path: Path | str) -> Table:
    """Read and validate the table config at ``path``."""
    path = Path(path)
    if not path.exists():
        raise TableError(f"{path}: no such file (write one with 'voicehost setup-table --out {path}')")
    try:
        text = read_text(path, limit=CONFIG_LIMIT, what="table config")
    except FileReadError as error:
        raise TableError(str(error)) from None
    return parse_table(text, path)


# ---- saving ----------------------------------------------------------------------------------


def _toml_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


def _toml_device(device: DeviceSpec) -> str:
    return str(device) if isinstance(device, int) else _toml_string(device)


def _toml_channel(channel: Channel) -> str:
    return f"{{ device = {_toml_device(channel.device)}, channel = {channel.channel} }}"


def dumps_table(table: Table) -> str:
    """The table as TOML text, in the documented layout (comments included)."""
    lines = [
        "# voicehost table config: see docs/table.md. Channels count from 1; latency is in seconds.",
        "",
        "[table]",
    ]
    if table.speaker is not None:
        lines.append(f"speaker = {_toml_device(table.speaker)}")
    else:
        lines.append('# speaker = "..."   # the table speaker; omitted: the default output device')
    for seat in table.seats:
        lines += ["", "[[seat]]", f"name = {_toml_string(seat.name)}"]
        if isinstance(seat.input, Phone):
            lines.append('input = "phone"')
            continue
        lines.append(f"input = {_toml_channel(seat.input)}")
        if seat.output is not None:
            lines.append(f"output = {_toml_channel(seat.output)}")
        lines.append(f"latency = {round(seat.latency, LATENCY_DIGITS)!r}")
    return "\n".join(lines) + "\n"


def save_table(table: Table, path: Path | str) -> Path:
    """Write ``table`` to ``path`` atomically (a crash never leaves half a file); returns the path."""
    path = check_writable(Path(path))
    text = dumps_table(table)
    parse_table(text, path)  # never write a file that would not load
    try:
        atomic_write_text(path, text, "table config")
    except OutputPathError as error:
        raise TableError(str(error)) from None
    return path


# ---- checking against the machine -----------------------------------------------------------


def match_device(spec: DeviceSpec, devices: Sequence[DeviceInfo], *, output: bool) -> DeviceInfo:
    """The device ``spec`` names among ``devices`` (index, exact name, or unique part of a name),
    the way :func:`voicehost.audio.devices.find_device` matches, without asking PortAudio."""
    usable = [d for d in devices if (d.max_output_channels if output else d.max_input_channels) > 0]
    kind = "output" if output else "input"
    if isinstance(spec, int) or spec.isdigit():
        matches = [d for d in usable if d.index == int(spec)]
    else:
        matches = [d for d in usable if d.name == spec] or [d for d in usable if spec.lower() in d.name.lower()]
    if not matches:
        names = ", ".join(f"{d.index}: {d.name}" for d in usable) or "none"
        raise TableDeviceError(f"no {kind} device matches {spec!r} (available: {names})")
    if len(matches) > 1:
        raise TableDeviceError(f"{kind} device {spec!r} is ambiguous: {', '.join(d.name for d in matches)}")
    return matches[0]


def check_devices(table: Table, devices: Sequence[DeviceInfo]) -> list[str]:
    """Check ``table`` against the devices present (see :func:`voicehost.audio.devices.list_devices`).

    Raises :class:`TableDeviceError` for what cannot work: an unknown or ambiguous device, a
    channel beyond the device's channel count, one device named two different ways. Returns
    warnings, in plain words, for what works with limits: seats sharing a microphone channel
    (the single-microphone case), or seats on several devices without measured latencies.
    """
    where = table._where()
    if table.speaker is not None:
        try:
            match_device(table.speaker, devices, output=True)
        except TableDeviceError as error:
            raise TableDeviceError(f"{where}table speaker: {error}") from None
    resolved: dict[int, tuple[DeviceSpec, str]] = {}
    for seat in table.seats:
        for key, channel in (("input", seat.input), ("output", seat.output)):
            if not isinstance(channel, Channel):
                continue
            _check_channel(where, seat, key, channel, devices, resolved)
    return _warnings(table)


def _check_channel(
    where: str,
    seat: Seat,
    key: str,
    channel: Channel,
    devices: Sequence[DeviceInfo],
    resolved: dict[int, tuple[DeviceSpec, str]],
) -> None:
    output = key == "output"
    what = f"{where}{seat.name}'s {'earphone' if output else 'microphone'}"
    try:
        device = match_device(channel.device, devices, output=output)
    except TableDeviceError as error:
        raise TableDeviceError(f"{what}: {error}") from None
    count = device.max_output_channels if output else device.max_input_channels
    if channel.channel > count:
        raise TableDeviceError(
            f"{what}: {device.name!r} has {count} {key} channel(s); channel {channel.channel} does not exist"
        )
    if not output:
        first = resolved.setdefault(device.index, (channel.device, seat.name))
        if first[0] != channel.device:
            raise TableDeviceError(
                f"{what}: {channel.device!r} and {first[0]!r} ({first[1]}'s) are the same device "
                f"{device.name!r}: write it the same way for every seat"
            )


def _warnings(table: Table) -> list[str]:
    warnings = []
    if len(table.seats) > 1 and table.single_microphone:
        warnings.append(
            f"single microphone: every player is heard on {table.seats[0].input}. Taking turns and "
            "judging work; who shouted first in a race cannot be told (that needs one channel per player)."
        )
    else:
        for group in table.shared_inputs:
            names = " and ".join(s.name for s in group)
            warnings.append(
                f"{names} share {group[0].input}: voicehost hears their turns but cannot tell which "
                "of them shouted first."
            )
    devices = table.input_devices
    if len(devices) > 1 and all(seat.latency == 0.0 for seat in table.microphone_seats):
        warnings.append(
            f"the seats are on {len(devices)} input devices but no latencies are set: run "
            "'voicehost setup-table' to measure them, or who-was-first may be biased."
        )
    for device, seats in devices.items():
        if len({seat.latency for seat in seats}) > 1:
            warnings.append(
                f"seats on {device!r} have different latencies "
                f"({', '.join(f'{s.name} {s.latency * 1000:.1f} ms' for s in seats)}); "
                "channels of one device share a clock, so they normally have the same."
            )
    return warnings
