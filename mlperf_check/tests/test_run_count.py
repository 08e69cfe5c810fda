"""The run count checker (mlperf_check.checkers.run_count)."""

from __future__ import annotations

from mlperf_check.checkers.base import PackageContext
from mlperf_check.checkers.run_count import RunCountChecker
from mlperf_check.report import BenchmarkResult, PackageReport, RunLog
from mlperf_check.rules.catalog import get_ruleset

RULESET = get_ruleset("1.0.0")


def make_runs(benchmark: str, count: int, aborted: tuple[int, ...] = ()) -> list[RunLog]:
    return [
        RunLog(
            file=f"results/x/{benchmark}/result_{i}.txt",
            run_start_ms=0.0,
            run_stop_ms=60000.0,
            run_stop_status="aborted" if i in aborted else "success",
            compliant=True,
        )
        for i in range(count)
    ]


def check(benchmark: str, runs: list[RunLog]):
    result = BenchmarkResult(
        system_id="x", benchmark=benchmark, folder=f"results/x/{benchmark}", division="closed", runs=runs
    )
    report = PackageReport(root="/tmp/x", ruleset="1.0.0", submitter="Org", results=[result])
    return RunCountChecker().run(PackageContext(package=None, ruleset=RULESET, report=report))


def test_it_accepts_the_required_number_of_converged_runs():
    assert check("resnet", make_runs("resnet", 5)) == []
    assert check("unet3d", make_runs("unet3d", 40)) == []


def test_it_reports_a_wrong_number_of_result_files():
    [finding] = check("resnet", make_runs("resnet", 4))
    assert (finding.severity, finding.code, finding.file) == ("error", "RUN_COUNT_WRONG", "results/x/resnet")
    assert finding.message == (
        "found 4 result_*.txt files in results/x/resnet; training 1.0.0 requires exactly 5 for resnet"
    )
    assert (finding.expected, finding.actual) == ("5", "4")
    assert check("bert", make_runs("bert", 11))[0].code == "RUN_COUNT_WRONG"


def test_it_accepts_failures_up_to_the_olympic_drop():
    [finding] = check("resnet", make_runs("resnet", 5, aborted=(1,)))
    assert (finding.severity, finding.code) == ("info", "ACCEPTED_UNDER_OLYMPIC")
    assert finding.message.endswith("accepts up to 1): result_1.txt (run_stop status aborted)")
    assert check("unet3d", make_runs("unet3d", 40, aborted=(0, 1, 2, 3)))[0].code == "ACCEPTED_UNDER_OLYMPIC"


def test_it_rejects_more_failures_than_the_olympic_drop_naming_them():
    runs = make_runs("resnet", 5, aborted=(1,))
    runs[3].compliant = False
    [finding] = check("resnet", runs)
    assert (finding.severity, finding.code) == ("error", "TOO_MANY_FAILED_RUNS")
    assert finding.message == (
        "2 of 5 runs in results/x/resnet failed; olympic scoring of resnet accepts at most 1: "
        "result_1.txt (run_stop status aborted); result_3.txt (failed compliance)"
    )
    assert check("unet3d", make_runs("unet3d", 40, aborted=(0, 1, 2, 3, 4)))[0].code == "TOO_MANY_FAILED_RUNS"


def test_it_reports_both_problems_of_one_folder():
    codes = [f.code for f in check("resnet", make_runs("resnet", 3, aborted=(0, 2)))]
    assert codes == ["RUN_COUNT_WRONG", "TOO_MANY_FAILED_RUNS"]


def test_it_skips_benchmarks_the_ruleset_does_not_know():
    assert check("resnet50", make_runs("resnet50", 2)) == []
