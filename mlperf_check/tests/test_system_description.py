"""SystemDescriptionChecker: required fields and status values per ruleset."""

from __future__ import annotations

import ast
import inspect
import json
import logging
from pathlib import Path

import pytest
from mlperf_logging.system_desc_checker import system_desc_checker

from mlperf_check.checkers.base import PackageContext
from mlperf_check.checkers.system_description import SystemDescriptionChecker
from mlperf_check.package import discover_package
from mlperf_check.report import PackageReport, SystemReport
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.systems import REQUIRED_FIELDS, STATUS_OPTIONS, load_system
from mlperf_check.tests.corpus import training_rounds

GOOD = {field: "" for field in REQUIRED_FIELDS} | {
    "division": "closed",
    "status": "Available on-premise",
    "number_of_nodes": "1",
    "host_processors_per_node": "2",
    "accelerators_per_node": "8",
}


def check_root(root: Path, ruleset: str) -> tuple[list, list[SystemReport]]:
    package, _ = discover_package(root)
    systems = [load_system(package, system_id) for system_id in package.system_files]
    report = PackageReport(root=str(root), ruleset=ruleset, submitter=package.submitter, systems=systems)
    context = PackageContext(package=package, ruleset=get_ruleset(ruleset), report=report)
    return SystemDescriptionChecker().run(context), systems


def check(tmp_path: Path, content: dict | str, ruleset: str = "1.0.0", rel: str = "systems/sys1.json"):
    path = tmp_path / "Org" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=1))
    findings, _ = check_root(tmp_path / "Org", ruleset)
    return findings


def official_required_fields() -> list[str]:
    """The `required_fields` list literal inside the official check_system_desc()."""
    tree = ast.parse(inspect.getsource(system_desc_checker.check_system_desc))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "required_fields":
            return [element.value for element in node.value.elts]
    raise AssertionError("required_fields not found in the official system_desc_checker")


def test_it_requires_exactly_the_official_fields():
    assert list(REQUIRED_FIELDS) == official_required_fields()
    assert len(REQUIRED_FIELDS) == 33
    source = inspect.getsource(system_desc_checker.check_system_desc)
    assert all(json.dumps(option) in source for option in STATUS_OPTIONS)


def test_it_accepts_complete_descriptions_in_every_ruleset(tmp_path):
    for ruleset in ("0.6.0", "0.7.0", "1.0.0", "4.0.0", "6.1.0"):
        assert check(tmp_path / ruleset, GOOD, ruleset) == []


def test_it_fails_missing_fields_from_1_0_and_warns_before(tmp_path):
    description = {k: v for k, v in GOOD.items() if k not in ("cooling", "sw_notes")}
    findings = check(tmp_path / "a", description, "1.0.0")
    assert [(f.severity, f.code, f.key, f.file) for f in findings] == [
        ("error", "SYSTEM_FIELD_MISSING", "cooling", "systems/sys1.json"),
        ("error", "SYSTEM_FIELD_MISSING", "sw_notes", "systems/sys1.json"),
    ]
    assert findings[0].message == 'systems/sys1.json has no field "cooling", which training 1.0.0 requires'
    assert findings[0].checker == "system_description"
    findings = check(tmp_path / "b", description, "0.7.0")
    assert [(f.severity, f.key) for f in findings] == [("warning", "cooling"), ("warning", "sw_notes")]
    assert "training 0.7.0 did not check system descriptions" in findings[0].message


def test_it_fails_misspelled_required_fields_only_where_the_official_checker_does(tmp_path):
    description = {k: v for k, v in GOOD.items() if k != "number_of_nodes"} | {"number of nodes": "1"}
    [finding] = check(tmp_path / "a", description, "1.0.0")
    assert (finding.severity, finding.code, finding.key, finding.actual) == (
        "error",
        "SYSTEM_FIELD_MISSING",
        "number_of_nodes",
        "number of nodes",
    )
    assert 'spelled "number of nodes"' in finding.message
    assert check(tmp_path / "b", description, "0.7.0") == []  # the misspelling warning covers it


