"""Downloading catalog models: HTTPS, resumable, checked, then installed safely.

This is the only module of voicehost that opens network connections, and only when the user runs
``voicehost models download``. The archive is written to ``MODELS/.downloads/NAME.zip.part``; an
interrupted download keeps that file and the next run asks the server for the rest (HTTP Range).
The finished file is checked (SHA-256 from the catalog or from an earlier download; size and MD5
when the catalog has no SHA-256, whose value is then recorded) before anything is unpacked, and a
file that fails the check is deleted.
"""

from __future__ import annotations

import http.client
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from voicehost import __version__
from voicehost.models.archive import ProgressFn, file_digests
from voicehost.models.catalog import LOOPBACK_HOSTS, Catalog, CatalogEntry, RecordedChecksums, expected_sha256
from voicehost.models.errors import ChecksumMismatch, DownloadError, ModelExists
from voicehost.models.install import InstalledModel, install_archive

DOWNLOADS = ".downloads"
#: Seconds to wait for the server to connect or to send the next bytes: short, so that a machine
#: without network fails fast.
DEFAULT_TIMEOUT = 15.0
MAX_TIMEOUT = 600.0
"""Seconds: the longest --timeout accepted."""
MIN_RATE = 1000
"""Bytes per second a download must average over a stall window; a trickle below it is given up
(the part is kept): a server sending one byte every half second never trips the silence timeout."""
READ = 64 * 1024
"""Bytes asked of the connection at a time (what arrived is written at once, however little)."""


def _amount(count: int) -> str:
    """'12 bytes', '3.4 KB', '41.2 MB'."""
    if count < 1000:
        return f"{count} bytes"
    return f"{count / 1e3:.1f} KB" if count < 1_000_000 else f"{count / 1e6:.1f} MB"


def stall_window(timeout: float) -> float:
    """Seconds over which :data:`MIN_RATE` must be reached: twice the silence timeout, 5 to 60 s."""
    return min(60.0, max(5.0, 2 * timeout))
#: progress(label, total bytes, bytes already there) -> callback(done, total)
ProgressFactory = Callable[[str, int, int], ProgressFn]
Notify = Callable[[str], None]


@dataclass(frozen=True)
class Fetched:
    """A completed download."""

    path: Path
    size: int
    """Bytes of the whole file."""
    resumed_from: int
    """Bytes that were already there from an earlier, interrupted run."""


def partial_path(entry: CatalogEntry, folder: Path) -> Path:
    """Where the download of ``entry`` is kept until it is complete and checked."""
    return folder / DOWNLOADS / f"{entry.archive_name}.part"


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects only to https (or to plain http on the loopback test server)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        parts = urlsplit(newurl)
        if parts.scheme != "https" and parts.hostname not in LOOPBACK_HOSTS:
            raise DownloadError(f"refusing a redirect from {req.full_url} to the insecure {newurl}")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _offline_hint(entry: CatalogEntry) -> str:
    checksum = f" (SHA-256 {entry.sha256})" if entry.sha256 else ""
    return (f"no internet here? On a machine with internet download {entry.url}{checksum}, copy it to this machine "
            f"and run: voicehost models install {entry.archive_name}")


