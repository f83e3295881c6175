"""`voicehost play --config TABLE` with seats whose input is "phone": the phones' page is served,
those players join by name in headless chromium, and the game begins; a microphone seat beside
them is heard on the virtual PulseAudio microphone."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from phones_helpers import Phone  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _no_pulse() -> dict[str, str]:
    """Chromium on its own audio timer (see tests/test_phones.py)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PULSE")}


class Game:
    """``voicehost play bimbamm`` on phones at a free port, its output in a file."""

    def __init__(self, folder: Path, table: str, *extra: str) -> None:
        self.folder = folder
        self.port = 18000 + (os.getpid() + 500) % 1000
        (folder / "table.toml").write_text(table, encoding="utf-8")
        self.out = open(folder / "out.txt", "w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "voicehost",
                "play",
                "bimbamm",
                "--players",
                "Anna,Ben",
                "--config",
                str(folder / "table.toml"),
                "--phones-http",
                "--phones-host",
                "127.0.0.1",
                "--phones-port",
                str(self.port),
                "--phones-no-clicks",
                "--seed",
                "3",
                "--log",
                str(folder / "game.jsonl"),
                *extra,
            ],
            stdout=self.out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
        self.phones: list[Phone] = []

    def text(self) -> str:
        """Everything the game printed so far."""
        return (self.folder / "out.txt").read_text()

    def wait_for(self, needle: str, timeout: float = 60.0) -> None:
        """Wait until ``needle`` is printed (fail if the game ends first)."""
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            assert self.process.poll() is None, self.text()
            assert time.monotonic() < deadline, f"{needle!r} not seen:\n{self.text()}"
            time.sleep(0.2)

    def phone(self, name: str) -> Phone:
        """A chromium for ``name``, its microphone quiet noise."""
        import soundfile

        wav = self.folder / f"{name}.wav"
        rng = np.random.default_rng(len(self.phones) + 5)
        soundfile.write(str(wav), (0.003 * rng.standard_normal(16000 * 3)).astype(np.float32), 16000)
        phone = Phone(f"http://127.0.0.1:{self.port}/?name={name}&join=1", wav, _no_pulse(), debug=True)
        self.phones.append(phone)
        return phone

    def stop(self) -> str:
        """Ctrl-C the game, close the browsers; returns all it printed."""
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        for phone in self.phones:
            phone.stop()
        self.out.close()
        return self.text()


@pytest.mark.timeout(300)
def test_a_table_of_phone_seats_seats_its_players_by_name(tmp_path: Path) -> None:
    """A table.toml whose two seats are phones, played without --input phones: the page is
    served, a browser naming a player not at the table is refused and offered the free seats,
    Anna's and Ben's browsers are seated, the game begins, and each private card line reaches
    only its own phone."""
    game = Game(tmp_path, '[[seat]]\nname = "Anna"\ninput = "phone"\n\n[[seat]]\nname = "Ben"\ninput = "phone"\n')
    try:
        game.wait_for("Players, open this page on your phone")
        stranger = game.phone("Dora")
        deadline = time.monotonic() + 60.0
        while "no seat for 'Dora'" not in (stranger.evaluate("document.getElementById('status').textContent") or ""):
            assert time.monotonic() < deadline, game.text()
            time.sleep(0.5)
        offered = stranger.evaluate("[...document.querySelectorAll('#seats button')].map(b => b.textContent)")
        assert offered == ["Anna", "Ben"], offered
        phones = {name: game.phone(name) for name in ("Anna", "Ben")}
        game.wait_for("Anna's phone joined", 60.0)
        game.wait_for("Ben's phone joined", 60.0)
        game.wait_for("flip a tile", 90.0)
        shown = {n: p.evaluate("window.voicehost.shown") for n, p in phones.items()}
        private = {n: [s["text"] for s in lines if s["private"]] for n, lines in shown.items()}
        assert private["Anna"] and private["Ben"], shown
        assert not set(private["Anna"]) & set(private["Ben"]), private
    finally:
        out = game.stop()
    assert "Traceback" not in out, out


@pytest.mark.timeout(300)
def test_a_microphone_seat_plays_beside_a_phone_seat(tmp_path: Path, virtual_table) -> None:  # type: ignore[no-untyped-def]
    """Anna on channel 1 of the virtual microphone (with an earphone), Ben on his phone: only Ben
    is asked to open the page; once he has joined the game begins with both seats heard (Anna's
    microphone and Ben's phone both in the closing summary, neither stopped), and Ben's private
    card line reaches his phone."""
    table = (
        '[table]\nspeaker = "vh_table"\n\n'
        '[[seat]]\nname = "Anna"\ninput = { device = "vh_mics", channel = 1 }\n'
        'output = { device = "vh_phones", channel = 1 }\n\n'
        '[[seat]]\nname = "Ben"\ninput = "phone"\n'
    )
    game = Game(tmp_path, table)
    try:
        game.wait_for("Ben, open this page on your phone")
        assert "Anna, open" not in game.text() and "Players, open" not in game.text()
        ben = game.phone("Ben")
        game.wait_for("Ben's phone joined", 60.0)
        game.wait_for("flip a tile", 90.0)
        deadline = time.monotonic() + 30.0
        while not [s for s in ben.evaluate("window.voicehost.shown") if s["private"]]:
            assert time.monotonic() < deadline, game.text()
            time.sleep(0.5)
    finally:
        out = game.stop()
    assert "(microphones: 'vh_mics' (Anna): 0 overflows, never stopped)" in out, out
    assert re.search(r"\(microphones: \"Ben's phone\" \(Ben\): \d+ overflows?, never stopped\)", out), out
    assert "Traceback" not in out, out


def test_a_bad_phone_seat_is_one_line_before_anything_starts(tmp_path: Path) -> None:
    """A phone seat given a latency: play exits with status 2 and one line naming file, line and
    field, before any page is served."""
    table = tmp_path / "table.toml"
    table.write_text(
        '[[seat]]\nname = "Anna"\ninput = "phone"\n\n[[seat]]\nname = "Ben"\ninput = "phone"\nlatency = 0.1\n',
        encoding="utf-8",
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "voicehost",
            "play",
            "bimbamm",
            "--players",
            "Anna,Ben",
            "--config",
            str(table),
            "--log",
            str(tmp_path / "game.jsonl"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"{table}:8: seat 2 latency: a phone's delay is measured with clicks" in lines[0], (
        result.stderr
    )
    assert "open this page" not in result.stdout
