"""``voicehost rank``: who shouted what, and in which order, in recorded per-seat audio."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from voicehost.games import GAMES as GAMES_BY_NAME
from voicehost.games import SHOUTED
from voicehost.status import ExitStatus

if TYPE_CHECKING:
    from voicehost.audio.stream import StreamedTracks

NAME = "rank"
HELP = "rank the shouts in recorded per-player audio: who said what, first to last"
DESCRIPTION = """\
Listen to recorded audio with one channel per player and report every valid shout of the game,
sorted by when the player started shouting (the onset of their voice, to a few milliseconds).

Give either one file per player (--track NAME=FILE, repeated) or one multichannel file whose
channel 1 belongs to the first name of --seats, channel 2 to the second, and so on. All tracks
start at the same instant; shorter ones are padded with silence. Any common format works (WAV,
FLAC, ... at 8 to 48 kHz, 16/24-bit or float).

A shout that leaks into a neighbour's microphone counts once, for the player who made it. Chatter,
other words, coughs and laughter are not reported. Bim Bamm! phrases: cat, dog, pig, donkey, hen.
Bim Bam Bum! phrases: bim, bam, bum (up to three times), "bim bam bum", ship, and slap (a slap on
the table or a clap).

With --enroll NAME=DIR (repeatable) a player's own takes of the game's words help recognise their
shouts: DIR holds WORD-N.wav files, one word per file (cat-1.wav, cat-2.wav, bim-1.wav ...), as
'voicehost enrol' records them. Shouts the recogniser is unsure of are left out unless --uncertain
is given (then they are listed, marked "uncertain": true in --json).

examples:
  voicehost rank --game bimbamm --track Anna=anna.wav --track Ben=ben.wav
  voicehost rank --game bimbamm --track Anna=anna.wav --track Ben=ben.wav --enroll Anna=takes/Anna
  voicehost rank --game bimbambum --multichannel table.wav --seats Anna,Ben,Cleo --json
  voicehost rank --game bimbamm --track Anna=a.flac --track Ben=b.flac --plot race.png
"""

GAMES = SHOUTED
CONTRACT_PHRASES = {name: GAMES_BY_NAME[name].phrases for name in SHOUTED}
"""The English phrases of each game (the command-line contract, kept in the game registry), used when no
vocabulary pack says otherwise."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``rank``."""
    parser.add_argument("--game", required=True, choices=GAMES, help="which game's phrases count")
    parser.add_argument(
        "--track",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="one player's audio file (repeat for every player)",
    )
    parser.add_argument(
        "--multichannel", type=Path, metavar="FILE", help="one file with a channel per player (needs --seats)"
    )
    parser.add_argument("--seats", metavar="NAME,NAME,...", help="player of each channel of --multichannel, in order")
    parser.add_argument("--lang", default="en", metavar="LANG", help="language of the shouts (default: en)")
    parser.add_argument(
        "--engine",
        default="auto",
        choices=("auto", "vosk", "whisper", "sphinx"),
        help="speech recogniser: auto picks an installed Vosk model for the language, else Whisper "
        "tiny.en for English (shipped, no download); sphinx is the older PocketSphinx (default: auto)",
    )
    parser.add_argument(
        "--model",
        type=Path,
        metavar="DIR",
        help="use this model folder (Vosk, or a CTranslate2 Whisper model with --engine whisper)",
    )
    parser.add_argument(
        "--enroll",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="a player's enrolment takes (WORD-N.wav files); repeat for every enrolled player",
    )
    parser.add_argument("--uncertain", action="store_true", help="also list shouts the recogniser is unsure of")
    parser.add_argument("--json", action="store_true", help='print one JSON object: {"shouts": [...]}')
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="FILE.png",
        help="draw each seat's waveform with the detected events and the ranking",
    )


