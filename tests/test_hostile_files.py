"""Every file a user can hand voicehost, hostile or broken: a clean load or one line with exit
status 2, never a traceback.

The loaders are decks, model catalogs and recorded checksums, table configs, event logs, scripts,
the session file kept next to a log and a recording's session.json. Each is fed deep nesting,
devices, FIFOs, folders and oversized files by hand, and random bytes and random TOML/JSON
structures (shaped like the real files, with the real field names) by hypothesis.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_voicehost
from voicehost.decks.load import load_deck
from voicehost.errors import VoicehostError
from voicehost.eventlog import read_events
from voicehost.host.build import saved_options
from voicehost.host.inputs import read_script
from voicehost.host.live import load_session
from voicehost.host.table import load_table
from voicehost.models.catalog import RECORDS_FILE, RecordedChecksums, load_catalog
from voicehost.status import ExitStatus

MAX_DEPTH = 32
"""voicehost.files.MAX_DEPTH: the deepest nesting any file may have (written out so that this file
also runs against code from before the limit, to show what failed there)."""
SETUP = {"seq": 0, "t": 0.0, "type": "setup", "game": "bimbamm", "players": ["Anna", "Ben"], "seed": 3}


def _deck(folder: Path, data: bytes) -> object:
    (folder / "deck.toml").write_bytes(data)
    return load_deck(folder / "deck.toml")


def _catalog(folder: Path, data: bytes) -> object:
    (folder / "catalog.toml").write_bytes(data)
    return load_catalog(folder / "catalog.toml")


def _checksums(folder: Path, data: bytes) -> object:
    (folder / RECORDS_FILE).write_bytes(data)
    return RecordedChecksums(folder).load()


def _table(folder: Path, data: bytes) -> object:
    (folder / "table.toml").write_bytes(data)
    return load_table(folder / "table.toml")


def _log(folder: Path, data: bytes) -> object:
    (folder / "game.jsonl").write_bytes(data)
    return read_events(folder / "game.jsonl")


def _script(folder: Path, data: bytes) -> object:
    (folder / "script.txt").write_bytes(data)
    return read_script(folder / "script.txt", ("Anna", "Ben"))


def _session_file(folder: Path, data: bytes) -> object:
    (folder / "game.session.json").write_bytes(data)
    return saved_options(folder / "game.jsonl", SETUP)


def _recording(folder: Path, data: bytes) -> object:
    (folder / "session.json").write_bytes(data)
    (folder / "mics.wav").write_bytes(b"")
    return load_session(folder)


LOADERS: dict[str, Callable[[Path, bytes], object]] = {
    "deck": _deck,
    "catalog": _catalog,
    "checksums": _checksums,
    "table": _table,
    "log": _log,
    "script": _script,
    "session file": _session_file,
    "recording": _recording,
}
"""Each loader, given a fresh folder and a file's bytes (written where it looks for them)."""

TOML = ("deck", "catalog", "checksums", "table")
JSON = ("session file", "recording")


def assert_clean(load: Callable[[Path, bytes], object], folder: Path, data: bytes) -> None:
    """A clean load, or a VoicehostError meaning bad input (status 2) in one line."""
    try:
        load(folder, data)
    except VoicehostError as error:
        message = str(error)
        assert error.exit_status is ExitStatus.USAGE, f"{type(error).__name__}: {message}"
        assert message and "\n" not in message and "\r" not in message, message


def nested(kind: str, depth: int) -> bytes:
    """A file nesting arrays ``depth`` deep where a value goes."""
    inner = "[" * depth + "]" * depth
    if kind in TOML:
        return f"x = {inner}\n".encode()
    if kind == "log":
        return (json.dumps(SETUP) + "\n" + '{"seq":1,"t":1,"type":"x","deep":' + inner + "}\n").encode()
    if kind == "script":
        return b"1.0 Anna: " + inner.encode() + b"\n"
    return ('{"game":"bimbamm","players":["Anna","Ben"],"seed":3,"options":' + inner + "}").encode()


@pytest.mark.parametrize("kind", sorted(LOADERS))
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_deep_nesting_is_one_line_not_a_recursion_error(tmp_path: Path, kind: str, depth: int) -> None:
    """Arrays nested beyond MAX_DEPTH (up to 100,000 deep) are refused in one line (they raised RecursionError)."""
    with pytest.raises(VoicehostError) as caught:
        LOADERS[kind](tmp_path, nested(kind, depth))
    assert caught.value.exit_status is ExitStatus.USAGE and "\n" not in str(caught.value)


