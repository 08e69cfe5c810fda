"""Two verdicts per inference result: the round's official one (its checker's leniencies as round
data) and ours (stricter, every extra rule named by its finding code), on real v0.7 and v2.0
results (data/inference/verdicts/README.md says where they come from)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package
from mlperf_check.inference.cli import format_report
from mlperf_check.inference.report import verdict_text
from mlperf_check.inference.rules import ROUNDS, SERVER

DATA = Path(__file__).parent / "data" / "inference" / "verdicts"
NETTRIX = "closed/Nettrix/results/T4x21_TRT/resnet50/Server"
KRAI = "closed/Krai/results/odroid-armnn-v21.11-neon/resnet50/multistream"
ORIN = "closed/NVIDIA/results/Orin_TRT/ssd-mobilenet/MultiStream"


def only_result(root: Path, version: str | None = None):
    (result,) = check_inference_package(root, round_version=version).results
    return result


def copy_round(tmp_path: Path, version: str) -> Path:
    return Path(shutil.copytree(DATA / version, tmp_path / version))


def test_v07_cas_failed_is_ours_only():
    result = only_result(DATA / "v0.7", "v0.7")
    assert result.official_valid is True and result.valid is False
    assert result.stricter == ["detail_cas_failed"]
    assert result.verdict_json() == {"official": "VALID", "ours": "INVALID", "stricter": ["detail_cas_failed"]}
    cas = [f for f in result.all_findings() if f.code == "detail_cas_failed"]
    assert cas and all(f.file.endswith("performance/run_5/mlperf_log_detail.txt") and f.line for f in cas)


def test_v07_server_stands_on_any_run_and_reports_the_last(tmp_path):
    root = copy_round(tmp_path, "v0.7")
    runs = root / NETTRIX / "performance"
    first = runs / "run_1" / "mlperf_log_summary.txt"
    first.write_text(
        first.read_text()
        .replace("Result is : VALID", "Result is : INVALID")
        .replace("Scheduled samples per second : 121004.12", "Scheduled samples per second : 99999.5")
    )
    result = only_result(root, "v0.7")
    assert result.metric_value == 121004.12  # run_5's figure, as the v0.7 checker reports
    assert result.official_valid is True  # runs 2-4 pass
    assert not result.valid and "loadgen_invalid" in result.stricter
    for number in range(2, 5):
        summary = runs / f"run_{number}" / "mlperf_log_summary.txt"
        summary.write_text(summary.read_text().replace("Result is : VALID", "Result is : INVALID"))
    # run_5 still passes: its CAS failed lines do not count for the v0.7 checker.
    assert only_result(root, "v0.7").official_valid is True
    last = runs / "run_5" / "mlperf_log_summary.txt"
    last.write_text(last.read_text().replace("Result is : VALID", "Result is : INVALID"))
    result = only_result(root, "v0.7")
    assert result.official_valid is False and not result.valid
    assert result.stricter == ["detail_cas_failed"]  # LoadGen's INVALID counts for both


@pytest.fixture(scope="module")
def v20():
    report = check_inference_package(DATA / "v2.0")
    return report, {r.folder: r for r in report.results}


def test_v20_round_from_its_seeds(v20):
    report, _ = v20
    assert report.round == "v2.0"


def test_v20_inferred_multistream_is_the_early_stopping_estimate_times_eight(v20):
    _, results = v20
    result = results[KRAI]
    assert result.inferred_from == "SingleStream"
    assert result.metric_value == pytest.approx(342292979 * 8 / 1e6)  # early_stopping_latency_ms
    assert result.metric_unit == "ms" and result.metric_direction == "lower"
    assert result.min_query_count is None  # early stopping: no minimum-query check
    compliance = [f for f in result.all_findings() if f.code == "compliance_inferred"]
    assert [f.severity for f in compliance] == ["info"]  # inferred: no compliance runs of its own
    assert result.official_valid and result.valid


def test_v20_ssd_mobilenet_with_failed_test01(v20):
    _, results = v20
    result = results[ORIN]
    assert result.model == "ssd-small"
    assert result.metric_value == pytest.approx(4271143 / 1e6)  # early_stopping_latency_ms, not the p99
    assert (result.official_valid, result.valid, result.stricter) == (True, False, ["compliance_failed"])
    assert verdict_text(result.official, result.valid, result.stricter) == (
        "official: VALID, ours: INVALID (compliance_failed)"
    )


def test_both_verdicts_in_the_checker_output(v20):
    report, _ = v20
    text = format_report(report)
    assert "official: VALID, ours: INVALID (compliance_failed)" in text
    data = json.loads(json.dumps(report.to_json()))
    by_folder = {r["folder"]: r["verdict"] for r in data["results"]}
    assert by_folder[ORIN] == {"official": "VALID", "ours": "INVALID", "stricter": ["compliance_failed"]}
    assert by_folder[KRAI] == {"official": "VALID", "ours": "VALID", "stricter": []}


@pytest.mark.parametrize(("folder", "key", "scale"), [
    ("singlestream", "early_stopping_latency_ss", 1e-6),
    ("offline", "result_qps_without_loadgen_overhead", 1.0),
])
def test_v20_the_same_run_as_singlestream_and_offline(tmp_path, folder, key, scale):
    root = copy_round(tmp_path, "v2.0")
    source = root / KRAI
    source.rename(source.parent / folder)
    measurements = root / "closed/Krai/measurements/odroid-armnn-v21.11-neon/resnet50/multistream"
    measurements.rename(measurements.parent / folder)
    results = {r.scenario: r for r in check_inference_package(root).results}
    scenario = {"singlestream": "SingleStream", "offline": "Offline"}[folder]
    result = results[scenario]
    expected = {"early_stopping_latency_ss": 339090225, "result_qps_without_loadgen_overhead": 2.96455}[key]
    assert result.metric_value == pytest.approx(expected * scale)
    assert result.inferred_from == ("" if scenario == "SingleStream" else "SingleStream")


def test_round_data():
    v20 = ROUNDS["v2.0"]
    assert {"ssd-small", "ssd-large"} <= set(v20.models) and "retinanet" not in v20.models
    assert v20.canonical_model("ssd-resnet34") == "ssd-large"
    assert "retinanet" in ROUNDS["v2.1"].models
    assert v20.early_stopping == ("SingleStream", "MultiStream", SERVER)
    assert not ROUNDS["v1.1"].early_stopping
    # From v2.1 the rules are the official checker's own tables: the two verdicts are one.
    assert all(not ROUNDS[v].official_leniencies for v in ROUNDS if ROUNDS[v].from_tables)
    assert "compliance_failed" in ROUNDS["v1.0"].official_leniencies
    assert "detail_cas_failed" in ROUNDS["v0.7"].official_leniencies
    assert "detail_cas_failed" not in ROUNDS["v1.0"].official_leniencies
