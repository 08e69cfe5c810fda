"""Our inference verdicts against the official submission checker's, for every result of the corpus.

`../shared/corpus/inference/reference/official_verdicts_<round>.csv` holds the official checker's
verdict (VALID, INVALID, CRASH) and figure per result. Every row must agree, or be listed in
EXPECTED_DIFFERENCES with our verdict and the finding code that explains it (docs/differences.md,
"Inference", says why). The scenario figure of every VALID row is reproduced.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "inference"
ROUNDS = ("v0.5", "v0.7")

# (round, division, submitter, system, model folder, scenario folder) -> (our verdict, finding code).
EXPECTED_DIFFERENCES = {
    # The corpus copy leaves out files over 4 MB / 1 MB that the published round holds.
    ("v0.5", "closed", "Alibaba", "alibaba_cloud_t4", "gnmt", "Offline"): ("INVALID", "missing_run_file"),
    ("v0.5", "closed", "Habana", "Goya_1", "resnet", "SingleStream"): ("INVALID", "missing_run_file"),
    # The official v0.5 checker crashed (results `resnet50`, measurements `resnet`); we read the
    # measurements through the alias and judge the result: no mlperf_log_accuracy.json in its run.
    ("v0.5", "open", "Inspur", "NF5888M5-1GPU", "resnet50", "Offline"): ("INVALID", "missing_run_file"),
}


@pytest.fixture(scope="module")
def reports():
    if not CORPUS.is_dir():
        pytest.skip(f"the inference corpus is not at {CORPUS}")
    return {name: check_inference_package(CORPUS / name) for name in ROUNDS}


def official_rows(round_name: str) -> list[dict]:
    with open(CORPUS / "reference" / f"official_verdicts_{round_name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("round_name", ROUNDS)
def test_every_official_verdict_is_reproduced(reports, round_name):
    report = reports[round_name]
    assert report.round == round_name
    ours = {(r.division, r.submitter, r.system, r.model_folder, r.scenario_folder): r for r in report.results}
    rows = official_rows(round_name)
    assert len(ours) == len(rows)
    disagreements = []
    for row in rows:
        key = (row["division"], row["submitter"], row["system"], row["model"], row["scenario"])
        result = ours[key]
        verdict = "VALID" if result.valid else "INVALID"
        expected = EXPECTED_DIFFERENCES.get((round_name, *key))
        if expected is not None:
            assert verdict == expected[0], key
            assert expected[1] in {f.code for f in result.all_findings() if f.severity == "error"}, key
            continue
        if verdict != row["verdict"]:
            errors = [f"{f.code}: {f.message}" for f in result.all_findings() if f.severity == "error"]
            disagreements.append((key, row["verdict"], verdict, errors))
    assert disagreements == []


@pytest.mark.parametrize("round_name", ROUNDS)
def test_every_official_figure_is_reproduced(reports, round_name):
    ours = {
        (r.division, r.submitter, r.system, r.model_folder, r.scenario_folder): r
        for r in reports[round_name].results
    }
    for row in official_rows(round_name):
        if row["verdict"] != "VALID" or not row["result"]:
            continue
        result = ours[(row["division"], row["submitter"], row["system"], row["model"], row["scenario"])]
        official = float(row["result"])
        if round_name == "v0.5" and result.scenario == "SingleStream":
            official /= 1e6  # the v0.5 checker printed nanoseconds; we report milliseconds
        assert result.metric_value == pytest.approx(official, rel=1e-9), row


def test_units_and_directions(reports):
    units = {
        (r.scenario, r.inferred_from, r.metric_unit, r.metric_direction) for r in reports["v0.7"].results
    }
    assert units == {
        ("SingleStream", "", "ms", "lower"),
        ("MultiStream", "", "streams", "higher"),
        ("Server", "", "queries/s", "higher"),
        ("Offline", "", "samples/s", "higher"),
        ("Offline", "SingleStream", "samples/s", "higher"),
    }


def test_compliance_tests_are_not_results(reports):
    for report in reports.values():
        assert all("/compliance/" not in r.folder and "/audit/" not in r.folder for r in report.results)
