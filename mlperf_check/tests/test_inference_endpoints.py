"""Inference v6.1 results of the MLCommons Endpoints client, on the real NVIDIA VR-NVL72 folders
(data/inference/endpoints_v6.1/README.md): the official checker's verdict and figure on each, and
each rule of the path broken once (endpoints_mutations.py) with the official checker's verdict
and reason, recorded in official.json and, where its repository is here, run live on the copy."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from mlperf_check.inference.pipeline import check_inference_package
from mlperf_check.tests.endpoints_mutations import (
    COMMIT,
    MUTATIONS,
    OFFICIAL_REASONS,
    RECORDED,
    REPOSITORY,
    RESULTS,
    run_official,
    submission,
)
from mlperf_check.tests.official_checkers import official_tree

OFFICIAL = json.loads(RECORDED.read_text())


def ours(root: Path) -> dict:
    report = check_inference_package(root, round_version="v6.1")
    return {f"{r.model_folder}/{r.scenario_folder}": r for r in report.results}


@pytest.fixture(scope="module")
def official_tools():
    """The official checker of v6.1, or None where its repository is not on this machine (CI)."""
    with tempfile.TemporaryDirectory() as tmp:
        yield official_tree(REPOSITORY, COMMIT, "tools/submission/submission_checker", Path(tmp))


def test_the_real_folders_get_the_official_verdicts_and_figures(tmp_path):
    results = ours(submission(tmp_path))
    assert sorted(results) == sorted(OFFICIAL["real"])
    for name, official in OFFICIAL["real"].items():
        result = results[name]
        assert result.verdict_json() == {"official": official["official"], "ours": "VALID", "stricter": []}, (
            name
        )
        assert result.metric_value == official["figure"], name  # the same float, to the last bit
        errors = [f for f in result.all_findings() if f.severity in ("error", "warning")]
        assert errors == [], name


def test_the_figures_and_metrics_of_each_scenario(tmp_path):
    """The figure each scenario is ranked by, in its own unit (the official summary says Tokens/s
    for all three deepseek-r1 figures; only the Server one is tokens), and the client's metrics."""
    results = ours(submission(tmp_path))
    units = {name: (r.metric_name, r.metric_unit) for name, r in results.items()}
    assert units["deepseek-r1/Offline"] == ("samples_per_second", "samples/s")
    assert units["deepseek-r1/Server"] == ("tokens_per_second", "tokens/s")
    assert units["deepseek-r1/Interactive"] == ("completed_samples_per_second", "samples/s")
    interactive = results["deepseek-r1/Interactive"]
    metrics = interactive.endpoints
    assert metrics["tokens_per_second"] == 652750.1447708113
    assert metrics["samples_per_second"] == 168.44961107838623
    assert metrics["tokens_per_second_per_user"] == pytest.approx(1e9 / 10532468.607964644)
    assert metrics["ttft_ms"]["99.0"] == pytest.approx(475.31573) and metrics["tpot_ms"][
        "50.0"
    ] == pytest.approx(10.532325136786189)
    assert interactive.token_latency == {
        "ttft_p99_ms": pytest.approx(484.730193),
        "tpot_p99_ms": pytest.approx(12.560416413533835),
        "ttft_limit_ms": 1500.0,
        "tpot_limit_ms": 15.0,
    }
    assert interactive.accuracy_kind == "exact_match" and interactive.accuracy_value == 80.62898814949864
    assert interactive.accuracy_printed == "80.62898814949864"  # the official summary's Accuracy column
    qwen = results["qwen3-vl-235b-a22b/Interactive"]
    assert qwen.latency_bound_ms == 1500.0 and qwen.accuracy_target == pytest.approx(0.779922)
    assert results["deepseek-r1/Offline"].to_json()["endpoints"]["duration_s"] == pytest.approx(
        5124.404179908
    )


def test_the_official_checker_says_the_same_of_the_real_folders(tmp_path, official_tools):
    if official_tools is None:
        pytest.skip(
            "no mlcommons/inference repository under $MLPERF_OFFICIAL_REPOS: compared with official.json only"
        )
    assert run_official(submission(tmp_path / "submission"), official_tools) == OFFICIAL["real"]


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_rule_broken_once(tmp_path, name, official_tools):
    """Ours refuses the result with its finding; the official verdict is the recorded one (and the
    live one), and where the official checker refuses, it says the same reason."""
    result_name, mutate, code = MUTATIONS[name]
    root = submission(tmp_path / "submission")
    mutate(root)
    recorded = OFFICIAL["mutations"][name]
    if official_tools is not None:
        live = run_official(root, official_tools)[result_name]
        assert {"result": result_name, **live} == recorded
    result = ours(root)[result_name]
    errors = {f.code for f in result.all_findings() if f.severity == "error"}
    assert code in errors and not result.valid
    assert result.verdict_json()["official"] == recorded["official"]
    reason = OFFICIAL_REASONS[name]
    if reason:
        assert any(reason in line for line in recorded["reasons"]), recorded["reasons"]
    else:  # accepted officially: our stricter verdict names the rule
        assert recorded["official"] == "VALID" and result.stricter == [code]


def test_a_result_with_loadgen_logs_is_not_read_as_an_endpoints_one(tmp_path):
    """LoadGen's logs win where both are there, as in the official loader."""
    from mlperf_check.inference.discovery import LOADGEN, find_submitters

    root = submission(tmp_path)
    run = root / RESULTS / "deepseek-r1" / "Offline" / "performance" / "run_1"
    run.mkdir()
    (run / "mlperf_log_summary.txt").write_text("")
    (folder,) = [f for s in find_submitters(root) for f in s.results if f.rel.endswith("deepseek-r1/Offline")]
    assert folder.reading == LOADGEN


def test_unreadable_files_are_findings_not_crashes(tmp_path):
    root = submission(tmp_path)
    folder = root / RESULTS / "qwen3-vl-235b-a22b" / "Server"
    (folder / "performance" / "result_summary.json").write_text("{not json")
    (folder / "config.yaml").write_text("type: [unclosed\n")
    (folder / "accuracy" / "accuracy_results.json").unlink()
    result = ours(root)["qwen3-vl-235b-a22b/Server"]
    messages = sorted(f.message.split(":")[0] for f in result.all_findings() if f.code == "endpoints_file")
    assert messages == ["no accuracy_results.json", "not JSON", "not YAML"]
    assert not result.valid and not result.official


def test_the_round_is_told_by_the_clients_seeds(tmp_path):
    """No LoadGen seeds to tell the round by: config.yaml's sample-index and schedule seeds are v6.1's."""
    report = check_inference_package(submission(tmp_path))
    assert report.round == "v6.1"
    assert any("recognised from the Endpoints client's seeds" in f.message for f in report.findings)
