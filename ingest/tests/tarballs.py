"""Builds test archives in a temporary directory."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE_V1 = REPO / "sample_data" / "training-v1.0"


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
