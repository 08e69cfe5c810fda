"""mlperf_check.safety: hostile uploads are refused with the right reason and write nothing outside
the destination; honest packages in every format extract byte for byte."""

from __future__ import annotations

import random
import shutil
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from mlperf_check.safety import (
    ArchiveLimits,
    UnsafeArchive,
    detect_archive_format,
    extract_archive,
    iter_archive,
)
from mlperf_check.tests.archives import (
    MiB,
    ZeroStream,
    pack_folder,
    patch_bytes,
    patch_zip_central_header,
    tar_dir,
    tar_file,
    tar_special,
    tree_digest,
    write_raw_tar,
    write_tar,
    write_zip,
    zip_symlink,
)

FORMATS = ("tar", "tar.gz", "tar.xz", "zip")
# Offsets of fields in a zip central directory header.
CENTRAL_FLAGS = 8
CENTRAL_COMPRESSED_SIZE = 20
CENTRAL_FILE_SIZE = 24


def snapshot(tmp_path: Path) -> tuple[list[str], list[str]]:
    """What a refused extraction must leave alone: the folder holding this test's tmp folder,
    and everything in the tmp folder."""
    return (
        sorted(path.name for path in tmp_path.parent.iterdir()),
        sorted(path.relative_to(tmp_path).as_posix() for path in tmp_path.rglob("*")),
    )


def small_package(root: Path) -> Path:
    package = root / "Pkg"
    (package / "systems").mkdir(parents=True)
    (package / "results" / "sys" / "bert").mkdir(parents=True)
    (package / "systems" / "sys.json").write_text('{"division": "closed"}\n')
    (package / "results" / "sys" / "bert" / "result_0.txt").write_text(":::MLLOG {}\n" * 50)
    return package


def random_bytes(size: int) -> bytes:
    return random.Random(size).randbytes(size)  # incompressible, and the same every run


# --- hostile archives: (builder, reason, member named in the message, limits) ----------------


@dataclass(frozen=True)
class Hostile:
    build: Callable[[Path], Path]
    reason: str
    member: str = ""
    limits: ArchiveLimits = ArchiveLimits()


def _absolute_tar(tmp: Path) -> Path:
    escape = f"{tmp.parent}/abs-escape.txt"
    return write_tar(tmp / "a.tar.gz", [tar_file("Pkg/ok.txt"), tar_file(escape)], "tar.gz")


def _lying_small_header(tmp: Path) -> Path:
    info, _ = tar_file("Pkg/a.txt", bytes(10))
    return write_raw_tar(tmp / "a.tar", [tar_dir("Pkg"), (info, b"A" * 2000)])


def _lying_big_header(tmp: Path) -> Path:
    info, _ = tar_file("Pkg/a.txt", bytes(100_000))
    return write_raw_tar(tmp / "a.tar", [tar_dir("Pkg"), (info, b"A" * 600)])


def _lying_zip_size(tmp: Path) -> Path:
    path = write_zip(tmp / "a.zip", [("Pkg/a.txt", b"A" * 1000)], zipfile.ZIP_STORED)
    patch_zip_central_header(path, CENTRAL_COMPRESSED_SIZE, 10)
    return patch_zip_central_header(path, CENTRAL_FILE_SIZE, 10)


def _truncated(archive_format: str) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        path = write_tar(tmp / "a.bin", [tar_file("Pkg/a.bin", random_bytes(64 * 1024))], archive_format)
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        return path

    return build


def _corrupt_zip_crc(tmp: Path) -> Path:
    path = write_zip(tmp / "a.zip", [("Pkg/a.txt", b"hello world\n" * 100)], zipfile.ZIP_STORED)
    return patch_bytes(path, b"hello world", b"HELLO world", count=1)


def _bomb(archive_format: str) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        size = 50 * MiB
        path = tmp / "bomb.bin"
        if archive_format == "zip":
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                with archive.open("Pkg/zeros.bin", "w") as member:
                    shutil.copyfileobj(ZeroStream(size), member, MiB)  # type: ignore[misc]
            return path
        info, _ = tar_file("Pkg/zeros.bin")
        info.size = size
        with tarfile.open(path, "w:gz") as archive:
            archive.addfile(info, ZeroStream(size))  # type: ignore[arg-type]
        return path

    return build


