"""Safe reading and extraction of uploaded submission archives.

An upload is hostile until proven otherwise. Submitters send `.tar`, `.tar.gz`/`.tgz`, `.tar.xz`
or `.zip` holding one submitter folder. `iter_archive` streams the members once, validating every
member before it is handed out and the running totals while its bytes are read, and raises
`UnsafeArchive` (with a stable reason code and the offending member) at the first problem.
`extract_archive` writes files itself, with paths it built and verified, into an empty folder.

Plain Python: no Django. Limits come in as an `ArchiveLimits`; memory stays bounded because every
byte is moved in chunks of at most `CHUNK_BYTES`.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import lzma
import re
import shutil
import stat
import struct
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from mlperf_check.lean_dataclass import dataclass

MiB = 1024**2
GiB = 1024**3
CHUNK_BYTES = MiB
# tarfile reads a GNU long-name or pax header's data into memory in one piece, so such headers are
# refused before tarfile sees them when they are bigger than any honest name or attribute list.
MAX_TAR_HEADER_DATA_BYTES = 64 * 1024
# Longest file or folder name (one path segment) that Linux file systems accept, in bytes.
MAX_SEGMENT_BYTES = 255

_TAR_HEADER_DATA_TYPES = (
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
)
_ZIP_UTF8_FLAG = 0x800
_ZIP_ENCRYPTED_FLAG = 0x1
_ZIP_END_OF_CENTRAL_DIRECTORY = b"PK\x05\x06"
_ZIP_END_RECORD_BYTES = 22
_ZIP64_END_LOCATOR = b"PK\x06\x07"
_ZIP64_LOCATOR_BYTES = 20
_ZIP64_END_OF_CENTRAL_DIRECTORY = b"PK\x06\x06"
_ZIP64_END_RECORD_BYTES = 56
_ZIP_CENTRAL_HEADER = b"PK\x01\x02"
_ZIP_CENTRAL_HEADER_BYTES = 46
_DRIVE_LETTER = re.compile(r"[A-Za-z]:")
# What the readers raise on damaged input: truncation, bad checksums, broken compressed streams.
_READ_ERRORS = (
    tarfile.TarError,
    zipfile.BadZipFile,
    EOFError,
    OSError,
    zlib.error,
    lzma.LZMAError,
    struct.error,
    ValueError,
)

# Member kinds that are never accepted: (reason code, what the message says the member is).
_REFUSED_KINDS = {
    "symlink": ("symlink", "is a symbolic link; links are not allowed"),
    "hardlink": ("hardlink", "is a hard link; links are not allowed"),
    "device": ("device", "is a character or block device"),
    "fifo": ("fifo", "is a FIFO (named pipe)"),
    "sparse": ("unsupported_type", "is a sparse file; only regular files and folders are allowed"),
    "encrypted": ("encrypted", "is encrypted; upload an archive without a password"),
    "other": ("unsupported_type", "is not a regular file or folder"),
}


@dataclass(frozen=True)
class ArchiveLimits:
    max_members: int = 20000
    max_member_bytes: int = 2 * GiB
    max_total_bytes: int = 8 * GiB
    max_path_length: int = 400  # characters of the normalised member name
    max_depth: int = 16  # path segments of the normalised member name
    max_compression_ratio: float = 200.0  # uncompressed bytes produced / compressed bytes consumed
    # The ratio is only enforced after this many uncompressed bytes: a small, very compressible
    # file (a few MB of zero padding) is harmless, and a bomb is still stopped this early.
    ratio_check_after_bytes: int = 16 * MiB


class UnsafeArchive(Exception):
    """The archive is refused. `reason` is a stable code (for example "absolute_path"), `member`
    the offending member name made printable ("" when the problem is not one member's)."""

    def __init__(self, reason: str, detail: str, member: str = "") -> None:
        self.reason = reason
        self.member = member
        super().__init__(f"member '{member}' {detail}" if member else detail)


@dataclass(frozen=True)
class ArchiveMember:
    """One file or folder. `name` is the normalised POSIX path relative to the archive root.
    `open()` may be called once, for files only; its stream is valid until the next member."""

    name: str
    size: int
    is_dir: bool
    open: Callable[[], BinaryIO]


def detect_archive_format(path: Path) -> str:
    """The format ("tar", "tar.gz", "tar.xz" or "zip") from the first bytes, never the name."""
    with Path(path).open("rb") as file:
        head = file.read(tarfile.BLOCKSIZE)
    if not head:
        raise UnsafeArchive("empty", "the archive is an empty file")
    if head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "tar.xz"
    if head.startswith((b"PK\x03\x04", _ZIP_END_OF_CENTRAL_DIRECTORY)):
        return "zip"
    if head[257:262] == b"ustar":
        return "tar"
    if head == bytes(tarfile.BLOCKSIZE):  # a tar holding only its end-of-archive marker
        return "tar"
    raise UnsafeArchive("unsupported_format", "the file is not a .tar, .tar.gz, .tar.xz or .zip archive")


def iter_archive(path: Path, limits: ArchiveLimits = ArchiveLimits()) -> Iterator[ArchiveMember]:
    """Stream the members in archive order, each validated before it is yielded.

    Every member's data is read to its end (by the caller or, after it, here) so sizes, CRCs and
    the compression ratio are checked on actual bytes. A problem anywhere raises UnsafeArchive
    when it is reached: the caller must then discard everything it did with earlier members.
    """
    path = Path(path)
    archive_format = detect_archive_format(path)
    meter = _Meter(limits)
    with path.open("rb") as raw:
        counted = _CountingFile(raw, meter)
        if archive_format == "zip":
            _check_zip_entry_count(raw, limits)
            entries = _zip_entries(counted, meter)
        else:
            _check_tar_member_count(path, archive_format, limits)
            entries = _tar_entries(counted, archive_format, meter)
        yield from _checked_members(entries, meter)


def decided_by_result_paths(path: Path, decide: Callable[[list[str]], bool | None]) -> bool:
    """What `decide` says of an archive: it is asked of each member under a results/ folder, in
    archive order, with the member's path below results/ split at "/", until it answers True or
    False (None: read on). False when no member decides, or when the archive is unsafe (the suite
    that takes it refuses it with its reason). How the suites tell their archives apart by names
    alone, reading no more members than they need."""
    try:
        with contextlib.closing(iter_archive(path)) as members:
            for member in members:
                parts = member.name.split("/")
                if "results" in parts:
                    verdict = decide(parts[parts.index("results") + 1 :])
                    if verdict is not None:
                        return verdict
    except UnsafeArchive:
        return False
    return False


def extract_archive(path: Path, dest: Path, limits: ArchiveLimits = ArchiveLimits()) -> Path:
    """Extract into `dest` (created when missing, else it must be an empty folder) and return
    the single top-level submitter folder. On any error `dest` is left empty and the error
    is raised."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise ValueError(f"{dest} must be an empty folder to extract into")
    root = dest.resolve()
    top: str | None = None
    try:
        for member in iter_archive(path, limits):
            top = _top_folder(member, top)
            target = _verified_target(root, member.name)
            if member.is_dir:
                _make_folders(root, target, member.name)
                continue
            _make_folders(root, target.parent, member.name)
            with target.open("xb") as out:
                shutil.copyfileobj(member.open(), out, CHUNK_BYTES)
    except BaseException:
        _remove_contents(root)
        raise
    assert top is not None  # iter_archive refuses archives without files
    return dest / top


# --- shared iteration and checks -------------------------------------------------------------


@dataclass
class _Entry:
    """A member as a format reader sees it, before any check."""

    raw_name: str  # undecoded bytes show up as surrogates (surrogateescape)
    kind: str  # "file", "dir", or a key of _REFUSED_KINDS
    size: int  # uncompressed size the header claims
    open_source: Callable[[], BinaryIO]


class _Meter:
    """Running totals of one pass, shared by the stream layers that count bytes."""

    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.compressed_bytes = 0  # read from the archive file
        self.uncompressed_bytes = 0  # produced by decompression
        self.data_bytes = 0  # file contents handed out
        self.member = ""  # printable name of the member being read, for messages
        self.refusal: UnsafeArchive | None = None
        self.drain_buffer = bytearray(CHUNK_BYTES)  # one per pass: members are drained one at a time

    def add_compressed(self, count: int) -> None:
        self.compressed_bytes += count

    def add_uncompressed(self, count: int) -> None:
        self.uncompressed_bytes += count
        limits = self.limits
        if self.uncompressed_bytes < limits.ratio_check_after_bytes:
            return
        if self.uncompressed_bytes > limits.max_compression_ratio * max(self.compressed_bytes, 1):
            raise UnsafeArchive(
                "compression_ratio",
                f"expands more than {limits.max_compression_ratio:g} times "
                f"({self.uncompressed_bytes} bytes out of {self.compressed_bytes} compressed bytes): "
                "refused as a likely compression bomb",
                self.member,
            )

    def add_data(self, count: int, member_bytes: int) -> None:
        self.data_bytes += count
        limits = self.limits
        if member_bytes > limits.max_member_bytes:
            raise UnsafeArchive(
                "member_too_large",
                f"is larger than the limit of {limits.max_member_bytes} bytes "
                f"({member_bytes} bytes read so far)",
                self.member,
            )
        if self.data_bytes > limits.max_total_bytes:
            raise UnsafeArchive(
                "total_too_large",
                f"brings the files past the limit of {limits.max_total_bytes} bytes in all "
                f"({self.data_bytes} bytes read so far)",
                self.member,
            )


def _checked_members(entries: Iterator[_Entry], meter: _Meter) -> Iterator[ArchiveMember]:
    limits = meter.limits
    paths = _PathRegistry()
    count = files = 0
    previous: _MemberStream | None = None
    while True:
        if previous is not None:
            previous.finish()  # read what the caller left, so every byte is counted and checked
            previous = None
        if meter.refusal is not None:  # the caller saw the refusal and went on anyway
            raise meter.refusal
        entry = next(entries, None)
        if entry is None:
            break
        count += 1
        display = _printable(entry.raw_name)
        meter.member = display
        if count > limits.max_members:
            raise UnsafeArchive(
                "too_many_members", f"is one more than the limit of {limits.max_members} members", display
            )
        name = _normalised_name(entry.raw_name, display, limits)
        if entry.kind in _REFUSED_KINDS:
            reason, detail = _REFUSED_KINDS[entry.kind]
            raise UnsafeArchive(reason, detail, display)
        is_dir = entry.kind == "dir"
        if not name:
            if is_dir:  # the archive root itself ("./"), as `tar -C folder .` writes it
                continue
            raise UnsafeArchive("invalid_name", "is a file without a name", display)
        paths.add(name, is_dir, display)
        if is_dir:
            yield ArchiveMember(name=name, size=0, is_dir=True, open=_folder_open(display))
            continue
        if entry.size > limits.max_member_bytes:
            raise UnsafeArchive(
                "member_too_large",
                f"is {entry.size} bytes, over the limit of {limits.max_member_bytes} bytes",
                display,
            )
        if meter.data_bytes + entry.size > limits.max_total_bytes:
            raise UnsafeArchive(
                "total_too_large",
                f"brings the files to {meter.data_bytes + entry.size} bytes, over the limit of "
                f"{limits.max_total_bytes} bytes in all",
                display,
            )
        files += 1
        previous = _MemberStream(display, entry.open_source, meter)
        yield ArchiveMember(name=name, size=entry.size, is_dir=False, open=previous.open)
    if files == 0:
        raise UnsafeArchive("empty", "the archive holds no files")


def _normalised_name(raw: str, display: str, limits: ArchiveLimits) -> str:
    """The member name as a relative POSIX path without empty or "." segments ("" for the
    root), or UnsafeArchive when the name could reach outside the destination or is unreadable."""
    categories = {unicodedata.category(char) for char in raw}
    if "Cs" in categories:
        raise UnsafeArchive("invalid_name", "has a name that is not valid UTF-8", display)
    if categories & {"Cc", "Cf"}:
        raise UnsafeArchive("invalid_name", "has a control or invisible character in its name", display)
    if "\\" in raw:
        raise UnsafeArchive("backslash", "has a backslash in its name; use '/' between folders", display)
    if raw.startswith("/"):
        raise UnsafeArchive("absolute_path", "is an absolute path; members must be relative", display)
    segments = [segment for segment in raw.split("/") if segment not in ("", ".")]
    if segments and _DRIVE_LETTER.match(segments[0]):
        raise UnsafeArchive("drive_letter", "starts with a drive letter; members must be relative", display)
    if ".." in segments:
        raise UnsafeArchive("path_traversal", "has a '..' segment that climbs out of the archive", display)
    name = "/".join(segments)
    if len(name) > limits.max_path_length:
        raise UnsafeArchive(
            "path_too_long",
            f"has a path of {len(name)} characters, over the limit of {limits.max_path_length}",
            display,
        )
    if any(len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES for segment in segments):
        raise UnsafeArchive(
            "path_too_long", f"has a file or folder name longer than {MAX_SEGMENT_BYTES} bytes", display
        )
    if len(segments) > limits.max_depth:
        raise UnsafeArchive(
            "path_too_deep",
            f"is {len(segments)} levels deep, over the limit of {limits.max_depth}",
            display,
        )
    return name


class _PathRegistry:
    """Every path seen so far, to refuse duplicates and file/folder clashes."""

    def __init__(self) -> None:
        self._kinds: dict[str, str] = {}  # "file", "dir", or "implied" (a folder only named as a parent)

    def add(self, name: str, is_dir: bool, display: str) -> None:
        segments = name.split("/")
        for depth in range(1, len(segments)):
            parent = "/".join(segments[:depth])
            kind = self._kinds.setdefault(parent, "implied")
            if kind == "file":
                raise UnsafeArchive("path_conflict", f"is inside '{parent}', which is a file", display)
        existing = self._kinds.get(name)
        if existing in ("file", "dir"):
            raise UnsafeArchive(
                "duplicate_path", f"is a second member with the path '{name}' (after normalisation)", display
            )
        if existing == "implied" and not is_dir:
            raise UnsafeArchive(
                "path_conflict", f"is a file, but earlier members are inside a folder '{name}'", display
            )
        self._kinds[name] = "dir" if is_dir else "file"


def _printable(name: str) -> str:
    """The name for messages: undecodable bytes as \\xNN, control characters escaped."""
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that did not come from an undecodable byte
        raw = name.encode("utf-8", "backslashreplace")
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode() for char in text)


def _folder_open(display: str) -> Callable[[], BinaryIO]:
    def open_folder() -> BinaryIO:
        raise IsADirectoryError(f"member '{display}' is a folder")

    return open_folder


def _top_folder(member: ArchiveMember, top: str | None) -> str:
    """The single top-level folder: refuses files at the top and a second top-level entry."""
    first, separator, _ = member.name.partition("/")
    if not separator and not member.is_dir:
        raise UnsafeArchive(
            "file_at_top_level",
            "is a file at the top level; the archive must hold one submitter folder",
            member.name,
        )
    if top is not None and first != top:
        raise UnsafeArchive(
            "multiple_top_level",
            f"is outside '{top}'; the archive must hold one submitter folder only",
            member.name,
        )
    return first


# --- byte streams ----------------------------------------------------------------------------


class _CountingFile:
    """The archive file, counting the (compressed) bytes read from it."""

    def __init__(self, raw: BinaryIO, meter: _Meter) -> None:
        self._raw = raw
        self._meter = meter

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._meter.add_compressed(len(data))
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def seekable(self) -> bool:
        return True


class _UncompressedStream:
    """Decompressed bytes, counted for the compression ratio as they are produced. Also keeps
    where the last non-zero byte was, to check that a tar ends with zero blocks only."""

    def __init__(self, source: BinaryIO, meter: _Meter) -> None:
        self._source = source
        self._meter = meter
        self.produced = 0
        self.nonzero_end = 0  # offset just after the last non-zero byte

    def read(self, size: int = -1) -> bytes:
        data = self._source.read(CHUNK_BYTES if size < 0 else min(size, CHUNK_BYTES))
        nonzero_length = len(data.rstrip(b"\0"))
        if nonzero_length:
            self.nonzero_end = self.produced + nonzero_length
        self.produced += len(data)
        self._meter.add_uncompressed(len(data))
        return data


class _MemberStream(io.RawIOBase):
    """One file's contents: counts the bytes actually read against the size limits (a header
    can lie) and turns reader errors into UnsafeArchive."""

    def __init__(self, display: str, open_source: Callable[[], BinaryIO], meter: _Meter) -> None:
        super().__init__()
        self._display = display
        self._open_source = open_source
        self._meter = meter
        self._source: BinaryIO | None = None
        self._opened = False
        self._expired = False
        self._bytes_read = 0

    def open(self) -> BinaryIO:
        if self._opened:
            raise ValueError(f"member '{self._display}' was already opened")
        self._opened = True
        return io.BufferedReader(self, CHUNK_BYTES)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        if self._expired:
            raise ValueError(f"member '{self._display}' can only be read before the next member")
        try:
            if self._source is None:
                self._source = self._open_source()
            data = self._source.read(min(len(buffer), CHUNK_BYTES))
            self._bytes_read += len(data)
            self._meter.add_data(len(data), self._bytes_read)
        except UnsafeArchive as refusal:
            self._meter.refusal = refusal
            raise
        except _READ_ERRORS as error:
            refusal = _corrupt(error, self._display)
            self._meter.refusal = refusal
            raise refusal from error
        buffer[: len(data)] = data
        return len(data)

    def finish(self) -> None:
        """Read the rest (through the same checks), then make the stream unusable."""
        if self._meter.refusal is None:
            while self.readinto(self._meter.drain_buffer):
                pass
        self._expired = True


def _corrupt(error: Exception, member: str = "") -> UnsafeArchive:
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if member:
        return UnsafeArchive(
            "corrupt", f"cannot be read, the archive is damaged or truncated ({detail})", member
        )
    return UnsafeArchive("corrupt", f"the archive is damaged or truncated ({detail})")


# --- tar -------------------------------------------------------------------------------------


class _BoundedTarInfo(tarfile.TarInfo):
    """Refuses long-name and pax headers bigger than MAX_TAR_HEADER_DATA_BYTES before tarfile
    reads their data into memory in one piece."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _TAR_HEADER_DATA_TYPES and self.size > MAX_TAR_HEADER_DATA_BYTES:
            raise UnsafeArchive(
                "header_too_large",
                f"is a {self.size}-byte extended header, over the limit of {MAX_TAR_HEADER_DATA_BYTES} bytes",
                _printable(self.name),
            )
        return super()._proc_member(tarfile_)


