"""Whether a path holds inference results, and where its submitter folders are.

`mlperf-check` asks this of every path before anything else, so it imports nothing of the
inference pipeline (its parsers and dataclasses cost a training check ~5 ms of start-up):
folder names and directory entries only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

DIVISIONS = ("closed", "open", "network")  # network: v2.1+ (a round without it says so)
SUMMARY = "mlperf_log_summary.txt"
# The MLCommons Endpoints client's result (v6.1 on), where a scenario has no LoadGen logs.
ENDPOINTS_SUMMARY = "performance/result_summary.json"
SCENARIO_NAMES = {
    "singlestream": "SingleStream",
    "multistream": "MultiStream",
    "server": "Server",
    "offline": "Offline",
    "interactive": "Interactive",  # v5.0+: an LLM Server run under the Interactive latency limits
}


def normalize_scenario(text: str) -> str:
    """`Single Stream`, `SingleStream`, `singlestream` -> `SingleStream`; "" when unknown."""
    return SCENARIO_NAMES.get(re.sub(r"[\s_-]", "", text).lower(), "")


def submitter_roots(root: Path) -> list[tuple[str, Path, str]]:
    """(division, folder, path relative to `root`) of every submitter folder under `root`, which
    is a round, division or submitter folder; division is "" for a lone submitter folder."""
    if (root / "results").is_dir():
        division = root.parent.name.lower() if root.parent.name.lower() in DIVISIONS else ""
        return [(division, root, "")]
    found = []
    for division_dir in subdirs(root):
        if division_dir.name.lower() in DIVISIONS:
            for submitter_dir in subdirs(division_dir):
                found.append(
                    (division_dir.name.lower(), submitter_dir, f"{division_dir.name}/{submitter_dir.name}")
                )
    if not found and root.name.lower() in DIVISIONS:
        found = [(root.name.lower(), folder, folder.name) for folder in subdirs(root)]
    return found


def looks_like_inference(root: Path) -> bool:
    """True when `root` (a folder or an archive of one) holds inference results: LoadGen summaries
    (or Endpoints-client results) under results/<system>/<model>/<scenario>/."""
    if root.is_file():
        return _archive_holds_inference(root)
    for _, submitter_root, _ in submitter_roots(root)[:3]:
        # Folders only: a training package's results/<system>/<benchmark>/ holds its logs, which
        # a glob of every path three levels down would list and test one by one.
        for system_dir in subdirs(submitter_root / "results"):
            for model_dir in subdirs(system_dir):
                for result_dir in subdirs(model_dir):
                    if normalize_scenario(result_dir.name) and (
                        any(result_dir.rglob(SUMMARY)) or (result_dir / ENDPOINTS_SUMMARY).is_file()
                    ):
                        return True
    return False


def _archive_holds_inference(path: Path) -> bool:
    """Reads member names until the first result file says which suite: an inference
    results/<system>/<model>/<scenario>/... path, or a training results/<system>/<benchmark>/result_*.txt."""
    from mlperf_check.safety import decided_by_result_paths

    def decide(below: list[str]) -> bool | None:
        if len(below) >= 4 and normalize_scenario(below[2]):
            return True
        if len(below) == 3 and below[2].startswith("result_"):
            return False
        return None

    return decided_by_result_paths(path, decide)


def subdirs(path: Path) -> list[Path]:
    """The folders in `path` (not symlinks to one), by name; the directory entries say which
    are folders, so no file is stat()ed."""
    try:
        with os.scandir(path) as entries:
            return sorted(path / entry.name for entry in entries if entry.is_dir(follow_symlinks=False))
    except OSError:
        return []
