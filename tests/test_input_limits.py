"""Numbers, names and texts from the command line, saved sessions and typed input: checked, bounded, printable."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_voicehost

PLAYERS = ("--players", "Anna,Ben")


def one_line_usage(result: subprocess.CompletedProcess[str]) -> None:
    """Exit status 2 and exactly one line on stderr, no traceback."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "bimbamm", *PLAYERS, "--race-window", "nan"],
        ["play", "bimbamm", *PLAYERS, "--race-window", "inf"],
        ["play", "bimbamm", *PLAYERS, "--race-window", "1e9"],
        ["play", "bimbamm", *PLAYERS, "--race-window", "-1"],
        ["play", "bimbambum", "--players", "A,B,C", "--window", "nan"],
        ["play", "bimbambum", "--players", "A,B,C", "--slap-window", "-2"],
        ["play", "bimbambum", "--players", "A,B,C", "--quick", "0"],
        ["play", "bam", "--players", "A,B,C", "--rounds", "-3"],
        ["play", "bimbamm", *PLAYERS, "--seed", "-1"],
        ["play", "bimbamm", *PLAYERS, "--seed", "abc"],
        ["models", "download", "x", "--timeout", "-1"],
        ["models", "download", "x", "--timeout", "nan"],
        ["replay", "somewhere", "--tolerance", "inf"],
    ],
)
def test_numeric_options_are_finite_and_in_range(argv: list[str]) -> None:
    """NaN hung the host, inf and 1e9 never closed a race, -1 was accepted: every numeric option is
    checked by argparse."""
    one_line_usage(run_voicehost(*argv, "--input", "text") if argv[0] == "play" else run_voicehost(*argv))


@pytest.mark.parametrize("game", ["bimbamm", "bimbambum", "bam"])
def test_the_option_table_knows_exactly_each_games_settings(game: str) -> None:
    """Each game's flow lists every field of its settings dataclass in OPTIONS, and nothing else."""
    from voicehost.host.build import flow_module
    from voicehost.host.options import game_options

    settings = {"bimbamm": "BimBammSettings", "bimbambum": "BimBamBumSettings", "bam": "BamSettings"}[game]
    fields = {f.name for f in dataclasses.fields(getattr(flow_module(game), settings))}
    assert set(game_options(game) or ()) == fields


@pytest.mark.parametrize(
    "change, words",
    [
        ({"options": {"race_window": "soon"}}, "race_window"),
        ({"options": {"race_window": 1e9}}, "race_window"),
        ({"options": ["race_window", 2]}, "options must be a table"),
        ({"options": {"realizer": "x"}}, "no option 'realizer'"),
        ({"options": {"first_player": "Anna\u001b[2J"}}, "ESC"),
    ],
)
def test_numbers_read_back_from_a_saved_session_are_checked(
    tmp_path: Path, change: dict[str, object], words: str
) -> None:
    """A hand-edited or damaged GAME.session.json gives one line, never a traceback or a game that cannot end."""
    script = tmp_path / "s.txt"
    script.write_text("22.00 Anna: flip nine\n")
    log = tmp_path / "game.jsonl"
    assert (
        run_voicehost(
            "play", "bimbamm", *PLAYERS, "--seed", "2", "--input", f"script:{script}", "--log", str(log)
        ).returncode
        == 0
    )
    session = tmp_path / "game.session.json"
    session.write_text(json.dumps({**json.loads(session.read_text()), **change}))
    result = run_voicehost("resume", str(log), "--input", f"script:{script}")
    one_line_usage(result)
    assert words in result.stderr


def test_a_log_whose_setup_seed_is_not_a_number_is_one_line(tmp_path: Path) -> None:
    """seed 'abc' in the log's setup event: one line (it raised ValueError)."""
    log = tmp_path / "game.jsonl"
    log.write_text(
        json.dumps({"seq": 0, "t": 0.0, "type": "setup", "game": "bimbamm", "players": ["Anna", "Ben"], "seed": "abc"})
        + "\n"
    )
    one_line_usage(run_voicehost("resume", str(log), "--input", "text"))


@pytest.mark.parametrize(
    "field, value",
    [
        ("speech_rate", 0),
        ("rate", 0),
        ("seed", "abc"),
        ("options", [1, 2]),
        ("rate", "fast"),
        ("offsets", {"Anna": float("inf")}),
    ],
)
def test_a_recorded_sessions_numbers_are_checked(tmp_path: Path, field: str, value: object) -> None:
    """A recording's session.json with rate 0, seed 'abc', options as a list …: one line, status 2."""
    from voicehost.errors import InputError
    from voicehost.host.live import load_session

    (tmp_path / "mics.wav").write_bytes(b"")
    data = {"game": "bimbamm", "players": ["Anna", "Ben"], "seed": 1, field: value}
    (tmp_path / "session.json").write_text(json.dumps(data, allow_nan=True).replace("Infinity", "1e999"))
    with pytest.raises(InputError) as caught:
        load_session(tmp_path)
    assert field in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("time", ["nan", "inf", "-1", "1e400"])
def test_script_times_must_be_finite_seconds_from_zero(tmp_path: Path, time: str) -> None:
    """Script lines with time nan or inf were accepted: now one line naming the file and line."""
    script = tmp_path / "s.txt"
    script.write_text(f"1.0 Anna: help\n{time} Ben: help\n")
    result = run_voicehost(
        "play", "bimbamm", *PLAYERS, "--input", f"script:{script}", "--log", str(tmp_path / "g.jsonl")
    )
    one_line_usage(result)
    assert f"{script}:2" in result.stderr


