"""MLPerf HPC packages: layout, rulesets, time to solution, weak-scaling figures, and bad input.

Runs on a real v2.0 submitter folder kept in tests/data (see its README), without the corpus.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from mlperf_check.cli import main
from mlperf_check.pipeline import check_package
from mlperf_check.rules.catalog import UnknownRuleset, get_ruleset, known_hpc_rulesets

DELL = Path(__file__).parent / "data" / "hpc-v2.0-Dell"
SYSTEM = "32xXE8545x4A100-SXM4-40GB"
DEEPCAM = f"results/{SYSTEM}/strong/deepcam"


def codes(report) -> list[str]:
    return [f.code for f in report.all_findings()]


def copy_dell(tmp_path: Path) -> Path:
    root = tmp_path / "Dell"
    shutil.copytree(DELL, root, ignore=shutil.ignore_patterns("README.md"))
    return root


def log_times(path: Path) -> tuple[float, float, dict]:
    """run_start, run_stop and the first values of the instance keys, read independently."""
    start = stop = None
    keys: dict = {}
    for line in path.read_text().splitlines():
        if ":::MLLOG " not in line:
            continue
        event = json.loads(line.split(":::MLLOG ", 1)[1])
        if event["key"] == "run_start":
            start = event["time_ms"]
        elif event["key"] == "run_stop":
            stop = event["time_ms"]
        elif event["key"] in ("number_of_nodes", "accelerators_per_node"):
            keys.setdefault(event["key"], event["value"])
    return start, stop, keys


def test_hpc_rulesets_come_from_the_package():
    assert {"hpc-1.0.0", "hpc-2.0.0", "hpc-3.0.0"} <= set(known_hpc_rulesets())
    for text in ("hpc-1.0.0", "hpc 1.0.0", "hpc_1.0.0", "HPC-v1.0"):
        assert get_ruleset(text).version == "hpc-1.0.0"
    spec = get_ruleset("hpc-3.0.0")
    assert spec.is_hpc and spec.label == "HPC 3.0.0"
    assert sorted(spec.benchmarks) == ["cosmoflow", "deepcam", "oc20", "openfold"]
    assert spec.benchmarks["cosmoflow"].required_runs == 10
    assert spec.benchmarks["deepcam"].required_runs == 5
    # cosmoflow's target is an error to minimise, on eval_error
    assert spec.benchmarks["cosmoflow"].quality_rule == "eval_error <= 0.124 and eval_error > 0."
    assert spec.benchmarks["cosmoflow"].direction == "lower"
    assert not get_ruleset("hpc-2.0.0").rcp_normalizes and spec.rcp_normalizes
    assert get_ruleset("1.0.0").usage == "training"


def test_unknown_hpc_ruleset_is_refused():
    with pytest.raises(UnknownRuleset, match="unknown HPC ruleset hpc-9.0.0"):
        get_ruleset("hpc-9.0.0")
    out, err = io.StringIO(), io.StringIO()
    assert main([str(DELL), "--ruleset", "hpc-9.0.0"], stdout=out, stderr=err) == 2
    assert "unknown HPC ruleset" in err.getvalue()


def test_real_strong_scaling_folder_matches_the_official_summarizer():
    report = check_package(DELL)
    assert report.ruleset == "hpc-2.0.0"  # told from the logs' dates
    (result,) = report.results
    assert (result.scaling, result.benchmark, result.folder) == ("strong", "deepcam", DEEPCAM)
    assert result.score_minutes == 12.99535  # the official summary cell, to full precision
    assert result.rcp.status == "pass_interpolated"
    assert result.global_batch_size == 256 and result.converge_mean == 9.0
    assert result.weak is None and result.energy is None
    assert not report.has_errors, [f.message for f in report.all_findings() if f.severity == "error"]


def test_bare_version_names_the_hpc_ruleset_of_an_hpc_package():
    assert check_package(DELL, ruleset="2.0.0").ruleset == "hpc-2.0.0"


def test_hpc_ruleset_on_a_training_package_is_a_finding(tmp_path):
    root = tmp_path / "org"
    (root / "results" / "sys" / "resnet").mkdir(parents=True)
    (root / "systems").mkdir()
    report = check_package(root, ruleset="hpc-2.0.0")
    assert "RULESET_LAYOUT_MISMATCH" in codes(report)


def test_weak_scaling_figures(tmp_path):
    root = copy_dell(tmp_path)
    weak = root / "results" / SYSTEM / "weak"
    weak.mkdir()
    shutil.move(root / DEEPCAM, weak / "deepcam")
    report = check_package(root, ruleset="hpc-2.0.0")
    (result,) = report.results
    assert result.scaling == "weak" and result.score_minutes is None
    times = [log_times(path) for path in sorted((weak / "deepcam").glob("result_*.txt"))]
    start, stop = min(t[0] for t in times), max(t[1] for t in times)
    keys = times[0][2]
    assert result.weak.number_of_models == 5
    assert result.weak.instance_scale == keys["number_of_nodes"] * max(keys["accelerators_per_node"], 1)
    assert result.weak.time_to_train_all_minutes == (stop - start) / 60 / 1000
    assert result.weak.models_per_minute == 5 / result.weak.time_to_train_all_minutes
    assert {score.scoring for score in result.run_scores} == {"counted"}
    document = report.to_json()["results"][0]
    assert document["scaling"] == "weak"
    assert document["weak_scaling"]["derived"] == {"models_per_minute": result.weak.models_per_minute}
    assert "RUN_COUNT_WRONG" not in codes(report)


def test_one_session_in_strong_and_weak_scaling_is_a_warning(tmp_path):
    root = copy_dell(tmp_path)
    shutil.copytree(root / DEEPCAM, root / "results" / SYSTEM / "weak" / "deepcam")
    report = check_package(root, ruleset="hpc-2.0.0")
    across = [f for f in report.all_findings() if f.code == "DUPLICATE_RESULT_FILE_ACROSS_SCALING"]
    assert len(across) == 5 and {f.severity for f in across} == {"warning"}
    assert "DUPLICATE_RESULT_FILE" not in codes(report)


def test_weak_scaling_energy_drops_the_lowest_model(tmp_path):
    root = copy_dell(tmp_path)
    weak = root / "results" / SYSTEM / "weak"
    weak.mkdir()
    shutil.move(root / DEEPCAM, weak / "deepcam")
    for index in range(5):  # model k draws (k + 1) x 100 W over its window
        folder = weak / "deepcam" / "power" / f"result_{index}"
        folder.mkdir(parents=True)
        (folder / "node_0.txt").write_text(
            ':::MLLOG {"time_ms": 0, "key": "power_measurement_start", "value": null, "metadata": {}}\n'
            f':::MLLOG {{"time_ms": 1000, "key": "power_reading", "value": {(index + 1) * 100}, "metadata": {{}}}}\n'
            ':::MLLOG {"time_ms": 1000, "key": "power_measurement_stop", "value": null, "metadata": {}}\n'
        )
    report = check_package(root, ruleset="hpc-2.0.0")
    (result,) = report.results
    energies = [run.energy for run in result.energy.runs]
    times = [run.time_to_train_ms for run in result.runs]
    assert energies == [(k + 1) * 100 * times[k] / 1000 for k in range(5)]
    kept = sorted(energies)[1:]
    assert result.energy.energy == sum(kept) / 4 and result.energy.scaling_factor == 1.0


def test_weak_scaling_with_too_few_models(tmp_path):
    root = copy_dell(tmp_path)
    weak = root / "results" / SYSTEM / "weak"
    weak.mkdir()
    shutil.move(root / DEEPCAM, weak / "deepcam")
    (weak / "deepcam" / "result_4.txt").unlink()
    report = check_package(root, ruleset="hpc-2.0.0")
    (result,) = report.results
    assert "RUN_COUNT_TOO_FEW" in codes(report)
    assert result.weak.number_of_models is None and "at least 5" in result.weak.note


def test_weak_scaling_models_of_different_sizes(tmp_path):
    root = copy_dell(tmp_path)
    weak = root / "results" / SYSTEM / "weak"
    weak.mkdir()
    shutil.move(root / DEEPCAM, weak / "deepcam")
    path = weak / "deepcam" / "result_2.txt"
    text = path.read_text()
    start = text.index('"key": "number_of_nodes", "value": ') + len('"key": "number_of_nodes", "value": ')
    end = text.index(",", start)
    path.write_text(text[:start] + "999" + text[end:])
    report = check_package(root, ruleset="hpc-2.0.0")
    (result,) = report.results
    finding = next(f for f in report.all_findings() if f.code == "HPC_INSTANCE_SCALE_MISMATCH")
    assert finding.severity == "error" and finding.checker == "weak_scaling"
    assert result.weak.number_of_models is None


def test_unknown_scaling_and_benchmark_folders(tmp_path):
    root = copy_dell(tmp_path)
    (root / "results" / SYSTEM / "medium" / "deepcam").mkdir(parents=True)
    (root / "results" / SYSTEM / "medium" / "deepcam" / "result_0.txt").write_text("")
    shutil.copytree(root / DEEPCAM, root / "results" / SYSTEM / "strong" / "climate")
    report = check_package(root, ruleset="hpc-2.0.0")
    found = codes(report)
    assert "LAYOUT_HPC_SCALING" in found
    assert "LAYOUT_MISPLACED_RESULT" in found  # the file in medium/ is not scored
    unknown = next(f for f in report.all_findings() if f.code == "LAYOUT_UNKNOWN_BENCHMARK")
    assert "not a benchmark of HPC 2.0.0" in unknown.message
    assert [r.score_minutes for r in report.results if r.benchmark == "deepcam"] == [12.99535]


def test_pruned_results_are_not_scored(tmp_path):
    root = copy_dell(tmp_path)
    pruned = root / DEEPCAM / "pruned_results"
    pruned.mkdir()
    (pruned / "result_9.txt").write_text(":::MLLOG {}\n")
    report = check_package(root, ruleset="hpc-2.0.0")
    (result,) = report.results
    assert len(result.runs) == 5 and result.score_minutes == 12.99535
    assert "LAYOUT_NESTED_RESULTS" in codes(report)


def test_broken_logs_give_findings_not_crashes(tmp_path):
    root = copy_dell(tmp_path)
    (root / DEEPCAM / "result_1.txt").write_bytes(b"\x00\xff garbage\n:::MLLOG {not json\n")
    (root / DEEPCAM / "result_2.txt").write_text("")
    (root / "systems" / f"{SYSTEM}.json").write_text("{")
    report = check_package(root, ruleset="hpc-2.0.0")
    (result,) = report.results
    assert result.score_minutes is None
    assert "TOO_MANY_FAILED_RUNS" in codes(report)
    assert any(f.file.endswith("result_1.txt") and f.line for f in report.all_findings())


def test_cli_json_on_an_hpc_round_folder(tmp_path):
    round_folder = tmp_path / "v2.0"
    round_folder.mkdir()
    copy_dell(round_folder)
    out, err = io.StringIO(), io.StringIO()
    assert main([str(round_folder), "--ruleset", "hpc-2.0.0", "--json"], stdout=out, stderr=err) == 0
    document = json.loads(out.getvalue().splitlines()[0])
    assert document["ruleset"] == "hpc-2.0.0"
    assert document["results"][0]["scaling"] == "strong"
    assert document["results"][0]["score_minutes"] == 12.99535
    out = io.StringIO()
    main([str(DELL)], stdout=out, stderr=err)
    assert "HPC 2.0.0 ruleset" in out.getvalue() and "strong/deepcam" in out.getvalue()
