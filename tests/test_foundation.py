"""The foundation: command line conventions, `say`, `doctor`, and the virtual audio stack."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.audio_helpers import active_span, record_while
from tests.conftest import run_voicehost
from voicehost.cli import command_modules


def test_python_dash_m_runs_the_cli() -> None:
    """`python -m voicehost --version` works like the console script."""
    result = run_voicehost("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("voicehost ")


def test_console_script_is_installed() -> None:
    """The `voicehost` console script exists next to the interpreter (installed by setup)."""
    script = Path(sys.executable).parent / "voicehost"
    assert script.exists()
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "doctor" in result.stdout


@pytest.mark.parametrize("name", [m.NAME for m in command_modules()])
def test_every_subcommand_has_help(name: str) -> None:
    """Every subcommand explains itself with --help and exits 0."""
    result = run_voicehost(name, "--help")
    assert result.returncode == 0, result.stderr
    assert "usage: voicehost" in result.stdout
    assert len(result.stdout.splitlines()) >= 3


@pytest.mark.parametrize(
    "argv", [["--bogus"], ["say", "--bogus", "x"], ["say", "--rate", "fast", "x"], ["doctor", "extra"]]
)
def test_bad_options_give_one_line_and_status_2(argv: list[str]) -> None:
    """Unknown options and bad values: one line on stderr, exit code 2, no traceback."""
    result = run_voicehost(*argv)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_no_command_prints_help_and_status_2() -> None:
    """Plain `voicehost` shows the help and exits 2."""
    result = run_voicehost()
    assert result.returncode == 2 and "COMMAND" in result.stdout


@pytest.mark.parametrize(
    "argv, words",
    [
        (["say", "hi", "--rate", "5000"], "out of range"),
        (["say", "hi", "--rate", "10"], "out of range"),
        (["say", "hi", "--voice", "klingon-xx"], "unknown voice"),
        (["say", "hi", "--out", "/nonexistent-folder/x.wav"], "does not exist"),
        (["say", "hi", "--out", "/"], "directory"),
        (["say", "   ", "--no-play"], "empty"),
    ],
)
def test_say_rejects_bad_input_clearly(argv: list[str], words: str) -> None:
    """`say` with an absurd rate, unknown voice or unwritable path: clear one-line error, exit ≠ 0."""
    result = run_voicehost(*argv)
    assert result.returncode != 0
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_say_writes_a_wav_of_speech(tmp_path: Path) -> None:
    """`say --out` writes a WAV whose speech lasts about as long as the sentence takes."""
    out = tmp_path / "hello.wav"
    result = run_voicehost("say", "The quick brown fox jumps over the lazy dog.", "--out", str(out), "--no-play")
    assert result.returncode == 0, result.stderr
    samples, rate = soundfile.read(out, dtype="float32")
    span = active_span(samples, rate)
    assert span is not None
    assert 1.5 < span[1] - span[0] < 4.5
    assert np.abs(samples).max() > 0.1


def test_say_rate_changes_duration(tmp_path: Path) -> None:
    """A faster rate gives shorter speech."""
    lengths = []
    for rate in ("120", "300"):
        out = tmp_path / f"r{rate}.wav"
        assert (
            run_voicehost(
                "say", "one two three four five six seven", "--rate", rate, "--out", str(out), "--no-play"
            ).returncode
            == 0
        )
        lengths.append(soundfile.info(str(out)).duration)
    assert lengths[1] < 0.7 * lengths[0]


def test_say_plays_into_the_virtual_table_speaker(tmp_path: Path, virtual_table) -> None:  # type: ignore[no-untyped-def]
    """End to end: `say` → PortAudio → virtual table speaker → its monitor → recording; the speech
    arrives with the right duration (±10%)."""
    out = tmp_path / "said.wav"
    text = "Five pigs are showing. Who shouts first?"
    results = []
    recording = record_while(
        "vh_table_monitor",
        1,
        48000,
        lambda: results.append(run_voicehost("say", text, "--device", "vh_table", "--out", str(out))),
    )
    assert results[0].returncode == 0, results[0].stderr
    assert "played" in results[0].stdout
    rendered, rate = soundfile.read(out, dtype="float32")
    expected = active_span(rendered, rate)
    heard = active_span(recording[:, 0], 48000)
    assert expected is not None and heard is not None, "no speech arrived on the virtual speaker"
    want, got = expected[1] - expected[0], heard[1] - heard[0]
    assert abs(got - want) <= 0.10 * want, (got, want)
    assert np.sqrt(np.mean(recording[:, 0] ** 2)) > 0.01


def test_say_routes_to_one_channel_only(virtual_table) -> None:  # type: ignore[no-untyped-def]
    """`say --channel 2` on the earphones device reaches channel 2 and not channel 1."""
    results = []
    recording = record_while(
        "vh_phones_monitor",
        4,
        48000,
        lambda: results.append(
            run_voicehost("say", "Your card is the pig.", "--device", "vh_phones", "--channel", "2")
        ),
    )
    assert results[0].returncode == 0, results[0].stderr
    energy = np.sqrt(np.mean(recording**2, axis=0))
    assert energy[1] > 0.01
    assert energy[0] < energy[1] / 100 and energy[2] < energy[1] / 100


def test_say_lists_voices() -> None:
    """`say --list-voices` lists espeak-ng's voices, English among them."""
    result = run_voicehost("say", "--list-voices")
    assert result.returncode == 0
    assert "gmw/en-us" in result.stdout


def test_doctor_reports_everything_in_plain_words() -> None:
    """`doctor` names each component it checked and passes on the test machine."""
    result = run_voicehost("doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    for part in (
        "Python",
        "espeak-ng voices",
        "sound output",
        "microphones",
        "PulseAudio",
        "Vosk models",
        "PocketSphinx English",
        "free disk",
    ):
        assert part in result.stdout
    assert "vh_table" in result.stdout  # the virtual devices are seen
    assert "reachable" in result.stdout


def test_doctor_exits_nonzero_with_the_fix_when_something_required_fails(capsys: pytest.CaptureFixture[str]) -> None:
    """A failing required check makes the report say FAIL with a fix, and signals failure."""
    from voicehost.doctor import Check, Level, print_report

    failed = print_report(
        [
            Check("Python", Level.OK, "3.11"),
            Check("espeak-ng voices", Level.FAIL, "not found", "sudo apt-get install espeak-ng"),
        ]
    )
    out = capsys.readouterr().out
    assert failed
    assert "FAIL" in out and "fix: sudo apt-get install espeak-ng" in out


def test_demo_writes_speech_and_reports(tmp_path: Path) -> None:
    """The README's main job: doctor report plus spoken demo written to a WAV, no traceback."""
    out = tmp_path / "demo.wav"
    result = run_voicehost("demo", "--out", str(out), "--no-play")
    assert result.returncode == 0, result.stderr
    assert "voicehost doctor" in result.stdout and "wrote" in result.stdout
    assert soundfile.info(str(out)).duration > 2