def _tar_entries(counted: _CountingFile, archive_format: str, meter: _Meter) -> Iterator[_Entry]:
    # We decompress ourselves and give tarfile the plain stream ("r|", read once, never seeks
    # back): that way the ratio check sees every byte tarfile asks for, headers included.
    with contextlib.ExitStack() as cleanup:
        decompressed: BinaryIO = counted  # type: ignore[assignment]
        if archive_format == "tar.gz":
            decompressed = cleanup.enter_context(gzip.GzipFile(fileobj=counted, mode="rb"))  # type: ignore[arg-type]
        elif archive_format == "tar.xz":
            decompressed = cleanup.enter_context(lzma.LZMAFile(counted))  # type: ignore[arg-type]
        stream = _UncompressedStream(decompressed, meter)
        try:
            tar = tarfile.open(
                fileobj=stream,  # type: ignore[arg-type]
                mode="r|",
                tarinfo=_BoundedTarInfo,
                encoding="utf-8",
                errors="surrogateescape",
            )
        except _READ_ERRORS as error:
            if stream.produced == 0:
                raise UnsafeArchive("empty", "the archive holds nothing") from error
            raise _corrupt(error) from error
        cleanup.enter_context(tar)
        while True:
            try:
                info = tar.next()
            except _READ_ERRORS as error:
                raise _corrupt(error, meter.member) from error
            if info is None:
                break
            yield _Entry(info.name, _tar_kind(info), info.size, _tar_opener(tar, info))
        _check_tar_end(tar.offset, stream, meter.member)


