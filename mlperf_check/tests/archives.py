"""Builders of test archives, hostile ones included, written into a test's tmp folder."""

from __future__ import annotations

import hashlib
import io
import stat
import tarfile
import warnings
import zipfile
from pathlib import Path

TarEntry = tuple[tarfile.TarInfo, bytes]

MiB = 1024**2
TAR_MODES = {"tar": "w", "tar.gz": "w:gz", "tar.xz": "w:xz"}


class ZeroStream:
    """`size` zero bytes, produced on demand (a bomb's contents without holding them)."""

    def __init__(self, size: int) -> None:
        self.left = size

    def read(self, size: int = -1) -> bytes:
        count = self.left if size < 0 else min(size, self.left)
        self.left -= count
        return bytes(count)


def tar_file(name: str, data: bytes = b"data\n") -> TarEntry:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    return info, data


def tar_dir(name: str) -> TarEntry:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    return info, b""


def tar_special(name: str, member_type: bytes, linkname: str = "") -> TarEntry:
    info = tarfile.TarInfo(name)
    info.type = member_type
    info.linkname = linkname
    return info, b""


def write_tar(
    path: Path, entries: list[TarEntry], archive_format: str = "tar", tar_format: int = tarfile.GNU_FORMAT
) -> Path:
    """A tar written by tarfile itself; names may hold undecodable bytes as surrogates."""
    with tarfile.open(
        path, TAR_MODES[archive_format], format=tar_format, encoding="utf-8", errors="surrogateescape"
    ) as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def write_raw_tar(path: Path, entries: list[TarEntry], end_marker: bool = True) -> Path:
    """An uncompressed tar assembled block by block: each header says what its TarInfo says
    (it may lie about the size) and is followed by `data` as given, padded to a block."""
    with path.open("wb") as out:
        for info, data in entries:
            out.write(info.tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape"))
            out.write(data + bytes(-len(data) % tarfile.BLOCKSIZE))
        if end_marker:
            out.write(bytes(2 * tarfile.BLOCKSIZE))
    return path


def zip_symlink(name: str, target: str) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix, so the mode in external_attr counts
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


def write_zip(
    path: Path,
    entries: list[tuple[str | zipfile.ZipInfo, bytes]],
    compression: int = zipfile.ZIP_DEFLATED,
) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names we want
        with zipfile.ZipFile(path, "w", compression) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return path


def patch_bytes(path: Path, old: bytes, new: bytes, count: int = -1) -> Path:
    """Replace bytes in place (same length), e.g. a name in a zip's local and central headers."""
    assert len(old) == len(new)
    content = path.read_bytes()
    assert old in content
    path.write_bytes(content.replace(old, new, count))
    return path


def patch_zip_central_header(path: Path, offset: int, value: int, width: int = 4) -> Path:
    """Overwrite a little-endian field of the (first) central directory header."""
    content = bytearray(path.read_bytes())
    at = content.index(b"PK\x01\x02") + offset
    content[at : at + width] = value.to_bytes(width, "little")
    path.write_bytes(bytes(content))
    return path


def pack_folder(folder: Path, archive: Path, archive_format: str) -> Path:
    """Pack `folder` (as the top-level entry, with its sub-folders) in one of the four formats."""
    if archive_format == "zip":
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as packed:
            for path in [folder, *sorted(folder.rglob("*"))]:
                packed.write(path, path.relative_to(folder.parent).as_posix())
        return archive
    with tarfile.open(archive, TAR_MODES[archive_format]) as packed:
        packed.add(folder, arcname=folder.name)
    return archive


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file under `root`, by relative path."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
