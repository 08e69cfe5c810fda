"""Inference checks on real LoadGen logs (small samples of the corpus in tests/data/inference),
each mutated to break one rule: the finding names the rule, the file and, where it has one, the line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package
from mlperf_check.report import ERROR, WARNING

DATA = Path(__file__).parent / "data" / "inference"
SS = "closed/Mobilint/results/mobilint_edge/resnet/SingleStream"
OFFLINE = "closed/Mobilint/results/mobilint_edge/resnet/Offline"
SERVER = "closed/Altos/results/T4x4_TRT/resnet50/Server"
MS = "closed/Habana/results/Goya_1/resnet/MultiStream"


@pytest.fixture
def v07(tmp_path) -> Path:
    return Path(shutil.copytree(DATA / "v0.7", tmp_path / "v0.7"))


@pytest.fixture
def v05(tmp_path) -> Path:
    return Path(shutil.copytree(DATA / "v0.5", tmp_path / "v0.5"))


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_bytes().decode("utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_bytes(text.replace(old, new, count).encode("utf-8"))


def sub(path: Path, pattern: str, new: str) -> None:
    text = path.read_bytes().decode("utf-8")
    changed, count = re.subn(pattern, new, text, count=1, flags=re.MULTILINE)
    assert count == 1, pattern
    path.write_bytes(changed.encode("utf-8"))


def result(report, folder: str):
    return next(r for r in report.results if r.folder == folder)


def errors(report, folder: str) -> dict[str, object]:
    return {f.code: f for f in result(report, folder).all_findings() if f.severity == ERROR}


def test_unmodified_samples_are_valid_with_metric_unit_and_direction(v07, v05):
    report = check_inference_package(v07)
    assert report.round == "v0.7" and not report.has_errors
    ss, offline, server = result(report, SS), result(report, OFFLINE), result(report, SERVER)
    assert (ss.metric_value, ss.metric_unit, ss.metric_direction) == (pytest.approx(37.458146), "ms", "lower")
    assert (offline.metric_value, offline.metric_unit, offline.metric_direction) == (
        106.847,
        "samples/s",
        "higher",
    )
    assert (server.metric_value, server.metric_unit) == (20001.64, "queries/s")
    assert server.latency_bound_ms == 15 and server.latencies_ms["99.00"] == pytest.approx(7.959715)
    assert server.accuracy_value == 75.92 and server.accuracy_target == pytest.approx(76.46 * 0.99)
    ms = result(check_inference_package(v05), MS)
    assert (ms.metric_value, ms.metric_unit, ms.metric_direction, ms.valid) == (
        700.0,
        "streams",
        "higher",
        True,
    )
    assert json.loads(json.dumps(report.to_json()))["results"][0]["metric"]["unit"] == "queries/s"


def test_loadgen_invalid_verdict(v07):
    summary = v07 / SS / "performance/run_1/mlperf_log_summary.txt"
    edit(summary, "Result is : VALID", "Result is : INVALID")
    edit(summary, "Min queries satisfied : Yes", "Min queries satisfied : NO")
    found = errors(check_inference_package(v07), SS)
    assert found["loadgen_invalid"].line == 8 and found["loadgen_invalid"].file.endswith(
        "mlperf_log_summary.txt"
    )
    assert "min_queries_not_met" in found


def test_wrong_seed_and_small_sample_count(v07):
    summary = v07 / SS / "performance/run_1/mlperf_log_summary.txt"
    edit(summary, "qsl_rng_seed : 12786827339337101903", "qsl_rng_seed : 1")
    sub(summary, r"^performance_sample_count : \d+", "performance_sample_count : 10")
    found = errors(check_inference_package(v07, round_version="v0.7"), SS)
    assert found["wrong_seed"].expected == "12786827339337101903" and found["wrong_seed"].actual == "1"
    assert found["performance_sample_count"].expected == ">= 1024"


def test_too_few_queries_setting(v07):
    summary = v07 / SS / "performance/run_1/mlperf_log_summary.txt"
    sub(summary, r"^min_query_count : \d+", "min_query_count : 100")
    assert "min_query_count_setting" in errors(check_inference_package(v07), SS)


def test_offline_needs_enough_samples(v07):
    summary = v07 / OFFLINE / "performance/run_1/mlperf_log_summary.txt"
    sub(summary, r"^samples_per_query : \d+", "samples_per_query : 1000")
    found = errors(check_inference_package(v07), OFFLINE)
    assert found["too_few_samples"].expected == ">= 24576"


def test_server_latency_bound_missed_and_loose_target(v07):
    summary = v07 / SERVER / "performance/run_1/mlperf_log_summary.txt"
    sub(summary, r"^99.00 percentile latency \(ns\)\s*: \d+", "99.00 percentile latency (ns)   : 15000001")
    sub(summary, r"^target_latency \(ns\): \d+", "target_latency (ns): 20000000")
    found = errors(check_inference_package(v07), SERVER)
    assert "15.000 ms > 15 ms" in found["latency_bound_missed"].message
    assert found["latency_target_too_loose"].actual == "20000000"


def test_multistream_skipped_intervals(v05):
    summary = v05 / MS / "performance/run_1/mlperf_log_summary.txt"
    edit(summary, "99.00 percentile latency (ns)   : 48988971", "99.00 percentile latency (ns)   : 50000001")
    found = errors(check_inference_package(v05), MS)
    assert "skipped an interval" in found["latency_bound_missed"].message


def test_detail_errors_only_from_loadgen_events(v07):
    detail = v07 / SS / "performance/run_1/mlperf_log_detail.txt"
    text = detail.read_bytes()
    # A git-log line that merely contains the word is not an error; a LoadGen ERROR event is.
    detail.write_bytes(
        text
        + b"check for ERROR in detailed logs\n"
        + b'"pid": 1, "tid": 1, "ts": 5ns : ERROR : SUT crashed\n'
    )
    found = errors(check_inference_package(v07), SS)
    assert found["detail_error"].message == "LoadGen error: SUT crashed"
    assert found["detail_error"].line == text.count(b"\n") + 2


def test_run_too_short_recomputed_from_detail(v07):
    detail = v07 / SS / "performance/run_1/mlperf_log_detail.txt"
    lines = detail.read_bytes().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if b"Starting performance mode" in line)
    detail.write_bytes(b"".join(lines[: start + 1]))
    found = errors(check_inference_package(v07), SS)
    assert found["run_too_short"].expected == ">= 60000 ms"


def test_accuracy_below_target_closed_only(v07):
    accuracy = v07 / SS / "accuracy/accuracy.txt"
    sub(accuracy, r"^accuracy=[\d.]+%", "accuracy=70.000%")
    found = errors(check_inference_package(v07), SS)
    assert found["accuracy_below_target"].actual == "70" and found["accuracy_below_target"].line


def test_accuracy_figure_missing(v07):
    (v07 / SS / "accuracy/accuracy.txt").write_bytes(b"Traceback (most recent call last):\n")
    assert "accuracy_not_found" in errors(check_inference_package(v07), SS)


def test_closed_may_not_retrain(v07):
    impl = next((v07 / "closed/Mobilint/measurements/mobilint_edge/resnet/SingleStream").glob("*.json"))
    data = json.loads(impl.read_bytes())
    data["retraining"] = "Yes"
    impl.write_text(json.dumps(data))
    assert errors(check_inference_package(v07), SS)["closed_retrained"].actual == "Yes"


def test_missing_system_description(v07):
    (v07 / "closed/Mobilint/systems/mobilint_edge.json").unlink()
    assert "no_system_description" in errors(check_inference_package(v07), SS)


def test_unknown_closed_model(v07):
    results = v07 / "closed/Mobilint/results/mobilint_edge"
    (results / "resnet").rename(results / "vgg16")
    report = check_inference_package(v07)
    assert "unknown_model" in errors(report, SS.replace("resnet", "vgg16"))


def test_compliance_blocks_from_v10(v07):
    report = check_inference_package(v07, round_version="v1.0")
    codes = errors(report, SERVER)
    assert "compliance_missing" in codes and "wrong_seed" in codes and "run_too_short" in codes
    server = result(report, SERVER)
    assert {f.actual for f in server.all_findings() if f.code == "detail_format"} == {"text"}
    report07 = check_inference_package(v07)
    assert {
        f.severity for f in result(report07, SERVER).all_findings() if f.code == "compliance_missing"
    } == {WARNING}


def test_normalisations(v07):
    """Lower-case scenario, `Performance`, logs directly in performance/, model alias: read, with notes."""
    results = v07 / "closed/Mobilint/results/mobilint_edge"
    (results / "resnet/SingleStream").rename(results / "resnet/singlestream")
    perf = results / "resnet/singlestream/performance"
    for name in ("mlperf_log_summary.txt", "mlperf_log_detail.txt"):
        (perf / "run_1" / name).rename(perf / name)
    (perf / "run_1").rmdir()
    perf.rename(perf.parent / "Performance")
    (results / "resnet").rename(results / "resnet50")
    measurements = v07 / "closed/Mobilint/measurements/mobilint_edge"
    (measurements / "resnet/SingleStream").rename(measurements / "resnet/singlestream")
    (measurements / "resnet").rename(measurements / "resnet50")
    report = check_inference_package(v07)
    ss = result(report, "closed/Mobilint/results/mobilint_edge/resnet50/singlestream")
    assert ss.valid and ss.scenario == "SingleStream" and ss.model == "resnet"
    assert {"scenario_spelling", "folder_spelling", "no_run_folder", "model_alias"} <= {
        f.code for f in ss.all_findings()
    }


def test_nul_bytes_and_crlf(v07):
    summary = v07 / SS / "performance/run_1/mlperf_log_summary.txt"
    text = summary.read_bytes().replace(b"SUT name : ", b"SUT name : \0SUT\0").replace(b"\n", b"\r\n")
    summary.write_bytes(text)
    ss = result(check_inference_package(v07), SS)
    assert ss.valid and ss.runs[0].summary.sut_name.startswith("SUT")


@pytest.mark.parametrize(
    "content",
    [b"", b"\xff\xfe\x00garbage", b"Result is", b"=" * 5000, b":::MLLOG {not json\n" * 3, b"\0" * 100],
)
def test_garbage_logs_give_findings_not_crashes(v07, content):
    run = v07 / SS / "performance/run_1"
    (run / "mlperf_log_summary.txt").write_bytes(content)
    (run / "mlperf_log_detail.txt").write_bytes(content)
    ss = result(check_inference_package(v07), SS)
    assert not ss.valid
    codes = {f.code for f in ss.all_findings()}
    assert codes & {"summary_unreadable", "detail_unreadable", "detail_bad_json"}


def test_compliance_summaries_are_not_results(v07):
    compliance = v07 / "closed/Mobilint/compliance/mobilint_edge/resnet/SingleStream/TEST01/performance/run_1"
    assert (compliance / "mlperf_log_summary.txt").is_file()
    report = check_inference_package(v07)
    assert len(report.results) == 3


def test_round_from_the_seeds_and_a_bad_seed(tmp_path):
    root = Path(shutil.copytree(DATA / "v0.7" / "closed" / "Mobilint", tmp_path / "x" / "Mobilint"))
    report = check_inference_package(root)
    assert report.round == "v0.7" and any(f.code == "round_rules" for f in report.findings)
    for summary in root.rglob("results/**/performance/run_1/mlperf_log_summary.txt"):
        edit(summary, "qsl_rng_seed : 12786827339337101903", "qsl_rng_seed : 12.5e3")
    report = check_inference_package(root)
    # Seeds of no known round: no other round's rules are borrowed; every result is left unjudged.
    assert report.round == "" and report.findings[0].code == "round_unknown"
    assert "qsl_rng_seed 12.5e3" in report.findings[0].message
    assert report.results and all(not r.valid for r in report.results)
    assert {f.code for r in report.results for f in r.findings} == {"round_unknown"}


def test_a_round_without_rules_is_an_error_not_a_guess(tmp_path):
    from mlperf_check.inference.rules import UnknownRound, rules_for

    root = Path(shutil.copytree(DATA / "v0.7" / "closed" / "Mobilint", tmp_path / "x" / "Mobilint"))
    report = check_inference_package(root, round_version="v9.9")
    assert report.findings[0].severity == "error" and "no rules for inference round v9.9" in report.findings[0].message
    with pytest.raises(UnknownRound):
        rules_for("v7.0")
    for version in ("v2.1", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1", "v6.0", "v6.1"):
        rules, note = rules_for(version)
        assert rules.version == version and rules.from_tables and note == ""


def test_not_an_inference_folder(tmp_path):
    from mlperf_check.inference import InferencePackageError, looks_like_inference

    (tmp_path / "empty").mkdir()
    with pytest.raises(InferencePackageError):
        check_inference_package(tmp_path / "empty")
    assert not looks_like_inference(tmp_path / "empty")
    assert looks_like_inference(DATA / "v0.7")


def test_max_settings_that_cut_the_run_short(v07):
    summary = v07 / SS / "performance/run_1/mlperf_log_summary.txt"
    sub(summary, r"^max_query_count : \d+", "max_query_count : 100")
    sub(summary, r"^max_duration \(ms\): \d+", "max_duration (ms): 1000")
    found = errors(check_inference_package(v07), SS)
    assert found["max_query_count_setting"].expected == "0 or >= 1024"
    assert found["max_duration_setting"].actual == "1000"


def test_a_submitter_folder_without_results_is_skipped_as_the_official_checker_skips_it(v07):
    # inference_results_v1.1's closed/Mobilint holds only README.md and calibration.md; the whole
    # round's check once stopped there with FileNotFoundError.
    from mlperf_check.inference.discovery import find_submitters

    empty = v07 / "closed" / "Empty"
    empty.mkdir()
    (empty / "README.md").write_text("results withdrawn\n")
    submitters = {folder.name: folder for folder in find_submitters(v07)}
    assert submitters["Empty"].results == []
    assert [f.code for f in submitters["Empty"].findings] == ["no_results"]
    assert submitters["Mobilint"].results  # the others are read as before
    check_inference_package(v07)  # the round is checked whole
