"""``voicehost setup-table``: seat the players by voice and measure the microphones' latencies."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.commands.enrol import TAKES_HELP, check_takes
from voicehost.errors import AudioDeviceError, InputError
from voicehost.games import SHOUTED
from voicehost.status import ExitStatus
from voicehost.text import players_problem

if TYPE_CHECKING:
    from voicehost.host.calibrate import SetupResult, TableSetup
    from voicehost.host.table import DeviceSpec, Table

NAME = "setup-table"
HELP = "seat the players by voice: find each player's microphone, measure latencies, write table.toml"
DESCRIPTION = """\
Walk the group through setting up the table, by voice. The host asks each player in turn to say
their name, finds the microphone channel where the name arrived loudest, and confirms aloud
("Anna, you are on microphone 3"). If it cannot tell, it asks again (three times at most). When
the players' microphones are on different devices (several USB headsets), it then plays a few
clicks on the table speaker and measures how late each device hears them, so that nobody is
judged slower because of their headset. With --phones it says a line into each player's
earphone. It ends by reading a summary aloud and writing the table config (--out). With
--enrol GAME each player then says every word of that game a few times (as 'voicehost enrol'
does for a saved table; about a minute per player), so their shouts are heard better.

Players named in --by-phone join with their own phones ('input = "phone"' in the table config):
they are not asked to speak here, because 'voicehost play --config' finds their phones by name
when they open the page, and measures each phone's delay with clicks at the start of every game.
When every player is on a phone there is nothing to listen to or measure: the config is written
at once, without a sound.

Microphones are numbered across the --inputs devices in order: with two 2-channel devices,
microphones 1-2 are the first device's channels and 3-4 the second's. See docs/table.md for how
to wire a table and what works with a single microphone.

examples:
  voicehost setup-table --players Anna,Ben,Cem
  voicehost setup-table --players Anna,Ben --inputs "USB headset",3 --out games/table.toml
  voicehost setup-table --players Anna,Ben,Cem --inputs scarlett:4 --speaker 5 --phones 7
  voicehost setup-table --players Anna,Ben --enrol bimbamm
  voicehost setup-table --players Anna,Ben,Cem --by-phone Ben,Cem --inputs "USB headset"
