"""Whether a path holds MLPerf Tiny results, and where its submitter folders are.

`mlperf-check` asks this of every path, so it reads folder entries and archive member names only
and imports nothing of the Tiny pipeline. A Tiny result is a
results/<system>/<benchmark>/{accuracy,performance,energy}/results.txt: one level shallower than
an inference result (results/<system>/<model>/<scenario>/performance/run_1/)."""

from __future__ import annotations

from pathlib import Path

TESTS = ("accuracy", "performance", "energy")  # a Tiny result's test folders
RESULTS_FILE = "results.txt"
IGNORED_FOLDERS = (".git", ".github", "assets", ".vscode")  # the official checker skips them at the top


def subdirs(path: Path) -> list[Path]:
    try:
        return sorted(p for p in path.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []


def submitter_roots(root: Path) -> list[tuple[str, Path]]:
    """(division folder name, submitter folder) of every submitter folder under `root`: a round
    folder (<division>/<submitter>/), a division folder, or one submitter folder ("" division
    where its parent does not name one)."""
    if (root / "results").is_dir():
        return [(root.parent.name if root.parent.name in ("closed", "open", "network") else "", root)]
    if root.name in ("closed", "open", "network"):
        return [(root.name, folder) for folder in subdirs(root) if (folder / "results").exists()]
    return [
        (division.name, folder)
        for division in subdirs(root)
        if division.name not in IGNORED_FOLDERS
        for folder in subdirs(division)
        if (folder / "results").exists()
    ]


def looks_like_tiny(path: Path) -> bool:
    """A folder with a Tiny result in one of its first submitter folders, or an archive whose
    results/ member paths have Tiny's shape before any other suite's."""
    if path.is_file():
        return _archive_holds_tiny(path)
    if not path.is_dir():
        return False
    for _, submitter in submitter_roots(path)[:3]:
        for system in subdirs(submitter / "results"):
            for benchmark in subdirs(system):
                if any((benchmark / test / RESULTS_FILE).is_file() for test in TESTS):
                    return True
    return False


def _archive_holds_tiny(path: Path) -> bool:
    from mlperf_check.safety import decided_by_result_paths

    def decide(below: list[str]) -> bool | None:
        if len(below) == 4 and below[2] in TESTS and below[3] == RESULTS_FILE:
            return True
        # Another suite's result file: stop reading (a training result_*.txt, an inference
        # scenario folder, an HPC strong/weak folder).
        if (len(below) == 3 and below[2].startswith("result_")) or (len(below) >= 4 and below[2] not in TESTS):
            return False
        return None

    return decided_by_result_paths(path, decide)