def test_it_checks_status_values_from_4_0(tmp_path):
    for status in STATUS_OPTIONS:
        assert check(tmp_path / status[:4], GOOD | {"status": status}, "4.0.0") == []
    [finding] = check(tmp_path / "onprem", GOOD | {"status": "onprem"}, "4.0.0")
    assert (finding.severity, finding.code, finding.key, finding.actual) == (
        "error",
        "SYSTEM_STATUS_INVALID",
        "status",
        "onprem",
    )
    assert check(tmp_path / "old", GOOD | {"status": "onprem"}, "3.1.0") == []


def test_it_checks_the_v05_entry_schema_by_round(tmp_path):
    entry = {"division": "open", "status": "research", "framework": "MXNet", "nodes": []}
    [finding] = check(tmp_path / "a", entry, "0.6.0")
    assert (finding.severity, finding.code, finding.key) == ("warning", "SYSTEM_FIELD_MISSING", "hardware")
    [finding] = check(tmp_path / "b", entry, "1.0.0")
    assert (finding.severity, finding.code) == ("error", "SYSTEM_SCHEMA_OUTDATED")
    [finding] = check(tmp_path / "c", entry, "0.7.0")
    assert (finding.severity, finding.code) == ("warning", "SYSTEM_SCHEMA_OUTDATED")


def test_it_skips_unreadable_descriptions_and_does_not_repeat_load_findings(tmp_path):
    assert check(tmp_path / "a", '{"submitter": ', "1.0.0") == []  # SYSTEM_JSON_INVALID is load_system's
    path = tmp_path / "b/Org/systems/sys1.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(GOOD | {"division": "Closed", "number_of_nodes": "many"}))
    findings, [system] = check_root(tmp_path / "b/Org", "1.0.0")
    assert findings == []
    assert [f.code for f in system.findings] == ["SYSTEM_FIELD_NOT_NUMERIC", "SYSTEM_DIVISION_NORMALIZED"]
    assert all(f.checker == "system_description" for f in system.findings)


def test_it_reports_an_empty_object_as_missing_every_field(tmp_path):
    findings = check(tmp_path, {}, "1.0.0")
    assert [f.key for f in findings] == list(REQUIRED_FIELDS)


@pytest.mark.corpus
def test_it_agrees_with_the_official_checker_on_the_corpus(corpus, caplog):
    """Every readable system JSON of v0.7 on, checked as training 1.0.0 and 4.0.0: our rule errors
    exist exactly when the official check_system_desc() fails the file."""
    caplog.set_level(logging.CRITICAL)
    compared = 0
    for round_, _ in training_rounds(corpus, since=(0, 7)):
        for folder in sorted((corpus / round_).iterdir()):
            for ruleset in ("1.0.0", "4.0.0"):
                findings, systems = check_root(folder, ruleset)
                for system in systems:
                    try:
                        valid = system_desc_checker.check_system_desc(
                            str(folder / system.file), "training", ruleset
                        )[0]
                    except json.JSONDecodeError:
                        continue  # the official checker crashes on Alibaba's trailing commas
                    ours = [f for f in findings if f.file == system.file and f.severity == "error"]
                    assert valid == (not ours), (system.file, ruleset, [f.message for f in ours])
                    compared += 1
    # Every system JSON the official checker can read (v0.7: 5 Alibaba files with trailing commas
    # cannot be), under both rulesets.
    readable = 0
    for round_, _ in training_rounds(corpus, since=(0, 7)):
        for path in (corpus / round_).glob("*/systems/*.json"):
            try:
                json.loads(path.read_bytes())
                readable += 1
            except json.JSONDecodeError:
                continue
    assert compared == 2 * readable and readable > 0


@pytest.mark.corpus
def test_it_finds_nothing_wrong_with_the_v10_corpus_as_1_0(corpus):
    for folder in sorted((corpus / "v1.0").iterdir()):
        findings, _ = check_root(folder, "1.0.0")
        assert findings == [], folder.name
