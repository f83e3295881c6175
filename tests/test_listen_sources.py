"""Audio sources: recorded tracks in any common format, multichannel files, bad files, replay
blocks on a simulated clock, and live capture from the virtual microphones."""

from __future__ import annotations

import struct
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.conftest import ROOT
from voicehost.clock import SimClock, WallClock
from voicehost.errors import AudioFormatError, InputError
from tools.listen_fixtures import read_fixture
from voicehost.listen.sources import (
    FileSource,
    LiveInput,
    LiveSource,
    load_multichannel,
    load_tracks,
    parse_seats,
    parse_track,
    read_audio,
)

FIXTURE = ROOT / "audio_fixtures" / "race2_quiet.json"


def _tone(rate: int, seconds: float = 0.5, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


@pytest.mark.parametrize(
    "rate, subtype, fmt",
    [
        (8000, "PCM_16", "WAV"),
        (16000, "PCM_16", "WAV"),
        (22050, "PCM_24", "WAV"),
        (44100, "PCM_16", "WAV"),
        (48000, "FLOAT", "WAV"),
        (48000, "PCM_32", "WAV"),
        (32000, "PCM_16", "FLAC"),
        (44100, "PCM_24", "FLAC"),
    ],
)
def test_every_common_format_is_read_and_resampled_to_16k(tmp_path: Path, rate: int, subtype: str, fmt: str) -> None:
    """8-48 kHz, 16/24/32-bit and float, WAV and FLAC: read, resampled to 16 kHz, same duration and pitch."""
    path = tmp_path / f"tone.{fmt.lower()}"
    soundfile.write(str(path), _tone(rate), rate, subtype=subtype, format=fmt)
    rec = load_tracks([("Anna", path)])
    assert rec.rate == 16000 and rec.samples.shape == (8000, 1)
    spectrum = np.abs(np.fft.rfft(rec.samples[:, 0]))
    assert abs(np.argmax(spectrum) * 16000 / 8000 - 440) <= 2


def test_stereo_track_is_mixed_down_and_tracks_of_different_lengths_are_padded(tmp_path: Path) -> None:
    """A stereo per-seat file becomes one channel; a shorter track is padded with silence, not refused."""
    soundfile.write(str(tmp_path / "a.wav"), np.stack([_tone(16000), _tone(16000)], axis=1), 16000)
    soundfile.write(str(tmp_path / "b.wav"), _tone(16000, 0.3), 16000)
    rec = load_tracks([("Anna", tmp_path / "a.wav"), ("Ben", tmp_path / "b.wav")])
    assert rec.samples.shape == (8000, 2)
    assert np.all(rec.samples[int(0.3 * 16000) + 10 :, 1] == 0)
    assert np.max(np.abs(rec.samples[:, 0])) > 0.25


def test_multichannel_channel_i_belongs_to_the_ith_seat(tmp_path: Path) -> None:
    """With --multichannel, channel i is the i-th name of --seats; extra channels are ignored."""
    data = np.stack([_tone(16000, freq=300), _tone(16000, freq=700), _tone(16000, freq=1100)], axis=1)
    soundfile.write(str(tmp_path / "m.wav"), data, 16000)
    rec = load_multichannel(tmp_path / "m.wav", ("Anna", "Ben"))
    assert rec.seats == ("Anna", "Ben") and rec.samples.shape[1] == 2
    peaks = [np.argmax(np.abs(np.fft.rfft(rec.samples[:, i]))) * 2 for i in range(2)]
    assert peaks == [300, 700]


def _bad_files(folder: Path) -> dict[str, Path]:
    good = folder / "good.wav"
    soundfile.write(str(good), _tone(16000), 16000, subtype="PCM_16")
    raw = good.read_bytes()
    files = {
        "text": b"this is not audio at all " * 20,
        "truncated": raw[: len(raw) // 2],
        "empty": b"",
        "header_only": raw[:44],
        "zero_channels": raw[:22] + struct.pack("<H", 0) + raw[24:],
    }
    out = {}
    for name, data in files.items():
        path = folder / f"{name}.wav"
        path.write_bytes(data)
        out[name] = path
    out["missing"] = folder / "missing.wav"
    return out


@pytest.mark.parametrize("kind", ["text", "truncated", "empty", "header_only", "zero_channels", "missing"])
def test_bad_files_raise_an_audio_format_error_naming_the_file(tmp_path: Path, kind: str) -> None:
    """Not audio, truncated, empty, header only, 0 channels, missing: AudioFormatError naming the file."""
    path = _bad_files(tmp_path)[kind]
    with pytest.raises(AudioFormatError) as caught:
        read_audio(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_fewer_channels_than_seats_is_refused(tmp_path: Path) -> None:
    """A multichannel file with fewer channels than named seats: error naming the file and the counts."""
    soundfile.write(str(tmp_path / "two.wav"), np.zeros((1600, 2), np.float32), 16000)
    with pytest.raises(AudioFormatError, match=r"two\.wav: has 2 channel\(s\) but 3 seats"):
        load_multichannel(tmp_path / "two.wav", ("A", "B", "C"))


@pytest.mark.parametrize("spec", ["Anna=", "Anna", "=x.wav", "  =  "])
def test_track_without_file_or_name_is_refused(spec: str) -> None:
    """`--track Anna` or `--track =x.wav`: a one-line usage error."""
    with pytest.raises(InputError):
        parse_track(spec)


def test_same_seat_twice_is_refused(tmp_path: Path) -> None:
    """The same player named twice (tracks or --seats) is an input error naming the seat."""
    soundfile.write(str(tmp_path / "a.wav"), _tone(16000), 16000)
    with pytest.raises(InputError, match="Anna"):
        load_tracks([("Anna", tmp_path / "a.wav"), ("Anna", tmp_path / "a.wav")])
    with pytest.raises(InputError, match="Ben"):
        parse_seats("Ben,Cleo,Ben")


def test_file_source_blocks_cover_the_recording_and_drive_the_sim_clock() -> None:
    """Replay yields consecutive blocks (start frames on one axis, seats named) and moves a SimClock
    to each block's end."""
    rec = read_fixture(FIXTURE).load()
    clock = SimClock()
    seen = 0
    for block in FileSource(rec, 1000, clock).blocks():
        assert block.start_frame == seen and block.seats == rec.seats and block.rate == 16000
        seen += block.samples.shape[0]
        assert clock.now() == pytest.approx(seen / 16000)
    assert seen == rec.samples.shape[0]


def test_live_source_captures_the_virtual_microphones_per_seat(virtual_table: object) -> None:
    """A LiveSource on the virtual 8-channel microphone hears a tone played on channel 2 on seat 2
    only, blocks contiguous."""
    import sounddevice as sd

    rate = 48000
    tone = np.zeros((int(rate * 0.6), 2), dtype=np.float32)
    tone[:, 1] = 0.5 * np.sin(2 * np.pi * 500 * np.arange(tone.shape[0]) / rate)
    source = LiveSource([LiveInput("vh_mics", ("Anna", "Ben"))], WallClock(), device_rate=rate)
    blocks = []
    with source:
        player = threading.Thread(target=lambda: sd.play(tone, rate, device="vh_mics_play", blocking=True))
        time.sleep(0.2)
        player.start()
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and (player.is_alive() or len(blocks) < 10):
            blocks.extend(source.read(timeout=0.5))
        player.join(timeout=5)
        blocks.extend(source.read(timeout=0.3))
    assert blocks, "no audio captured"
    for a, b in zip(blocks, blocks[1:]):
        assert b.start_frame == a.start_frame + a.samples.shape[0]
    audio = np.concatenate([b.samples for b in blocks])
    assert audio.shape[1] == 2 and blocks[0].rate == 16000
    rms = np.sqrt(np.mean(audio**2, axis=0))
    assert rms[1] > 0.05 and rms[0] < 0.01
