"""Every HPC and energy figure of the official reference in the corpus, to full precision.

../shared/corpus/hpc/reference: the summarizer's strong table (fresh copy, and after the package
checker wrote its scaling.json files), its weak table (number_of_models, instance_scale,
time_to_train_all) and the detailed table (RCP verdict, GBS, mean epochs to converge), for HPC
v1.0 and v2.0. ../shared/corpus/power/reference: times, per-run energies and energy scores of a
real Training v4.0 submitter. Skipped where the corpus is absent.
"""

from __future__ import annotations

import csv
import io
from functools import cache
from pathlib import Path

import pytest

from mlperf_check.pipeline import check_package

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
HPC = CORPUS / "hpc"
POWER = CORPUS / "power"
ROUNDS = {"v1.0": "hpc-1.0.0", "v2.0": "hpc-2.0.0"}
# The summarizer builds its URLs from the JSON's submitter; the folders are named otherwise.
FOLDERS = {
    ("v1.0", "Fujitsu/RIKEN"): "Fujitsu+RIKEN",
    ("v2.0", "Fujitsu/RIKEN"): "Fujitsu+RIKEN",
    ("v2.0", "TACC"): "tacc",
}
RCP_LABELS = {
    "pass": "Pass",
    "pass_interpolated": "Pass",
    "pass_smaller_batch": "Pass",
    "fail": "Fail",
    "fail_interpolated": "Interp. Fail",
}


def needs(path: Path) -> None:
    if not path.is_dir():
        pytest.skip(f"the corpus is not at {path}; these tests need ../shared/corpus")


@cache
def round_reports(round_name: str) -> dict:
    folder = HPC / round_name
    return {
        sub.name: check_package(sub, ruleset=ROUNDS[round_name])
        for sub in sorted(folder.iterdir())
        if sub.is_dir()
    }


def tables(name: str) -> list[list[dict]]:
    """The tables of one summary CSV (the tool appends the weak table after the strong one)."""
    text = (HPC / "reference" / name).read_text()
    parts = ["division," + part for part in text.split("division,")[1:]]
    return [list(csv.DictReader(io.StringIO(part))) for part in parts]


def result_for(round_name: str, row: dict, benchmark: str, scaling: str):
    submitter, system_file = row["details_url"].split("/blob/main/")[1].split("/systems/")
    folder = FOLDERS.get((round_name, submitter), submitter)
    system_id = system_file.removesuffix(".json")
    report = round_reports(round_name)[folder]
    (result,) = [
        r
        for r in report.results
        if r.system_id == system_id and r.benchmark == benchmark and r.scaling == scaling
    ]
    return result


def cells(round_name: str, name: str):
    """(row, benchmark, table index) of every filled benchmark cell."""
    for index, rows in enumerate(tables(name)):
        for row in rows:
            for benchmark in ("cosmoflow", "deepcam", "oc20"):
                column = benchmark if index == 0 and benchmark in row else f"{benchmark}:time_to_train_all"
                if "_detailed" in name:
                    column = f"{benchmark}:time_to_train"
                if row.get(column):
                    yield row, benchmark, index


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
@pytest.mark.parametrize("after", [False, True], ids=["fresh", "after_package_checker"])
def test_hpc_summary_cells(round_name, after):
    needs(HPC)
    name = f"{round_name}_summary_mlperf_logging_4.1.68{'_after_package_checker' if after else ''}.csv"
    checked = 0
    for row, benchmark, table in cells(round_name, name):
        if table == 0:
            result = result_for(round_name, row, benchmark, "strong")
            # The published repositories of v1.0 and v2.0 ship no scaling.json: the fresh table
            # is the score; the package checker would have written the RCP factor.
            factor = result.rcp.checker_factor if after else 1.0
            assert repr(result.mean_minutes * factor) == row[benchmark], (row["system"], benchmark)
            assert result.score_minutes == result.mean_minutes
            checked += 1
        else:
            weak = result_for(round_name, row, benchmark, "weak").weak
            assert repr(weak.time_to_train_all_minutes) == row[f"{benchmark}:time_to_train_all"]
            assert repr(float(weak.number_of_models)) == row[f"{benchmark}:number_of_models"]
            assert repr(float(weak.instance_scale)) == row[f"{benchmark}:instance_scale"]
            assert weak.models_per_minute == weak.number_of_models / weak.time_to_train_all_minutes
            checked += 3
    assert checked == {"v1.0": 31, "v2.0": 25}[round_name]


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
def test_hpc_detailed_cells(round_name):
    """RCP verdict, global batch size and mean epochs to converge of every closed strong result."""
    needs(HPC)
    checked = 0
    for row, benchmark, _ in cells(round_name, f"{round_name}_summary_mlperf_logging_4.1.68_detailed.csv"):
        result = result_for(round_name, row, benchmark, "strong")
        if row["division"] != "closed":
            assert result.rcp.status == "not_applicable"
            continue
        assert RCP_LABELS[result.rcp.status] == row[f"{benchmark}:RCP"]
        assert repr(float(result.global_batch_size)) == row[f"{benchmark}:GBS"]
        assert repr(result.converge_mean) == row[f"{benchmark}:samples_to_converge"]
        checked += 3
    assert checked == {"v1.0": 45, "v2.0": 36}[round_name]