def fetch(entry: CatalogEntry, part: Path, *, timeout: float = DEFAULT_TIMEOUT,
          progress: ProgressFactory | None = None, window: float | None = None) -> Fetched:
    """Download ``entry.url`` into ``part``, resuming what is already there.

    Gives up when the server is silent for ``timeout`` seconds, or sends less than
    :data:`MIN_RATE` bytes per second over ``window`` seconds (default :func:`stall_window`); the
    part is kept either way. Never takes more than the catalog's size, whatever the server says."""
    part.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    if have > entry.size:
        part.unlink()
        have = 0
    if have == entry.size:
        return Fetched(part, have, have)
    headers = {"User-Agent": f"voicehost/{__version__}", "Accept-Encoding": "identity"}
    if have:
        headers["Range"] = f"bytes={have}-"
    opener = urllib.request.build_opener(_SafeRedirects())
    request = urllib.request.Request(entry.url, headers=headers)
    try:
        response = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code == 416 and have:
            part.unlink()
            raise DownloadError(f"the server refused to resume {entry.archive_name} (HTTP 416); the partial file "
                                "was deleted: run the same command again to start over") from None
        raise DownloadError(f"cannot download {entry.url}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        reason = getattr(error, "reason", error)
        raise DownloadError(f"cannot reach {urlsplit(entry.url).hostname} ({reason}); {_offline_hint(entry)}") from None
    with response:
        start = _resume_offset(response, have)
        length = response.headers.get("Content-Length")
        total = entry.size
        if length and length.isdigit() and start + int(length) != entry.size:
            raise DownloadError(f"the server offers {(start + int(length)) / 1e6:.1f} MB for {entry.archive_name}, "
                                f"the catalog says {entry.size / 1e6:.1f} MB: not the catalog's file; nothing more was downloaded")
        report = progress(f"downloading {entry.archive_name}", total, start) if progress else None
        done = _receive(response, part, start, total, report, entry, window or stall_window(timeout))
    if done != total:
        raise DownloadError(f"download of {entry.archive_name} stopped at {done / 1e6:.1f} of {total / 1e6:.1f} MB; "
                            "the part is kept: run the same command again to resume")
    return Fetched(part, done, start)


def _resume_offset(response: http.client.HTTPResponse, have: int) -> int:
    """Where the response body starts in the file: ``have`` for a partial answer, 0 for a full one."""
    if response.status != 206:
        return 0
    match = re.match(r"bytes (\d+)-", response.headers.get("Content-Range", ""))
    if not match or int(match.group(1)) != have:
        raise DownloadError(f"the server resumed at the wrong place ({response.headers.get('Content-Range')!r}); "
                            "delete the partial download and try again")
    return have


def _receive(response: http.client.HTTPResponse, part: Path, start: int, total: int,
             report: ProgressFn | None, entry: CatalogEntry, window: float) -> int:
    """Append the body to ``part`` (truncated to ``start``); returns the file's size afterwards."""
    done = start
    mark_time, mark_done = time.monotonic(), start
    with part.open("r+b" if part.exists() else "wb") as out:
        out.truncate(start)
        out.seek(start)
        try:
            while chunk := response.read1(min(READ, total + 1 - done)):
                out.write(chunk)
                out.flush()  # a trickle keeps what it got: the next run resumes from there
                done += len(chunk)
                if done > total:
                    break
                if report:
                    report(done, total)
                now = time.monotonic()
                if now - mark_time >= window:
                    if done - mark_done < MIN_RATE * window:
                        raise DownloadError(
                            f"download of {entry.archive_name} stalled: {done - mark_done} bytes in the last "
                            f"{window:.0f} s (less than {MIN_RATE / 1000:.0f} KB/s), at {_amount(done)} of "
                            f"{_amount(total)}; the part is kept: run the same command again to resume")
                    mark_time, mark_done = now, done
        except (OSError, http.client.HTTPException) as error:
            out.flush()
            raise DownloadError(
                f"download of {entry.archive_name} interrupted at {done / 1e6:.1f} of {total / 1e6:.1f} MB "
                f"({error or type(error).__name__}); the part is kept: run the same command again to resume"
            ) from None
    return done


def check_download(entry: CatalogEntry, fetched: Fetched, folder: Path,
                   progress: ProgressFactory | None = None, notify: Notify | None = None) -> tuple[str, str]:
    """Check a finished download; delete it and raise ChecksumMismatch when it is wrong.

    Returns (SHA-256, MD5). With no SHA-256 known yet, size and MD5 are checked and the SHA-256 is
    recorded for next time.
    """
    report = progress(f"checking {entry.archive_name}", fetched.size, 0) if progress else None
    sha256, md5 = file_digests(fetched.path, (lambda done: report(done, fetched.size)) if report else None)
    expected, source = expected_sha256(entry, folder)
    problem = ""
    if expected and sha256 != expected:
        problem = f"its SHA-256 {sha256} is not the {source} {expected}"
    elif not expected and fetched.size != entry.size:
        problem = f"it has {fetched.size} bytes, the catalog says {entry.size}"
    elif not expected and entry.md5 and md5 != entry.md5:
        problem = f"its MD5 {md5} is not the catalog's {entry.md5}"
    if problem:
        fetched.path.unlink(missing_ok=True)
        raise ChecksumMismatch(f"downloaded {entry.archive_name} is corrupt or not the official file: {problem}; "
                               "the download was deleted (run the command again to retry)")
    if not expected:
        RecordedChecksums(folder).record(entry.name, sha256)
        if notify:
            checked = "size and MD5" if entry.md5 else "size"
            notify(f"the catalog has no SHA-256 for {entry.name}: checked its {checked}, "
                   f"recorded SHA-256 {sha256} in {RecordedChecksums(folder).path}")
    return sha256, md5


def download_model(entry: CatalogEntry, folder: Path, catalog: Catalog, *, force: bool = False,
                   timeout: float = DEFAULT_TIMEOUT, progress: ProgressFactory | None = None,
                   notify: Notify | None = None) -> InstalledModel:
    """Download, check and install one catalog model into ``folder``."""
    if (folder / entry.name).exists() and not force:
        raise ModelExists(f"{entry.name} is already installed in {folder} (add --force to download it again)")
    part = partial_path(entry, folder)
    fetched = fetch(entry, part, timeout=timeout, progress=progress)
    digests = check_download(entry, fetched, folder, progress, notify)
    try:
        return install_archive(part, folder, catalog, name=entry.name, force=force, digests=digests,
                               source=entry.url, progress=progress)
    finally:
        part.unlink(missing_ok=True)

