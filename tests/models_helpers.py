"""Builders for the speech-model tests: model-shaped trees and archives, catalogs, a local HTTP server.

The archives are real .zip/.tar.gz files with the layout of a Vosk model (am/, conf/, graph/); their
contents are seeded random bytes, since these tests prove packaging, transport and safety, not
decoding (tests/test_models_verify.py loads a real model).
"""

from __future__ import annotations

import hashlib
import io
import random
import tarfile
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

TEST_MODEL = "vosk-model-small-xx-test-0.1"
MODEL_FILES = ("am/final.mdl", "conf/model.conf", "conf/mfcc.conf", "graph/HCLr.fst", "graph/Gr.fst", "README")


def model_contents(seed: int = 1, big: int = 200_000) -> dict[str, bytes]:
    """Files of a model-shaped folder (relative path -> bytes), reproducible from ``seed``."""
    rng = random.Random(seed)
    contents = {name: rng.randbytes(2_000) for name in MODEL_FILES}
    contents["am/final.mdl"] = rng.randbytes(big)
    contents["conf/model.conf"] = b"--min-active=200\n--beam=10.0\n"
    return contents


def write_tree(root: Path, contents: dict[str, bytes]) -> Path:
    """Write ``contents`` below ``root``; returns ``root``."""
    for name, data in contents.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def make_zip(
    path: Path, contents: dict[str, bytes], prefix: str = TEST_MODEL, compression: int = zipfile.ZIP_DEFLATED
) -> bytes:
    """A zip of ``contents`` under ``prefix/`` (as the official archives are); returns its bytes."""
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in sorted(contents.items()):
            zf.writestr(f"{prefix}/{name}" if prefix else name, data)
    return path.read_bytes()


def make_tar(path: Path, contents: dict[str, bytes], prefix: str = TEST_MODEL) -> bytes:
    """A .tar.gz of ``contents`` under ``prefix/``; returns its bytes."""
    with tarfile.open(path, "w:gz") as tf:
        for name, data in sorted(contents.items()):
            add_tar_file(tf, f"{prefix}/{name}" if prefix else name, data)
    return path.read_bytes()


def add_tar_file(tf: tarfile.TarFile, name: str, data: bytes) -> None:
    """Add a regular file member."""
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tf.addfile(info, io.BytesIO(data))


def sha256(data: bytes) -> str:
    """Hex SHA-256."""
    return hashlib.sha256(data).hexdigest()


def md5(data: bytes) -> str:
    """Hex MD5."""
    return hashlib.md5(data).hexdigest()


def catalog_toml(
    url: str,
    data: bytes | None = None,
    *,
    name: str = TEST_MODEL,
    vocab: str = "xx",
    sha: str | None = None,
    verified: bool | None = None,
    md5_hex: str = "",
    size: int | None = None,
    unpacked_size: int | None = None,
) -> str:
    """A one-entry catalog for a test archive served at ``url``."""
    digest = sha if sha is not None else (sha256(data) if data is not None else "")
    lines = [
        "schema = 1",
        "",
        "[[model]]",
        f'name = "{name}"',
        f'vocab = "{vocab}"',
        'language = "Test language"',
        'engine = "vosk"',
        f'url = "{url}"',
        f"size = {size if size is not None else len(data or b'x')}",
        f'sha256 = "{digest}"',
        f"verified = {'true' if (verified if verified is not None else bool(digest)) else 'false'}",
        'license = "CC0-1.0"',
        'note = "made by the test"',
    ]
    if md5_hex:
        lines.append(f'md5 = "{md5_hex}"')
    if unpacked_size:
        lines.append(f"unpacked_size = {unpacked_size}")
    return "\n".join(lines) + "\n"


@dataclass
class Served:
    """What the test server serves and what it saw."""

    payload: bytes = b""
    drop_after: int | None = None
    """On the next request only: send this many body bytes, then close the connection."""
    ignore_range: bool = False
    redirect_to: str = ""
    requests: list[dict[str, str]] = field(default_factory=list)
    sent: int = 0
    """Body bytes sent in total."""


class ModelServer:
    """A threaded HTTP server on 127.0.0.1 with HTTP Range support, for download tests.

    ``with ModelServer(payload) as server: server.url("name.zip")``; stops itself on exit.
    """

    def __init__(self, payload: bytes) -> None:
        self.state = Served(payload)
        state = self.state

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return None

            def do_GET(self) -> None:
                state.requests.append({"path": self.path, "range": self.headers.get("Range", "")})
                if state.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", state.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body, start = state.payload, 0
                wanted = self.headers.get("Range", "")
                if wanted.startswith("bytes=") and not state.ignore_range:
                    start = int(wanted[6:].split("-")[0])
                    if start >= len(body):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(body)}")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                part = body[start:]
                self.send_header("Content-Length", str(len(part)))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                if state.drop_after is not None:
                    part, state.drop_after = part[: state.drop_after], None
                    self.close_connection = True
                self.wfile.write(part)
                self.wfile.flush()
                state.sent += len(part)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def url(self, name: str) -> str:
        """The URL of ``name`` on this server."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def __enter__(self) -> "ModelServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def files_below(folder: Path) -> Iterator[Path]:
    """Every path below ``folder`` (files, folders and links)."""
    return folder.rglob("*")