@pytest.mark.parametrize("kind", sorted(LOADERS))
@pytest.mark.parametrize("what", ["zero device", "fifo", "folder", "too large"])
def test_devices_fifos_folders_and_huge_files_are_refused_at_once(tmp_path: Path, kind: str, what: str) -> None:
    """/dev/zero (MemoryError before), a FIFO (hung before), a folder or a file over the size limit:
    one line, status 2."""
    folder = tmp_path / "in"
    folder.mkdir()
    load = LOADERS[kind]
    names = {
        "deck": "deck.toml",
        "catalog": "catalog.toml",
        "checksums": RECORDS_FILE,
        "table": "table.toml",
        "log": "game.jsonl",
        "script": "script.txt",
        "session file": "game.session.json",
        "recording": "session.json",
    }
    target = folder / names[kind]
    if what == "zero device":
        target.symlink_to("/dev/zero")
    elif what == "fifo":
        os.mkfifo(target)
    elif what == "folder":
        target.mkdir()
    else:
        with open(target, "wb") as handle:
            handle.truncate(300 * 1024 * 1024)
    original = Path.write_bytes

    def keep(self: Path, data: bytes) -> int:  # the loader helpers write the file: leave ours in place
        return 0 if self == target else original(self, data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "write_bytes", keep)
        with pytest.raises(VoicehostError) as caught:
            load(folder, b"")
    assert caught.value.exit_status is ExitStatus.USAGE and "\n" not in str(caught.value)


def test_the_command_line_says_one_line_for_a_deep_deck_and_dev_zero_catalog(tmp_path: Path) -> None:
    """Through the real command line: a deeply nested deck and /dev/zero as a catalog give one line and status 2."""
    deep = tmp_path / "deep.toml"
    deep.write_bytes(nested("deck", 100_000))
    checked = run_voicehost("deck", "check", str(deep), timeout=60)
    listed = run_voicehost("models", "--catalog", "/dev/zero", "list", timeout=60)
    for result in (checked, listed):
        assert result.returncode == ExitStatus.USAGE, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


# ---- random content (hypothesis) --------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["bimbamm", "bam", "Anna", "Ben", "setup", "vosk", "en", "BAM! x", "nan"])
)
FIELDS = [
    "id",
    "text",
    "tags",
    "template",
    "number",
    "mass",
    "proper",
    "article",
    "name",
    "language",
    "description",
    "schema",
    "model",
    "vocab",
    "engine",
    "url",
    "size",
    "sha256",
    "verified",
    "license",
    "md5",
    "speaker",
    "seat",
    "input",
    "output",
    "latency",
    "device",
    "channel",
    "game",
    "players",
    "seed",
    "options",
    "race_window",
    "window",
    "quick",
    "rounds",
    "decks",
    "rate",
    "speech_rate",
    "start_frame",
    "offsets",
    "lang",
    "model",
    "red",
    "grey",
    "deck",
    "table",
    "seq",
    "t",
    "type",
]
KEYS = st.sampled_from(FIELDS) | st.text(max_size=8)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5), max_leaves=25
)
DOCUMENTS = st.dictionaries(KEYS, VALUES, max_size=6)