"""

MAX_CHANNELS = 8
"""Channels listened to per input device unless DEV:N says otherwise (PulseAudio devices claim 32)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``setup-table``."""
    from voicehost.commands.play import rate_type

    parser.add_argument(
        "--players",
        required=True,
        metavar="NAMES",
        help="the players in seat order, separated by commas, e.g. Anna,Ben,Cem",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("table.toml"),
        metavar="FILE",
        help="where to write the table config (default: table.toml)",
    )
    parser.add_argument(
        "--speaker",
        metavar="DEV",
        help="the table speaker: device index or (part of) its name (default: the default output)",
    )
    parser.add_argument(
        "--inputs",
        metavar="DEV[:N],...",
        help=f"microphone devices to listen to, separated by commas; ':N' listens to the first N "
        f"channels (default: the default input device, up to {MAX_CHANNELS} channels each)",
    )
    parser.add_argument(
        "--phones",
        metavar="DEV",
        help="the players' earphones: one output device, channel 1 for the first player on a "
        "microphone, 2 for the second, ... (players --by-phone hear theirs on the phone)",
    )
    parser.add_argument(
        "--by-phone",
        metavar="NAMES",
        help="players (of --players, separated by commas) who join with their own phones "
        "instead of a microphone here; see docs/table.md",
    )
    parser.add_argument("--voice", metavar="V", help="the host's espeak-ng voice (default: gmw/en-us)")
    parser.add_argument(
        "--rate",
        type=rate_type,
        metavar="WPM",
        help="the host's speaking rate, 80 to 450 words per minute (default 175)",
    )
    parser.add_argument(
        "--enrol",
        choices=(*SHOUTED, "all"),
        metavar="GAME",
        help=f"then record each player saying GAME's words ({', '.join(SHOUTED)} or all), "
        "saved next to --out for 'play --config'",
    )
    parser.add_argument("--takes", type=int, default=3, metavar="N", help=f"--enrol: {TAKES_HELP}")


class PlayersError(InputError):
    """The --players list cannot be used."""


class NoMicrophone(InputError, AudioDeviceError):
    """The microphone setup-table should listen to is not there (plug one in or name one): status 2."""


def parse_players(spec: str) -> tuple[str, ...]:
    """'Anna, Ben,Cem' → ('Anna', 'Ben', 'Cem'), with the name check every command uses."""
    names = tuple(part.strip() for part in spec.split(","))
    if any(not n for n in names):
        raise PlayersError(f"--players {spec!r} has an empty name: write NAME,NAME,...")
    problem = players_problem(names)
    if problem is not None:
        raise PlayersError(f"--players: {problem}")
    return names


def parse_by_phone(spec: str | None, players: tuple[str, ...]) -> tuple[str, ...]:
    """The players of ``--by-phone``, spelt as in --players and in their order."""
    if spec is None:
        return ()
    wanted = [part.strip() for part in spec.split(",") if part.strip()]
    if not wanted:
        raise PlayersError(f"--by-phone {spec!r} names nobody: write NAME,NAME,...")
    known = {name.lower(): name for name in players}
    unknown = [name for name in wanted if name.lower() not in known]
    if unknown:
        raise PlayersError(f"--by-phone: {', '.join(repr(n) for n in unknown)} not in --players ({', '.join(players)})")
    chosen = {known[name.lower()] for name in wanted}
    return tuple(name for name in players if name in chosen)


def device_spec(text: str) -> DeviceSpec:
    """A device as the user wrote it: an index when it is a number, else (part of) a name."""
    text = text.strip()
    return int(text) if text.isdigit() else text


def parse_inputs(spec: str | None) -> list[tuple[DeviceSpec | None, int | None]]:
    """'mics:4,3' → [('mics', 4), (3, None)]; None → the default device.

    Device names that contain commas cannot be written here: use the index instead.
    """
    import re

    if spec is None:
        return [(None, None)]
    inputs: list[tuple[DeviceSpec | None, int | None]] = []
    for part in spec.split(","):
        match = re.fullmatch(r"(.*?)\s*:\s*(\d+)", part.strip())
        name, count = (match.group(1), int(match.group(2))) if match else (part.strip(), None)
        if not name.strip():
            raise InputError(f"--inputs {spec!r}: a device is missing (write DEV[:N],DEV[:N], see 'voicehost devices')")
        if count is not None and count < 1:
            raise InputError(f"--inputs {part.strip()!r}: listen to at least 1 channel")
        inputs.append((device_spec(name), count))
    return inputs


def resolve_inputs(wanted: list[tuple[DeviceSpec | None, int | None]]) -> list[tuple[DeviceSpec, int]]:
    """Each input device (as the user named it; the default's name when none) with its channel count."""
    from voicehost.audio.devices import find_device

    resolved: list[tuple[DeviceSpec, int]] = []
    seen: dict[int, DeviceSpec] = {}
    for spec, count in wanted:
        device = find_device(spec, output=False)
        if device is None:
            raise NoMicrophone("no default microphone found: name one with --inputs (see 'voicehost devices')")
        if count is not None and count > device.max_input_channels:
            raise AudioDeviceError(f"{device.name!r} has {device.max_input_channels} input channels, not {count}")
        if device.index in seen:
            raise InputError(f"--inputs names {device.name!r} twice ({seen[device.index]!r} and {spec!r})")
        seen[device.index] = spec if spec is not None else device.name
        resolved.append((seen[device.index], count or min(device.max_input_channels, MAX_CHANNELS)))
    return resolved


def run(args: argparse.Namespace) -> int:
    """Check the options, then walk the table through setup and write the config."""
    from voicehost.audio.buffer import check_writable
    from voicehost.clock import WallClock
    from voicehost.host.calibrate import LiveRecorder, SetupFailed, SinkClicks, TableSetup
    from voicehost.host.table import save_table
    from voicehost.speak.output import TABLE, DeviceSink, device_outputs
    from voicehost.speak.service import SpeechService, TextTranscript
    from voicehost.speak.voice import DEFAULT_RATE, EspeakVoice

    players = parse_players(args.players)
    by_phone = parse_by_phone(args.by_phone, players)
    if args.enrol:
        check_takes(args.takes)
    out = check_writable(args.out)
    if len(by_phone) == len(players):
        return all_on_phones(args, players, out)
    on_mics = tuple(name for name in players if name not in by_phone)
    inputs = resolve_inputs(parse_inputs(args.inputs))
    speaker = None if args.speaker is None else device_spec(args.speaker)
    phones = None if args.phones is None else device_spec(args.phones)
    voice = EspeakVoice(voice=args.voice, rate=args.rate or DEFAULT_RATE)
    clock = WallClock()
    outputs = device_outputs(clock, table=speaker, phones=phones, seats=len(on_mics))
    sink = outputs.get(TABLE)
    if not isinstance(sink, DeviceSink):
        raise SetupFailed(
            "no table speaker found: setup talks to the players, so name one with --speaker (see 'voicehost devices')"
        )
    channels = sum(count for _, count in inputs)
    print(
        f"listening on {channels} microphone channel(s): " + ", ".join(f"{spec!r} ({count})" for spec, count in inputs),
        flush=True,
    )
    with (
        SpeechService(voice, outputs, clock, transcript=TextTranscript(sys.stdout)) as host,
        LiveRecorder(inputs, clock) as recorder,
    ):
        host.open()
        setup = TableSetup(host, recorder, clock, clicks=SinkClicks(sink), log=lambda line: print(line, flush=True))
        result = setup.run(on_mics, speaker=speaker, phones=phones)
        table = with_phone_seats(result.table, players, by_phone)
        if by_phone:
            names = " and ".join(by_phone)
            host.say(
                f"{names} will join with their {'phones' if len(by_phone) > 1 else 'phone'} when the game starts."
            ).wait(30.0)
        save_table(table, out)
        report(result, table, out)
        if args.enrol:
            enrol_table(setup, result, out, args.enrol, args.takes)
            if by_phone:
                print(f"(not enrolled, on phones: {', '.join(by_phone)})")
    return ExitStatus.OK


def all_on_phones(args: argparse.Namespace, players: tuple[str, ...], out: Path) -> int:
    """Every player joins by phone: nothing to listen to or measure here; write the config."""
    from voicehost.host.table import PHONE, Seat, Table, save_table

    if args.phones is not None:
        raise InputError("--phones names earphones for players on microphones; every player joins by phone here")
    if args.enrol:
        raise InputError("--enrol records this machine's microphones; every player joins by phone here")
    if args.inputs is not None:
        raise InputError("--inputs: every player joins by phone, so no microphone is listened to")
    speaker = None if args.speaker is None else device_spec(args.speaker)
    table = Table(speaker, tuple(Seat(name, PHONE) for name in players))
    if speaker is not None:
        from voicehost.audio.devices import list_devices
        from voicehost.host.table import check_devices

        check_devices(table, list_devices())
    save_table(table, out)
    print(
        f"wrote {out}: {', '.join(players)} join by phone; each phone's delay is measured with clicks "
        f"at the start of every game ('voicehost play GAME --players {','.join(players)} --config {out}')"
    )
    return ExitStatus.OK


def with_phone_seats(table: Table, players: tuple[str, ...], by_phone: tuple[str, ...]) -> Table:
    """``table`` (the players seated on microphones) with the phone seats put in, in --players order."""
    from voicehost.host.table import PHONE, Seat, Table

    seated = {seat.name: seat for seat in table.seats}
    return Table(table.speaker, tuple(Seat(name, PHONE) if name in by_phone else seated[name] for name in players))


def enrol_table(setup: TableSetup, result: SetupResult, out: Path, game: str, takes: int) -> None:
    """Right after seating: every player says the game's words (the table file is already saved)."""
    from voicehost.commands.enrol import enrol_words, enrolment_folder

    words = enrol_words(game, "en")
    folder = enrolment_folder(out)
    players = [(seat.name, placement.channel) for seat, placement in zip(result.table.seats, result.placements)]
    print(f"\nenrolling {len(players)} players: {len(words)} words x {takes} takes into {folder}", flush=True)
    done = setup.enrol(players, words, folder, takes=takes)
    for name, _ in players:
        print(
            f"  {name}: {len(done.takes.get(name, []))} takes in {done.seconds.get(name, 0.0):.0f} s -> {folder / name}"
        )
    print(f"enrolment took {done.total:.0f} s; 'voicehost play --config {out}' uses it")


def report(result: SetupResult, table: Table, out: Path) -> None:
    """The summary on the terminal (``table``: the result's, with any phone seats put in)."""
    from voicehost.audio.devices import list_devices
    from voicehost.host.table import check_devices

    print(f"\nwrote {out}:")
    width = max(len(s.name) for s in table.seats)
    placements = dict(zip(result.table.names, result.placements))
    for seat in table.seats:
        if seat.by_phone:
            print(f"  {seat.name:<{width}}  joins by phone (its delay is measured with clicks at every game)")
            continue
        placement = placements[seat.name]
        lead = "" if placement.margin_db == float("inf") else f", {placement.margin_db:.0f} dB over the next"
        ear = f"; earphone {seat.output}" if seat.output is not None else ""
        print(
            f"  {seat.name:<{width}}  microphone {placement.channel + 1} = {seat.input}"
            f" (latency {seat.latency * 1000:.1f} ms{lead}){ear}"
        )
    if result.offsets is not None:
        for device, delay in result.offsets.delays.items():
            print(
                f"  {device!r}: click heard {delay * 1000:.1f} ms after it left the speaker "
                f"({result.offsets.heard[device]} clicks, spread {result.offsets.spread[device] * 1000:.1f} ms)"
            )
    for warning in (*result.warnings, *check_devices(table, list_devices())):
        print(f"note: {warning}")
