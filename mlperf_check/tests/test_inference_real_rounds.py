"""Two results of earlier rounds where our verdicts once differed from the official ones, on their
real files (data/inference/real_rounds/README.md), with what the round's checker said of them
(official.json; run again where the mlcommons/inference mirror is here)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from mlperf_check.inference.pipeline import check_inference_package
from mlperf_check.tests.official_checkers import LOG_LINE, official_tree

DATA = Path(__file__).parent / "data" / "inference" / "real_rounds"
OFFICIAL = json.loads((DATA / "official.json").read_text())
CHECKERS = {  # archive -> (commit, the checker's file, --version)
    "v1.0-Edgecortix.tar.gz": ("v1.0.1", "submission-checker.py", "v1.0"),
    "v5.1-Lenovo-SR780a-llama3.1-405b.tar.gz": ("e20506b2", "submission_checker.py", "v5.1"),
}


def unpacked(name: str, into: Path) -> Path:
    with tarfile.open(DATA / name) as archive:
        archive.extractall(into, filter="data")
    return into


def ours(root: Path) -> dict:
    report = check_inference_package(root)
    return {f"{r.model_folder}/{r.scenario_folder}": r for r in report.results}


def test_a_model_without_its_required_scenario_is_rejected_with_its_results(tmp_path):
    """v5.1, Lenovo SR780a llama3.1-405b: Interactive only. The official checker rejects the model
    ("does not have all required scenarios, missing {'Offline'}"): so does each of our verdicts,
    on the result, where ours used to accept it."""
    results = ours(unpacked("v5.1-Lenovo-SR780a-llama3.1-405b.tar.gz", tmp_path))
    interactive = results["llama3.1-405b/Interactive"]
    errors = [f for f in interactive.all_findings() if f.severity == "error"]
    assert [f.code for f in errors] == ["required_scenarios"]
    assert "no accepted result for Offline" in errors[0].message
    assert interactive.verdict_json() == {"official": "INVALID", "ours": "INVALID", "stricter": []}
    recorded = OFFICIAL["v5.1-Lenovo-SR780a-llama3.1-405b.tar.gz"]
    assert any(
        "does not have all required scenarios, missing {'Offline'}" in line for line in recorded["errors"]
    )
    assert interactive.metric_value == recorded["accepted"]["llama3.1-405b/Interactive"]


def test_an_offline_result_inferred_from_a_single_sample_query_is_refused_by_our_stricter_verdict(tmp_path):
    """v1.0, Edgecortix resnet50 Offline: a SingleStream run (samples_per_query : 1), LoadGen VALID,
    accepted by the round's checker; the round's rules ask 24,576 samples of an Offline query."""
    results = ours(unpacked("v1.0-Edgecortix.tar.gz", tmp_path))
    offline = results["resnet50/Offline"]
    assert offline.verdict_json() == {
        "official": "VALID",
        "ours": "INVALID",
        "stricter": ["offline_samples_inferred"],
    }
    (finding,) = [f for f in offline.all_findings() if f.code == "offline_samples_inferred"]
    assert finding.expected == ">= 24576" and finding.actual == "1"
    assert finding.file.endswith("resnet50/Offline/performance/run_1/mlperf_log_summary.txt")
    recorded = OFFICIAL["v1.0-Edgecortix.tar.gz"]
    assert offline.metric_value == recorded["accepted"]["resnet50/Offline"]
    assert results["resnet50/SingleStream"].verdict_json()["ours"] == "VALID"


@pytest.mark.parametrize("name", sorted(CHECKERS))
def test_the_official_checker_says_what_was_recorded(tmp_path, name):
    commit, script, version = CHECKERS[name]
    tools = official_tree("mlcommons/inference", commit, "tools/submission", tmp_path / "official")
    if tools is None:
        pytest.skip(
            "no mlcommons/inference repository under $MLPERF_OFFICIAL_REPOS: compared with official.json only"
        )
    root = unpacked(name, tmp_path / "submission")
    out = tmp_path / "summary.csv"
    process = subprocess.run(
        [sys.executable, script, "--input", str(root), "--version", version, "--csv", str(out)],
        cwd=tools,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [
        m.group(3).replace(f"{root}/", "")
        for m in map(LOG_LINE.match, (process.stderr + process.stdout).splitlines())
        if m and (m.group(1) or m.group(2)) == "ERROR" and not m.group(3).startswith("SUMMARY")
    ]
    accepted = {
        f"{row['Model']}/{row['Scenario']}": float(row["Result"]) for row in csv.DictReader(out.open())
    }
    recorded = OFFICIAL[name]
    assert (process.returncode, accepted, errors) == (
        recorded["exit_status"],
        recorded["accepted"],
        recorded["errors"],
    )
