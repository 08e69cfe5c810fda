"""ConsistencyChecker: the log's submission_* values against folder names and the system JSON."""

from __future__ import annotations

import io
import json

import pytest

from mlperf_check.checkers.base import RunContext
from mlperf_check.checkers.consistency import ConsistencyChecker, same_org
from mlperf_check.parsing import iter_record_blocks
from mlperf_check.report import ERROR, Finding, RunLog, SystemReport
from mlperf_check.rules.catalog import get_ruleset


def log(benchmark="resnet", division="closed", org="Dell") -> bytes:
    lines = [
        {"key": "submission_benchmark", "value": benchmark},
        {"key": "submission_division", "value": division},
        {"key": "submission_org", "value": org},
        {"key": "submission_org", "value": "ignored: only the first value counts"},
    ]
    return "".join(
        ":::MLLOG " + json.dumps({"time_ms": 0, "metadata": {}, **line}) + "\n" for line in lines
    ).encode()


def check(
    data: bytes,
    *,
    benchmark="resnet",
    division="closed",
    submitter="Dell",
    json_submitter: str | None = "Dell",
) -> list[Finding]:
    description = {} if json_submitter is None else {"submitter": json_submitter}
    context = RunContext(
        file="results/sys1/resnet/result_0.txt",
        ruleset=get_ruleset("1.0.0"),
        system_id="sys1",
        benchmark=benchmark,
        system=SystemReport("sys1", "systems/sys1.json", description, {}),
        submitter=submitter,
        division=division,
    )
    checker = ConsistencyChecker(context)
    for records in iter_record_blocks(io.BytesIO(data), file=context.file, findings=[]):
        checker.feed_records(records)
    return checker.finish(RunLog(file=context.file))


def test_it_accepts_a_log_that_agrees_with_its_package():
    assert check(log()) == []


@pytest.mark.parametrize(
    "logged, folder, json_submitter",
    [
        ("Dell EMC", "DellEMC", "Dell EMC"),
        ("Habana", "Habana", "HabanaLabs"),
        ("PCL", "PCL", "PCL & PKU"),
        ("SUPERMICRO", "Supermicro", "SUPERMICRO"),
        ("Nettrix", "nettrix", "Nettrix"),
    ],
)
def test_it_accepts_organisation_names_that_differ_in_form(logged, folder, json_submitter):
    assert check(log(org=logged), submitter=folder, json_submitter=json_submitter) == []


@pytest.mark.parametrize("logged, declared", [("Closed", "closed"), ("close", "closed"), ("OPEN", "open")])
def test_it_accepts_division_spellings(logged, declared):
    assert check(log(division=logged), division=declared) == []


def test_it_reports_a_benchmark_other_than_the_folder():
    """v1.0 Habana: a copy of the BERT logs sits inside the resnet folder."""
    [finding] = check(log(benchmark="bert"))
    assert (finding.severity, finding.code, finding.checker) == (
        ERROR,
        "LOG_BENCHMARK_MISMATCH",
        "consistency",
    )
    assert (finding.line, finding.key, finding.expected, finding.actual) == (
        1,
        "submission_benchmark",
        "resnet",
        "bert",
    )
    assert (
        finding.message
        == "the log says submission_benchmark 'bert' but it is in the benchmark folder 'resnet'"
    )


def test_it_reports_a_division_other_than_the_system_description():
    [finding] = check(log(division="closed"), division="open")
    assert (finding.code, finding.line, finding.expected, finding.actual) == (
        "LOG_DIVISION_MISMATCH",
        2,
        "open",
        "closed",
    )
    assert "systems/sys1.json says 'open'" in finding.message


def test_it_reports_an_organisation_other_than_the_submitter():
    [finding] = check(log(org="NVIDIA"), submitter="DellEMC", json_submitter="Dell EMC")
    assert (finding.code, finding.line, finding.actual) == ("LOG_ORG_MISMATCH", 3, "NVIDIA")
    assert finding.message == (
        "the log says submission_org 'NVIDIA' but the submitter folder is 'DellEMC' and "
        "the 'submitter' of systems/sys1.json is 'Dell EMC'"
    )


def test_it_names_only_the_reference_that_disagrees():
    [finding] = check(log(org="Dell"), submitter="Dell", json_submitter="Lenovo")
    assert finding.expected == "Lenovo" and "submitter folder" not in finding.message


def test_it_skips_what_it_cannot_compare():
    """Missing or empty values are compliance findings; an unknown division or a log outside a
    benchmark folder (v0.7 Alibaba) is the layout's."""
    assert check(log(benchmark="", division=" ", org=""), division="open") == []
    assert check(log(benchmark="bert", division="open"), benchmark="", division="") == []
    assert check(log(org="Dell"), json_submitter=None) == []
    assert check(b"no events\n") == []


def test_it_compares_organisations_without_case_and_punctuation():
    assert same_org("Dell EMC", "DELL-emc") and same_org("PCL", "PCL & PKU")
    assert not same_org("NVIDIA", "Dell") and not same_org("", "Dell") and not same_org("&", "&")


def test_it_finds_the_division_mismatch_of_intel_v10(corpus):
    """v1.0 Intel 4-nodes-32s-8376H-pytorch: the system JSON says open, its logs say closed."""
    package = corpus / "v1.0/Intel"
    system_id = "4-nodes-32s-8376H-pytorch"
    description = json.loads((package / "systems" / f"{system_id}.json").read_text())
    assert description["division"] == "open"
    files = sorted((package / "results" / system_id / "dlrm").glob("result_*.txt"))
    assert len(files) == 5
    for path in files:
        context = RunContext(
            file=str(path.relative_to(package)),
            ruleset=get_ruleset("1.0.0"),
            system_id=system_id,
            benchmark="dlrm",
            system=SystemReport(system_id, f"systems/{system_id}.json", description, {}),
            submitter="Intel",
            division="open",
        )
        checker = ConsistencyChecker(context)
        with path.open("rb") as stream:
            for records in iter_record_blocks(stream, file=context.file, findings=[]):
                checker.feed_records(records)
        found = {(f.code, f.actual) for f in checker.finish(RunLog(file=context.file))}
        # Intel's DLRM logs also name the reference implementation as their organisation.
        assert found == {
            ("LOG_DIVISION_MISMATCH", "closed"),
            ("LOG_ORG_MISMATCH", "reference_implementation"),
        }
