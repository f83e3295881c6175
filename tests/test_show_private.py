"""Private lines (secret cards, hands) on the terminal: hidden where the screen is shared (microphone
and phone modes) unless --show-private is given; shown in text and script mode (one screen, said in
the banner) unless --no-show-private. Through the real command line and session."""

from __future__ import annotations

import argparse
import dataclasses
import io
from pathlib import Path

import pytest

from voicehost.cli import main
from voicehost.host.build import PlaySettings, run_session

PLAYERS = "Anna,Ben,Cem"


def play(tmp_path: Path, *flags: str, input: str | None = None) -> None:
    """``voicehost play bimbamm`` where Cem asks for his card (seed 2, Anna first)."""
    script = tmp_path / "script.txt"
    script.write_text("70 Cem: what's my card\n")
    log = tmp_path / f"game{len(list(tmp_path.iterdir()))}.jsonl"
    status = main(
        [
            "play",
            "bimbamm",
            "--players",
            PLAYERS,
            "--seed",
            "2",
            "--first",
            "Anna",
            "--log",
            str(log),
            "--input",
            input or f"script:{script}",
            *flags,
        ]
    )
    assert status == 0


def cem_card(tmp_path: Path) -> str:
    """Cem's secret animal in the seed-2 game (from its log)."""
    from voicehost.eventlog import read_events

    log = sorted(tmp_path.glob("game*.jsonl"))[0]
    return str(read_events(log)[0]["state"]["hands"]["Cem"])


def private_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("host → Cem: ")]


def test_script_mode_shows_private_lines_and_no_show_private_hides_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One screen (script mode): Cem's card is printed by default; --no-show-private prints '(private)' only."""
    play(tmp_path)
    shown = private_lines(capsys.readouterr().out)
    animal = cem_card(tmp_path)
    assert shown and all(line == f"host → Cem: Cem, your card is the {animal}." for line in shown)
    play(tmp_path, "--no-show-private")
    hidden = private_lines(capsys.readouterr().out)
    assert hidden and all(line == "host → Cem: (private)" for line in hidden)


def test_microphone_mode_hides_private_lines_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With microphones the terminal is shared: private lines read '(private)' unless --show-private.
    Only the devices are replaced (a script speaks for the microphones); the settings are the CLI's."""
    from voicehost.commands import play as play_command

    script = tmp_path / "mics.txt"
    script.write_text("70 Cem: what's my card\n")
    seen: list[bool] = []

    def microphones_as_a_script(settings: PlaySettings, args: argparse.Namespace, resume: object = None) -> object:
        seen.append(settings.show_private)
        return run_session(dataclasses.replace(settings, input=f"script:{script}"))

    monkeypatch.setattr(play_command, "_run_live", microphones_as_a_script)
    play(tmp_path, input="mic")
    hidden = private_lines(capsys.readouterr().out)
    play(tmp_path, "--show-private", input="mic")
    shown = private_lines(capsys.readouterr().out)
    assert seen == [False, True]
    assert hidden and all(line == "host → Cem: (private)" for line in hidden)
    assert shown and all(line.startswith("host → Cem: Cem, your card is the ") for line in shown)


@pytest.mark.parametrize(
    "input, flags, expected",
    [
        ("mic", [], False),
        ("mic", ["--show-private"], True),
        ("phones", [], False),
        ("text", [], True),
        ("script:x.txt", [], True),
        ("text", ["--no-show-private"], False),
        ("mic", ["--no-show-private"], False),
    ],
)
def test_the_default_follows_the_input(input: str, flags: list[str], expected: bool) -> None:
    """--show-private's default: off with microphones or phones (a shared terminal), on with text or script."""
    from voicehost.cli import build_parser
    from voicehost.commands.play import show_private

    args = build_parser(only="play").parse_args(["play", "bimbamm", "--players", PLAYERS, "--input", input, *flags])
    assert show_private(args) is expected


def test_text_mode_says_in_its_banner_that_private_lines_are_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text mode's banner says private lines are shown on this shared screen, and how to hide them."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    play(tmp_path, input="text")
    out = capsys.readouterr().out
    assert (
        "private lines (secret cards) are shown on this shared screen as 'host → NAME'; --no-show-private hides them"
        in out
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    play(tmp_path, "--no-show-private", input="text")
    assert "private lines are hidden" in capsys.readouterr().out