def run(args: argparse.Namespace) -> int:
    """Open the audio, listen to it block by block, print."""
    from voicehost.errors import InputError

    if args.plot is not None:
        from voicehost.audio.buffer import check_writable

        check_writable(args.plot)
        if args.plot.suffix.lower() != ".png":
            raise InputError(f"--plot {args.plot}: the picture must be a .png file")
    with _open(args) as recording:
        for note in recording.notes:
            print(f"voicehost rank: {note}", file=sys.stderr)
        phrases = game_phrases(args.game, args.lang)
        enrolled = _enrolled(args.enroll, recording.seats)
        recognizer = _recognizer(args)
        if enrolled:
            enrol = getattr(recognizer, "enrol", None)
            if enrol is None:
                raise InputError(
                    f"--enroll needs the Whisper recogniser; this run uses {recognizer.name} (try --engine whisper)"
                )
            enrol(enrolled)
        print(f"voicehost rank: {getattr(recognizer, 'description', recognizer.name)}", file=sys.stderr)
        from voicehost.progress import terminal_bar

        progress = (
            terminal_bar(
                "listening",
                unit="s",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s [{elapsed}<{remaining}]",
            )
            if recording.duration > 30
            else None
        )
        shouts, listener, kept = _listen(
            recording, recognizer, phrases, progress, keep=args.plot is not None, uncertain=args.uncertain
        )
    if args.json:
        print(json.dumps({"shouts": [s.to_json() for s in shouts]}, ensure_ascii=False))
    else:
        _print_table(shouts, recording.seats, recording.duration, args.game, recognizer.name)
    if args.plot is not None and kept is not None:
        from voicehost.listen.plot import plot_ranking

        plot_ranking(args.plot, kept, listener.decisions, shouts)
        print(f"voicehost rank: wrote {args.plot}", file=sys.stderr)
    return ExitStatus.OK


def _listen(
    recording: "StreamedTracks",
    recognizer: Any,
    phrases: Sequence[str],
    progress: Callable[[float, float], None] | None,
    *,
    keep: bool,
    uncertain: bool = False,
) -> tuple[list[Any], Any, Any]:
    """Feed the recording to a listener block by block on a simulated clock (as listen_to does for
    a recording held in memory); with ``keep`` also gather the audio (for --plot); ``uncertain``
    also reports the shouts the recogniser is unsure of."""
    import numpy as np

    from voicehost.clock import SimClock
    from voicehost.listen.pipeline import ListenConfig, Listener
    from voicehost.listen.ranking import ranked
    from voicehost.listen.sources import Recording

    listener = Listener(recording.seats, recognizer, phrases, config=ListenConfig(report_uncertain=uncertain))
    clock = SimClock()
    shouts: list[Any] = []
    gathered: list[Any] = []
    for block in recording.blocks(4096, clock):
        shouts.extend(listener.feed(block))
        if keep:
            gathered.append(block.samples)
        if progress is not None:
            progress(clock.now(), recording.duration)
    shouts.extend(listener.flush())
    kept = None
    if keep:
        samples = np.concatenate(gathered) if gathered else np.zeros((0, len(recording.seats)), dtype=np.float32)
        kept = Recording(recording.seats, samples, recording.rate, recording.files)
    return ranked(shouts), listener, kept