# Header types that describe the next member rather than being one (pax, GNU long names).
_TAR_PREFIX_TYPES = frozenset({tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK,
                               tarfile.SOLARIS_XHDTYPE})


def _check_tar_member_count(path: Path, archive_format: str, limits: ArchiveLimits) -> None:
    """Refuse a tar with more than max_members members before any member is handed out: a first
    pass reads the 512-byte headers only, skipping the data (decompressed, not parsed), so an
    archive one member over the limit is refused in the time it takes to decompress it, not after
    every member before has been checked and unpacked. It stops at the full pass's size and ratio
    limits and at anything it cannot read, and leaves those to the full pass, which says what is
    wrong and where."""
    meter = _Meter(limits)
    with path.open("rb") as raw, contextlib.ExitStack() as cleanup:
        source: BinaryIO = _CountingFile(raw, meter)  # type: ignore[assignment]
        if archive_format == "tar.gz":
            source = cleanup.enter_context(gzip.GzipFile(fileobj=source, mode="rb"))  # type: ignore[arg-type]
        elif archive_format == "tar.xz":
            source = cleanup.enter_context(lzma.LZMAFile(source))  # type: ignore[arg-type]
        stream = _UncompressedStream(source, meter)
        members = skipped = 0
        try:
            while True:
                header = _read_up_to(stream, tarfile.BLOCKSIZE)
                if len(header) < tarfile.BLOCKSIZE or header == bytes(tarfile.BLOCKSIZE):
                    return
                size = tarfile.nti(header[124:136])
                if header[156:157] not in _TAR_PREFIX_TYPES:
                    members += 1
                if members > limits.max_members:
                    name = header[:100].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
                    raise UnsafeArchive(
                        "too_many_members",
                        f"is one more than the limit of {limits.max_members} members (counted before unpacking any)",
                        _printable(name),
                    )
                data_bytes = -(-max(size, 0) // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE
                skipped += data_bytes
                if skipped > limits.max_total_bytes or _skip(stream, data_bytes) < data_bytes:
                    return
        except (*_READ_ERRORS, tarfile.HeaderError):
            return
        except UnsafeArchive as refusal:  # a compression bomb: the full pass refuses it, naming the member
            if refusal.reason != "too_many_members":
                return
            raise


def _read_up_to(stream: _UncompressedStream, size: int) -> bytes:
    """`size` bytes of `stream`, fewer only at its end."""
    parts = []
    while size > 0 and (data := stream.read(size)):
        parts.append(data)
        size -= len(data)
    return b"".join(parts)


def _skip(stream: _UncompressedStream, size: int) -> int:
    """Read past `size` bytes of `stream`; how many there were."""
    skipped = 0
    while skipped < size and (data := stream.read(size - skipped)):
        skipped += len(data)
    return skipped


def _tar_opener(tar: tarfile.TarFile, info: tarfile.TarInfo) -> Callable[[], BinaryIO]:
    def open_member() -> BinaryIO:
        source = tar.extractfile(info)
        assert source is not None  # regular files always have contents
        return source

    return open_member


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.issparse() or info.type == tarfile.GNUTYPE_SPARSE:
        return "sparse"
    if info.isreg():
        return "file"
    if info.isdir():
        return "dir"
    if info.issym():
        return "symlink"
    if info.islnk():
        return "hardlink"
    if info.ischr() or info.isblk():
        return "device"
    if info.isfifo():
        return "fifo"
    return "other"


def _check_tar_end(end: int, stream: _UncompressedStream, last_member: str) -> None:
    """tarfile stops quietly at the first header it cannot read; make sure that was the
    end-of-archive marker and only zero padding follows. Non-zero bytes there mean a member
    header that claims fewer bytes than its data, or garbage appended to the archive."""
    try:
        while stream.read(CHUNK_BYTES):
            pass
    except _READ_ERRORS as error:
        raise _corrupt(error) from error
    if stream.nonzero_end > end:
        if not last_member:
            raise UnsafeArchive("corrupt", f"the archive has data after its end (byte {end})")
        raise UnsafeArchive(
            "corrupt",
            f"is followed by data after the end of the archive (byte {end}): its header may claim "
            "fewer bytes than it holds, or the archive is damaged",
            last_member,
        )
    if stream.produced < end + tarfile.BLOCKSIZE:
        raise UnsafeArchive("corrupt", "the archive ends without its end-of-archive marker (truncated?)")


# --- zip -------------------------------------------------------------------------------------


def _zip_entries(counted: _CountingFile, meter: _Meter) -> Iterator[_Entry]:
    try:
        archive = zipfile.ZipFile(counted)  # type: ignore[arg-type]
    except UnicodeDecodeError as error:  # zipfile decodes names flagged as UTF-8 strictly
        raise UnsafeArchive(
            "invalid_name",
            "has a name that is not valid UTF-8",
            _printable(error.object.decode("utf-8", "surrogateescape")),
        ) from error
    except _READ_ERRORS as error:
        raise _corrupt(error) from error
    with archive:
        for info in archive.infolist():
            yield _Entry(_zip_name(info), _zip_kind(info), info.file_size, _zip_opener(archive, info, meter))


def _check_zip_entry_count(raw: BinaryIO, limits: ArchiveLimits) -> None:
    """Refuse an archive with more than max_members entries before zipfile loads the central
    directory into memory (a ZipInfo object per entry).

    The end records' count can lie (zipfile itself ignores it and reads the directory by its
    size), and a zip64 archive says 0xFFFF there and the real count in the zip64 end record. So
    the count of the records is checked first, then the central directory's headers themselves are
    counted, streaming, and the count stops one past the limit."""
    size = raw.seek(0, io.SEEK_END)
    tail_size = min(size, _ZIP_END_RECORD_BYTES + 0xFFFF)  # the record plus its longest comment
    raw.seek(size - tail_size)
    tail = raw.read(tail_size)
    raw.seek(0)
    at = tail.rfind(_ZIP_END_OF_CENTRAL_DIRECTORY)
    if at < 0 or len(tail) - at < _ZIP_END_RECORD_BYTES:
        return  # zipfile reports the damage
    entries, directory_size = struct.unpack_from("<HI", tail, at + 10)
    directory_end = size - tail_size + at  # the central directory ends where the end record starts
    locator = at - _ZIP64_LOCATOR_BYTES
    if locator >= 0 and tail[locator : locator + 4] == _ZIP64_END_LOCATOR:
        (record_offset,) = struct.unpack_from("<Q", tail, locator + 8)
        raw.seek(min(record_offset, size))
        record = raw.read(_ZIP64_END_RECORD_BYTES)
        raw.seek(0)
        if len(record) == _ZIP64_END_RECORD_BYTES and record[:4] == _ZIP64_END_OF_CENTRAL_DIRECTORY:
            entries, directory_size = struct.unpack_from("<QQ", record, 32)
            directory_end = size - tail_size + locator - _ZIP64_END_RECORD_BYTES
    if entries != 0xFFFF and entries > limits.max_members:
        _refuse_zip_members(entries, limits)
    _count_central_directory(raw, max(0, directory_end - directory_size), directory_end, limits)


def _count_central_directory(raw: BinaryIO, start: int, end: int, limits: ArchiveLimits) -> None:
    """Count the central directory's file headers between `start` and `end`, header by header
    (46 bytes each plus name, extra field and comment), and refuse at max_members + 1."""
    position, count = start, 0
    raw.seek(start)
    while position + _ZIP_CENTRAL_HEADER_BYTES <= end:
        header = raw.read(_ZIP_CENTRAL_HEADER_BYTES)
        if len(header) < _ZIP_CENTRAL_HEADER_BYTES or header[:4] != _ZIP_CENTRAL_HEADER:
            break  # not a directory where the end record says: zipfile reports the damage
        count += 1
        if count > limits.max_members:
            _refuse_zip_members(f"more than {limits.max_members}", limits)
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", header, 28)
        variable = name_length + extra_length + comment_length
        raw.seek(variable, io.SEEK_CUR)
        position += _ZIP_CENTRAL_HEADER_BYTES + variable
    raw.seek(0)


def _refuse_zip_members(entries, limits: ArchiveLimits) -> None:
    raise UnsafeArchive("too_many_members", f"the archive has {entries} members, over the limit of {limits.max_members}")


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The name as UTF-8. Without the UTF-8 flag zipfile decodes cp437; many tools write UTF-8
    there anyway, so the raw bytes are decoded as UTF-8 and anything else is refused."""
    if info.flag_bits & _ZIP_UTF8_FLAG:
        return info.orig_filename  # zipfile already decoded it strictly
    return info.orig_filename.encode("cp437").decode("utf-8", "surrogateescape")


def _zip_kind(info: zipfile.ZipInfo) -> str:
    file_type = stat.S_IFMT(info.external_attr >> 16)  # Unix mode, when the tool recorded one
    if file_type == stat.S_IFLNK:
        return "symlink"
    if file_type in (stat.S_IFCHR, stat.S_IFBLK):
        return "device"
    if file_type == stat.S_IFIFO:
        return "fifo"
    if file_type not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "other"
    if info.flag_bits & _ZIP_ENCRYPTED_FLAG:
        return "encrypted"
    return "dir" if info.orig_filename.endswith("/") else "file"


def _zip_opener(archive: zipfile.ZipFile, info: zipfile.ZipInfo, meter: _Meter) -> Callable[[], BinaryIO]:
    def open_member() -> BinaryIO:
        try:
            source = archive.open(info)
        except NotImplementedError as error:
            raise UnsafeArchive(
                "unsupported_compression",
                f"uses a compression method this server cannot read ({error})",
                meter.member,
            ) from error
        return _UncompressedStream(source, meter)  # type: ignore[return-value]

    return open_member


# --- extraction ------------------------------------------------------------------------------


def _verified_target(root: Path, name: str) -> Path:
    """The destination path of a member; a second line of defence after the name checks."""
    target = root.joinpath(*name.split("/"))
    if not target.is_relative_to(root) or target.resolve() != target:
        raise UnsafeArchive("path_traversal", "would be written outside the destination", name)
    return target


def _make_folders(root: Path, folder: Path, name: str) -> None:
    """Create `folder` and its missing parents, all inside `root`, none of them a link."""
    folder.mkdir(parents=True, exist_ok=True)
    if folder.resolve() != folder or not folder.is_relative_to(root):
        raise UnsafeArchive("path_traversal", "would be written outside the destination", name)


def _remove_contents(root: Path) -> None:
    # Only what extract_archive created is here: regular files and folders, no links.
    for child in root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