def test_hpc_package_verdicts():
    """The submitters the official package checker passes have no error here from its checks,
    and the RCP failures and seed failures it reports are reported."""
    needs(HPC)
    for round_name in ROUNDS:
        rows = list(
            csv.DictReader(open(HPC / "reference" / f"{round_name}_package_checker_verdicts_4.1.68.csv"))
        )
        for submitter, report in round_reports(round_name).items():
            mine = [
                r
                for r in rows
                if r["submitter_folder"] == submitter and not r["result_file"].startswith("pruned")
            ]
            for result in report.results:
                folder_rows = [
                    r
                    for r in mine
                    if r["system"] == result.system_id
                    and r["scaling"] == result.scaling
                    and r["benchmark"] == result.benchmark
                ]
                if not folder_rows:
                    continue
                row = folder_rows[0]
                codes = {f.code for f in result.findings} | {
                    f.code for run in result.runs for f in run.findings
                }
                assert (row["dir_seed_check"] == "fail") == ("SEED_MISSING" in codes), (
                    submitter,
                    result.folder,
                )
                if row["dir_rcp"].startswith("RCP Test Failed"):
                    assert result.rcp.status.startswith("fail"), (submitter, result.folder)
                elif row["dir_rcp"].startswith("RCP Test Passed"):
                    assert result.rcp.status.startswith("pass"), (submitter, result.folder)
                if row["dir_scaling_json_written"]:
                    assert repr(result.rcp.checker_factor) == row["dir_scaling_json_written"]
                assert all(run.compliant for run in result.runs), (submitter, result.folder)


# Errors we report where the official package checker says SUCCESS: logs whose submission_org is
# another organisation or a placeholder (docs/differences.md, consistency checker).
STRICTER_ERRORS = {"LOG_ORG_MISMATCH"}


def test_hpc_packages_the_official_checker_passes_have_no_other_errors():
    needs(HPC)
    for round_name in ROUNDS:
        rows = list(
            csv.DictReader(open(HPC / "reference" / f"{round_name}_package_checker_verdicts_4.1.68.csv"))
        )
        verdicts = {row["submitter_folder"]: row["package_verdict"] for row in rows if row["package_verdict"]}
        for submitter, report in round_reports(round_name).items():
            errors = {f.code for f in report.all_findings() if f.severity == "error"}
            if verdicts[submitter] == "SUCCESS":
                assert errors <= STRICTER_ERRORS, (round_name, submitter, errors)
            else:
                assert errors & {"SEED_MISSING", "RCP_FAIL"}, (round_name, submitter, errors)
    fujitsu = round_reports("v1.0")["Fujitsu+RIKEN"]
    across = [f for f in fujitsu.all_findings() if f.code == "DUPLICATE_RESULT_FILE_ACROSS_SCALING"]
    assert len(across) == 10 and {f.severity for f in across} == {"warning"}


def test_power_corpus_energies():
    needs(POWER)
    report = check_package(POWER / "v4.0" / "smc-dc-power", ruleset="4.0.0")
    reference = POWER / "reference"
    per_run = {
        (row["system"], row["benchmark"], row["result_file"]): row
        for row in csv.DictReader(open(reference / "v4.0_power_per_run_energy.csv"))
        if row["tool"].startswith("mlcommons/logging")
    }
    rows = list(csv.reader(open(reference / "v4.0_power_summary_contemporary_power.csv")))
    benchmarks, kinds, header = rows[0], rows[1], rows[2]
    checked = 0
    for run_row in rows[3:]:
        system_file = run_row[header.index("details_url")].rsplit("/", 1)[1].removesuffix(".json")
        for column, (benchmark, kind) in enumerate(zip(benchmarks, kinds, strict=True)):
            if not run_row[column] or kind not in ("perf", "power"):
                continue
            (result,) = [r for r in report.results if r.system_id == system_file and r.benchmark == benchmark]
            got = result.score_minutes if kind == "perf" else result.energy.energy
            assert repr(got) == run_row[column], (system_file, benchmark, kind)
            checked += 1
            if kind == "power":
                for run in result.energy.runs:
                    ref = per_run[(system_file, benchmark, run.file.rsplit("/", 1)[1])]
                    assert repr(run.energy) == ref["energy"]
                    checked += 1
    assert checked == 12 + 45
    # no power check fails on this folder (the official checker's verdict), only stricter warnings
    power = [f for f in report.all_findings() if f.checker == "power"]
    assert {f.severity for f in power} == {"warning"}
    assert {f.code for f in power} == {"POWER_FILE_NUMBERING", "POWER_WINDOW_EMPTY"}