def _zip_renamed(
    name: str, raw_name: bytes, compression: int = zipfile.ZIP_DEFLATED
) -> Callable[[Path], Path]:
    """A zip whose member `name` is renamed to `raw_name` (same length) in both headers,
    bytes zipfile would never write itself."""

    def build(tmp: Path) -> Path:
        path = write_zip(tmp / "a.zip", [("Pkg/ok.txt", b"ok"), (name, b"bad")], compression)
        return patch_bytes(path, name.encode("utf-8"), raw_name)

    return build


def _encrypted_zip(tmp: Path) -> Path:
    path = write_zip(tmp / "a.zip", [("Pkg/secret.txt", b"x")])
    return patch_zip_central_header(path, CENTRAL_FLAGS, 0x1, width=2)


def _big_pax_header(tmp: Path) -> Path:
    info, data = tar_file("Pkg/a.txt")
    info.pax_headers = {"comment": "x" * 100_000}
    return write_tar(tmp / "a.tar.gz", [(info, data)], "tar.gz", tar_format=tarfile.PAX_FORMAT)


def _plain_file(name: str, content: bytes) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        (tmp / name).write_bytes(content)
        return tmp / name

    return build


def _files_tar(*names: str, data: bytes = b"data\n") -> Callable[[Path], Path]:
    return lambda tmp: write_tar(tmp / "a.tar.gz", [tar_file(name, data) for name in names], "tar.gz")


def _entries_tar(*entries: tuple[tarfile.TarInfo, bytes]) -> Callable[[Path], Path]:
    return lambda tmp: write_tar(tmp / "a.tar", list(entries))


def _files_zip(*names: str, data: bytes = b"data\n") -> Callable[[Path], Path]:
    return lambda tmp: write_zip(tmp / "a.zip", [(name, data) for name in names])


