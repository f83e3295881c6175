"""``voicehost resume LOG``: continue a stopped or crashed game from its event log."""

from __future__ import annotations

import argparse
from pathlib import Path

from voicehost.status import ExitStatus

NAME = "resume"
HELP = "continue a stopped or crashed game from its event log"
DESCRIPTION = """\
Continue a game from its event log (the JSON Lines file 'voicehost play' writes as the game goes).
The host replays the log with the rules to rebuild the game exactly, announces where it stands,
and goes on; new events are appended to the same log (a 'resumed' event marks the restart).

examples:
  voicehost resume logs/bimbamm-4711-1.jsonl --input text
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``resume``."""
    from voicehost.commands.play import add_session_arguments

    parser.add_argument("log", type=Path, metavar="LOG.jsonl", help="the game's event log")
    add_session_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Read the log, rebuild the flow, continue."""
    import sys

    from voicehost.commands.play import _run_live, check_speech_wav, saved_on_stop, show_private
    from voicehost.eventlog import read_events, repair_torn_tail
    from voicehost.games import game
    from voicehost.host.build import PlaySettings, run_session, settings_for_resume

    events = read_events(args.log)
    if events[-1].get("type") == "game_over":
        print(f"voicehost resume: the game in {args.log} is already over", flush=True)
        return ExitStatus.OK
    check_speech_wav(args.speech_wav)
    base = PlaySettings(
        "",
        (),
        args.input,
        0,
        args.log,
        args.speech_wav,
        show_private(args),
        {},
        speech_rate=args.rate,
        voice=args.voice,
    )
    settings = settings_for_resume(events, args.log, base)
    # A log the rules refuse is refused before the file is touched: one line, nothing cut.
    game(settings.game).rules_game().replay(events)
    cut = repair_torn_tail(args.log)
    if cut is not None:
        print(
            f"voicehost resume: the last line of {args.log} was incomplete (the game stopped while writing it): "
            f"it was cut off and kept in {cut}",
            file=sys.stderr,
            flush=True,
        )
    with saved_on_stop(args.log):
        if args.input in ("mic", "phones"):
            outcome = _run_live(settings, args, resume=events)
        else:
            outcome = run_session(settings, resume=events)
    print(f"(event log: {args.log})")
    if not outcome.finished:
        print(f"(the input ended before the game did: continue with 'voicehost resume {args.log}')")
    return ExitStatus.OK
