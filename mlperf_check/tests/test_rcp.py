"""RCP evaluation (mlperf_check.rules.rcp) and the RCP checker, against the official rcp_checker."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from mlperf_check.checkers.base import PackageContext
from mlperf_check.checkers.rcp import RcpChecker
from mlperf_check.report import BenchmarkResult, PackageReport, RcpOutcome, RunLog
from mlperf_check.rules import rcp
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.scoring import olympic_score
from results.constants import RcpStatus

RULESET = get_ruleset("1.0.0")
# The 1.0 RCP tables judged under the normalisation rule of 2.1 and later, so the scaling factor
# the official checker computes shows (1.0 itself published unscaled scores).
NORMALIZING = dataclasses.replace(RULESET, rcp_normalizes=True)
MLLOG = ":::MLLOG "


def make_run(
    name: str = "result_0.txt",
    epochs: float | None = 36.0,
    gbs: int | None = 3264,
    status: str = "success",
    benchmark: str = "resnet",
    **fields,
) -> RunLog:
    return RunLog(
        file=f"results/sys/{benchmark}/{name}",
        benchmark=benchmark,
        epochs_to_converge=epochs,
        global_batch_size=gbs,
        run_stop_status=status,
        **fields,
    )


def runs_with(epochs: list[float | None], **kwargs) -> list[RunLog]:
    return [
        make_run(f"result_{i}.txt", e, status="success" if e is not None else "aborted", **kwargs)
        for i, e in enumerate(epochs)
    ]


def evaluate(runs, benchmark="resnet", ruleset=NORMALIZING, division="closed", **kwargs):
    return rcp.evaluate_rcp(runs, ruleset=ruleset, benchmark=benchmark, division=division, **kwargs)


def read_result_file(path: Path) -> RunLog:
    """The fields the RCP and scoring need, read from a real log (stands in for mlperf_check.runlog)."""
    run = RunLog(file=path.name, compliant=True)
    last_epoch = last_samples = None
    with path.open(encoding="latin-1") as stream:
        for line in stream:
            start = line.find(MLLOG)
            if start < 0:
                continue
            try:
                record = json.loads(line[start + len(MLLOG) :])
            except ValueError:
                continue
            key, value, meta = record.get("key"), record.get("value"), record.get("metadata") or {}
            if key == "global_batch_size":
                run.global_batch_size = value
            elif key == "submission_benchmark":
                run.benchmark = value
            elif key == "train_samples":
                run.train_samples = value
            elif key == "eval_accuracy":
                last_epoch = round(meta["epoch_num"], 3) if "epoch_num" in meta else last_epoch
                last_samples = meta.get("samples_count", last_samples)
            elif key == "run_start":
                run.run_start_ms = record["time_ms"]
            elif key == "run_stop" and run.run_stop_ms is None:
                run.run_stop_ms = record["time_ms"]
                run.run_stop_status = meta.get("status", "")
                run.epochs_to_converge, run.samples_to_converge = last_epoch, last_samples
    return run


# -- numpy / scipy compatible arithmetic --------------------------------------------------------


def test_it_sums_in_numpys_order_bit_for_bit():
    rng = random.Random(7)
    for _ in range(400):
        n = rng.randint(1, 300)
        if rng.random() < 0.5:
            values = [rng.randint(1, 5_000_000) for _ in range(n)]
        else:
            values = [rng.uniform(-1, 1) * 10 ** rng.randint(-4, 9) for _ in range(n)]
        assert rcp.np_mean(values) == np.mean(values)
        assert rcp.np_std(values) == np.std(values)


def test_it_interpolates_like_numpy():
    rng = random.Random(3)
    for _ in range(300):
        x0 = rng.randint(1, 10_000)
        x1 = x0 + rng.randint(1, 50_000)
        y0, y1 = rng.uniform(0, 1e6), rng.uniform(0, 1e6)
        for x in (x0 - 1, x0, rng.randint(x0, x1), x1, x1 + 1):
            assert rcp.np_interp(x, x0, x1, y0, y1) == np.interp(x, [x0, x1], [y0, y1])


def test_it_computes_the_student_t_cdf_like_scipy():
    for df in (1, 2, 5, 8, 17, 26, 40, 110, 500):
        for t in (-12.0, -4.0, -2.5, -1.7, -1.0, -0.3, 0.0, 0.7, 3.0):
            assert rcp.student_t_cdf(t, df) == pytest.approx(scipy.stats.t.cdf(t, df), rel=1e-12)


def test_it_stays_exact_near_zero_where_scipy_drifts():
    # df = 1 is the Cauchy distribution: cdf(t) = 1/2 + atan(t) / pi.
    for t in (-1e-6, -1e-3, 2e-5):
        assert rcp.student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, rel=1e-15)


def test_it_matches_the_official_p_value():
    from mlperf_logging.rcp_checker.rcp_checker import RCP_Checker

    official = RCP_Checker("training", "1.0.0", "resnet", False)
    for subm_mean, stdev, n_ref, n_subm in [
        (30.0, 1.2, 13, 3),
        (34.3, 0.9, 8, 3),
        (2.5e6, 1.4e5, 18, 8),
        (40.0, 2.0, 10, 3),
    ]:
        _, expected = official._find_p_value(
            subm_mean, stdev, n_ref, 35.0 if subm_mean < 100 else 2.7e6, stdev, n_subm
        )
        ours = rcp.one_sided_p_value(subm_mean, n_ref, 35.0 if subm_mean < 100 else 2.7e6, n_subm, stdev)
        assert ours == pytest.approx(expected, rel=1e-12)


def test_it_reproduces_every_shipped_rcp_table_bit_for_bit(monkeypatch):
    """Pruned records and their mean, stdev and minimum, for every ruleset and benchmark the
    official checker can load (dlrm 1.0-2.1 needs its old run count put back)."""
    from mlperf_logging.rcp_checker import rcp_checker

    monkeypatch.setitem(rcp_checker.submission_runs["training"], "dlrm", 5)
    logging.disable(logging.CRITICAL)
    checked = 0
    try:
        for version in ("1.0.0", "2.1.0", "4.0.0", "5.0.0", "6.1.0"):
            ruleset = get_ruleset(version)
            for name, spec in ruleset.benchmarks.items():
                if name == "minigo":
                    continue
                table = rcp.load_rcp_table(ruleset.rcp_dir, name, spec.required_runs, spec.olympic_drop)
                official = rcp_checker.RCP_Checker("training", version, name, False)
                expected = [
                    (
                        key,
                        float(r["RCP Mean"]),
                        float(r["RCP Stdev"]),
                        float(r["Min Epochs"]),
                        float(r["Max Speedup"]),
                    )
                    for key, r in official.pruned_rcp_data.items()
                ]
                ours = [(r.name, r.mean, r.stdev, r.min_mean, r.max_speedup) for r in table.records]
                assert ours == expected, (version, name)
                checked += len(ours)
    finally:
        logging.disable(logging.NOTSET)
    assert checked > 80


def test_it_does_not_import_numpy_or_scipy():
    code = "import sys, mlperf_check.rules.rcp; print('scipy' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.split() == ["False", "False"]


# -- the cases of the decision ------------------------------------------------------------------


def test_it_passes_an_exact_batch_size_and_scales_faster_convergence():
    outcome = evaluate(runs_with([35, 35, 35, 35, 36]))
    assert outcome.status == rcp.PASS
    assert outcome.submission_mean == 35.0
    assert outcome.rcp_batch_size == 3264
    assert outcome.scaling_factor == 35.15384615384615 / 35.0
    assert "multiplied by 1.0044" in outcome.message


def test_it_does_not_scale_scores_of_rounds_before_2_1():
    outcome = evaluate(runs_with([35, 35, 35, 35, 36]), ruleset=RULESET)
    assert (outcome.status, outcome.scaling_factor) == (rcp.PASS, 1.0)
    assert "multiplied" not in outcome.message


def test_it_does_not_scale_a_run_slower_than_the_rcp_mean():
    outcome = evaluate(runs_with([36, 37, 37, 37, 38]))
    assert (outcome.status, outcome.scaling_factor) == (rcp.PASS, 1.0)


def test_it_fails_convergence_faster_than_the_minimum():
    outcome = evaluate(runs_with([33, 34, 34, 34, 35]))
    assert outcome.status == rcp.FAIL
    assert outcome.scaling_factor == 1.0
    assert outcome.rcp_min == pytest.approx(34.30965, abs=1e-4)
    assert "submission mean 34 epochs is below the minimum 34.3096" in outcome.message


def test_it_interpolates_between_batch_sizes():
    passing = evaluate(runs_with([50, 50, 50, 50, 50], gbs=8192))
    failing = evaluate(runs_with([30, 30, 30, 30, 30], gbs=8192))
    assert passing.status == rcp.PASS_INTERPOLATED
    assert failing.status == rcp.FAIL_INTERPOLATED
    assert passing.rcp_mean == np.interp(8192, [3264, 32768], [35.15384615384615, 56.0])
    assert "interpolated between batch sizes 3264 and 32768" in failing.message


def test_it_compares_a_smaller_batch_with_the_smallest_rcp():
    slower = evaluate(runs_with([36, 36, 36, 36, 36], gbs=1024))
    faster_within = evaluate(runs_with([34, 34, 34, 34, 34], gbs=1024))
    too_fast = evaluate(runs_with([30, 30, 30, 30, 30], gbs=1024))
    assert (slower.status, slower.scaling_factor, slower.rcp_batch_size) == (
        rcp.PASS_SMALLER_BATCH,
        1.0,
        1632,
    )
    assert faster_within.scaling_factor == 35.0 / 34.0
    assert too_fast.status == rcp.MISSING
    assert too_fast.message.startswith("Missing RCP, please submit RCP with BS = 1024")


def test_it_reports_a_batch_size_above_every_rcp_as_missing():
    outcome = evaluate(runs_with([90, 90, 90, 90, 90], gbs=131072))
    assert outcome.status == rcp.MISSING
    assert "BS = 131072" in outcome.message and "65536" in outcome.message


def test_it_counts_one_failed_run_as_infinitely_slow():
    outcome = evaluate(runs_with([35, 35, None, 35, 34]))
    assert outcome.status == rcp.PASS
    assert outcome.submission_mean == 35.0


def test_it_reports_insufficient_convergence():
    outcome = evaluate(runs_with([35, None, None, 35, 35]))
    assert outcome.status == rcp.INSUFFICIENT
    assert (
        "2 of 5 runs did not converge (results/sys/resnet/result_1.txt, results/sys/resnet/result_2.txt)"
        in outcome.message
    )


def test_it_reports_too_few_runs_instead_of_a_nan_mean():
    outcome = evaluate(runs_with([35, 35]))
    assert outcome.status == rcp.INSUFFICIENT
    assert "2 runs are too few" in outcome.message


def test_it_fails_cleanly_on_mixed_batch_sizes_where_the_official_crashes():
    runs = runs_with([35, 35, 35, 35, 35])
    runs[3].global_batch_size = 4096
    outcome = evaluate(runs)
    assert outcome.status == rcp.FAIL
    assert "different global_batch_size values: 3264 in" in outcome.message
    assert "4096 in results/sys/resnet/result_3.txt" in outcome.message


def test_it_fails_cleanly_on_mixed_logged_benchmarks():
    runs = runs_with([35, 35, 35, 35, 35])
    runs[0].benchmark = "ssd"
    assert evaluate(runs).message == "the runs log different benchmarks: resnet, ssd"


def test_it_reports_a_missing_batch_size():
    runs = runs_with([35, 35, 35, 35, 35])
    runs[2].global_batch_size = None
    outcome = evaluate(runs)
    assert outcome.status == rcp.FAIL
    assert outcome.message == "Could not detect global_batch_size in results/sys/resnet/result_2.txt"


@pytest.mark.parametrize(
    ("benchmark", "ruleset", "division", "message"),
    [
        ("resnet", get_ruleset("0.7.0"), "closed", "training 0.7.0 has no RCPs (they start with 1.0)"),
        ("resnet", RULESET, "open", "RCPs apply to the closed division only"),
        ("minigo", RULESET, "closed", "minigo has no RCPs"),
        ("gpt3", RULESET, "closed", "'gpt3' is not a benchmark of training 1.0.0"),
    ],
)
def test_it_does_not_apply_outside_closed_rcp_rulesets(benchmark, ruleset, division, message):
    outcome = evaluate(runs_with([35] * 5, benchmark=benchmark), benchmark, ruleset, division)
    assert (outcome.status, outcome.message, outcome.scaling_factor) == (rcp.NOT_APPLICABLE, message, 1.0)


def test_it_accepts_a_normalised_division_spelling():
    assert evaluate(runs_with([35] * 5), division=" Closed ").status == rcp.PASS


def test_it_reports_no_rcp_when_the_table_is_absent_or_empty(tmp_path):
    ruleset = dataclasses.replace(RULESET, rcp_dir=tmp_path)
    absent = evaluate(runs_with([35] * 5), ruleset=ruleset)
    (tmp_path / "rcps_resnet.json").write_text("{}")
    rcp.load_rcp_table.cache_clear()
    empty = evaluate(runs_with([35] * 5), ruleset=ruleset)
    rcp.load_rcp_table.cache_clear()
    assert (absent.status, empty.status) == (rcp.NO_RCP, rcp.NO_RCP)
    assert absent.message == f"the RCP tables of {tmp_path.name} have no file for resnet"
    assert "holds no records" in empty.message


def test_it_turns_rcp_failures_into_bypassed_under_a_decision():
    failed = evaluate(runs_with([30] * 5), bypass=True)
    insufficient = evaluate(runs_with([None, None, 35, 35, 35]), bypass=True)
    assert (failed.status, failed.scaling_factor) == (rcp.BYPASSED, 1.0)
    assert failed.message.endswith("; accepted under an rcp_bypass decision")
    assert insufficient.status == rcp.INSUFFICIENT


def test_it_checks_dlrm_of_rulesets_whose_official_run_table_dropped_it():
    outcome = evaluate(runs_with([1.75] * 5, gbs=32768, benchmark="dlrm"), benchmark="dlrm")
    assert outcome.status == rcp.PASS
    assert outcome.scaling_factor == 1.75625 / 1.75


def test_it_takes_train_samples_for_bert_runs_whose_epoch_num_is_not_a_sample_count():
    nvidia_style = runs_with([1] * 10, gbs=3072, benchmark="bert", train_samples=2_800_000)
    google_style = runs_with([2_800_000] * 10, gbs=3072, benchmark="bert", train_samples=9_000_000)
    assert evaluate(nvidia_style, "bert").submission_mean == 2_800_000
    assert evaluate(google_style, "bert").submission_mean == 2_800_000
    forced = evaluate(google_style, "bert", bert_train_samples=True)
    assert forced.submission_mean == 9_000_000


def test_it_uses_samples_count_for_llm_benchmarks_and_the_405b_allowance():
    ruleset = get_ruleset("5.0.0")
    record = rcp.load_rcp_table(ruleset.rcp_dir, "llama31_405b", 3, 1).records[1]  # BS 2304
    below_min = record.min_mean - 20_000
    runs = runs_with([None] * 3, gbs=2304, benchmark="llama31_405b")
    for run in runs:
        run.run_stop_status, run.samples_to_converge = "success", below_min
    outcome = evaluate(runs, "llama31_405b", ruleset)
    assert outcome.status == rcp.PASS
    assert outcome.rcp_min == record.mean / (record.mean / (record.min_mean - rcp.LLAMA31_405B_ALLOWANCE))


def test_it_uses_only_known_status_values():
    assert {
        rcp.PASS,
        rcp.PASS_INTERPOLATED,
        rcp.PASS_SMALLER_BATCH,
        rcp.FAIL,
        rcp.FAIL_INTERPOLATED,
        rcp.MISSING,
        rcp.NO_RCP,
        rcp.INSUFFICIENT,
        rcp.NOT_APPLICABLE,
        rcp.BYPASSED,
    } == set(RcpStatus.values)


# -- the real corpus, against the official checker ----------------------------------------------

CORPUS_FOLDERS = [
    # folder under v1.0, official --rcp-bert-train-samples, expected status, expected factor
    ("NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet", False, rcp.PASS, 1.0043956043956044),
    ("NVIDIA/results/dgxa100_ngc21.05_pytorch/bert", True, rcp.PASS_INTERPOLATED, 1.0),
    ("Graphcore/results/ipu-pod16-POPART-closed/bert", False, rcp.PASS, 1.0185562061670639),
    ("Google/results/tpu-v4-1024-JAX/unet3d", False, rcp.PASS_SMALLER_BATCH, 1.0),
    ("Dell/results/DSS8440x8A100-PCIE-40GB/dlrm", False, rcp.PASS_INTERPOLATED, 1.0),
    ("Google/results/tpu-v4-6912-TF/bert", False, rcp.FAIL, 1.0),
]


@pytest.mark.corpus
def test_it_agrees_with_the_official_rcp_checker_on_real_folders(corpus, tmp_path, monkeypatch):
    from mlperf_logging.rcp_checker import rcp_checker

    monkeypatch.setitem(rcp_checker.submission_runs["training"], "dlrm", 5)
    logging.disable(logging.CRITICAL)
    try:
        for folder, train_samples, status, factor in CORPUS_FOLDERS:
            copy = tmp_path / folder.replace("/", "_")
            shutil.copytree(corpus / "v1.0" / folder, copy)
            runs = [read_result_file(path) for path in sorted(copy.glob("result_*.txt"))]
            benchmark = folder.rsplit("/", 1)[1]
            ours = evaluate(runs, benchmark)
            passed, _, norm = rcp_checker.check_directory(
                str(copy),
                "training",
                "1.0.0",
                False,
                train_samples,
                rcp_pass="pruned_rcps",
                set_scaling=False,
            )
            assert (ours.status, ours.scaling_factor) == (status, factor), folder
            assert ours.status.startswith("pass") == passed, folder
            assert ours.scaling_factor == (float(norm) if passed else 1.0), folder
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.corpus
def test_it_reproduces_the_scaled_nvidia_resnet_score(corpus):
    folder = corpus / "v1.0/NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet"
    runs = [read_result_file(path) for path in sorted(folder.glob("result_*.txt"))]
    outcome = evaluate(runs)
    score = olympic_score(runs, RULESET.benchmark("resnet"), outcome.scaling_factor)
    assert score.mean_minutes == 28.770861111111106  # the summarizer without scaling.json
    assert score.score_minutes == 28.89732643467643  # with the scaling.json the checker writes


# -- the checker --------------------------------------------------------------------------------


def checker_findings(outcomes: list[RcpOutcome], benchmark: str = "resnet"):
    results = [
        BenchmarkResult(
            system_id=f"sys{i}",
            benchmark=benchmark,
            folder=f"results/sys{i}/{benchmark}",
            division="closed",
            rcp=outcome,
        )
        for i, outcome in enumerate(outcomes)
    ]
    report = PackageReport(root="/tmp/x", ruleset="1.0.0", submitter="Org", results=results)
    return RcpChecker().run(PackageContext(package=None, ruleset=RULESET, report=report))


def test_it_turns_outcomes_into_findings():
    findings = checker_findings(
        [
            RcpOutcome(rcp.FAIL, message="RCP found: too fast"),
            RcpOutcome(rcp.FAIL_INTERPOLATED, message="interpolated: too fast"),
            RcpOutcome(rcp.MISSING, message="Missing RCP, please submit RCP with BS = 9"),
            RcpOutcome(rcp.INSUFFICIENT, message="Insufficient convergence: 2 of 5"),
            RcpOutcome(rcp.PASS, scaling_factor=1.0043956, message="RCP found: ok"),
            RcpOutcome(rcp.PASS, message="RCP found: ok"),
            RcpOutcome(rcp.BYPASSED, message="RCP found: too fast; accepted under an rcp_bypass decision"),
            RcpOutcome(rcp.NOT_APPLICABLE, message="open"),
        ]
    )
    summary = [(f.severity, f.code, f.file) for f in findings]
    assert summary == [
        ("error", "RCP_FAIL", "results/sys0/resnet"),
        ("error", "RCP_FAIL", "results/sys1/resnet"),
        ("error", "RCP_MISSING", "results/sys2/resnet"),
        ("error", "RCP_INSUFFICIENT_CONVERGENCE", "results/sys3/resnet"),
        ("info", "RCP_SCALED", "results/sys4/resnet"),
        ("info", "RCP_BYPASSED", "results/sys6/resnet"),
    ]
    assert findings[0].message == "results/sys0/resnet: RCP found: too fast"
    assert findings[4].message.startswith("results/sys4/resnet: score multiplied by 1.0044")
    assert all(f.checker == "rcp" for f in findings)


def test_it_skips_benchmarks_the_ruleset_does_not_know():
    assert checker_findings([RcpOutcome(rcp.FAIL, message="x")], benchmark="resnet50") == []