HOSTILE = {
    "absolute_tar": Hostile(_absolute_tar, "absolute_path", "/abs-escape.txt"),
    "absolute_zip": Hostile(
        _files_zip("Pkg/ok.txt", "/tmp/abs-escape.txt"), "absolute_path", "/tmp/abs-escape.txt"
    ),
    "dotdot_tar": Hostile(
        _files_tar("Pkg/ok.txt", "Pkg/../../escape.txt"), "path_traversal", "Pkg/../../escape.txt"
    ),
    "dotdot_zip": Hostile(_files_zip("Pkg/ok.txt", "../escape.txt"), "path_traversal", "../escape.txt"),
    "symlink_tar": Hostile(
        _entries_tar(tar_file("Pkg/ok.txt"), tar_special("Pkg/link", tarfile.SYMTYPE, "/etc/passwd")),
        "symlink",
        "Pkg/link",
    ),
    "symlink_zip": Hostile(
        lambda tmp: write_zip(tmp / "a.zip", [("Pkg/ok.txt", b"ok"), zip_symlink("Pkg/link", "/etc/passwd")]),
        "symlink",
        "Pkg/link",
    ),
    "hardlink_tar": Hostile(
        _entries_tar(tar_file("Pkg/ok.txt"), tar_special("Pkg/hard", tarfile.LNKTYPE, "/etc/passwd")),
        "hardlink",
        "Pkg/hard",
    ),
    "char_device_tar": Hostile(_entries_tar(tar_special("Pkg/tty", tarfile.CHRTYPE)), "device", "Pkg/tty"),
    "block_device_tar": Hostile(_entries_tar(tar_special("Pkg/sda", tarfile.BLKTYPE)), "device", "Pkg/sda"),
    "fifo_tar": Hostile(
        _entries_tar(tar_file("Pkg/ok.txt"), tar_special("Pkg/pipe", tarfile.FIFOTYPE)), "fifo", "Pkg/pipe"
    ),
    "unknown_type_tar": Hostile(
        _entries_tar(tar_special("Pkg/volume", b"V")), "unsupported_type", "Pkg/volume"
    ),
    "duplicate_tar": Hostile(_files_tar("Pkg/a.txt", "Pkg/a.txt"), "duplicate_path", "Pkg/a.txt"),
    "duplicate_dot_slash_tar": Hostile(
        _files_tar("Pkg/a.txt", "./Pkg/a.txt"), "duplicate_path", "./Pkg/a.txt"
    ),
    "duplicate_double_slash_zip": Hostile(
        _files_zip("Pkg/a.txt", "Pkg//a.txt"), "duplicate_path", "Pkg//a.txt"
    ),
    "file_then_folder_of_same_name_tar": Hostile(
        _files_tar("Pkg/a", "Pkg/a/b.txt"), "path_conflict", "Pkg/a/b.txt"
    ),
    "non_utf8_tar": Hostile(
        _files_tar("Pkg/ok.txt", b"Pkg/bad\xff.txt".decode("utf-8", "surrogateescape")),
        "invalid_name",
        "Pkg/bad\\xff.txt",
    ),
    "non_utf8_zip_without_flag": Hostile(
        _zip_renamed("Pkg/bad_X.txt", b"Pkg/bad_\xff.txt"), "invalid_name", "Pkg/bad_\\xff.txt"
    ),
    "non_utf8_zip_flagged_utf8": Hostile(
        _zip_renamed("Pkg/bad_\u00e9.txt", b"Pkg/bad_\xff\xfe.txt"), "invalid_name", "Pkg/bad_\\xff\\xfe.txt"
    ),
    "control_character_tar": Hostile(_files_tar("Pkg/a\nb.txt"), "invalid_name", "Pkg/a\\nb.txt"),
    "backslash_zip": Hostile(_files_zip("Pkg\\..\\..\\escape.txt"), "backslash", "Pkg\\..\\..\\escape.txt"),
    "drive_letter_zip": Hostile(_files_zip("C:/Pkg/a.txt"), "drive_letter", "C:/Pkg/a.txt"),
    "too_many_members_tar": Hostile(
        _files_tar(*(f"Pkg/{n}.txt" for n in range(5))),
        "too_many_members",
        "Pkg/3.txt",
        ArchiveLimits(max_members=3),
    ),
    "too_many_members_zip": Hostile(
        _files_zip(*(f"Pkg/{n}.txt" for n in range(5))), "too_many_members", "", ArchiveLimits(max_members=3)
    ),
    "too_deep_tar": Hostile(
        _files_tar("Pkg/a/b/c/d.txt"), "path_too_deep", "Pkg/a/b/c/d.txt", ArchiveLimits(max_depth=4)
    ),
    "too_long_tar": Hostile(
        _files_tar("Pkg/" + "a" * 30 + ".txt"), "path_too_long", "Pkg/aaa", ArchiveLimits(max_path_length=30)
    ),
    "segment_over_255_bytes_zip": Hostile(_files_zip("Pkg/" + "a" * 256), "path_too_long", "Pkg/aaa"),
    "member_too_large_tar": Hostile(
        _files_tar("Pkg/big.bin", data=bytes(200)),
        "member_too_large",
        "Pkg/big.bin",
        ArchiveLimits(max_member_bytes=100),
    ),
    "member_too_large_zip": Hostile(
        _files_zip("Pkg/big.bin", data=bytes(200)),
        "member_too_large",
        "Pkg/big.bin",
        ArchiveLimits(max_member_bytes=100),
    ),
    "total_too_large_tar": Hostile(
        _files_tar("Pkg/a.bin", "Pkg/b.bin", data=bytes(100)),
        "total_too_large",
        "Pkg/b.bin",
        ArchiveLimits(max_total_bytes=150),
    ),
    "gzip_bomb": Hostile(_bomb("tar.gz"), "compression_ratio", "Pkg/zeros.bin"),
    "zip_bomb": Hostile(_bomb("zip"), "compression_ratio", "Pkg/zeros.bin"),
    "header_claims_fewer_bytes_tar": Hostile(_lying_small_header, "corrupt", "Pkg/a.txt"),
    "header_claims_more_bytes_tar": Hostile(_lying_big_header, "corrupt", "Pkg/a.txt"),
    "header_claims_fewer_bytes_zip": Hostile(_lying_zip_size, "corrupt", "Pkg/a.txt"),
    "truncated_tar_gz": Hostile(_truncated("tar.gz"), "corrupt", "Pkg/a.bin"),
    "truncated_tar_xz": Hostile(_truncated("tar.xz"), "corrupt", "Pkg/a.bin"),
    "tar_without_end_marker": Hostile(
        lambda tmp: write_raw_tar(tmp / "a.tar", [tar_file("Pkg/a.txt")], end_marker=False), "corrupt"
    ),
    "corrupt_zip_crc": Hostile(_corrupt_zip_crc, "corrupt", "Pkg/a.txt"),
    "encrypted_zip": Hostile(_encrypted_zip, "encrypted", "Pkg/secret.txt"),
    "oversized_pax_header": Hostile(_big_pax_header, "header_too_large"),
    "empty_tar_gz": Hostile(lambda tmp: write_tar(tmp / "a.tgz", [], "tar.gz"), "empty"),
    "empty_zip": Hostile(lambda tmp: write_zip(tmp / "a.zip", []), "empty"),
    "only_folders_tar": Hostile(_entries_tar(tar_dir("Pkg"), tar_dir("Pkg/results")), "empty"),
    "empty_file": Hostile(_plain_file("a.tgz", b""), "empty"),
    "not_an_archive": Hostile(_plain_file("a.zip", b"hello\n"), "unsupported_format"),
    "two_top_level_folders": Hostile(
        _files_tar("Pkg/a.txt", "Other/b.txt"), "multiple_top_level", "Other/b.txt"
    ),
    "file_at_top_level": Hostile(_files_zip("Pkg/a.txt", "README.md"), "file_at_top_level", "README.md"),
}


