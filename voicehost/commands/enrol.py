"""``voicehost enrol``: each player of a saved table says the game's words, so the host learns their voices."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voicehost.games import SHOUTED
from voicehost.status import ExitStatus

NAME = "enrol"
HELP = "record each player saying the game's words (three times, or --takes N) so their shouts are heard better"
DESCRIPTION = """\
Walk the players of a table (a table.toml written by 'voicehost setup-table') through saying every
word of the game, a few times each, into their own microphone. The takes are saved next to the
table file, in enrolment/NAME/WORD-N.wav; 'voicehost play --config table.toml' then uses them to
recognise each player's shouts (Whisper's general model, helped by how this player says the word:
see README, "Recognition"). Enrolment takes about a minute per player and game (3.5 s per take).

Run it again to re-record (the old takes of those words are replaced). 'voicehost rank' reads the
same folders with --enroll NAME=DIR.

examples:
  voicehost enrol --config table.toml --game bimbamm
  voicehost enrol --config table.toml --game bimbambum --players Ben --takes 2
"""

GAMES = (*SHOUTED, "all")
TAKES = (1, 5)
"""Takes of each word a player may be asked for (one did as well as three on synthetic voices: README)."""
TAKES_HELP = f"takes of each word ({TAKES[0]} to {TAKES[1]}, default 3)"


def check_takes(takes: int) -> None:
    """Refuse a number of takes outside :data:`TAKES` in one line (``enrol --takes``, ``setup-table --takes``)."""
    from voicehost.errors import InputError

    if not TAKES[0] <= takes <= TAKES[1]:
        raise InputError(f"--takes {takes}: give {TAKES[0]} to {TAKES[1]} takes of each word")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``enrol``."""
    from voicehost.commands.play import rate_type

    parser.add_argument("--config", type=Path, required=True, metavar="TABLE.toml", help="the table (from setup-table)")
    parser.add_argument(
        "--game", choices=GAMES, default="all", help="whose words to say (default: all: both shouting games)"
    )
    parser.add_argument("--players", metavar="NAME,NAME", help="only these players (default: everyone at the table)")
    parser.add_argument("--takes", type=int, default=3, metavar="N", help=TAKES_HELP)
    parser.add_argument("--lang", default="en", metavar="LANG", help="language of the words (default: en)")
    parser.add_argument("--voice", default=None, help="espeak-ng voice of the host")
    parser.add_argument(
        "--rate",
        type=rate_type,
        metavar="WPM",
        help="the host's speaking rate, 80 to 450 words per minute (default 175)",
    )


def enrol_words(game: str, lang: str) -> list[str]:
    """The words a player says: every word of the game's shout phrases (once each, in pack order)."""
    from voicehost.listen.vocab import load_pack

    pack = load_pack(lang)
    games = SHOUTED if game == "all" else (game,)
    words: list[str] = []
    for g in games:
        for phrase in pack.games.get(g, ()):
            for form in pack.spoken_forms(phrase)[:1]:
                words.extend(w for w in form.split() if w not in words)
    return words


def enrolment_folder(config: Path) -> Path:
    """Where a table's enrolment takes live: next to its table file."""
    return config.resolve().parent / "enrolment"


def run(args: argparse.Namespace) -> int:
    """Load the table, open its devices, walk the players through their words."""
    from voicehost.clock import WallClock
    from voicehost.errors import InputError
    from voicehost.host.calibrate import LiveRecorder, TableSetup
    from voicehost.host.table import load_table
    from voicehost.speak.output import device_outputs
    from voicehost.speak.service import SpeechService, TextTranscript
    from voicehost.speak.voice import DEFAULT_RATE, EspeakVoice

    check_takes(args.takes)
    table = load_table(args.config)
    chosen = (
        table.microphone_seats
        if not args.players
        else tuple(table.seat(n.strip()) for n in args.players.split(",") if n.strip())
    )
    on_phones = [seat.name for seat in chosen if seat.by_phone]
    if on_phones:
        raise InputError(
            f"{' and '.join(on_phones)} {'joins' if len(on_phones) == 1 else 'join'} by phone in "
            f"{args.config}: enrolment records from this machine's microphones only"
        )
    names = tuple(seat.name for seat in chosen)
    if not names:
        raise InputError(
            "--players names nobody"
            if args.players
            else f"{args.config}: every player joins by phone; enrolment records from this machine's microphones only"
        )
    if table.phone_seats and not args.players:
        print(f"(not enrolled, on phones: {', '.join(s.name for s in table.phone_seats)})", flush=True)
    words = enrol_words(args.game, args.lang)
    if not words:
        raise InputError(f"the {args.lang} vocabulary has no shout words for {args.game}")
    devices = table.input_devices
    inputs = [(device, max(s.channel.channel for s in seats)) for device, seats in devices.items()]
    columns: dict[str, int] = {}
    offset = 0
    for (device, count), seats in zip(inputs, devices.values()):
        for seat in seats:
            columns[seat.name] = offset + seat.channel.index
        offset += count
    folder = enrolment_folder(args.config)
    clock = WallClock()
    outputs = device_outputs(clock, table=table.speaker, phones=None, seats=0)
    print(
        f"enrolling {', '.join(names)}: {len(words)} words x {args.takes} takes ({', '.join(words)}) into {folder}",
        flush=True,
    )
    with (
        SpeechService(
            EspeakVoice(voice=args.voice, rate=args.rate or DEFAULT_RATE),
            outputs,
            clock,
            transcript=TextTranscript(sys.stdout),
        ) as host,
        LiveRecorder(inputs, clock) as recorder,
    ):
        host.open()
        setup = TableSetup(host, recorder, clock, log=lambda line: print(line, flush=True))
        result = setup.enrol([(n, columns[n]) for n in names], words, folder, takes=args.takes)
    for name in names:
        print(
            f"  {name}: {len(result.takes.get(name, []))} takes in {result.seconds.get(name, 0.0):.0f} s "
            f"-> {folder / name}"
        )
    print(f"enrolment took {result.total:.0f} s; 'voicehost play --config {args.config}' uses it")
    return ExitStatus.OK
