"""The table of finding sources (mlperf_check/finding_sources.py) and the checker classes it
registers: names, versions, scopes, and the sources that report as another."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from mlperf_check import finding_sources
from mlperf_check.checkers import checkers_of_scope, get_checker
from mlperf_check.finding_sources import CHECKERS, ROUND_RULES, checker_version, reported_as
from mlperf_check.inference.pipeline import check_inference_package

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def test_every_checker_class_has_the_scope_it_is_registered_with():
    # The registry's scope decides which modules a check imports; the class's decides where it runs.
    for name, registered in CHECKERS.items():
        if registered.path:
            assert get_checker(name).scope == registered.scope, name


def test_each_scope_lists_its_checkers_in_registry_order():
    for scope in ("run", "package", "inference"):
        names = [name for name, registered in CHECKERS.items() if registered.path and registered.scope == scope]
        assert names
        assert [cls.name for cls in checkers_of_scope(scope)] == names


def test_the_table_imports_nothing_of_the_project():
    # Every module that makes findings imports it: it must sit below all of them (no import cycle).
    tree = ast.parse(Path(finding_sources.__file__).read_text())
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert not [name for name in imported if name and name.startswith("mlperf_check")]


def test_a_checker_that_reports_as_a_source_has_no_version_of_its_own():
    for name, registered in CHECKERS.items():
        if registered.reports_as:
            source = CHECKERS[registered.reports_as]
            assert (registered.version, source.path, source.reports_as) == (0, "", ""), name
            assert source.version >= 1
        else:
            assert registered.version >= 1, name


def test_the_round_rules_run_as_one_checker_per_concern_in_the_official_checkers_order():
    concerns = [name for name, registered in CHECKERS.items() if registered.reports_as == ROUND_RULES]
    assert concerns == [
        "inference_round_model",
        "inference_round_system",
        "inference_round_category",
        "inference_round_measurements",
        "inference_round_accuracy",
        "inference_round_performance_run",
        "inference_round_token_latency",
        "inference_round_network",
        "inference_round_compliance",
    ]
    # Last among the inference checkers, as the one checker they were written as ran.
    inference = [name for name, registered in CHECKERS.items() if registered.path and registered.scope == "inference"]
    assert inference[-len(concerns) :] == concerns
    assert {reported_as(name) for name in concerns} == {ROUND_RULES}
    assert {checker_version(name) for name in concerns} == {checker_version(ROUND_RULES)}


def test_the_findings_of_every_round_rule_concern_name_the_one_source(tmp_path):
    # Stored findings, bypass waivers and every output format know the source by this one name.
    package = tmp_path / "closed" / "NeuralMagic"
    shutil.copytree(SAMPLE / "inference-v4.1/closed/NeuralMagic", package)
    (description,) = (package / "systems").glob("*.json")
    description.write_text(description.read_text().replace('"status"', '"state"'))
    report = check_inference_package(package, round_version="v4.1")
    findings = [f for result in report.results for f in result.findings if f.code == "system_status"]
    assert len(findings) == len(report.results) == 2
    assert {(f.checker, f.checker_version) for f in findings} == {(ROUND_RULES, 1)}