@pytest.mark.parametrize("case", HOSTILE.values(), ids=HOSTILE.keys())
def test_it_refuses_a_hostile_archive_and_writes_nothing(tmp_path: Path, case: Hostile) -> None:
    archive = case.build(tmp_path)
    dest = tmp_path / "dest"
    dest.mkdir()
    before = snapshot(tmp_path)

    with pytest.raises(UnsafeArchive) as refused:
        extract_archive(archive, dest, case.limits)

    assert refused.value.reason == case.reason, str(refused.value)
    assert case.member in refused.value.member
    assert case.member in str(refused.value)
    assert snapshot(tmp_path) == before
    assert list(dest.iterdir()) == []


# The bombs are covered by test_it_stops_reading_a_bomb_early.
NOT_BOMBS = {key: case for key, case in HOSTILE.items() if case.reason != "compression_ratio"}


def read_every_member(archive: Path, limits: ArchiveLimits | None = None) -> list[tuple[str, bool, int]]:
    """Go through the archive as inference discovery does (iter_archive), reading each file to its
    end, writing nothing: (name, is_dir, bytes read) per member."""
    seen = []
    for member in iter_archive(archive, limits or ArchiveLimits()):
        seen.append((member.name, member.is_dir, 0 if member.is_dir else len(member.open().read())))
    return seen


# One submitter folder is extraction's rule (safety._top_folder); reading member by member lists what is there.
READ_REFUSALS = {
    key: case for key, case in NOT_BOMBS.items() if case.reason not in ("multiple_top_level", "file_at_top_level")
}


@pytest.mark.parametrize("case", READ_REFUSALS.values(), ids=READ_REFUSALS.keys())
def test_it_refuses_the_same_archives_when_only_reading(tmp_path: Path, case: Hostile) -> None:
    archive = case.build(tmp_path)

    with pytest.raises(UnsafeArchive) as refused:
        read_every_member(archive, case.limits)

    assert refused.value.reason == case.reason


@pytest.mark.parametrize("archive_format", ["tar.gz", "zip"])
def test_it_stops_reading_a_bomb_early(tmp_path: Path, archive_format: str) -> None:
    archive = _bomb(archive_format)(tmp_path)
    read = 0

    with pytest.raises(UnsafeArchive) as refused:
        for member in iter_archive(archive):
            stream = member.open()
            while chunk := stream.read(MiB):
                read += len(chunk)

    assert refused.value.reason == "compression_ratio"
    assert "200 times" in str(refused.value)
    assert 0 < read < 25 * MiB  # of the 50 MiB the header promises


