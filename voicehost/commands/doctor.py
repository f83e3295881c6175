"""``voicehost doctor``: what works on this machine, what does not, and how to fix it."""

from __future__ import annotations

import argparse

from voicehost.status import ExitStatus

NAME = "doctor"
HELP = "check this machine: Python, voices, sound devices, PulseAudio, speech models, disk"
DESCRIPTION = """\
Check everything voicehost uses and report it in plain words.

Each line is OK, WARN (works, but something is limited) or FAIL (the demo and games cannot run).
Every WARN/FAIL line says how to fix it. The exit status is 1 when something required fails.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``doctor``."""
    parser.add_argument("--models-dir", metavar="DIR", help="look for speech models here instead of the default folder")


def run(args: argparse.Namespace) -> int:
    """Run every check and print the report."""
    from voicehost.doctor import print_report, run_checks

    checks = run_checks(models_override=args.models_dir)
    failed = print_report(checks)
    return ExitStatus.ERROR if failed else ExitStatus.OK
