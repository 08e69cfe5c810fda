"""Real LoadGen runs of an LLM-like system under test (first token, then tokens, through LoadGen's
token API) in Server, Interactive and Offline, valid and invalid (TTFT or TPOT over the limit),
checked under the v5.1 rules: our verdict equals LoadGen's, our own recomputation names the limit
missed, and the figure is tokens per second.

Interactive is a Server run (LoadGen has no separate scenario) under the tighter Interactive
limits, in an `Interactive` result folder. The limits and minimums are scaled down as data so that
each run takes a few seconds; everything else is the v5.1 table (llama2-70b-99).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package
from mlperf_check.inference.rules import ROUNDS
from mlperf_check.tests.loadgen_sut import assert_agrees_with_loadgen

pytest.importorskip("mlperf_loadgen")

REPO = Path(__file__).resolve().parents[2]
MS = 1_000_000  # ns
V51 = ROUNDS["v5.1"]
LIMITS = {
    "Server": {"ttft_ns": 200 * MS, "tpot_ns": 20 * MS},
    "Interactive": {"ttft_ns": 100 * MS, "tpot_ns": 15 * MS},
}
LLAMA = replace(
    V51.models["llama2-70b-99"],
    performance_sample_count=64,
    offline_min_samples=64,
    compliance_tests=(),
    token_limits_ns=LIMITS,
)
# One scenario folder at a time: in the test round every scenario of the model is optional.
_ANY_SCENARIO = {"datacenter": {"llama2-70b-99": []}}
TEST_RULES = replace(
    V51,
    version="test",
    models={"llama2-70b-99": LLAMA},
    min_duration_ms=500,
    seeds={},
    table=V51.table
    | {
        "required_scenarios": _ANY_SCENARIO,
        "optional_scenarios": {"datacenter": {"llama2-70b-99": ["Offline", "Server", "Interactive"]}},
    },
)
SYSTEM = {name: "test" for name in V51.table["system_fields"]} | {
    "division": "closed",
    "submitter": "Test",
    "status": "available",
    "system_name": "sut",
    "system_type": "datacenter",
}
IMPLEMENTATION = {
    "input_data_types": "fp8",
    "retraining": "no",
    "starting_weights_filename": "Llama-2-70b-chat-hf",
    "weight_data_types": "fp8",
    "weight_transformations": "quantization",
}
ACCURACY = (
    "{'rouge1': 44.5321, 'rouge2': 22.1191, 'rougeL': 28.7225, 'rougeLsum': 42.0, 'gen_len': 28000000, "
    "'gen_num': 24576, 'gen_tok_len': 7200000, 'tokens_per_sample': 293.7}\n"
)


def _server(limits: dict, qps: int = 200) -> dict:
    return {
        "min_duration_ms": 500,
        "min_query_count": 600,
        "server_target_qps": qps,
        "use_token_latencies": 1,
        "sample_concatenate_permutation": 1,  # equal-issue mode, required of llama2 from v5.0
        "ttft_latency": limits["ttft_ns"],
        "tpot_latency": limits["tpot_ns"],
    }


# name -> (result folder, LoadGen scenario, tokens, ttft ms, tpot ms, settings, LoadGen's verdict, our finding)
CASES = {
    "server_valid": ("Server", "Server", 10, 20, 2, _server(LIMITS["Server"]), "VALID", None),
    "server_ttft_over": (
        "Server", "Server", 10, 300, 2, _server(LIMITS["Server"]), "INVALID", "token_latency_over_limit",
    ),
    "interactive_valid": ("Interactive", "Server", 10, 20, 2, _server(LIMITS["Interactive"]), "VALID", None),
    "interactive_tpot_over": (
        "Interactive", "Server", 10, 20, 25, _server(LIMITS["Interactive"]), "INVALID", "token_latency_over_limit",
    ),
    "offline_valid": (
        "Offline", "Offline", 10, 2, 0.25, {"min_duration_ms": 500, "offline_expected_qps": 300, "use_token_latencies": 1, "sample_concatenate_permutation": 1},
        "VALID", None,
    ),
}  # fmt: skip


def llm_submission(
    tmp_path: Path, folder: str, scenario: str, tokens: int, ttft: float, tpot: float, settings
) -> Path:
    """A one-result closed submission around the logs of one real LoadGen run."""
    submitter = tmp_path / "closed" / "Test"
    result = submitter / "results" / "sut" / "llama2-70b-99" / folder
    run = result / "performance" / "run_1"
    command = [sys.executable, "-m", "mlperf_check.tests.loadgen_sut", str(run), scenario, "0"]
    command += [f"tokens={tokens}", f"ttft_ms={ttft}", f"tpot_ms={tpot}"]
    command += [f"{name}={value}" for name, value in settings.items()]
    subprocess.run(command, cwd=REPO, check=True, capture_output=True, timeout=120)
    (submitter / "systems").mkdir(parents=True)
    (submitter / "systems" / "sut.json").write_text(json.dumps(SYSTEM))
    accuracy = result / "accuracy"
    accuracy.mkdir()
    log = b"[\n]\n"
    (accuracy / "mlperf_log_accuracy.json").write_bytes(log)
    (accuracy / "accuracy.txt").write_text(ACCURACY + f"hash={hashlib.sha256(log).hexdigest()}\n")
    for name in ("mlperf_log_summary.txt", "mlperf_log_detail.txt"):
        (accuracy / name).write_bytes((run / name).read_bytes())
    measurements = submitter / "measurements" / "sut" / "llama2-70b-99" / folder
    measurements.mkdir(parents=True)
    (measurements / "sut_vllm.json").write_text(json.dumps(IMPLEMENTATION))
    (measurements / "user.conf").write_text("*.Server.target_qps = 200\n")
    (measurements / "README.md").write_text("LoadGen test run\n")
    (submitter / "code" / "llama2-70b-99").mkdir(parents=True)
    (submitter / "code" / "llama2-70b-99" / "README.md").write_text("test\n")
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_llm_verdict_agrees_with_loadgen(tmp_path, case):
    folder, scenario, tokens, ttft, tpot, settings, loadgen_verdict, finding = CASES[case]
    root = llm_submission(tmp_path, folder, scenario, tokens, ttft, tpot, settings)
    report = check_inference_package(root, rules=TEST_RULES)
    (result,) = report.results
    run = result.runs[0]
    assert_agrees_with_loadgen(result, loadgen_verdict, finding)
    assert result.scenario == folder and result.metric_unit == "Tokens/s"
    if scenario == "Offline":
        assert result.metric_name == "result_tokens_per_second"
        assert result.metric_value == pytest.approx(run.detail.results["result_tokens_per_second"])
        return
    assert result.metric_name == "result_completed_tokens_per_second"
    assert result.metric_value == pytest.approx(run.summary.number("Completed tokens per second"), rel=1e-3)
    latency = result.token_latency
    assert latency["ttft_limit_ms"] == LIMITS[folder]["ttft_ns"] / MS
    assert latency["tpot_limit_ms"] == LIMITS[folder]["tpot_ns"] / MS
    assert latency["ttft_p99_ms"] >= ttft and latency["tpot_p99_ms"] >= tpot * 0.9


def test_token_latencies_must_be_on(tmp_path):
    """An LLM Server run without use_token_latencies is rejected (the official checker's rule)."""
    settings = {k: v for k, v in _server(LIMITS["Server"], qps=100).items() if k == "min_duration_ms"}
    settings.update(min_query_count=100, server_target_qps=100)
    root = llm_submission(tmp_path, "Server", "Server", 2, 1, 1, settings)
    (result,) = check_inference_package(root, rules=TEST_RULES).results
    assert "token_latencies_off" in {f.code for f in result.all_findings() if f.severity == "error"}
