"""Builds test archives in a temporary directory."""

from __future__ import annotations

import io
import shutil
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE_V1 = REPO / "sample_data" / "training-v1.0"
REFERENCE_DECAY = '"key": "opt_weight_decay", "value": 0.00013'
# The seeds of the sample's first two ssd runs: reuse_seed logs the first one twice.
SEED_1, SEED_2 = '"key": "seed", "value": 2015131766', '"key": "seed", "value": 1276275483'


def sample_tarball(dest_dir: Path, submitter: str = "Fujitsu", suffix: str = ".tar.gz") -> Path:
    """A real sample submitter folder (sample_data/training-v1.0/<submitter>) as an archive."""
    source = SAMPLE_V1 / submitter
    target = dest_dir / f"{submitter}{suffix}"
    if suffix == ".zip":
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(source.rglob("*")):
                archive.write(path, f"{submitter}/{path.relative_to(source)}")
        return target
    mode = {".tar": "w", ".tar.gz": "w:gz", ".tgz": "w:gz", ".tar.xz": "w:xz"}[suffix]
    with tarfile.open(target, mode) as archive:
        archive.add(source, arcname=submitter)
    return target


def fujitsu_package(tmp_path: Path, name: str, *, weight_decay: str | None = None, reuse_seed: bool = False,
                    stray_file: bool = False) -> Path:
    """The sample Fujitsu folder as <tmp_path>/<name>/<name>.tar.gz, its logged weight decay and
    second seed rewritten where asked; `stray_file` adds notes.txt at its root (a package-level
    LAYOUT_UNKNOWN_FILE warning)."""
    folder = tmp_path / name / "Fujitsu"
    shutil.copytree(SAMPLE_V1 / "Fujitsu", folder)
    if stray_file:
        (folder / "notes.txt").write_text("how we ran it\n")
    for log in folder.rglob("result_*.txt"):
        text = log.read_text()
        if weight_decay is not None:
            text = text.replace(REFERENCE_DECAY, f'"key": "opt_weight_decay", "value": {weight_decay}')
        if reuse_seed:
            text = text.replace(SEED_2, SEED_1)
        log.write_text(text)
    target = tmp_path / name / f"{name}.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder, arcname="Fujitsu")
    return target


def tarball_with_symlink(dest_dir: Path) -> Path:
    """A package whose one member is a symlink pointing out of the tree."""
    target = dest_dir / "evil.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        info = tarfile.TarInfo("Evil/systems/passwd.json")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        archive.addfile(info)
        data = b"{}"
        info = tarfile.TarInfo("Evil/systems/ok.json")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return target
