"""Discover the files of ONE submitter folder, in any of the real training layouts.

Standard layout (v0.6 and later), as read by the official package checker:

    <root>/systems/<system>.json
    <root>/results/<system>/<benchmark>/result_*.txt

v0.6 submitters could instead put an `entry.json` (the v0.5 description schema) into
`results/<system>/`; it describes the system when `systems/<system>.json` is absent.

MLPerf HPC layout, as read by the official package checker with usage `hpc`:

    <root>/systems/<system>.json
    <root>/results/<system>/{strong,weak}/<benchmark>/result_*.txt

A package is HPC when a results/<system>/ folder holds a `strong` or `weak` folder. Its other
folders at that level are not read by the official tools (the package checker asserts on them):
their files are strays here, and discovery reports the folder.

v0.5 layout: `<root>/<entry>/results/<platform>/<benchmark>/result_N.txt`, with
`<entry>/submission.json` and `<entry>/results/<platform>/entry.json`. Google grouped its entries
one level deeper (`google/cloud_v3.8/<entry>/`). Platform names repeat across entries ("tpu"), so
the system id of a v0.5 platform is its entry path and platform name joined by "--"
(`cloud_v3.8--gnmt-tpuv3-8--tpu`): unique in the package, and free of "/" so it fits a URL
segment.

Discovery only sorts files into places. The layout checker (mlperf_check.checkers.layout) judges the
places; discovery itself reports only what it refused or failed to read, because such entries
never reach the Package: symlinks (never followed), special files, unreadable folders and names
that are not UTF-8. Source code (`benchmarks/`, v0.5 `<entry>/code/`) is not walked: the official
checker does not inspect it either.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import stat
from dataclasses import field
from pathlib import Path
from typing import BinaryIO

from mlperf_check.finding_sources import checker_version
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import ERROR, Finding

STANDARD = "standard"
HPC = "hpc"
V05 = "v0.5"
# The scaling folders of an HPC system folder: time to solution, and throughput.
HPC_SCALINGS = ("strong", "weak")

# Findings of discovery are layout findings: one checker name for everything about the tree.
LAYOUT_CHECKER = "layout"

RESULT_GLOB = "result_*.txt"  # the official package checker's glob, non-recursive
V05_ID_SEPARATOR = "--"
# Folder names the official summarizer maps to a benchmark (result_summarizer._benchmark_alias);
# v0.6 Google filed Mask R-CNN under results/<system>/mask/.
BENCHMARK_ALIASES = {"mask": "maskrcnn"}

ROOT_FILES = frozenset({"submission.json", "package_checker_params"})
SYSTEM_FOLDER_FILES = frozenset({"package_checker_params", "privateid.json"})
V05_ENTRY_FILE = "entry.json"
V05_SUBMISSION_FILE = "submission.json"
CODE_FOLDERS = {STANDARD: "benchmarks", V05: "code"}
# Depth below the submitter folder at which v0.5 entries are looked for: <entry> or <group>/<entry>.
V05_MAX_ENTRY_DEPTH = 2

_DIGITS = re.compile(r"([0-9]+)")
HASH_CHUNK_BYTES = 1 << 20


def natural_key(text: str) -> tuple:
    """Sort key putting result_2 before result_10; the text itself breaks ties ("01" vs "1")."""
    chunks = _DIGITS.split(text)
    chunks[1::2] = map(int, chunks[1::2])  # the split puts the runs of digits at the odd places
    return (tuple(chunks), text)


def natural_sorted(paths) -> list[str]:
    return sorted(paths, key=natural_key)


def is_result_file_name(name: str) -> bool:
    """The official glob `result_*.txt` (case-sensitive, as on Linux)."""
    return fnmatch.fnmatchcase(name, RESULT_GLOB)


@dataclass
class BenchmarkDir:
    """One results/<system>/<benchmark>/ folder of a package and the files in it."""

    system_id: str
    benchmark: str  # the benchmark the folder holds (folder name, or its official alias target)
    folder: str  # path of the folder, relative to the package root
    result_files: list[str]  # result_*.txt directly inside the folder
    other_files: list[str]  # every other file below the folder, nested ones included
    scaling: str = ""  # HPC: "strong" or "weak"; "" in training


@dataclass
class Package:
    """A submitter folder as discovered: its layout, systems, benchmark folders and files (paths relative to `root`)."""

    root: Path
    submitter: str  # the submitter folder name
    layout: str  # STANDARD | HPC | V05
    system_files: dict[str, str]  # system id -> its description (systems/<id>.json or entry.json)
    benchmark_dirs: list[BenchmarkDir]
    stray_files: list[str]  # files in places the layout does not expect
    # system id -> the folder holding its benchmark folders (results/<id>, <entry>/results/<platform>)
    result_folders: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # every regular file discovered
    folders: list[str] = field(default_factory=list)  # every folder discovered

    def size_of(self, rel: str) -> int:
        """Size in bytes of a discovered file (without following links)."""
        return os.lstat(os.path.join(self.root, rel)).st_size  # not pathlib: once per result file

    def open(self, rel: str) -> BinaryIO:
        return open_package_file(self.root, rel)

    def sha256_of(self, rel: str) -> str:
        """The SHA-256 of a file's bytes, "" when it cannot be read."""
        digest = hashlib.sha256()
        try:
            with self.open(rel) as stream:
                while chunk := stream.read(HASH_CHUNK_BYTES):
                    digest.update(chunk)
        except (OSError, ValueError):
            return ""
        return digest.hexdigest()

    def read_at_most(self, rel: str, limit: int) -> bytes:
        """The file's bytes, at most limit + 1 of them (more than `limit` says it is too large).
        The read is sized by the file, not the limit: read(limit + 1) allocates all of the limit
        first, ~25 us more for a 2 KB system description under a 1 MiB limit."""
        with self.open(rel) as stream:
            size = os.fstat(stream.fileno()).st_size
            data = stream.read(min(size, limit) + 1)
            if size < len(data) <= limit:  # it grew after fstat
                data += stream.read(limit + 1 - len(data))
        return data


