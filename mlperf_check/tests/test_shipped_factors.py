"""Shipped scaling.json and package_checker_params: read, compared with the logs, reported, never obeyed."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from mlperf_check.checkers.base import PackageContext
from mlperf_check.checkers.shipped_factors import ShippedFactorsChecker, params_files
from mlperf_check.package import discover_package
from mlperf_check.pipeline import check_package
from mlperf_check.report import BenchmarkResult, PackageReport, RunLog, ShippedFactor
from mlperf_check.rules import rcp
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.scoring import olympic_score, read_shipped_factor

# The 1.0 resnet RCP tables judged under the normalisation rule of 2.1 and later (as test_rcp does).
NORMALIZING = dataclasses.replace(get_ruleset("1.0.0"), version="2.1.0")
RESNET = NORMALIZING.benchmark("resnet")
START = 1_622_000_000_000
FOLDER = "results/sys/resnet"

# RCP case -> (epochs to converge of every run, global batch size, status evaluate_rcp gives)
RCP_CASES = {
    "pass": (35.0, 3264, rcp.PASS),
    "interpolated pass": (35.0, 3000, rcp.PASS_INTERPOLATED),
    "fail": (30.0, 3264, rcp.FAIL),
    "missing": (35.0, 100_000, rcp.MISSING),
}


def scored_result(case: str, shipped: ShippedFactor | None) -> BenchmarkResult:
    """A result folder of five converged resnet runs, scored as the pipeline scores it."""
    epochs, batch_size, _ = RCP_CASES[case]
    runs = [
        RunLog(
            file=f"{FOLDER}/result_{i}.txt",
            benchmark="resnet",
            compliant=True,
            run_start_ms=START,
            run_stop_ms=START + minutes * 60000,
            run_stop_status="success",
            epochs_to_converge=epochs,
            global_batch_size=batch_size,
        )
        for i, minutes in enumerate([30, 28, 29, 31, 27])
    ]
    outcome = rcp.evaluate_rcp(runs, ruleset=NORMALIZING, benchmark="resnet", division="closed")
    score = olympic_score(runs, RESNET, outcome.scaling_factor)
    return BenchmarkResult(
        system_id="sys",
        benchmark="resnet",
        folder=FOLDER,
        division="closed",
        runs=runs,
        rcp=outcome,
        score_minutes=score.score_minutes,
        mean_minutes=score.mean_minutes,
        shipped_factor=shipped,
    )


def shipped_findings(result: BenchmarkResult) -> list:
    report = PackageReport(root="/tmp/x", ruleset="2.1.0", submitter="Org", results=[result])
    package, _ = discover_package(Path("/nonexistent"))
    return ShippedFactorsChecker().run(PackageContext(package=package, ruleset=NORMALIZING, report=report))


def test_the_rcp_cases_are_what_their_names_say():
    factors = {case: scored_result(case, None).rcp for case in RCP_CASES}
    assert {case: outcome.status for case, outcome in factors.items()} == {
        case: status for case, (_, _, status) in RCP_CASES.items()
    }
    assert factors["pass"].scaling_factor == 1.0043956043956044
    assert factors["interpolated pass"].scaling_factor == 1.0036845507433743
    assert factors["fail"].scaling_factor == factors["missing"].scaling_factor == 1.0


# shipped -> (severity, code), for the shipped factor relative to the computed one
SHIPPED_CASES = {
    "smaller": (-0.01, "error", "SHIPPED_FACTOR_SMALLER"),
    "larger": (+0.01, "warning", "SHIPPED_FACTOR_LARGER"),
    "equal": (+1e-12, "info", "SHIPPED_FACTOR_EQUAL"),
}


@pytest.mark.parametrize("case", RCP_CASES)
@pytest.mark.parametrize("shipped_case", SHIPPED_CASES)
def test_a_shipped_factor_is_judged_against_the_logs(case, shipped_case):
    offset, severity, code = SHIPPED_CASES[shipped_case]
    computed = scored_result(case, None).rcp.scaling_factor
    shipped = computed + offset
    result = scored_result(case, ShippedFactor(f"{FOLDER}/scaling.json", shipped))
    [finding] = shipped_findings(result)
    assert (finding.severity, finding.code, finding.file) == (severity, code, f"{FOLDER}/scaling.json")
    assert (finding.expected, finding.actual) == (repr(computed), repr(shipped))
    # It names the shipped factor, the computed one with its RCP status and record, and both scores.
    assert f"ships the scaling factor {shipped:.10g}" in finding.message
    assert f"computed from the logs is {computed:.10g} (RCP {result.rcp.status}: {result.rcp.message})" in finding.message
    assert "RCP batch size" in finding.message or "Missing RCP" in finding.message
    assert f"with the shipped factor {result.mean_minutes * shipped:.6g} min" in finding.message
    assert f"from the logs {result.score_minutes:.6g} min" in finding.message
    # Never obeyed: the score is the one the logs give.
    assert result.score_minutes == result.mean_minutes * computed


@pytest.mark.parametrize("case", RCP_CASES)
def test_a_malformed_scaling_json_is_an_error_and_the_logs_decide(case):
    result = scored_result(case, ShippedFactor(f"{FOLDER}/scaling.json", None, "is not valid JSON (x)"))
    [finding] = shipped_findings(result)
    assert (finding.severity, finding.code) == ("error", "SHIPPED_FACTOR_MALFORMED")
    assert finding.message.startswith(f"{FOLDER}/scaling.json is not valid JSON (x): expected")
    assert f"computed from the logs is {result.rcp.scaling_factor:.10g} (RCP {result.rcp.status}" in finding.message


@pytest.mark.parametrize("case", RCP_CASES)
def test_an_absent_scaling_json_is_noted_only_where_the_logs_give_a_factor(case):
    result = scored_result(case, None)
    findings = shipped_findings(result)
    if result.rcp.scaling_factor == 1.0:
        assert findings == []
        return
    [finding] = findings
    assert (finding.severity, finding.code, finding.file) == ("info", "SHIPPED_FACTOR_ABSENT", FOLDER)
    assert (finding.expected, finding.actual) == (repr(result.rcp.scaling_factor), "1.0")
    assert f"gives {result.mean_minutes:.6g} min" in finding.message


# -- reading scaling.json -------------------------------------------------------------------------


def package_with(tmp_path: Path, content: bytes | None, name: str = "scaling.json"):
    root = tmp_path / "Org"
    folder = root / FOLDER
    folder.mkdir(parents=True)
    (root / "systems").mkdir()
    (root / "systems/sys.json").write_text('{"division": "closed"}')
    (folder / "result_0.txt").write_text("")
    if content is not None:
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_bytes(content)
    package, _ = discover_package(root)
    return package, package.benchmark_dirs[0]


@pytest.mark.parametrize(
    ("content", "factor"),
    [
        (b'{"scaling_factor": 1.0370762711864403}', 1.0370762711864403),
        (b'{"scaling_factor": 2}', 2.0),
        (b'{"scaling_factor": 1.5, "note": "extra keys are read past"}', 1.5),
    ],
)
def test_it_reads_a_well_formed_scaling_json(tmp_path, content, factor):
    package, bench_dir = package_with(tmp_path, content)
    assert read_shipped_factor(package, bench_dir) == ShippedFactor(f"{FOLDER}/scaling.json", factor)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "is not valid JSON"),
        (b"{scaling_factor: 1.1}", "is not valid JSON"),
        (b"\xff\xfe1.1", "is not UTF-8 text"),
        (b"[1.1]", 'is not a JSON object with a "scaling_factor" key'),
        (b'{"factor": 1.1}', 'is not a JSON object with a "scaling_factor" key'),
        (b'{"scaling_factor": "1.1"}', 'has a scaling_factor that is not a number: "1.1"'),
        (b'{"scaling_factor": true}', "has a scaling_factor that is not a number: true"),
        (b'{"scaling_factor": null}', "has a scaling_factor that is not a number: null"),
        (b'{"scaling_factor": NaN}', "not a positive finite number: nan"),
        (b'{"scaling_factor": Infinity}', "not a positive finite number: inf"),
        (b'{"scaling_factor": 0}', "not a positive finite number: 0"),
        (b'{"scaling_factor": -1.0}', "not a positive finite number: -1.0"),
        (b'{"scaling_factor": 1' + b"0" * 400 + b"}", "not a positive finite number: 1000"),
        (b"[" * 3000 + b"]" * 3000, "is larger than 4096 bytes"),
        (b"[" * 2000 + b"]" * 2000, "is not valid JSON"),
        (b'{"scaling_factor": 1.1}' + b" " * 5000, "is larger than 4096 bytes"),
    ],
)
def test_a_malformed_scaling_json_is_a_problem_never_a_crash(tmp_path, content, problem):
    package, bench_dir = package_with(tmp_path, content)
    shipped = read_shipped_factor(package, bench_dir)
    assert shipped.factor is None
    assert shipped.problem.startswith(problem) or problem in shipped.problem


def test_a_folder_without_scaling_json_ships_nothing(tmp_path):
    package, bench_dir = package_with(tmp_path, None)
    assert read_shipped_factor(package, bench_dir) is None
    # Only the file directly in the folder counts, as for the official summarizer.
    package, bench_dir = package_with(tmp_path / "nested", b'{"scaling_factor": 1.2}', name="old/scaling.json")
    assert read_shipped_factor(package, bench_dir) is None


def test_a_scaling_json_that_is_a_symlink_is_not_read(tmp_path):
    (tmp_path / "elsewhere.json").write_text('{"scaling_factor": 0.5}')
    package, bench_dir = package_with(tmp_path, None)
    (package.root / FOLDER / "scaling.json").symlink_to(tmp_path / "elsewhere.json")
    package, _ = discover_package(package.root)
    assert read_shipped_factor(package, package.benchmark_dirs[0]) is None  # discovery refused the link


# -- package_checker_params -----------------------------------------------------------------------


def test_it_finds_params_files_where_the_official_tools_read_them():
    files = [
        "package_checker_params",
        "results/sys/package_checker_params",
        "results/sys/resnet/package_checker_params",
        "results/sys/resnet/deeper/package_checker_params",
        "systems/package_checker_params",
    ]
    assert params_files(files) == files[:3]


def test_a_bypass_file_is_reported_and_never_obeyed(tmp_path, corpus):
    """IEI's dlrm_dcnv2 logs carry no seeds, so the seed check fails them. Every bypass file the
    official tools obey asks to skip it: each file gets a finding, and the seed check still runs."""
    root = tmp_path / "IEI"
    shutil.copytree(corpus / "v3.0/IEI", root)
    folder = root / "results/nf5468m6_hugectr/dlrm_dcnv2"
    (root / "package_checker_params").write_text("rcp-bypass\nseed-checker-bypass")
    (root / "results/nf5468m6_hugectr/package_checker_params").write_text("seed-checker-bypass")
    (folder / "package_checker_params").write_bytes(b"seed-checker-bypass\n\xff odd line\n")
    report = check_package(root, ruleset="3.0.0")
    params = [f for f in report.all_findings() if f.code == "PACKAGE_CHECKER_PARAMS_IGNORED"]
    assert [(f.severity, f.file, f.actual) for f in params] == [
        ("warning", "package_checker_params", "rcp-bypass, seed-checker-bypass"),
        ("warning", "results/nf5468m6_hugectr/package_checker_params", "seed-checker-bypass"),
        ("warning", "results/nf5468m6_hugectr/dlrm_dcnv2/package_checker_params", "seed-checker-bypass"),
    ]
    assert "never obeyed" in params[0].message and "other lines: '\ufffd odd line'" in params[2].message
    [dlrm] = [result for result in report.results if result.folder.endswith("dlrm_dcnv2")]
    assert sum(f.code == "SEED_MISSING" for f in dlrm.findings) == 10


@pytest.mark.parametrize(
    ("content", "code", "severity"),
    [
        (b'{"scaling_factor": 0.9}', "SHIPPED_FACTOR_SMALLER", "error"),
        (b'{"scaling_factor": 1.5}', "SHIPPED_FACTOR_LARGER", "warning"),
        (b'{"scaling_factor": 1.0043956043956044}', "SHIPPED_FACTOR_EQUAL", "info"),
        (b"not json", "SHIPPED_FACTOR_MALFORMED", "error"),
    ],
)
def test_the_pipeline_scores_from_the_logs_whatever_the_package_ships(tmp_path, corpus, content, code, severity):
    root = tmp_path / "IEI"
    shutil.copytree(corpus / "v3.0/IEI/systems", root / "systems")
    shutil.copytree(corpus / "v3.0/IEI/results/nf5468m6_mxnet", root / "results/nf5468m6_mxnet")
    (root / "results/nf5468m6_mxnet/resnet/scaling.json").write_bytes(content)
    [result] = check_package(root).results
    assert result.score_minutes == 66.69938993894993  # the published score, from the logs
    assert result.rcp.scaling_factor == 1.0043956043956044
    [finding] = [f for f in result.findings if f.checker == "shipped_factors"]
    assert (finding.code, finding.severity) == (code, severity)
    shipped = check_package(root).to_json()["results"][0]["shipped_scaling_factor"]
    assert shipped == (None if code == "SHIPPED_FACTOR_MALFORMED" else json.loads(content)["scaling_factor"])
