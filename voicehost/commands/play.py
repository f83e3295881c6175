"""``voicehost play GAME``: host a game by voice (or by typed lines, or from a script)."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from voicehost.host.build import PlaySettings
    from voicehost.host.session import Outcome
    from voicehost.rules.base import JsonObject

from voicehost.status import ExitStatus

NAME = "play"
HELP = "host a game: Bim Bamm!, Bim Bam Bum! or BAM! (by voice, typed lines or a script)"
DESCRIPTION = """\
Host a game. The host speaks every announcement, listens to each player and referees.

input modes:
  --input mic          live microphones, one channel per player (see --config, 'voicehost setup-table');
                       seats whose input is "phone" in the --config table join with their phones
  --input phones       each player's phone is their microphone and private earphone: the host
                       serves a page on the local network and says its address (docs/table.md)
  --input text         players type lines like 'Anna: seven' (for deaf or hard-of-hearing players,
                       and for trying the game out); the host prints what it says
  --input script:FILE  timed lines like '1.250 Anna: cat' drive the game on a simulated clock

At any time a player can say: repeat, score, help, slower, faster, pause, resume, quit.
With microphones, a microphone that stops pauses the game until it is back (or until somebody
says continue); overflows and stops are summed up at the end.
The event log (--log) is written as the game goes; 'voicehost resume LOG' continues a stopped game.
Each game has its own options: voicehost play GAME --help.

examples:
  voicehost play bimbamm --players Anna,Ben,Cem --input text
  voicehost play bimbambum --players Anna,Ben,Cem --input script:game.txt --log game.jsonl
"""

LIVE_INPUTS = ("mic", "phones")
"""Input modes that listen to live audio."""


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every game shares."""
    parser.add_argument("--players", required=True, metavar="A,B,C", help="player names in clockwise seating order")
    parser.add_argument(
        "--seed",
        type=_seed,
        default=None,
        metavar="N",
        help="shuffle seed, a whole number from 0 (default: random; the log records it)",
    )
    parser.add_argument(
        "--log",
        type=Path,
        metavar="FILE.jsonl",
        help="write the event log here, a new file (default: logs/GAME-SEED-N.jsonl)",
    )
    add_session_arguments(parser)


def _seed(text: str) -> int:
    from voicehost.host.options import MAX_SEED, whole_type

    return int(whole_type(0, MAX_SEED)(text))


