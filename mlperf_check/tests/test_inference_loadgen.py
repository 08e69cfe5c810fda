"""Real LoadGen (mlcommons-loadgen) logs of today's `:::MLLOG` format, for every scenario, valid and
invalid: our verdict agrees with LoadGen's own, and our recomputation names why.

A tiny SUT (mlperf_check/tests/loadgen_sut.py) answers after a few ms per sample; the round's
rules are the newest shipped, with the minimum duration and query counts scaled down as data, so
each run takes a second or two.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package
from mlperf_check.inference.rules import MULTI_STREAM, OFFLINE, ROUNDS, SERVER, SINGLE_STREAM
from mlperf_check.tests.loadgen_sut import assert_agrees_with_loadgen

pytest.importorskip("mlperf_loadgen")

REPO = Path(__file__).resolve().parents[2]
NEWEST = ROUNDS["v2.0"]
RESNET = replace(
    NEWEST.models["resnet"], server_latency_ms=500, performance_sample_count=64, compliance_tests=()
)
TEST_RULES = replace(
    NEWEST,
    version="test",
    models={"resnet": RESNET},
    min_duration_ms=500,
    min_queries={SINGLE_STREAM: 100, MULTI_STREAM: 100, SERVER: 100, OFFLINE: 100},
    seeds={},
    # Our recomputation of the minimum queries and the latency bound, which v2.0's early stopping
    # leaves to LoadGen (test_inference_verdicts.py covers that).
    early_stopping=(),
)
SYSTEM = {"division": "closed", "submitter": "Test", "status": "available", "system_name": "sut"}
IMPLEMENTATION = {
    "input_data_types": "fp32",
    "retraining": "no",
    "starting_weights_filename": "resnet50_v1.onnx",
    "weight_data_types": "fp32",
    "weight_transformations": "none",
}

# name -> (scenario, ms of work per sample, LoadGen settings, LoadGen's verdict, our finding when invalid)
CASES = {
    "singlestream_valid": (SINGLE_STREAM, 2, {"min_duration_ms": 600, "min_query_count": 150}, "VALID", None),
    "singlestream_too_few_queries": (
        SINGLE_STREAM,
        2,
        {"min_duration_ms": 600, "min_query_count": 500, "max_query_count": 50},
        "INVALID",
        "too_few_queries",
    ),
    "server_valid": (
        SERVER,
        2,
        {
            "min_duration_ms": 600,
            "min_query_count": 600,
            "server_target_qps": 300,
            "server_target_latency_ns": 500_000_000,
        },
        "VALID",
        None,
    ),
    "server_latency_bound_missed": (
        SERVER,
        30,
        {
            "min_duration_ms": 600,
            "min_query_count": 100,
            "server_target_qps": 100,
            "server_target_latency_ns": 20_000_000,
        },
        "INVALID",
        "latency_bound_missed",
    ),
    "offline_valid": (OFFLINE, 2, {"min_duration_ms": 500, "offline_expected_qps": 500}, "VALID", None),
    "offline_too_short": (
        OFFLINE,
        0.01,
        {"min_duration_ms": 500, "offline_expected_qps": 500},
        "INVALID",
        "run_too_short",
    ),
    "multistream_valid": (
        MULTI_STREAM,
        0.25,
        {"min_duration_ms": 600, "min_query_count": 700, "multi_stream_expected_latency_ns": 5_000_000},
        "VALID",
        None,
    ),
}


def loadgen_run(tmp_path: Path, scenario: str, delay_ms: float, settings: dict) -> Path:
    """A one-result closed submission holding the logs of one real LoadGen run."""
    submitter = tmp_path / "closed" / "Test"
    run = submitter / "results" / "sut" / "resnet" / scenario / "performance" / "run_1"
    command = [sys.executable, "-m", "mlperf_check.tests.loadgen_sut", str(run), scenario, str(delay_ms)]
    command += [f"{name}={value}" for name, value in settings.items()]
    subprocess.run(command, cwd=REPO, check=True, capture_output=True, timeout=120)
    (submitter / "systems").mkdir(parents=True)
    (submitter / "systems" / "sut.json").write_text(json.dumps(SYSTEM))
    accuracy = run.parent.parent / "accuracy"
    accuracy.mkdir()
    (accuracy / "accuracy.txt").write_text("accuracy=76.500%, good=38250, total=50000\n")
    for name in ("mlperf_log_summary.txt", "mlperf_log_detail.txt"):
        (accuracy / name).write_bytes((run / name).read_bytes())
    measurements = submitter / "measurements" / "sut" / "resnet" / scenario
    measurements.mkdir(parents=True)
    (measurements / "sut_impl.json").write_text(json.dumps(IMPLEMENTATION))
    return tmp_path


@pytest.mark.parametrize("case", CASES)
def test_our_verdict_agrees_with_loadgen(tmp_path, case):
    scenario, delay_ms, settings, loadgen_verdict, finding = CASES[case]
    root = loadgen_run(tmp_path, scenario, delay_ms, settings)
    report = check_inference_package(root, rules=TEST_RULES)
    (result,) = report.results
    run = result.runs[0]
    assert run.detail.log_format == "mllog"
    assert_agrees_with_loadgen(result, loadgen_verdict, finding)
    assert result.metric_value is not None and result.metric_direction in ("higher", "lower")
    if scenario == OFFLINE:  # the samples of its one query
        assert result.query_count == run.summary.number("samples_per_query")
    else:
        assert result.query_count == run.detail.results["result_query_count"]