def toml_value(value: Any) -> str:
    """``value`` written as TOML (null as an empty string: TOML has no null)."""
    if value is None:
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_value(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_document(data: dict[str, Any]) -> bytes:
    """A TOML file: top-level keys, arrays of tables written as [[headers]] where the value allows."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for table in value:
                lines.append(f"[[{toml_value(key)}]]")
                lines += [f"{toml_value(str(k))} = {toml_value(v)}" for k, v in table.items()]
        else:
            lines.insert(0, f"{toml_value(key)} = {toml_value(value)}")
    return ("\n".join(lines) + "\n").encode()


@st.composite
def log_files(draw: st.DrawFn) -> bytes:
    """Event logs: a real setup line (sometimes), then random events with seq/t/type mostly right."""
    lines = [json.dumps(SETUP)] if draw(st.booleans()) else []
    for seq in range(len(lines), len(lines) + draw(st.integers(0, 5))):
        event = draw(st.dictionaries(KEYS, VALUES, max_size=4))
        if draw(st.integers(0, 4)):
            event.update(
                seq=seq,
                t=draw(st.floats(0, 100) | SCALARS),
                type=draw(st.sampled_from(["turn", "point", "x"]) | SCALARS),
            )
        lines.append(json.dumps(event))
    return ("\n".join(lines) + ("\n" if draw(st.booleans()) else "")).encode()


@st.composite
def scripts(draw: st.DrawFn) -> bytes:
    """Script lines: times (including nan, inf, negative), names and words, good and bad."""
    times = st.sampled_from(["1.0", "nan", "inf", "-1", "1e400", "2.5", "x", ""]) | st.floats().map(repr)
    names = st.sampled_from(["Anna", "Ben", "anna", "Zed", ""]) | st.text(max_size=6)
    lines = [f"{draw(times)} {draw(names)}: {draw(st.text(max_size=20))}" for _ in range(draw(st.integers(0, 6)))]
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def documents_for(kind: str) -> st.SearchStrategy[bytes]:
    """Random files shaped like ``kind``'s real files, plus plain random bytes."""
    noise = st.binary(max_size=400)
    if kind in TOML:
        return st.one_of(noise, DOCUMENTS.map(toml_document))
    if kind == "log":
        return st.one_of(noise, log_files())
    if kind == "script":
        return st.one_of(noise, scripts())
    plausible = st.fixed_dictionaries(
        {
            "game": st.sampled_from(["bimbamm", "bam", "bimbambum"]) | SCALARS,
            "players": st.just(["Anna", "Ben"]) | VALUES,
            "seed": st.just(3) | SCALARS,
        },
        optional={
            "options": VALUES | st.dictionaries(st.sampled_from(FIELDS), SCALARS),
            "speech_rate": SCALARS,
            "rate": SCALARS,
            "offsets": VALUES,
        },
    )
    return st.one_of(noise, (plausible | VALUES).map(lambda v: json.dumps(v).encode()))


@pytest.mark.parametrize("kind", sorted(LOADERS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_files_load_cleanly_or_give_one_line(tmp_path: Path, kind: str, data: st.DataObject) -> None:
    """Random bytes and random TOML/JSON structures with the real field names: a clean load or one line, status 2."""
    content = data.draw(documents_for(kind))
    folder = tmp_path / f"case-{abs(hash(content)) % 10**9}"
    folder.mkdir(exist_ok=True)
    assert_clean(LOADERS[kind], folder, content)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=log_files(), session=documents_for("session file"))
def test_resume_of_a_random_log_continues_or_says_one_line(
    tmp_path: Path, log: bytes, session: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """'voicehost resume' on a random log with a random session file: status 0 or 2 with one line, never a traceback."""
    from voicehost.cli import main

    folder = tmp_path / f"case-{abs(hash((log, session))) % 10**9}"
    folder.mkdir(exist_ok=True)
    (folder / "game.jsonl").write_bytes(log)
    (folder / "game.session.json").write_bytes(session)
    (folder / "empty.txt").write_text("")
    capsys.readouterr()
    status = main(["resume", str(folder / "game.jsonl"), "--input", f"script:{folder / 'empty.txt'}"])
    err = capsys.readouterr().err
    assert status in (ExitStatus.OK, ExitStatus.USAGE), err
    if status == ExitStatus.USAGE:
        assert len(err.strip().splitlines()) == 1 and "internal error" not in err, err


def test_limits_are_far_above_what_real_files_need() -> None:
    """The shipped deck and catalog are far below the size limits, and nest far less than MAX_DEPTH."""
    from voicehost.files import CONFIG_LIMIT, DECK_LIMIT, MAX_DEPTH as LIMIT, depth, parse_toml

    root = Path(__file__).resolve().parents[1]
    catalog = root / "voicehost" / "models" / "catalog.toml"
    deck = root / "voicehost" / "decks" / "base.toml"
    assert catalog.stat().st_size < CONFIG_LIMIT / 20 and deck.stat().st_size < DECK_LIMIT / 20
    assert LIMIT == MAX_DEPTH
    for path in (catalog, deck):
        assert depth(parse_toml(path.read_text(), path)) <= 4
