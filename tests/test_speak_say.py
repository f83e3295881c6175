"""`voicehost say` through the speech service: signal sounds, WAV output, routing messages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile

from tests.conftest import run_voicehost
from voicehost.speak.earcons import Earcon, render_earcon


def test_say_sound_writes_the_earcon(tmp_path: Path) -> None:
    """`say --sound 'race open' --out` writes exactly that earcon."""
    out = tmp_path / "race.wav"
    result = run_voicehost("say", "--sound", "race open", "--out", str(out), "--no-play")
    assert result.returncode == 0, result.stderr
    samples, rate = soundfile.read(out, dtype="float32")
    expected = render_earcon(Earcon.RACE_OPEN, rate).samples
    assert len(samples) == len(expected)
    assert np.abs(samples - expected).max() < 1e-3  # 16-bit rounding only


def test_say_sound_then_text_in_one_file(tmp_path: Path) -> None:
    """`say TEXT --sound point --out` puts the sound first, then the words, in one file."""
    out = tmp_path / "both.wav"
    result = run_voicehost("say", "Point for Anna.", "--sound", "point", "--out", str(out), "--no-play")
    assert result.returncode == 0, result.stderr
    samples, rate = soundfile.read(out, dtype="float32")
    sound = render_earcon(Earcon.POINT, rate).samples
    assert np.abs(samples[: len(sound)] - sound).max() < 1e-3
    assert len(samples) / rate > render_earcon(Earcon.POINT).duration + 0.5
    assert "s of speech" in result.stdout


def test_say_unknown_sound_is_a_usage_error() -> None:
    """An unknown --sound name: one line naming the sounds, exit status 2."""
    result = run_voicehost("say", "--sound", "fanfare", "--no-play")
    assert result.returncode == 2
    assert "race open" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_say_plays_a_sound_on_one_channel(virtual_table: object) -> None:
    """`say --sound mistake --device vh_phones --channel 3` plays and reports the device and channel."""
    result = run_voicehost("say", "--sound", "mistake", "--device", "vh_phones", "--channel", "3")
    assert result.returncode == 0, result.stderr
    assert "played 0.42 s on 'vh_phones', channel 3" in result.stdout


def test_say_on_a_missing_device_fails_in_one_line() -> None:
    """A device that does not exist: one line naming it, exit status 1, no traceback."""
    result = run_voicehost("say", "hello", "--device", "no-such-speaker")
    assert result.returncode == 1
    assert "no-such-speaker" in result.stderr and "Traceback" not in result.stderr
