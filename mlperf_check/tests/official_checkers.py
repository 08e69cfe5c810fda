"""The official MLCommons checkers, for the tests that run one beside ours: found as bare git
repositories under $MLPERF_OFFICIAL_REPOS (default /work/.mirror), `<owner>+<name>/repo`, and
run from a pinned commit's tools/submission/ extracted into a temporary folder (never copied into
this project). Where the repository is absent (CI), official_tools() says so and the tests skip
that part, still comparing ours with the official outputs recorded in their data files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPOS = Path(os.environ.get("MLPERF_OFFICIAL_REPOS", "/work/.mirror"))
# A line of the checkers' logging: "[2025-08-13 10:00:00,000 submission_checker.py:123 ERROR] text",
# or "ERROR:main:text" where logging was configured by the checker module itself.
LOG_LINE = re.compile(r"^(?:\[[^\]]* (DEBUG|INFO|WARNING|ERROR)\] |(DEBUG|INFO|WARNING|ERROR):[\w.]+:)(.*)$")


def repository(owner_and_name: str) -> Path:
    return REPOS / owner_and_name.replace("/", "+") / "repo"


def official_tools(owner_and_name: str, commit: str, into: Path) -> Path | None:
    """tools/submission/ of `commit` extracted under `into`; None where the repository is absent."""
    git_dir = repository(owner_and_name)
    if not git_dir.is_dir():
        return None
    archive = subprocess.run(
        ["git", "--git-dir", str(git_dir), "archive", commit, "tools/submission"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "tools" / "submission"


def official_tree(owner_and_name: str, commit: str, folder: str, into: Path) -> Path | None:
    """`folder` of `commit` written under `into` file by file (git archive refuses a snapshot that
    lacks a blob elsewhere in the commit); None where the repository is absent."""
    git_dir = repository(owner_and_name)
    if not git_dir.is_dir():
        return None
    git = ["git", "--git-dir", str(git_dir)]
    listing = subprocess.run([*git, "ls-tree", "-r", commit, folder], check=True, capture_output=True, text=True)
    for line in listing.stdout.splitlines():
        kind, name = line.split(" ", 2)[1], line.split("\t", 1)[1]
        if kind != "blob":
            continue  # a submodule (power-dev) has no files here
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(subprocess.run([*git, "show", f"{commit}:{name}"], check=True, capture_output=True).stdout)
    return into / folder


def run_checker(tools: Path, arguments: list[str], timeout: int = 300) -> tuple[int, list[tuple[str, str]]]:
    """Run submission_checker.py with `arguments`: its exit status and its log records (level,
    text), a record's continuation lines joined to it with newlines."""
    process = subprocess.run(
        [sys.executable, "submission_checker.py", *arguments], cwd=tools, capture_output=True, text=True,
        timeout=timeout, env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    records: list[tuple[str, str]] = []
    for line in (process.stderr + process.stdout).splitlines():
        match = LOG_LINE.match(line)
        if match:
            records.append((match.group(1) or match.group(2), match.group(3)))
        elif records:
            records[-1] = (records[-1][0], records[-1][1] + "\n" + line)
        elif line.strip():
            records.append(("OUTPUT", line))
    return process.returncode, records