def test_it_refuses_a_bad_member_only_when_it_is_reached(tmp_path: Path) -> None:
    archive = write_tar(
        tmp_path / "a.tar.gz",
        [
            tar_file("Pkg/a.txt", b"first"),
            tar_file("Pkg/b.txt", b"second"),
            tar_special("Pkg/link", tarfile.SYMTYPE, "a.txt"),
        ],
        "tar.gz",
    )
    seen = []

    with pytest.raises(UnsafeArchive) as refused:
        for member in iter_archive(archive):
            seen.append((member.name, member.open().read()))

    assert seen == [("Pkg/a.txt", b"first"), ("Pkg/b.txt", b"second")]
    assert refused.value.reason == "symlink"
    assert str(refused.value) == "member 'Pkg/link' is a symbolic link; links are not allowed"


def test_it_checks_members_the_caller_did_not_read(tmp_path: Path) -> None:
    archive = _corrupt_zip_crc(tmp_path)

    with pytest.raises(UnsafeArchive) as refused:
        for _member in iter_archive(archive):
            pass

    assert refused.value.reason == "corrupt"
    assert "CRC" in str(refused.value)


def test_it_invalidates_a_member_stream_at_the_next_member(tmp_path: Path) -> None:
    archive = write_tar(tmp_path / "a.tar", [tar_file("Pkg/a.txt", b"abc"), tar_file("Pkg/b.txt", b"def")])
    members = iter_archive(archive)
    first = next(members).open()
    assert first.read(1) == b"a"

    second = next(members)

    assert second.open().read() == b"def"
    with pytest.raises(ValueError):
        first.read()


def test_it_normalises_names_and_skips_the_root_entry(tmp_path: Path) -> None:
    archive = write_tar(
        tmp_path / "a.tar",
        [
            tar_dir("."),
            tar_dir("./Pkg"),
            tar_file("./Pkg//systems/./sys.json", b"{}"),
            tar_dir("Pkg/results/"),
        ],
    )

    members = [(member.name, member.is_dir, member.size) for member in iter_archive(archive)]

    assert members == [("Pkg", True, 0), ("Pkg/systems/sys.json", False, 2), ("Pkg/results", True, 0)]


def test_it_detects_the_format_by_magic_bytes_not_by_name(tmp_path: Path) -> None:
    package = small_package(tmp_path / "src")
    for archive_format in FORMATS:
        disguised = pack_folder(package, tmp_path / f"{archive_format}.pdf", archive_format)
        assert detect_archive_format(disguised) == archive_format
    (tmp_path / "plain.tar.gz").write_bytes(b"BZh91AY&SY" + bytes(100))
    with pytest.raises(UnsafeArchive) as refused:
        detect_archive_format(tmp_path / "plain.tar.gz")
    assert refused.value.reason == "unsupported_format"


@pytest.mark.parametrize("archive_format", FORMATS)
def test_it_extracts_a_real_package_identically(tmp_path: Path, corpus: Path, archive_format: str) -> None:
    source = corpus / "v1.0" / "Fujitsu"
    package = tmp_path / "src" / "Fujitsu"
    for relative in [
        *sorted(path.relative_to(source) for path in (source / "systems").glob("*.json")),
        *sorted(path.relative_to(source) for path in (source / "results").glob("*/*/result_[12].txt")),
    ]:
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / relative, package / relative)
    archive = pack_folder(package, tmp_path / "upload.bin", archive_format)

    root = extract_archive(archive, tmp_path / "dest")

    assert root == tmp_path / "dest" / "Fujitsu"
    assert len(tree_digest(package)) == 5
    assert tree_digest(root) == tree_digest(package)
    assert sorted(path.name for path in (tmp_path / "dest").iterdir()) == ["Fujitsu"]