def _open(args: argparse.Namespace) -> "StreamedTracks":
    """The audio named by --track or --multichannel/--seats, opened and checked, not yet read."""
    from voicehost.audio.stream import StreamedTracks
    from voicehost.errors import InputError
    from voicehost.listen.sources import LISTEN_RATE, check_distinct, parse_seats, parse_track

    _check_seat_names(
        [spec.partition("=")[0].strip() for spec in args.track]
        + ([n.strip() for n in args.seats.split(",")] if args.seats else [])
    )
    if args.multichannel is not None and args.track:
        raise InputError("give either --track NAME=FILE (one per player) or --multichannel FILE --seats ..., not both")
    if args.multichannel is not None:
        if not args.seats:
            raise InputError(f"--multichannel {args.multichannel} needs --seats NAME,NAME,... (one name per channel)")
        return StreamedTracks.multichannel(args.multichannel, parse_seats(args.seats), LISTEN_RATE)
    if args.seats:
        raise InputError("--seats goes with --multichannel; with separate files use --track NAME=FILE")
    if not args.track:
        raise InputError("no audio given: add --track NAME=FILE for every player, or --multichannel FILE --seats ...")
    tracks = [parse_track(spec) for spec in args.track]
    by_name: dict[str, list[Path]] = {}
    for name, path in tracks:
        by_name.setdefault(name, []).append(path)
    check_distinct([name for name, _ in tracks], by_name)
    return StreamedTracks.per_seat(tracks, LISTEN_RATE)


def _enrolled(specs: Sequence[str], seats: Sequence[str]) -> dict[str, Path]:
    """Player → enrolment folder from ``--enroll NAME=DIR`` options (names must be seats)."""
    from voicehost.errors import InputError

    out: dict[str, Path] = {}
    for spec in specs:
        name, sep, folder = spec.partition("=")
        name = name.strip()
        if not sep or not name or not folder.strip():
            raise InputError(f"--enroll {spec!r}: write NAME=DIR, e.g. --enroll Anna=takes/Anna")
        if name not in seats:
            raise InputError(f"--enroll {name}: no seat of that name (seats: {', '.join(seats)})")
        if name in out:
            raise InputError(f"--enroll {name} is given twice")
        path = Path(folder.strip()).expanduser()
        if not path.is_dir():
            raise InputError(f"--enroll {name}={folder}: no such folder")
        out[name] = path
    return out


def _check_seat_names(names: list[str]) -> None:
    """Seat names as ``play`` takes them: printable, and distinct ignoring case (Anna and ANNA are one player)."""
    from voicehost.listen.sources import TrackSpecError
    from voicehost.text import describe_unsafe, unsafe_characters

    seen: dict[str, str] = {}
    for name in names:
        if unsafe_characters(name):
            raise TrackSpecError(f"seat name {name!r} contains {describe_unsafe(unsafe_characters(name))}")
        if name and name.lower() in seen and seen[name.lower()] != name:
            raise TrackSpecError(
                f"seats {seen[name.lower()]!r} and {name!r} differ only in capitals: every player needs their own name"
            )
        seen.setdefault(name.lower(), name)


def game_phrases(game: str, lang: str) -> tuple[str, ...]:
    """The phrases that count in ``game`` for ``lang``: the vocabulary pack's when there is one."""
    from voicehost.listen.vocab import phrases_for

    phrases = tuple(phrases_for(game, lang))
    if game == "bimbambum" and "slap" not in phrases:
        phrases += ("slap",)
    return phrases


def _recognizer(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from voicehost.errors import ModelError

    try:
        from voicehost.models.engine import user_recognizer
    except ImportError as error:
        raise ModelError(f"speech recognition is not available in this build ({error})") from error
    return user_recognizer(args.lang, args.engine, args.model)


def _print_table(shouts: Sequence[object], seats: Sequence[str], duration: float, game: str, engine: str) -> None:
    from voicehost.listen.messages import Shout

    rows = [s for s in shouts if isinstance(s, Shout)]
    print(f"{game}: {len(rows)} shout(s) from {len(seats)} seat(s), {duration:.1f} s of audio, recogniser {engine}")
    if not rows:
        print("no shouts heard")
        return
    width = max(6, *(len(s.player) for s in rows))
    print(f"{'#':>3}  {'player':<{width}}  {'phrase':<12}  {'onset s':>8}  {'end s':>7}  {'conf':>5}")
    for rank, s in enumerate(rows, 1):
        print(f"{rank:>3}  {s.player:<{width}}  {s.phrase:<12}  {s.onset:8.3f}  {s.end:7.3f}  {s.confidence:5.2f}")
