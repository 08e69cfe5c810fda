"""`mlperf-check` on MLPerf Tiny paths (the bundled real sample, sample_data/tiny-v1.3): which
paths the Tiny suite takes, an archive and a lone submitter folder, the formats, bad usage."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from mlperf_check import cli
from mlperf_check.suites import suite_for
from mlperf_check.tiny.rules import rules_for

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
ROUND = SAMPLE / "tiny-v1.3"


def run(path, *arguments: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main([str(path), *arguments], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("folder, suite", [
    ("tiny-v1.3", "tiny"), ("tiny-v1.3/closed", "tiny"), ("tiny-v1.3/closed/syntiant", "tiny"),
    ("training-v1.0", "training"), ("inference-v4.1", "inference"), ("hpc-v1.0", "hpc"),
    ("automotive-v0.5", "automotive"),
])
def test_the_tiny_suite_takes_tiny_folders_only(folder, suite):
    assert suite_for(SAMPLE / folder).name == suite


def test_an_archive_of_a_lone_submitter_folder_is_checked_as_closed(tmp_path):
    archive = tmp_path / "syntiant.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(ROUND / "closed" / "syntiant", arcname="syntiant")
    status, out, _ = run(archive, "--format", "json")
    report = json.loads(out)
    assert status == 0 and report["ruleset"] == "tiny-1.3"
    assert {r["folder"].split("/")[0] for r in report["results"]} == {"closed"}  # one description says "Open"
    assert [r["verdict"]["official"] for r in report["results"]] == ["VALID"] * 4


def test_the_text_report_names_each_result_with_its_figures():
    status, out, _ = run(ROUND, "--ruleset", "tiny-1.3")
    assert status == 0
    assert "VALID    closed/syntiant/results/syntiant_9120_0v9_30mhz/kws" in out
    assert "228.982 inf./sec., Top-1 91.1, 31.537 uJ/inf." in out
    assert "1430.8 inf./sec., F1 0.92 (FP 4, FN 4), 0.5067 mW" in out


def test_an_unknown_round_or_format_is_bad_usage():
    status, _, err = run(ROUND, "--ruleset", "tiny-1.2")
    assert status == 2 and "no MLPerf Tiny rules for 'tiny-1.2'; known: tiny-1.3" in err
    status, _, err = run(ROUND, "--format", "summary-json")
    assert status == 2 and "--format summary-json is for" in err


def test_a_ruleset_is_named_as_users_type_it():
    assert {rules_for(text).name for text in ("tiny-1.3", "1.3", "v1.3", " TINY-1.3 ")} == {"tiny-1.3"}
