"""Test-session setup: a private PulseAudio daemon with virtual speaker/microphone sinks.

It starts before any test imports sounddevice (PortAudio reads the environment once, when it is
first imported) and stops at the end of the session. Subprocesses inherit the environment, so
``voicehost`` commands run by tests see the same virtual devices.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator, TextIO

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as voicehost/__init__.py sets it, before NumPy loads

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_TABLE = None


def pytest_configure(config: pytest.Config) -> None:
    """Start the virtual table once per session (8 seats' worth of channels)."""
    global _TABLE
    import signal

    from voicehost.audio.pulse import VirtualTable

    # Tests stop games with Ctrl-C (SIGINT). A suite started in the background by a non-interactive
    # shell (``scripts/test &``) inherits SIGINT ignored, and an ignored signal stays ignored in
    # every program it starts: ``voicehost play`` would never see the Ctrl-C (seen 2026-12-02: five
    # live tests failed that way, all passing in the foreground). A handler here is reset to the
    # default in each child at exec, so the children hear Ctrl-C again.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

    folder = Path(tempfile.mkdtemp(prefix="voicehost-pulse-"))
    _TABLE = VirtualTable(folder, seats=8).start()
    os.environ.update(_TABLE.env())
    if not hasattr(config, "workerinput"):
        os.environ[FAULTS] = tempfile.mkdtemp(prefix="voicehost-faults-")


FAULTS = "VOICEHOST_TEST_FAULTS"
"""Folder where each pytest-xdist worker writes the stacks of a fatal error (segmentation fault,
abort): the controller prints them at the end of the run, where a CI log's tail shows them."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """In a pytest-xdist worker: a fatal error's stacks (all threads) go to this worker's file in
    :data:`FAULTS` (pytest's own faulthandler writes them amid the progress dots, far above the tail
    of a long log: a CI run reported only "worker 'gw0' crashed")."""
    import faulthandler

    worker = getattr(session.config, "workerinput", {}).get("workerid")
    folder = os.environ.get(FAULTS)
    if worker and folder:
        _FAULT_LOG.append(open(Path(folder) / f"{worker}.log", "a"))  # noqa: SIM115 (open until the end)
        faulthandler.enable(_FAULT_LOG[0], all_threads=True)


_FAULT_LOG: list[TextIO] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the stacks the workers wrote in :data:`FAULTS` (nothing when none crashed)."""
    folder = os.environ.get(FAULTS)
    if folder is None or hasattr(terminalreporter.config, "workerinput"):
        return
    for log in sorted(Path(folder).glob("*.log")):
        text = log.read_text(errors="replace").strip()
        if text:
            terminalreporter.section(f"fatal error in worker {log.stem}")
            terminalreporter.write_line(text)


REALTIME_MODULES = frozenset(
    {
        "test_live_end_to_end",
        "test_live_mics",
        "test_speak_devices",
        "test_phones",
        "test_phones_rejoin",
        "test_log_safety",
        "test_setup_table",
    }
)
"""Test files that play, record or interrupt in real time without the ``virtual_table`` fixture
(their own virtual rooms, the browsers' fake microphones, a Ctrl-C): on a busy machine fake
microphones lose buffers and a Ctrl-C lands elsewhere."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark device-timing tests ``realtime``: every test using the virtual table, and every test of
    the files in :data:`REALTIME_MODULES`.

    scripts/test runs them one by one with the machine to themselves, then the rest on every core;
    a quick local loop skips them with ``-m "not realtime"``."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if getattr(item, "module", None) else ""
        if "virtual_table" in getattr(item, "fixturenames", ()) or module in REALTIME_MODULES:
            item.add_marker(pytest.mark.realtime)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the virtual table."""
    if _TABLE is not None:
        _TABLE.stop()
    folder = os.environ.get(FAULTS)
    if folder is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def virtual_table():  # type: ignore[no-untyped-def]
    """The running :class:`~voicehost.audio.pulse.VirtualTable` of this session."""
    assert _TABLE is not None
    return _TABLE


def bench_module(script: str) -> object:
    """``bench/SCRIPT.py`` loaded as a module (the benchmarks are not a package), once."""
    import importlib.util

    name = f"{script}_for_tests"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{script}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def bench_listen() -> object:
    """``bench/bench_listen.py`` loaded as a module, once."""
    return bench_module("bench_listen")


def run_voicehost(*args: str, timeout: float = 120, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m voicehost ARGS`` as a user would, capturing output."""
    return subprocess.run(
        [sys.executable, "-m", "voicehost", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        input=input,
    )


@pytest.fixture(scope="session")
def whisper():  # type: ignore[no-untyped-def]
    """The English Whisper recogniser (with PocketSphinx), built once for the tests that score
    committed clips with it."""
    from voicehost.listen.recognize import build_recognizer
    from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer

    recognizer = build_recognizer("en", "whisper")
    assert isinstance(recognizer, WhisperRecognizer)
    return recognizer


@pytest.fixture
def voicehost_cli():  # type: ignore[no-untyped-def]
    """A function running the voicehost command line in a subprocess."""
    return run_voicehost


@pytest.fixture
def tmp_out(tmp_path: Path) -> Iterator[Path]:
    """A temporary folder for output files."""
    yield tmp_path
