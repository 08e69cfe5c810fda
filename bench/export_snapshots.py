"""Write out the files of fetched results repositories (git snapshots without a work tree, as the
tool library's `fetch` leaves them under /work/.mirror/<owner>+<name>/repo) as plain folders that
`manage.py import_record` reads: one folder per repository, named as MLCommons names it
(training_results_v2.1, inference_results_v1.0, hpc_results_v3.0).

    .venv/bin/python bench/export_snapshots.py /work/.mirror/mlcommons+*_results_v* --into /work/record

A snapshot lacks its largest files (4 MiB and more): their blobs are missing from the git store, so
they are left out and counted, as is a symbolic link pointing outside the checkout (links inside it
are kept: submitters link model folders to shared code). A folder already written is left as it is (`--fresh` writes it again).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path


def git_dir(snapshot: Path) -> Path:
    for candidate in (snapshot / "repo" / ".git", snapshot / "repo", snapshot):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise SystemExit(f"{snapshot}: no git directory in it")


def export(snapshot: Path, into: Path) -> tuple[int, int, int]:
    """Files written, files missing from the snapshot, bytes written."""
    git = ["git", f"--git-dir={git_dir(snapshot)}"]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", "HEAD"], check=True, capture_output=True).stdout
    blobs = []  # (object name, path, whether a symbolic link) of files; submodules are not results
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, name = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755", b"120000"):
            blobs.append((name.decode(), path.decode("utf-8", "surrogateescape"), mode == b"120000"))
    reader = subprocess.Popen([*git, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    written = missing = size = 0
    for name, path, link in blobs:
        reader.stdin.write(name.encode() + b"\n")
        reader.stdin.flush()
        header = reader.stdout.readline().split()
        if header[1] == b"missing":
            missing += 1
            continue
        length = int(header[2])
        content = reader.stdout.read(length)
        reader.stdout.read(1)  # the newline after each object
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if link:
            # A submitter's link to a shared folder (open/GATEOverflow/code/<model> -> efficientnets):
            # kept where it points inside the checkout, as a clone has it.
            pointed = os.path.normpath(target.parent / os.fsdecode(content))
            if os.path.commonpath([pointed, str(into)]) != str(into):
                missing += 1
                continue
            target.symlink_to(os.fsdecode(content))
        else:
            target.write_bytes(content)
        written, size = written + 1, size + length
    reader.stdin.close()
    reader.wait()
    return written, missing, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("snapshots", nargs="+", type=Path)
    parser.add_argument("--into", type=Path, required=True)
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args()
    for snapshot in args.snapshots:
        name = snapshot.name.split("+", 1)[-1]
        target = args.into / name
        if target.exists() and not args.fresh:
            print(f"{name}: already written", flush=True)
            continue
        shutil.rmtree(target, ignore_errors=True)
        partial = args.into / f".{name}.part"
        shutil.rmtree(partial, ignore_errors=True)
        written, missing, size = export(snapshot, partial)
        partial.rename(target)
        print(f"{name}: {written} files, {size / 1e6:.0f} MB; {missing} missing from the snapshot", flush=True)


if __name__ == "__main__":
    main()
