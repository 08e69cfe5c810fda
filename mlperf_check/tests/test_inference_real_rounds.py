"""Results of earlier rounds where our verdicts once differed from the official ones, on their
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
    "v2.1-NVIDIA-Orin_TRT_MaxQ-rnnt.tar.gz": ("v2.1", "submission-checker.py", "v2.1"),
    "v2.1-NeuralMagic-obert-mobilebert.tar.gz": ("v2.1", "submission-checker.py", "v2.1"),
    "v3.0-Alibaba-RKNN-resnet50.tar.gz": ("v3.0", "submission_checker.py", "v3.0"),
}
# The Units of the CSV row the checker writes for a power result's power figure (beside its own row).
POWER_UNITS = {"Watts", "Joules", "millijoules"}


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


def test_v21_testing_power_below_the_ranging_runs_is_a_warning_of_ours(tmp_path):
    """v2.1, NVIDIA Orin_TRT_MaxQ rnnt: the Offline testing run draws 10.50 % less power than its
    ranging run. That comparison came with v3.1's power_checker.py; v2.1's checker ran the Power
    WG's check.py only with --more-power-check, and it does not compare the runs: the round's
    checker accepts both results. Ours refused Offline and, with it, SingleStream (the model's
    required Offline missing); 42 and 13 such results of the published v2.1 round."""
    results = ours(unpacked("v2.1-NVIDIA-Orin_TRT_MaxQ-rnnt.tar.gz", tmp_path))
    recorded = OFFICIAL["v2.1-NVIDIA-Orin_TRT_MaxQ-rnnt.tar.gz"]
    offline, single = results["rnnt/Offline"], results["rnnt/SingleStream"]
    for result in (offline, single):
        assert result.verdict_json() == {"official": "VALID", "ours": "VALID", "stricter": []}
        assert "required_scenarios" not in {f.code for f in result.all_findings()}
    (below,) = [f for f in offline.all_findings() if f.code == "power_below_ranging"]
    assert below.severity == "warning"
    assert below.message == (
        "testing-run power 25.64 W is 10.50 % below the ranging run's 28.64 W (at most 5 %)"
        " (a Power WG rule from v3.1: the round's checker does not compare the runs)"
    )
    assert below.file.endswith("rnnt/Offline/performance/run_1")
    assert offline.metric_value == recorded["accepted"]["rnnt/Offline"]
    assert offline.power_value == pytest.approx(recorded["power"]["rnnt/Offline"], rel=1e-12)
    # The round's checker prints SingleStream energy in Joules per query; ours in millijoules.
    assert single.power_value == pytest.approx(recorded["power"]["rnnt/SingleStream"] * 1000, rel=1e-12)


@pytest.mark.parametrize(
    "name, result_folder",
    [
        ("v2.1-NeuralMagic-obert-mobilebert.tar.gz", "bert-99_obert-mobilebert/Offline"),
        ("v3.0-Alibaba-RKNN-resnet50.tar.gz", "resnet50/Offline"),
    ],
)
def test_an_empty_measurement_readme_is_a_warning_before_v31(tmp_path, name, result_folder):
    """The measurements' README.md is empty (0 bytes, as published). The v2.1 and v3.0 checkers ask
    only that it be there (check_measurement_dir's `if i not in files`), and v3.1's turns its
    empty-file check off for them: the round's checker accepts the result; ours refused it (24 v2.1
    and 19 v3.0 published results). From v3.1 it is an error
    (test_inference_generated_rounds.py)."""
    result = ours(unpacked(name, tmp_path))[result_folder]
    assert result.verdict_json() == {"official": "VALID", "ours": "VALID", "stricter": []}
    (readme,) = [f for f in result.all_findings() if f.code == "measurement_file"]
    assert (readme.severity, readme.message, readme.expected) == ("warning", "README.md is empty", "README.md")
    assert result.metric_value == OFFICIAL[name]["accepted"][result_folder]


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
    accepted, power = {}, {}
    for row in csv.DictReader(out.open()):
        figures = power if row.get("Units") in POWER_UNITS else accepted  # no Units column before v2.1
        figures[f"{row['Model']}/{row['Scenario']}"] = float(row["Result"])
    recorded = OFFICIAL[name]
    assert (process.returncode, accepted, power, errors) == (
        recorded["exit_status"],
        recorded["accepted"],
        recorded.get("power", {}),
        recorded["errors"],
    )


V05_ARCHIVES = {  # archive -> (the result, the finding code the v0.5 checker does not reject it on)
    "v0.5-DellEMC-R740xd8276-ssd-small.tar.gz": ("ssd-small/Offline", "missing_measurements"),
    "v0.5-Google-tpu-v3.8x1-ssd-large-server.tar.gz": ("ssd-large/server", "min_duration_setting"),
}
# The v0.5 checker's main() prints only the figures and the submission's errors: its per-result
# rejections are check_results_dir's `bad_submissions`, printed here as JSON.
V05_PER_RESULT = """
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("checker", "submission-checker.py")
checker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checker)
os.chdir(sys.argv[1])
good, bad, results = checker.check_results_dir(sys.argv[1], None)
print(json.dumps({name: [results[name], bad.get(name)] for name in results}))
"""


@pytest.mark.parametrize("name", sorted(V05_ARCHIVES))
def test_v05_settings_and_measurements_are_not_the_v05_checkers_rejections(tmp_path, name):
    """v0.5, DellEMC R740xd8276 ssd-small Offline (no measurements folder) and Google tpu-v3.8x1
    ssd-large Server (min_duration 60,000 ms below the round's minimum in all five runs). The v0.5
    checker (0d1cdbff) reads of a run only LoadGen's `Result is : VALID`, performance_sample_count
    and the seeds (logged), and checks the measurements folder once for the submission, after the
    results (check_measurement_dir: its exit status, no result rejected): it accepts both, and
    MLCommons published both. Our official verdict refused them (3 and 2 published results)."""
    result_folder, code = V05_ARCHIVES[name]
    result = ours(unpacked(name, tmp_path))[result_folder]
    assert result.verdict_json() == {"official": "VALID", "ours": "INVALID", "stricter": [code]}
    assert {f.code for f in result.all_findings() if f.severity == "error"} == {code}
    assert result.metric_value == OFFICIAL[name]["accepted"][result_folder]


@pytest.mark.parametrize("name", sorted(V05_ARCHIVES))
def test_the_v05_checker_says_what_was_recorded(tmp_path, name):
    tools = official_tree("mlcommons/inference", "0d1cdbff", "v0.5/tools/submission", tmp_path / "official")
    if tools is None:
        pytest.skip(
            "no mlcommons/inference repository under $MLPERF_OFFICIAL_REPOS: compared with official.json only"
        )
    root = unpacked(name, tmp_path / "submission")
    for accuracy in root.glob("*/*/results/*/*/*/accuracy"):
        # The archive leaves out the accuracy run's log (over 1 MB); the checker asks only for its name.
        (accuracy / "mlperf_log_accuracy.json").touch()
    process = subprocess.run(
        [sys.executable, "submission-checker.py", "--input", str(root)],
        cwd=tools,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [
        m.group(3)
        for m in map(LOG_LINE.match, process.stderr.splitlines())
        if m and (m.group(1) or m.group(2)) == "ERROR" and not m.group(3).startswith("SUMMARY")
    ]
    per_result = subprocess.run(
        [sys.executable, "-c", V05_PER_RESULT, str(root)],
        cwd=tools,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    accepted, rejected = {}, {}
    for path, (figure, problem) in json.loads(per_result.stdout.splitlines()[-1]).items():
        key = "/".join(path.split("/")[-2:])
        if problem:
            rejected[key] = problem
        else:
            accepted[key] = figure
    recorded = OFFICIAL[name]
    assert (process.returncode, accepted, rejected, errors) == (
        recorded["exit_status"],
        recorded["accepted"],
        recorded["rejected"],
        recorded["errors"],
    )
