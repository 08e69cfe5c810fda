"""Rounds the corpus does not hold (v5.1, v6.1), with generated LoadGen logs: the Interactive
scenario, TTFT/TPOT limits per scenario, tokens per second, the v6.0+ layout (measurements and
compliance runs inside the result folder, code in src/), required scenarios per category, and
the open division.

The logs are written line by line in LoadGen's `:::MLLOG` format with the keys and values a real
LoadGen 5.x/6.x run logs (the LoadGen tests, test_inference_loadgen*.py, run the real thing).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package
from mlperf_check.inference.rules import ROUNDS

MS = 1_000_000  # ns
# Every field the v6.1 checker asks of a system description (a superset of v5.1's), with a value.
SYSTEM = {name: "test" for name in ROUNDS["v6.1"].table["system_fields"]} | {
    "division": "closed",
    "submitter": "Test",
    "status": "available",
    "system_name": "sut",
    "system_type": "datacenter",
    "number_of_nodes": 1,
    "accelerators_per_node": 8,
}
IMPLEMENTATION = {
    "input_data_types": "fp8",
    "retraining": "no",
    "starting_weights_filename": "Llama-3.1-8B-Instruct",
    "weight_data_types": "fp8",
    "weight_transformations": "quantization",
}
# Above every llama3.1-8b target of v5.1/v6.1 (gen_len within its upper limit).
ACCURACY = (
    "{'rouge1': 38.79, 'rouge2': 15.91, 'rougeL': 24.50, 'rougeLsum': 35.81, 'gen_len': 8167644, "
    "'gen_num': 13368, 'gen_tok_len': 7800000, 'tokens_per_sample': 583.5}\n"
)
TEST06 = "First token check pass: True\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n"


def mllog(events: list[tuple[str, object]]) -> str:
    lines = []
    for number, (key, value) in enumerate(events):
        record = {
            "key": key,
            "value": value,
            "time_ms": 1000.0 + number * 700_000 / max(len(events), 1),
            "namespace": "mlperf::logging",
            "event_type": "POINT_IN_TIME",
            "metadata": {
                "is_error": False,
                "is_warning": False,
                "file": "loadgen.cc",
                "line_no": 1,
                "pid": 1,
                "tid": 1,
            },
        }
        lines.append(":::MLLOG " + json.dumps(record))
    return "\n".join(lines) + "\n"


def llm_logs(
    version: str, scenario: str, *, ttft_ms: float, tpot_ms: float, valid: bool = True
) -> tuple[str, str]:
    """The summary and detail logs of an LLM run of `scenario` (Offline or Server) with these p99s."""
    rules = ROUNDS[version]
    seeds = rules.seeds
    tokens_per_second = 25_000.0
    events: list[tuple[str, object]] = [
        ("loadgen_version", "6.0.17 @ 0123456"),
        ("qsl_reported_total_count", 13368),  # llama3.1-8b's data set, all of it
        ("requested_use_token_latencies", True),
        ("effective_scenario", scenario),
        ("effective_test_mode", "PerformanceOnly"),
        ("effective_min_duration_ms", 600000),
        ("effective_min_query_count", 100),
        ("effective_samples_per_query", 13368 if scenario == "Offline" else 1),
        ("effective_target_latency_ns", 20_000_000_000 if scenario == "Server" else 0),
        ("effective_performance_sample_count", 13368),
        ("effective_qsl_rng_seed", seeds["qsl_rng_seed"]),
        ("effective_sample_index_rng_seed", seeds["sample_index_rng_seed"]),
        ("effective_schedule_rng_seed", seeds["schedule_rng_seed"]),
        ("effective_sample_concatenate_permutation", True),
        ("generic_message", "Starting performance mode"),
        ("result_validity", "VALID" if valid else "INVALID"),
        ("result_query_count", 13368 if scenario == "Offline" else 90000),
        ("result_samples_per_second", 42.5),
        ("result_tokens_per_second", tokens_per_second),
        ("result_completed_samples_per_sec", 42.0),
        ("result_completed_tokens_per_second", tokens_per_second),
        ("result_first_token_99.00_percentile_latency_ns", int(ttft_ms * MS)),
        ("result_time_per_output_token_99.00_percentile_ns", int(tpot_ms * MS)),
        ("early_stopping_met", valid),
    ]
    summary = (
        "================================================\nMLPerf Results Summary\n"
        "================================================\nSUT name : sut\n"
        f"Scenario : {scenario}\nMode     : PerformanceOnly\n"
        f"Completed tokens per second: {tokens_per_second:.2f}\nResult is : {'VALID' if valid else 'INVALID'}\n"
        f"  Performance constraints satisfied : {'Yes' if valid else 'NO'}\n  Min duration satisfied : Yes\n"
        "  Min queries satisfied : Yes\n  Early stopping satisfied: Yes\n"
        f"================================================\nTest Parameters Used\n"
        f"================================================\nqsl_rng_seed : {seeds['qsl_rng_seed']}\n"
        f"sample_index_rng_seed : {seeds['sample_index_rng_seed']}\nschedule_rng_seed : {seeds['schedule_rng_seed']}\n"
        "min_duration (ms): 600000\nperformance_sample_count : 13368\n"
    )
    return summary, mllog(events)


def write_result(
    root: Path,
    version: str,
    folder: str,
    loadgen_scenario: str,
    *,
    ttft_ms: float,
    tpot_ms: float,
    division="closed",
) -> Path:
    """One llama3.1-8b result in the round's layout (v6.0+: measurements and TEST06 inside it)."""
    layout = ROUNDS[version].table["layout"]
    submitter = root / division / "Test"
    result = submitter / "results" / "sut" / "llama3.1-8b" / folder
    summary, detail = llm_logs(version, loadgen_scenario, ttft_ms=ttft_ms, tpot_ms=tpot_ms)
    run = result / "performance" / "run_1"
    accuracy = result / "accuracy"
    for where in (run, accuracy):
        where.mkdir(parents=True)
        (where / "mlperf_log_summary.txt").write_text(summary)
        (where / "mlperf_log_detail.txt").write_text(detail)
    log = b"[\n]\n"
    (accuracy / "mlperf_log_accuracy.json").write_bytes(log)
    (accuracy / "accuracy.txt").write_text(ACCURACY + f"hash={hashlib.sha256(log).hexdigest()}\n")
    (submitter / "calibration.md").write_text("# Calibration\n")
    (submitter / "systems").mkdir(parents=True, exist_ok=True)
    (submitter / "systems" / "sut.json").write_text(json.dumps({**SYSTEM, "division": division}))
    place = {"system": "sut", "benchmark": "llama3.1-8b", "scenario": folder}
    measurements = submitter / layout["measurements"].format(**place)
    measurements.mkdir(parents=True, exist_ok=True)
    implementation = layout["implementation_json"].format(system="sut").replace("*", "_vllm")
    (measurements / implementation).write_text(json.dumps(IMPLEMENTATION))
    for name in ROUNDS[version].table["measurement_files"]:
        (measurements / name).write_text("# test\n")
    code = submitter / layout["code"].format(**place)
    code.mkdir(parents=True, exist_ok=True)
    (code / "README.md").write_text("test\n")
    test06 = submitter / layout["compliance"].format(**place) / "TEST06"
    test06.mkdir(parents=True)
    (test06 / "verify_accuracy.txt").write_text(TEST06)
    return result