def rate_type(text: str) -> int:
    """``--rate``: words per minute, MIN_RATE to MAX_RATE (argparse type)."""
    from voicehost.speak.voice import MAX_RATE, MIN_RATE

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not MIN_RATE <= value <= MAX_RATE:
        raise argparse.ArgumentTypeError(f"{value} is out of range: use {MIN_RATE} to {MAX_RATE} words per minute")
    return value


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    """How to run a session (input, voice, microphones): shared by play and resume."""
    parser.add_argument("--input", default="mic", metavar="MODE", help="mic (default), phones, text, or script:FILE")
    parser.add_argument(
        "--show-private",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="print private lines (secret cards, hands) on this terminal; default: only with "
        "--input text or script (one shared screen, said in the banner), never with microphones",
    )
    parser.add_argument(
        "--speech-wav", type=Path, metavar="FILE.wav", help="also write the host's table speech to a WAV file"
    )
    parser.add_argument(
        "--rate",
        type=rate_type,
        metavar="WPM",
        help="the host's speaking rate, 80 to 450 words per minute (default 175; players can also say slower/faster)",
    )
    parser.add_argument("--voice", metavar="V", help="the host's espeak-ng voice (see 'voicehost say --list-voices')")
    parser.add_argument(
        "--config",
        type=Path,
        metavar="TABLE.toml",
        help="microphones (or phones), speaker and earphones per seat (made by 'voicehost setup-table'); "
        "default: the default microphone and speaker",
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="save the session (all microphones, the host's speaking times, settings, event log) "
        "for 'voicehost replay DIR'",
    )
    parser.add_argument(
        "--lang",
        default="en",
        metavar="LANG",
        help="language of the players' words (default en; see 'voicehost models list')",
    )
    parser.add_argument(
        "--engine",
        default="auto",
        choices=["auto", "vosk", "whisper", "sphinx"],
        help="speech recogniser (default auto: an installed Vosk model, else Whisper tiny.en for English, shipped; "
        "sphinx: the older PocketSphinx)",
    )
    parser.add_argument("--model", type=Path, metavar="DIR", help="a Vosk model folder to use")
    parser.add_argument(
        "--start-file",
        type=Path,
        metavar="FILE",
        help="with --input mic: once the microphones are ready and the game begins (t = 0), "
        'write {"monotonic": SECONDS} to FILE: the system\'s monotonic clock (CLOCK_MONOTONIC) at t = 0, '
        "for a program that feeds the microphones in step with the game",
    )
    from voicehost.phones.cli import add_phone_arguments

    add_phone_arguments(parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One sub-parser per game, with the shared options and the game's own."""
    from voicehost.games import GAMES

    games = parser.add_subparsers(dest="game", metavar="GAME", required=True, parser_class=type(parser))
    for game, info in GAMES.items():
        module = info.flow_module()
        sub = games.add_parser(
            game, help=module.HELP, description=module.HELP, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        add_common_arguments(sub)
        module.add_arguments(sub)
        sub.set_defaults(_options=module.options_from_args)


def run(args: argparse.Namespace) -> int:
    """Build the session once, run it, close everything."""
    import random

    from voicehost.host.build import PlaySettings, check_players, run_session
    from voicehost.host.session import log_path_for

    players = check_players(args.players.split(","))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**6)
    if args.record is not None:
        check_new_recording(args.record)
        log = args.log or args.record / "events.jsonl"
    else:
        log = args.log or log_path_for(Path("logs"), args.game, seed)
    check_new_log(log, folder_may_be_missing=args.log is None)
    check_speech_wav(args.speech_wav)
    settings = PlaySettings(
        args.game,
        players,
        args.input,
        seed,
        log,
        args.speech_wav,
        show_private(args),
        args._options(args),
        speech_rate=args.rate,
        voice=args.voice,
    )
    if args.input not in LIVE_INPUTS and args.record is not None:
        print("voicehost play: --record needs --input mic or phones (it saves the microphones)", file=sys.stderr)
        return ExitStatus.USAGE
    with saved_on_stop(log):
        outcome = _run_live(settings, args) if args.input in LIVE_INPUTS else run_session(settings)
    print(f"(event log: {log})")
    if not outcome.finished:
        print(f"(the input ended before the game did: continue with 'voicehost resume {log}')")
    return ExitStatus.OK


def show_private(args: argparse.Namespace) -> bool:
    """Private lines on the terminal: as asked, else only when there are no microphones."""
    return bool(args.show_private) if args.show_private is not None else args.input not in LIVE_INPUTS


def check_new_log(log: Path, *, folder_may_be_missing: bool = False) -> None:
    """A new game's log must be a new (or empty) regular file: never another game's log.

    Its folder must exist, as for every file the user names; only voicehost's own default places
    (logs/, the --record folder) are created."""
    from voicehost.errors import InputError

    try:
        info = log.stat()
    except FileNotFoundError:
        if not folder_may_be_missing and not log.parent.is_dir():
            raise InputError(f"--log {log}: folder {log.parent} does not exist") from None
        if log.parent.is_dir() and not os.access(log.parent, os.W_OK | os.X_OK):
            raise InputError(f"--log {log}: folder {log.parent} is not writable") from None
        return
    except OSError as error:
        raise InputError(f"--log {log}: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"--log {log}: is a folder; give a file name inside it")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"--log {log}: is a device, FIFO or socket, not a regular file")
    if info.st_size:
        raise InputError(
            f"--log {log}: the file already exists (another game's log?); continue that game with "
            f"'voicehost resume {log}' or give a new file name"
        )


def check_new_recording(folder: Path) -> None:
    """``--record DIR`` must not write over a recording that is already there."""
    from voicehost.errors import InputError
    from voicehost.host.listening import MICS_FILE, SESSION_FILE

    if folder.exists() and not folder.is_dir():
        raise InputError(f"--record {folder}: is a file, not a folder")
    for name in (SESSION_FILE, MICS_FILE):
        if (folder / name).exists():
            raise InputError(f"--record {folder}: already holds a recorded session ({name}); give a new folder")


def check_speech_wav(path: Path | None) -> None:
    """``--speech-wav`` must name a file that can be written (never a device, FIFO or folder)."""
    if path is not None:
        from voicehost.files import check_output_file

        check_output_file(path, "WAV file")


@contextmanager
def saved_on_stop(log: Path) -> Iterator[None]:
    """On Ctrl-C or SIGTERM, tell where the game is saved and how to go on (then stop as asked)."""
    try:
        yield
    except KeyboardInterrupt:
        if log.exists():
            print(
                f"voicehost: stopped; the game so far is saved in {log}: continue with 'voicehost resume {log}'",
                file=sys.stderr,
                flush=True,
            )
        raise


def has_phone_seats(config: Path | None) -> bool:
    """True when the table config seats some players on their phones (``input = "phone"``)."""
    if config is None:
        return False
    from voicehost.host.table import load_table

    return bool(load_table(config).phone_seats)


def _run_live(
    settings: "PlaySettings", args: argparse.Namespace, resume: "list[JsonObject] | None" = None
) -> "Outcome":
    """Microphones and speakers: build, run (or resume) until the game ends or Ctrl-C, close everything."""
    from voicehost.host.build import write_session_file
    from voicehost.host.live import ListenSettings, build_live
    from voicehost.host.session import Session

    listen = ListenSettings(args.lang, args.engine, args.model)
    if resume is None:
        write_session_file(settings)
    if args.input == "phones" or has_phone_seats(args.config):
        from voicehost.phones.live import build_phones, phone_settings_from

        built = build_phones(
            settings,
            listen,
            phone_settings_from(args),
            args.config,
            everyone=args.input == "phones",
            record=args.record,
            start_file=args.start_file,
        )
    else:
        built = build_live(settings, listen, args.config, record=args.record, start_file=args.start_file)
    try:
        return Session(built.flow, built.input, built.host).run(resume_from=resume)
    finally:
        built.close()