def open_package_file(root: Path, rel: str) -> BinaryIO:
    """A binary stream of a file of the package at `root`. Refuses paths that leave the root or
    pass through a symlink, so nothing outside the package can be read through it."""
    parts = rel.split("/")  # an absolute path's first part is ""
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"not a relative path inside the package: {rel!r}")
    current = os.fspath(root)  # strings, not Path objects: this runs once per result file
    for part in parts[:-1]:
        current = os.path.join(current, part)
        if not stat.S_ISDIR(os.lstat(current).st_mode):
            raise NotADirectoryError(f"{rel}: {part} is not a folder (symlinks are not followed)")
    # O_NONBLOCK: opening a named pipe must not wait for a writer; it is refused just below.
    descriptor = os.open(os.path.join(current, parts[-1]), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(f"{rel}: not a regular file")
    return os.fdopen(descriptor, "rb")


@dataclass
class _Tree:
    """What a walk of a submitter folder found: its regular files and folders, and findings about
    what it did not read (links, unreadable folders, names that are not UTF-8)."""

    files: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def looks_like_submitter_folder(path: Path) -> bool:
    """A standard submitter folder has systems/ or results/; a v0.5 one has an entry (a folder
    holding results/) as a direct child. A round folder has neither: its children are the
    submitter folders. A v0.6 submitter without systems/ (Alibaba: results/<system>/entry.json)
    looks like a v0.5 entry, so a folder with a child holding systems/ is a round folder."""
    if _is_real_dir(path / "results") or _is_real_dir(path / "systems"):
        return True
    children = _child_folders(path)
    if any(_is_real_dir(child / "systems") for child in children):
        return False
    return any(_is_real_dir(child / "results") for child in children)


def is_hpc_package(root: Path) -> bool:
    """Whether a submitter folder has the HPC layout: a results/<system>/strong or /weak folder."""
    return any(
        _is_real_dir(system / scaling) for system in _child_folders(root / "results") for scaling in HPC_SCALINGS
    )


def discover_package(root: Path) -> tuple[Package, list[Finding]]:
    root = Path(root)
    if _is_real_dir(root / "results") or _is_real_dir(root / "systems"):
        layout, entries = (HPC if is_hpc_package(root) else STANDARD), []
    else:
        entries = _v05_entries(root)
        layout = V05 if entries else STANDARD
    if layout in (STANDARD, HPC):
        skipped = {CODE_FOLDERS[STANDARD]}
    else:
        skipped = {f"{entry}/{CODE_FOLDERS[V05]}" for entry in entries}
    tree = _walk(root, skipped)
    package = Package(
        root=root,
        submitter=root.name,
        layout=layout,
        system_files={},
        benchmark_dirs=[],
        stray_files=[],
        files=natural_sorted(tree.files),
        folders=natural_sorted(tree.folders),
    )
    if layout in (STANDARD, HPC):
        tree.findings.extend(_sort_standard(package, tree, hpc=layout == HPC))
    else:
        _sort_v05(package, tree, entries)
    package.benchmark_dirs.sort(key=lambda bench_dir: natural_key(bench_dir.folder))
    package.stray_files = natural_sorted(package.stray_files)
    package.system_files = dict(sorted(package.system_files.items(), key=lambda item: natural_key(item[0])))
    package.result_folders = dict(
        sorted(package.result_folders.items(), key=lambda item: natural_key(item[0]))
    )
    return package, tree.findings


# -- the layouts ----------------------------------------------------------------------------------


def _sort_standard(package: Package, tree: _Tree, hpc: bool = False) -> list[Finding]:
    """results/<system>/<benchmark>/, or for HPC results/<system>/<scaling>/<benchmark>/; returns
    the findings about HPC scaling folders that are neither strong nor weak."""
    depth = 4 if hpc else 3  # path parts of a benchmark folder
    bench_dirs: dict[str, BenchmarkDir] = {}
    findings = []
    for folder in tree.folders:
        parts = folder.split("/")
        if parts[0] != "results":
            continue
        if len(parts) == 2:
            package.result_folders[parts[1]] = folder
        elif hpc and len(parts) == 3 and parts[2] not in HPC_SCALINGS:
            findings.append(
                _finding(
                    "LAYOUT_HPC_SCALING",
                    f"{folder}/ is neither strong/ nor weak/: an HPC system folder holds "
                    "strong/<benchmark>/ (time to solution) and weak/<benchmark>/ (throughput) folders; "
                    "nothing in it is checked or scored",
                    folder,
                )
            )
        elif len(parts) == depth and (not hpc or parts[2] in HPC_SCALINGS):
            scaling = parts[2] if hpc else ""
            bench_dirs[folder] = BenchmarkDir(parts[1], parts[-1], folder, [], [], scaling=scaling)
    entry_files: dict[str, str] = {}
    for rel in tree.files:
        parts = rel.split("/")
        name = parts[-1]
        if len(parts) == 1:
            if name not in ROOT_FILES:
                package.stray_files.append(rel)
        elif (
            parts[0] == "systems" and len(parts) == 2 and name.endswith(".json") and not name.startswith(".")
        ):
            # the official checker's glob systems/*.json, which skips hidden files
            package.system_files[name[: -len(".json")]] = rel
        elif not hpc and parts[0] == "results" and len(parts) == 3 and name == V05_ENTRY_FILE:
            entry_files[parts[1]] = rel
        elif parts[0] == "results" and len(parts) == 3 and name in SYSTEM_FOLDER_FILES:
            continue
        elif parts[0] == "results" and len(parts) > depth and "/".join(parts[:depth]) in bench_dirs:
            _add_to_benchmark_dir(bench_dirs["/".join(parts[:depth])], rel, len(parts) == depth + 1)
        else:
            package.stray_files.append(rel)
    for system_id, rel in entry_files.items():
        if system_id in package.system_files:
            package.stray_files.append(rel)  # systems/<id>.json describes the system
        else:
            package.system_files[system_id] = rel
    package.benchmark_dirs.extend(_with_aliases(bench_dirs.values()))
    return findings


def _sort_v05(package: Package, tree: _Tree, entries: list[str]) -> None:
    bench_dirs: dict[str, BenchmarkDir] = {}
    platforms: dict[str, str] = {}  # <entry>/results/<platform> -> system id
    for folder in tree.folders:
        entry, rest = _split_entry(folder, entries)
        if entry is None or not rest or rest[0] != "results":
            continue
        if len(rest) == 2:
            system_id = V05_ID_SEPARATOR.join([*entry.split("/"), rest[1]])
            platforms[folder] = system_id
            package.result_folders[system_id] = folder
        elif len(rest) == 3:
            bench_dirs[folder] = BenchmarkDir("", rest[2], folder, [], [])
    for bench_dir in bench_dirs.values():
        bench_dir.system_id = platforms[bench_dir.folder.rpartition("/")[0]]
    for rel in tree.files:
        entry, rest = _split_entry(rel, entries)
        if entry is None:
            package.stray_files.append(rel)
        elif rest == [V05_SUBMISSION_FILE]:
            continue
        elif len(rest) == 3 and rest[0] == "results" and rest[2] == V05_ENTRY_FILE:
            package.system_files[platforms[rel.rpartition("/")[0]]] = rel
        elif len(rest) >= 4 and rest[0] == "results":
            folder = "/".join([entry, *rest[:3]])
            _add_to_benchmark_dir(bench_dirs[folder], rel, len(rest) == 4)
        else:
            package.stray_files.append(rel)
    package.benchmark_dirs.extend(_with_aliases(bench_dirs.values()))


def _add_to_benchmark_dir(bench_dir: BenchmarkDir, rel: str, directly_inside: bool) -> None:
    if directly_inside and is_result_file_name(rel.rpartition("/")[2]):
        bench_dir.result_files.append(rel)
    else:
        bench_dir.other_files.append(rel)


def _with_aliases(bench_dirs) -> list[BenchmarkDir]:
    """Apply the official folder-name aliases, unless the system also has a folder under the
    target name (one result per system and benchmark)."""
    bench_dirs = list(bench_dirs)
    taken = {(b.system_id, b.scaling, b.benchmark) for b in bench_dirs}
    for bench_dir in bench_dirs:
        bench_dir.result_files = natural_sorted(bench_dir.result_files)
        bench_dir.other_files = natural_sorted(bench_dir.other_files)
        target = BENCHMARK_ALIASES.get(bench_dir.benchmark)
        if target and (bench_dir.system_id, bench_dir.scaling, target) not in taken:
            bench_dir.benchmark = target
    return bench_dirs


def _v05_entries(root: Path) -> list[str]:
    """Folders holding a results/ folder, at depth 1 or 2 below the root; the search does not go
    below an entry."""
    entries: list[str] = []
    level = [("", root)]
    for _ in range(V05_MAX_ENTRY_DEPTH):
        next_level = []
        for rel, path in level:
            for child in _child_folders(path):
                child_rel = f"{rel}/{child.name}" if rel else child.name
                if _is_real_dir(child / "results"):
                    entries.append(child_rel)
                else:
                    next_level.append((child_rel, child))
        level = next_level
    return natural_sorted(entries)


def _split_entry(rel: str, entries: list[str]) -> tuple[str | None, list[str]]:
    for entry in entries:
        if rel.startswith(entry + "/"):
            return entry, rel[len(entry) + 1 :].split("/")
        if rel == entry:
            return entry, []
    return None, []


# -- walking the tree -----------------------------------------------------------------------------


def _walk(root: Path, skipped: set[str]) -> _Tree:
    """Every regular file and folder below root, never following symlinks."""
    tree = _Tree()
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        try:
            with os.scandir(root / rel_dir if rel_dir else root) as scan:
                children = list(scan)
        except OSError as exc:
            tree.findings.append(
                _finding(
                    "LAYOUT_UNREADABLE",
                    f"cannot list {rel_dir or 'the package root'}/: {exc.strerror or exc}",
                    rel_dir,
                )
            )
            continue
        for child in children:
            name = child.name
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not _is_utf8(name):
                shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                tree.findings.append(
                    _finding(
                        "LAYOUT_NAME_ENCODING",
                        f"the name {shown!r} in {rel_dir or 'the package root'}/ is not valid UTF-8; "
                        "it was not read",
                        rel_dir,
                    )
                )
                continue
            try:
                if child.is_symlink():
                    target = _link_target(child.path)
                    tree.findings.append(
                        _finding(
                            "LAYOUT_SYMLINK",
                            f"{rel} is a symbolic link{target}; links are not followed, so it is not "
                            "part of the package (expected a regular file or folder)",
                            rel,
                        )
                    )
                elif child.is_dir(follow_symlinks=False):
                    if rel not in skipped:
                        tree.folders.append(rel)
                        pending.append(rel)
                elif child.is_file(follow_symlinks=False):
                    tree.files.append(rel)
                else:
                    tree.findings.append(
                        _finding(
                            "LAYOUT_SPECIAL_FILE",
                            f"{rel} is not a regular file or folder (a device, socket or pipe); it was not read",
                            rel,
                        )
                    )
            except OSError as exc:
                tree.findings.append(
                    _finding("LAYOUT_UNREADABLE", f"cannot inspect {rel}: {exc.strerror or exc}", rel)
                )
    tree.findings.sort(key=lambda f: natural_key(f.file))
    return tree


def _finding(code: str, message: str, file: str) -> Finding:
    return Finding(
        ERROR, code, message, file=file, checker=LAYOUT_CHECKER, checker_version=checker_version(LAYOUT_CHECKER)
    )


def _link_target(path: str) -> str:
    try:
        return f" to {os.readlink(path)!r}"
    except OSError:
        return ""


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes arrive as lone surrogates (surrogateescape)
        return False
    return True


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _child_folders(path: Path) -> list[Path]:
    try:
        with os.scandir(path) as scan:
            return sorted(
                (Path(child.path) for child in scan if child.is_dir(follow_symlinks=False)),
                key=lambda child: natural_key(child.name),
            )
    except OSError:
        return []
