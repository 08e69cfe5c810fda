"""The seed checker (mlperf_check.checkers.seeds)."""

from __future__ import annotations

from mlperf_check.checkers.base import PackageContext
from mlperf_check.checkers.seeds import SeedChecker
from mlperf_check.report import BenchmarkResult, PackageReport, RunLog, Seed
from mlperf_check.rules.catalog import get_ruleset

RULESET = get_ruleset("1.0.0")
SOURCE = "/workspace/train.py:120"


def make_run(index: int, *seeds: Seed) -> RunLog:
    return RunLog(file=f"results/sys/resnet/result_{index}.txt", seeds=list(seeds))


def check(runs: list[RunLog], division: str = "closed", ruleset=RULESET, waivers=frozenset()):
    result = BenchmarkResult(
        system_id="sys", benchmark="resnet", folder="results/sys/resnet", division=division, runs=runs
    )
    report = PackageReport(root="/tmp/x", ruleset=ruleset.version, submitter="Org", results=[result])
    context = PackageContext(package=None, ruleset=ruleset, report=report, waivers=waivers)
    if not SeedChecker.applies_to(context):
        return None
    return SeedChecker().run(context)


def test_it_accepts_one_distinct_integer_seed_per_run():
    runs = [make_run(i, Seed(1000 + i, SOURCE, 30)) for i in range(5)]
    runs.append(make_run(5, Seed("77", SOURCE, 30)))  # int("77") is fine, as for the official
    assert check(runs) == []


def test_it_reports_a_run_without_a_seed():
    [finding] = check([make_run(0, Seed(1, SOURCE, 30)), make_run(1)])
    assert (finding.severity, finding.code, finding.file) == (
        "error",
        "SEED_MISSING",
        "results/sys/resnet/result_1.txt",
    )
    assert finding.message == (
        "results/sys/resnet/result_1.txt logs no seed; closed-division runs of training "
        "1.0.0 must log at least one `seed` through mllog"
    )


def test_it_reports_seeds_int_cannot_convert():
    findings = check(
        [
            make_run(0, Seed("abc", SOURCE, 31)),
            make_run(1, Seed(None, SOURCE, 32)),
            make_run(2, Seed(float("nan"), SOURCE, 33)),
        ]
    )
    assert [(f.code, f.line) for f in findings] == [
        ("SEED_NOT_INTEGER", 31),
        ("SEED_NOT_INTEGER", 32),
        ("SEED_NOT_INTEGER", 33),
    ]
    assert findings[0].message == "seed value 'abc' is not an integer"


def test_it_reports_the_same_seed_from_the_same_source_line_naming_both_runs():
    findings = check(
        [
            make_run(0, Seed(42, SOURCE, 30)),
            make_run(1, Seed(7, SOURCE, 30)),
            make_run(2, Seed("42", SOURCE, 35)),
        ]
    )
    [finding] = findings
    assert (finding.code, finding.file, finding.line) == (
        "SEED_REUSED",
        "results/sys/resnet/result_2.txt",
        35,
    )
    assert "result_2.txt logs seed 42 from /workspace/train.py:120" in finding.message
    assert "as results/sys/resnet/result_0.txt (line 30)" in finding.message


def test_it_allows_the_same_value_from_different_source_lines():
    runs = [make_run(0, Seed(42, SOURCE, 30)), make_run(1, Seed(42, "/workspace/data.py:9", 30))]
    assert check(runs) == []


def test_it_warns_about_more_than_one_seed_in_a_run():
    [finding] = check([make_run(0, Seed(1, SOURCE, 30), Seed(2, "/workspace/data.py:9", 44))])
    assert (finding.severity, finding.code, finding.line) == ("warning", "SEED_MULTIPLE", 44)
    assert finding.message == "results/sys/resnet/result_0.txt logs 2 seeds (lines 30, 44); one is expected"


def test_it_checks_only_the_closed_division_of_rulesets_from_1_0():
    runs = [make_run(0), make_run(1)]
    assert check(runs, division="open") == []
    assert check(runs, ruleset=get_ruleset("0.7.0")) is None
    assert len(check(runs, division=" Closed")) == 2


def test_it_turns_errors_into_notes_under_a_seed_bypass_decision():
    runs = [make_run(0, Seed(42, SOURCE, 30), Seed(43, SOURCE, 31)), make_run(1)]
    findings = check(runs, waivers=frozenset({("sys", "resnet", "seed_bypass")}))
    assert [(f.severity, f.code) for f in findings] == [
        ("warning", "SEED_MULTIPLE"),
        ("info", "SEED_MISSING"),
    ]
    assert findings[1].message.startswith("seed_bypass decision applied: ")
    assert check(runs, waivers=frozenset({("sys", "bert", "seed_bypass")}))[1].severity == "error"