def test_invalid_utf8_typed_in_text_mode_does_not_hang_the_game(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 on standard input (strict decoding) killed the input thread and hung the game."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "voicehost",
            "play",
            "bimbamm",
            *PLAYERS,
            "--input",
            "text",
            "--log",
            str(tmp_path / "g.jsonl"),
        ],
        input=b"Anna: help\n\xff\xfe bad\nAnna: score\n",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert b"Points: Anna 0 and Ben 0" in result.stdout


CONTROL = ["\u001b[2J", "\u0007", "\u0000", "\u007f", "\u202e"]


@pytest.mark.parametrize("char", CONTROL)
def test_control_and_bidi_characters_never_reach_the_terminal(tmp_path: Path, char: str) -> None:
    """ESC, BEL, NUL, DEL and bidi overrides in card ids, card texts, player and seat names are
    refused, and quoted escaped."""
    escaped = json.dumps(char)[1:-1]
    deck = tmp_path / "deck.toml"
    deck.write_text(
        f'[[red]]\nid = "r{escaped}1"\ntext = "BAM! is here"\n[[grey]]\nid = "g1"\ntext = "Cats {escaped}"\n'
    )
    results = [
        run_voicehost("deck", "check", str(deck)),
        run_voicehost("play", "bimbamm", "--players", f"Anna{char},Ben", "--input", "text")
        if char != "\u0000"
        else None,
        run_voicehost("rank", "--game", "bimbamm", "--track", f"An{char}na=x.wav") if char != "\u0000" else None,
        run_voicehost("setup-table", "--players", f"Anna{char},Ben") if char != "\u0000" else None,
    ]
    for result in results:
        if result is None:
            continue
        assert result.returncode == 2, result.stderr
        assert f"U+{ord(char[0]):04X}" in result.stderr, result.stderr
        assert char not in result.stdout + result.stderr and "\u001b" not in result.stderr


def test_a_table_config_seat_name_with_an_escape_is_refused(tmp_path: Path) -> None:
    """A table config naming a seat with ESC in it: one line naming the file, line and field."""
    from voicehost.host.table import TableError, load_table

    table = tmp_path / "table.toml"
    table.write_text('[[seat]]\nname = "An\\u001bna"\ninput = { device = 1, channel = 1 }\n')
    with pytest.raises(TableError, match="ESC"):
        load_table(table)


@pytest.mark.parametrize(
    "red, grey, words",
    [
        ("BAM! BAM! BAM! BAM! BAM!", ["a", "b", "c", "d", "e"], "5 BAM! blanks"),
        ("no blank here", ["a"], "has no blank"),
        ("BAM! and BAM!", ["a"], "1 grey card"),
        ("BAM! is " + "long " * 120, ["x"], "at most 500"),
    ],
)
def test_bam_render_takes_one_or_two_blanks_of_printable_text(red: str, grey: list[str], words: str) -> None:
    """The rules allow one or two blanks; five were accepted. One grey card per blank; card-sized texts."""
    result = run_voicehost("bam", "render", red, *grey)
    one_line_usage(result)
    assert words in result.stderr


def test_say_no_play_without_out_is_a_usage_error() -> None:
    """'say --no-play' without --out did nothing and said nothing."""
    one_line_usage(run_voicehost("say", "hi", "--no-play"))


def test_say_refuses_text_too_long_at_once_and_splits_long_text_for_espeak() -> None:
    """100,000 characters crashed espeak-ng (SIGSEGV): more than 20,000 is one line; long text
    reaches espeak in pieces."""
    from voicehost.speak.voice import MAX_CHUNK, MAX_TEXT, speech_chunks

    result = run_voicehost("say", "word " * 20_000, "--no-play", "--out", "/tmp/never.wav")
    one_line_usage(result)
    assert "at most 20000" in result.stderr
    for text in ["Hello there. " * 1500, "a" * 5000, "word " * 3000, "no-end-" * 300 + " x"]:
        pieces = speech_chunks(text[:MAX_TEXT])
        assert all(0 < len(p) <= MAX_CHUNK for p in pieces)
        assert "".join("".join(pieces).split()) == "".join(text[:MAX_TEXT].split())


def test_say_renders_the_longest_text_it_accepts(tmp_path: Path) -> None:
    """20,000 characters of sentences (60,000 crashed espeak-ng 2 times in 5) render completely to a WAV."""
    out = tmp_path / "long.wav"
    result = run_voicehost(
        "say", ("Hello there, how are you today? " * 700)[:20_000], "--no-play", "--out", str(out), timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 1_000_000


def test_demo_refuses_an_out_file_in_a_missing_folder(tmp_path: Path) -> None:
    """'demo --out missing/folder/x.wav' exited 0 after creating the folders; it is a usage error
    like every other --out."""
    result = run_voicehost("demo", "--no-play", "--out", str(tmp_path / "missing" / "x" / "demo.wav"))
    one_line_usage(result)
    assert not (tmp_path / "missing").exists()


def test_models_install_refuses_a_language_code_with_a_path(tmp_path: Path) -> None:
    """'models install --lang ../../x' was accepted."""
    from tests.models_helpers import make_zip, model_contents

    archive = tmp_path / "my-model.zip"
    make_zip(archive, model_contents())
    result = run_voicehost(
        "models",
        "--models-dir",
        str(tmp_path / "models"),
        "install",
        str(archive),
        "--name",
        "my-model",
        "--lang",
        "../../x",
    )
    one_line_usage(result)
    assert not (tmp_path / "models" / "my-model").exists()