def check(root: Path, version: str):
    return check_inference_package(root, round_version=version)


@pytest.mark.parametrize("version", ["v5.1", "v6.1"])
def test_interactive_valid_and_over_the_tpot_limit(tmp_path, version):
    # llama3.1-8b Interactive limits: TTFT 500 ms, TPOT 30 ms (Server: 2000 ms, 100 ms).
    write_result(tmp_path / "ok", version, "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    write_result(tmp_path / "ok", version, "Interactive", "Server", ttft_ms=400, tpot_ms=25)
    report = check(tmp_path / "ok", version)
    offline, interactive = sorted(report.results, key=lambda r: r.scenario, reverse=True)
    assert [f for f in interactive.all_findings() if f.severity == "error"] == []
    assert offline.valid and interactive.valid and not report.has_errors
    # The figure is tokens per second in both; the v5.1 checker printed Queries/s beside it for
    # llama3.1-8b Interactive (its unit table lacked the entry), v6.0 on Tokens/s.
    unit = {"v5.1": "Queries/s", "v6.1": "Tokens/s"}[version]
    assert interactive.scenario == "Interactive" and interactive.metric_unit == unit
    assert (
        interactive.metric_name == "result_completed_tokens_per_second"
        and interactive.metric_value == 25_000.0
    )
    # v5.1 holds an Interactive folder to the Interactive limits; v6.0 on, the checker picks the
    # limits by the scenario LoadGen ran (Server), and LoadGen's own verdict carries the
    # Interactive settings the run was made with.
    limits = {"v5.1": (500.0, 30.0), "v6.1": (2000.0, 100.0)}[version]
    assert interactive.token_latency == {
        "ttft_p99_ms": 400.0,
        "tpot_p99_ms": 25.0,
        "ttft_limit_ms": limits[0],
        "tpot_limit_ms": limits[1],
    }
    assert offline.metric_name == "result_tokens_per_second" and offline.metric_unit == "Tokens/s"

    # A TPOT under the Server limit is fine in a Server folder; in an Interactive one, over the
    # Interactive limit in v5.1 (and within the Server limit the v6.1 checker applies).
    write_result(tmp_path / "slow", version, "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    write_result(tmp_path / "slow", version, "Interactive", "Server", ttft_ms=400, tpot_ms=45)
    write_result(tmp_path / "slow", version, "Server", "Server", ttft_ms=400, tpot_ms=45)
    results = {r.scenario: r for r in check(tmp_path / "slow", version).results}
    errors = [f for f in results["Interactive"].all_findings() if f.severity == "error"]
    if version == "v5.1":
        assert [f.code for f in errors] == ["token_latency_over_limit"]
        assert "TPOT 99th percentile 45.000 ms is not below the Interactive limit 30 ms" in errors[0].message
    else:
        assert errors == []
    assert results["Server"].valid
    # Over the Server limit: refused in both.
    write_result(tmp_path / "slower", version, "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    write_result(tmp_path / "slower", version, "Server", "Server", ttft_ms=400, tpot_ms=120)
    server = next(r for r in check(tmp_path / "slower", version).results if r.scenario == "Server")
    assert [f.code for f in server.all_findings() if f.severity == "error"] == ["token_latency_over_limit"]


def test_settings_a_round_only_logged(tmp_path):
    """v2.1's and v3.0's checkers logged a wrong seed or a short min_duration without refusing the
    result (a warning here); from v4.1 both refuse it."""
    from mlperf_check.inference.rules import ROUNDS as rounds

    for version, severity in (("v3.0", "warning"), ("v4.1", "error")):
        root = tmp_path / version
        result = write_result(root, "v6.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
        detail = result / "performance" / "run_1" / "mlperf_log_detail.txt"
        short = '"effective_min_duration_ms", "value": 60000,'
        detail.write_text(detail.read_text().replace('"effective_min_duration_ms", "value": 600000,', short))
        result.parent.rename(result.parent.parent / "bert-99")  # a benchmark of both rounds
        rules = rounds[version]
        report = check_inference_package(root, rules=rules)
        findings = {f.code: f.severity for f in report.results[0].all_findings()}
        assert findings["min_duration_setting"] == severity and findings["wrong_seed"] == severity


def test_v61_layout_keeps_measurements_and_compliance_in_the_result(tmp_path):
    result = write_result(tmp_path, "v6.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    write_result(tmp_path, "v6.1", "Server", "Server", ttft_ms=100, tpot_ms=10)  # the model's other scenario
    assert (result / "measurements.json").is_file() and (result / "TEST06" / "verify_accuracy.txt").is_file()
    assert check(tmp_path, "v6.1").results[0].valid
    (result / "TEST06" / "verify_accuracy.txt").write_text(
        TEST06.replace("EOS check pass: True", "EOS check pass: False")
    )
    (result / "measurements.json").unlink()
    codes = {f.code for f in check(tmp_path, "v6.1").results[0].all_findings() if f.severity == "error"}
    assert codes == {"compliance_failed", "missing_implementation_json"}


def test_required_scenarios_per_category(tmp_path):
    """llama3.1-8b on a datacenter system needs Offline and, from v5.1, one of Server and
    Interactive. The official checker rejects an incomplete model with its results ("does not have
    all required scenarios"): so does each verdict here, on the model and on each result."""
    write_result(tmp_path, "v5.1", "Interactive", "Server", ttft_ms=100, tpot_ms=10)
    report = check(tmp_path, "v5.1")
    (missing,) = [f for f in report.findings if f.code == "required_scenarios"]
    assert missing.severity == "error" and "no accepted result for Offline" in missing.message
    (interactive,) = report.results
    assert not interactive.valid and not interactive.official
    assert {f.code for f in interactive.all_findings() if f.severity == "error"} == {"required_scenarios"}
    # A lone Offline: from v5.1 one of Server and Interactive is required too.
    write_result(tmp_path / "offline", "v5.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    (offline,) = check(tmp_path / "offline", "v5.1").results
    (finding,) = [f for f in offline.all_findings() if f.code == "required_scenarios"]
    assert "no accepted result for Server or Interactive" in finding.message and not offline.official
    write_result(tmp_path / "offline", "v5.1", "Interactive", "Server", ttft_ms=100, tpot_ms=10)
    assert all(r.valid and r.official for r in check(tmp_path / "offline", "v5.1").results)


def test_open_division_takes_accuracy_and_skips_compliance(tmp_path):
    result = write_result(tmp_path, "v6.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0, division="open")
    (result / "accuracy" / "accuracy.txt").write_text(
        ACCURACY.replace("38.79", "30.00") + "hash=" + hashlib.sha256(b"[\n]\n").hexdigest() + "\n"
    )
    (result / "TEST06" / "verify_accuracy.txt").unlink()
    (report_result,) = check(tmp_path, "v6.1").results
    assert report_result.valid
    notes = {f.code for f in report_result.all_findings() if f.severity == "info"}
    assert "accuracy_below_target" in notes


def test_a_model_the_round_does_not_have(tmp_path):
    """gptj left the suite after v5.0: in v5.1 it is no benchmark, closed or open."""
    result = write_result(tmp_path, "v5.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    result.parent.rename(result.parent.parent / "gptj-99")
    (report_result,) = check(tmp_path, "v5.1").results
    assert "unknown_model" in {f.code for f in report_result.all_findings() if f.severity == "error"}


def test_the_system_description(tmp_path):
    """The round's system fields, a known availability and category, the folder's submitter and
    division: otherwise every result of the system is refused."""
    write_result(tmp_path, "v6.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    path = tmp_path / "closed" / "Test" / "systems" / "sut.json"
    system = json.loads(path.read_text())
    del system["host_memory_capacity"]
    system.update(status="Research", system_type="cloud", division="open", accelerator_model_name="")
    path.write_text(json.dumps(system))
    (result,) = check(tmp_path, "v6.1").results
    codes = {f.code for f in result.all_findings() if f.severity == "error"}
    assert {
        "system_status",
        "system_type",
        "system_fields",
        "system_fields_empty",
        "system_division",
    } <= codes


@pytest.mark.parametrize("version, division, refused", [("v5.1", "open", True), ("v6.1", "closed", False)])
def test_equal_issue_mode(tmp_path, version, division, refused):
    """v5.1 asks equal-issue mode of llama3.1-8b in every division; v6.1 of no model."""
    result = write_result(tmp_path, version, "Offline", "Offline", ttft_ms=0, tpot_ms=0, division=division)
    detail = result / "performance" / "run_1" / "mlperf_log_detail.txt"
    on = '"effective_sample_concatenate_permutation", "value": true'
    detail.write_text(detail.read_text().replace(on, on.replace("true", "false")))
    (checked,) = check(tmp_path, version).results
    assert ("equal_issue_off" in {f.code for f in checked.all_findings() if f.severity == "error"}) == refused


def test_v41_reads_equal_issue_mode_from_the_conf_files(tmp_path):
    from mlperf_check.inference.checkers.round_rules.performance_run import conf_equal_issue

    (tmp_path / "mlperf.conf").write_text(
        "# c\n*.Server.target_qps = 1\ngptj.*.sample_concatenate_permutation = 1\n"
    )
    assert conf_equal_issue(tmp_path, "gptj-99.9", "Offline")
    (tmp_path / "user.conf").write_text("gptj.Offline.sample_concatenate_permutation = 0\n")
    assert not conf_equal_issue(tmp_path, "gptj-99.9", "Offline")
    assert conf_equal_issue(tmp_path, "gptj-99", "Server")  # user.conf names Offline only
    assert not conf_equal_issue(tmp_path, "llama2-70b-99", "Server")


def test_v51_closed_submitters_document_calibration(tmp_path):
    write_result(tmp_path, "v5.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    write_result(tmp_path, "v5.1", "Interactive", "Server", ttft_ms=100, tpot_ms=10)
    (tmp_path / "closed" / "Test" / "calibration.md").unlink()
    report = check(tmp_path, "v5.1")
    assert report.results[0].valid  # a submitter-level error, as in the official checker
    assert "calibration_doc" in {f.code for f in report.findings}
    (tmp_path / "closed" / "Test" / "calibration.md").write_text("# calibration\n")
    assert "calibration_doc" not in {f.code for f in check(tmp_path, "v5.1").findings}
    assert "calibration_doc" not in {f.code for f in check(tmp_path, "v6.1").findings}


def test_v51_every_system_has_results(tmp_path):
    write_result(tmp_path, "v5.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    (tmp_path / "closed" / "Test" / "systems" / "spare.json").write_text(json.dumps(SYSTEM))
    (idle,) = [f for f in check(tmp_path, "v5.1").findings if f.code == "system_without_results"]
    assert (
        idle.message == "systems/ names systems with no results: spare" and idle.file == "closed/Test/systems"
    )
    assert "system_without_results" not in {f.code for f in check(tmp_path, "v6.1").findings}


def test_the_accuracy_run_covers_the_data_set(tmp_path):
    """v5.1 logs an accuracy run over part of the data set (a warning); v6.1 refuses it."""
    for version, severity in (("v5.1", "warning"), ("v6.1", "error")):
        result = write_result(tmp_path / version, version, "Offline", "Offline", ttft_ms=0, tpot_ms=0)
        detail = result / "accuracy" / "mlperf_log_detail.txt"
        count = '"qsl_reported_total_count", "value": 13368'
        detail.write_text(detail.read_text().replace(count, count.replace("13368", "500")))
        (checked,) = check(tmp_path / version, version).results
        (finding,) = [f for f in checked.all_findings() if f.code == "accuracy_sample_count"]
        assert finding.severity == severity and (finding.expected, finding.actual) == ("13368", "500")


def test_v61_gpt_oss_compliance_tests_07_and_09(tmp_path):
    """gpt-oss-120b's TEST07 and TEST09 are verdict files only (no performance run of their own)."""
    result = write_result(tmp_path, "v6.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    gpt = result.parent.rename(result.parent.parent / "gpt-oss-120b") / "Offline"
    shutil.rmtree(gpt / "TEST06")
    for test, name in (("TEST07", "verify_accuracy.txt"), ("TEST09", "verify_output_len.txt")):
        (gpt / test).mkdir()
        (gpt / test / name).write_text("TEST PASS\n")
    codes = {f.code for f in check(tmp_path, "v6.1").results[0].all_findings() if f.severity == "error"}
    assert not codes & {
        "compliance_missing",
        "compliance_no_verdict",
        "compliance_failed",
        "compliance_run_file",
    }
    (gpt / "TEST09" / "verify_output_len.txt").write_text("TEST FAIL\n")
    codes = {f.code for f in check(tmp_path, "v6.1").results[0].all_findings() if f.severity == "error"}
    assert "compliance_failed" in codes


def test_an_implementation_field_left_out_and_one_left_empty(tmp_path):
    """Both refuse the result in v5.1. The v2.1 and v3.0 checkers asked for each field and not for
    a value in it (found importing inference_results_v3.0: 46 results with an empty `retraining`,
    published): there an empty field is a warning."""
    write_result(tmp_path, "v5.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    (path,) = (tmp_path / "closed" / "Test").rglob("measurements/**/*.json")
    implementation = dict(IMPLEMENTATION, retraining="")
    del implementation["weight_transformations"]
    path.write_text(json.dumps(implementation))
    (result,) = check(tmp_path, "v5.1").results
    errors = {f.code: f.message for f in result.all_findings() if f.severity == "error"}
    assert errors["implementation_fields"] == "implementation JSON lacks weight_transformations"
    assert errors["implementation_field_empty"] == "implementation JSON lacks a value for retraining"
    assert not result.official and not result.valid
    assert [ROUNDS[v].implementation_values for v in ("v2.1", "v3.0", "v3.1", "v5.1")] == [False, False, True, True]


def test_an_empty_measurement_readme(tmp_path):
    """v3.1 on refuse an empty README.md ("is having empty README.md"). The v2.1 and v3.0 checkers
    asked only that it be there, and v3.1's turns the check off for them (found importing the
    record: 24 and 19 published results with an empty one; test_inference_real_rounds.py has
    real ones): there it is a warning."""
    write_result(tmp_path, "v5.1", "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    (readme,) = (tmp_path / "closed" / "Test").rglob("measurements/**/README.md")
    readme.write_text("")
    (result,) = check(tmp_path, "v5.1").results
    (finding,) = [f for f in result.all_findings() if f.code == "measurement_file"]
    assert (finding.severity, finding.message) == ("error", "README.md is empty")
    assert not result.official and not result.valid
    assert [ROUNDS[v].measurement_files_content for v in ("v2.1", "v3.0", "v3.1", "v5.1")] == [
        False, False, True, True
    ]