@pytest.mark.parametrize("archive_format", FORMATS)
def test_it_reads_every_member_of_a_valid_archive(tmp_path: Path, archive_format: str) -> None:
    package = small_package(tmp_path / "src")
    archive = pack_folder(package, tmp_path / "upload.bin", archive_format)

    members = read_every_member(archive)

    assert detect_archive_format(archive) == archive_format
    assert {name.split("/")[0] for name, _, _ in members} == {"Pkg"}
    assert (sum(not is_dir for _, is_dir, _ in members), sum(is_dir for _, is_dir, _ in members)) == (2, 5)
    assert sum(size for _, _, size in members) == sum(
        path.stat().st_size for path in package.rglob("*") if path.is_file()
    )


def test_it_accepts_a_small_very_compressible_file(tmp_path: Path) -> None:
    archive = write_tar(tmp_path / "a.tgz", [tar_file("Pkg/padding.bin", bytes(2 * MiB))], "tar.gz")

    root = extract_archive(archive, tmp_path / "dest")

    assert (root / "padding.bin").read_bytes() == bytes(2 * MiB)


def test_it_refuses_to_extract_into_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    archive = pack_folder(small_package(tmp_path / "src"), tmp_path / "a.tar", "tar")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")

    with pytest.raises(ValueError):
        extract_archive(archive, dest)

    assert [path.name for path in dest.iterdir()] == ["keep.txt"]


# --- zip64 and lying entry counts (issue 14) --------------------------------------------------


def _many_entry_zip(path: Path, count: int) -> Path:
    """`count` empty members, stored: past 0xFFFF entries zipfile writes zip64 end records."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for n in range(count):
            archive.writestr(f"P/{n:x}", b"")
    return path


@pytest.mark.slow
def test_a_zip64_entry_count_bomb_is_refused_before_the_central_directory_is_loaded(tmp_path):
    import tracemalloc

    path = _many_entry_zip(tmp_path / "bomb.zip", 70_000)
    assert path.read_bytes().find(b"PK\x06\x06") > 0  # a zip64 end record: the classic count says 0xFFFF
    tracemalloc.start()
    try:
        with pytest.raises(UnsafeArchive) as refused:
            read_every_member(path, ArchiveLimits(max_members=20_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused.value.reason == "too_many_members" and "70000 members" in str(refused.value)
    assert peak < 2 * MiB  # zipfile's ZipInfo per entry would be tens of MB


def test_a_zip_whose_end_record_understates_its_entries_is_refused_by_counting_the_directory(tmp_path):
    path = _many_entry_zip(tmp_path / "liar.zip", 50)
    data = bytearray(path.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8 : end + 12] = (1).to_bytes(2, "little") * 2  # "1 entry" on this disk and in all
    path.write_bytes(bytes(data))
    with pytest.raises(UnsafeArchive) as refused:
        read_every_member(path, ArchiveLimits(max_members=10))
    assert refused.value.reason == "too_many_members" and "more than 10" in str(refused.value)


def test_a_zip_with_exactly_the_member_limit_passes_the_count(tmp_path):
    path = write_zip(tmp_path / "ok.zip", [(f"Pkg/{n}.txt", b"x") for n in range(10)])
    assert sum(not is_dir for _, is_dir, _ in read_every_member(path, ArchiveLimits(max_members=10))) == 10


def test_a_tar_over_the_member_limit_is_refused_before_any_member_is_handed_out(tmp_path):
    """The count comes first: before, the first 20,000 members were checked (and unpacked) before
    the 20,001st was refused."""
    path = write_tar(tmp_path / "many.tar.gz", [tar_file(f"Pkg/{n}.txt", b"x") for n in range(101)], "tar.gz")
    members = iter_archive(path, ArchiveLimits(max_members=100))
    with pytest.raises(UnsafeArchive) as refused:
        next(members)
    assert refused.value.reason == "too_many_members" and refused.value.member == "Pkg/100.txt"
    assert "counted before unpacking any" in str(refused.value)
    dest = tmp_path / "out"
    with pytest.raises(UnsafeArchive):
        extract_archive(path, dest, ArchiveLimits(max_members=100))
    assert not dest.exists() or not any(dest.rglob("*.txt"))
    exactly = write_tar(tmp_path / "limit.tar.gz", [tar_file(f"Pkg/{n}.txt", b"x") for n in range(100)], "tar.gz")
    assert sum(not is_dir for _, is_dir, _ in read_every_member(exactly, ArchiveLimits(max_members=100))) == 100
