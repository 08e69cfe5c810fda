"""Every rule of the MLPerf Automotive v0.5 checker broken once (mlperf_check/tests/
automotive_mutations.py) on a copy of the bundled real round: our official verdict of every result
is the official checker's, for the reason it gives (each of its reason lines is one of our
findings), and our stricter rules reject where they should. Compared with the official outputs
recorded in data/automotive/official_mutations_v0.5.json everywhere, and with a live run of the
official checker on the same copy where its repository is present ($MLPERF_OFFICIAL_REPOS)."""

from __future__ import annotations

import json
import re

import pytest

from mlperf_check.automotive.pipeline import check_automotive_package
from mlperf_check.report import ERROR
from mlperf_check.tests.automotive_mutations import (
    DATA,
    MUTATIONS,
    OFFICIAL_COMMIT,
    OFFICIAL_REPOSITORY,
    mutated_copy,
    official_outcome,
)
from mlperf_check.tests.official_checkers import official_tools, repository

RECORDED = json.loads(DATA.read_text())["mutations"]


def _ours(root):
    report = check_automotive_package(root)
    verdicts = {r.folder: "VALID" if r.official else "INVALID" for r in report.results}
    return report, verdicts


def _matches(reason: str, messages: list[str]) -> bool:
    return any(message == reason or message.startswith(reason) for message in messages)


def test_every_mutation_is_recorded():
    assert [m.name for m in MUTATIONS] == list(RECORDED)


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_mutation_verdicts_and_reasons(mutation, tmp_path):
    recorded = RECORDED[mutation.name]
    root = mutated_copy(mutation, tmp_path)
    report, verdicts = _ours(root)
    messages = [f.message for f in report.all_findings()]
    if "CRASH" in recorded["verdicts"].values():
        # The official checker stopped (a KeyError) before judging any result of the round; ours
        # refuses the result it stopped on, for that field, and judges the others on their own
        # (docs/differences.md).
        assert set(verdicts) == set(recorded["verdicts"])
        key = re.search(r"KeyError: '(\w+)'", recorded["reasons"][-1]).group(1)
        refused = [r for r in report.results if any(key in f.message for f in r.all_findings())]
        assert refused and all(not r.official for r in refused)
    else:
        assert verdicts == recorded["verdicts"]
        for reason in recorded["reasons"]:
            assert _matches(reason, messages), (reason, messages)
    stricter = {code for r in report.results for code in r.stricter}
    assert stricter == set(mutation.stricter)
    if mutation.stricter:
        assert any(not r.valid for r in report.results)
    else:
        assert all(r.valid == r.official for r in report.results)
    for result in report.results:
        assert result.valid == (not any(f.severity == ERROR for f in result.all_findings()))


@pytest.fixture(scope="module")
def official(tmp_path_factory):
    if not repository(OFFICIAL_REPOSITORY).is_dir():
        pytest.skip(f"the official checker's repository is not at {repository(OFFICIAL_REPOSITORY)} "
                    "(set MLPERF_OFFICIAL_REPOS): the recorded outputs were compared instead")
    return official_tools(OFFICIAL_REPOSITORY, OFFICIAL_COMMIT, tmp_path_factory.mktemp("official"))


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_official_checker_still_says_what_was_recorded(mutation, official, tmp_path):
    root = mutated_copy(mutation, tmp_path)
    assert official_outcome(official, root, tmp_path / "summary.csv") == {
        "verdicts": RECORDED[mutation.name]["verdicts"], "reasons": RECORDED[mutation.name]["reasons"]}
