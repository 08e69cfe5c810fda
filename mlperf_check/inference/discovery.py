"""Find the results of an inference submission: `<division>/<submitter>/results/<system>/<model>/<scenario>`.

The path given may be a round folder (holding `closed/`, `open/`), a division folder or one
submitter folder. Irregular spellings found in real rounds are normalised, each with a note:
lower-case scenario folders, `Performance`, logs sitting directly in `performance/` (no
`run_1`), runs numbered from `run_0`. Compliance and audit folders are never read as results,
and files the submitter left inside `results/` (their own checker reports) are listed and ignored.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from functools import partial
from pathlib import Path

from mlperf_check.finding_sources import checker_version
from mlperf_check.inference.detect import SUMMARY, normalize_scenario, subdirs, submitter_roots
from mlperf_check.inference.endpoints import holds_endpoints_result
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import ERROR, INFO, Finding

# Findings of discovery name it as their checker (registered with no class: it runs first).
_finding = partial(Finding, checker="inference_discovery", checker_version=checker_version("inference_discovery"))

DETAIL = "mlperf_log_detail.txt"
# How a result was measured, so which files hold it: LoadGen's logs, or (v6.1 on) the MLCommons
# Endpoints client's summary, accuracy and config files (mlperf_check.inference.endpoints).
LOADGEN = "loadgen"
ENDPOINTS = "endpoints"
ACCURACY_LOG = "mlperf_log_accuracy.json"
_RUN = re.compile(r"^run_(\d+)$", re.IGNORECASE)
ROUND_FOLDER = re.compile(r"^v?(\d+\.\d+)$", re.IGNORECASE)


@dataclass
class RunFolder:
    path: Path
    rel: str  # relative to the submitter folder
    number: int


@dataclass
class ResultFolder:
    division: str  # from the folder ("" when the path is a lone submitter folder)
    submitter: str
    submitter_root: Path
    system: str
    model_folder: str
    scenario_folder: str
    scenario: str  # normalised: SingleStream, MultiStream, Server, Offline
    rel: str  # results/<system>/<model>/<scenario>
    runs: list[RunFolder] = field(default_factory=list)
    accuracy_dir: Path | None = None
    findings: list[Finding] = field(default_factory=list)
    reading: str = LOADGEN  # LOADGEN or ENDPOINTS


@dataclass
class SubmitterFolder:
    division: str
    name: str
    root: Path
    rel: str  # relative to the path that was checked ("" for the path itself)
    results: list[ResultFolder] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def find_submitters(root: Path) -> list[SubmitterFolder]:
    """Every submitter folder under `root`, which is a round, division or submitter folder."""
    return [_submitter(division, folder, rel) for division, folder, rel in submitter_roots(root)]


def round_hint(root: Path) -> str:
    """A round version named by the path (`.../v0.7/closed/X`), or ""."""
    for part in (root, *root.parents):
        match = ROUND_FOLDER.match(part.name) or re.search(r"inference_results_(v\d+\.\d+)", part.name)
        if match:
            version = match.group(1)
            return version if version.startswith("v") else f"v{version}"
    return ""


def read_system_descriptions(submitter_root: Path) -> dict[str, dict]:
    """systems/<id>.json of one submitter folder, parsed; unreadable or non-object files are left
    out (the layout checker reports a result whose system has none)."""
    out = {}
    for path in sorted((submitter_root / "systems").glob("*.json")):
        try:
            data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
        except (ValueError, OSError):
            continue
        if isinstance(data, dict):
            out[path.stem] = data
    return out


def read_model_mapping(submitter_root: Path) -> dict[str, str]:
    """model_mapping.json of a submitter (open division: model folder -> benchmark), {} when absent
    or unreadable."""
    path = submitter_root / "model_mapping.json"
    try:
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except (ValueError, OSError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _submitter(division: str, root: Path, rel: str) -> SubmitterFolder:
    submitter = SubmitterFolder(division, root.name, root, rel)
    results = root / "results"
    if not results.is_dir():
        # As the official checker does, a submitter folder with no results/ (inference v1.1's
        # closed/Mobilint holds only a README and calibration notes) has nothing to check.
        submitter.findings.append(_finding(INFO, "no_results", "no results/ folder: nothing to check", "results"))
        return submitter
    for entry in sorted(results.iterdir()):
        if not entry.is_dir():
            submitter.findings.append(
                _finding(INFO, "stray_file", "not part of any result (ignored)", f"results/{entry.name}")
            )
            continue
        for model_dir in subdirs(entry):
            for scenario_dir in subdirs(model_dir):
                submitter.results.append(_result(submitter, entry.name, model_dir.name, scenario_dir))
        for stray in sorted(p for p in entry.iterdir() if p.is_file()):
            submitter.findings.append(
                _finding(
                    INFO,
                    "stray_file",
                    "not part of any result (ignored)",
                    f"results/{entry.name}/{stray.name}",
                )
            )
    return submitter


def _result(submitter: SubmitterFolder, system: str, model: str, scenario_dir: Path) -> ResultFolder:
    rel = f"results/{system}/{model}/{scenario_dir.name}"
    scenario = normalize_scenario(scenario_dir.name)
    result = ResultFolder(
        submitter.division, submitter.name, submitter.root, system, model, scenario_dir.name, scenario, rel
    )
    if not scenario:
        result.findings.append(
            _finding(
                ERROR,
                "unknown_scenario",
                f"scenario folder '{scenario_dir.name}' is none of SingleStream, MultiStream, Server, Offline",
                rel,
            )
        )
        return result
    if scenario != scenario_dir.name:
        result.findings.append(
            _finding(
                INFO, "scenario_spelling", f"scenario folder '{scenario_dir.name}' read as {scenario}", rel
            )
        )
    children = {p.name.lower(): p for p in subdirs(scenario_dir)}
    performance = children.get("performance")
    if performance is None:
        result.findings.append(_finding(ERROR, "missing_performance", "no performance/ folder", rel))
    else:
        if performance.name != "performance":
            result.findings.append(
                _finding(INFO, "folder_spelling", f"'{performance.name}' read as 'performance'", rel)
            )
        if holds_endpoints_result(scenario_dir):
            result.reading = ENDPOINTS
        else:
            result.runs = _runs(performance, f"{rel}/{performance.name}", result)
    accuracy = children.get("accuracy")
    if accuracy is None:
        result.findings.append(_finding(ERROR, "missing_accuracy", "no accuracy/ folder", rel))
    else:
        result.accuracy_dir = accuracy
    return result


def _runs(performance: Path, rel: str, result: ResultFolder) -> list[RunFolder]:
    numbered = []
    for child in subdirs(performance):
        match = _RUN.match(child.name)
        if match:
            numbered.append(RunFolder(child, f"{rel}/{child.name}", int(match.group(1))))
    numbered.sort(key=lambda run: run.number)
    if (performance / SUMMARY).is_file():
        if not numbered:
            result.findings.append(
                _finding(INFO, "no_run_folder", "logs sit directly in performance/ (read as run_1)", rel)
            )
        return [RunFolder(performance, rel, 1), *numbered]
    if not numbered:
        result.findings.append(
            _finding(ERROR, "missing_run", "performance/ holds no run_<N> folder and no logs", rel)
        )
    elif numbered[0].number != 1:
        result.findings.append(
            _finding(
                INFO,
                "run_numbering",
                f"runs start at run_{numbered[0].number} (the first is read as run_1)",
                rel,
            )
        )
    return numbered
