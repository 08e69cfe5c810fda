"""How `mlperf-check` prints a PackageReport: text for people, JSON for scripts, GitHub Actions
workflow commands for pull requests.

JSON: one submitter is one indented document (`PackageReport.to_json()`); a whole round is JSON
Lines, one compact document per submitter per line, so a script can read it line by line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mlperf_check.report import ERROR, INFO, WARNING, Finding, PackageReport
from mlperf_check.rules.facts import ruleset_label

FORMATS = ("text", "json", "github")

# GitHub's annotation levels for our severities.
GITHUB_LEVELS = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def unreadable_document(submitter: str, finding: Finding) -> dict[str, Any]:
    """The JSON document of a package that could not be checked at all (an unsafe archive, a path
    that is not a package): the report schema with no systems or results and the one finding."""
    report = PackageReport(root="", ruleset="", submitter=submitter, findings=[finding])
    return report.to_json()


def to_json(document: dict[str, Any], *, one_line: bool) -> str:
    if one_line:
        return json.dumps(document, default=str, separators=(",", ":"))
    return json.dumps(document, indent=2, default=str)


def format_text(report: PackageReport) -> str:
    lines = [f"{report.submitter}: {ruleset_label(report.ruleset)} ruleset", ""]
    everything = report.all_findings()
    findings = [f for f in everything if not f.waived_by]  # a server decision waived the others
    waived = [f for f in everything if f.waived_by]
    counts = {
        severity: sum(1 for f in findings if f.severity == severity) for severity in (ERROR, WARNING, INFO)
    }
    for severity in (ERROR, WARNING, INFO):
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        lines.append(f"{severity.upper()}S ({len(group)})")
        lines.extend(f"  {describe(f)}" for f in group)
        lines.append("")
    if waived:
        lines.append(f"WAIVED BY A DECISION ({len(waived)})")
        lines.extend(f"  {describe(f)} (waived by {f.waived_by})" for f in waived)
        lines.append("")
    lines.append("SCORES (minutes)")
    for result in report.results:
        score = f"{result.score_minutes:.4f}" if result.score_minutes is not None else "-"
        weak = result.weak
        if weak is not None and weak.time_to_train_all_minutes is not None:
            score = f"{weak.time_to_train_all_minutes:.4f}"
        extra = f"  RCP {result.rcp.status}"
        if result.rcp.scaling_factor != 1.0:
            extra += f" x{result.rcp.scaling_factor:.6f}"
        if weak is not None and weak.number_of_models is not None:
            extra += f"  {weak.number_of_models} models of scale {weak.instance_scale}, time to train all"
        if result.energy is not None and result.energy.energy is not None:
            extra += f"  energy {result.energy.energy:.1f} J"
        note = f"  ({result.score_note})" if result.score_note else ""
        benchmark = f"{result.scaling}/{result.benchmark}" if result.scaling else result.benchmark
        lines.append(f"  {result.system_id:40} {benchmark:16} {result.division:7} {score:>12}{extra}{note}")
    lines.append("")
    total = f"{counts[ERROR]} errors, {counts[WARNING]} warnings, {counts[INFO]} notes"
    lines.append(total + (f", {len(waived)} waived by a decision" if waived else ""))
    return "\n".join(lines)


def describe(finding: Finding) -> str:
    """`[CODE] file:line: message`, the one-line form of a finding."""
    where = finding.file + (f":{finding.line}" if finding.line else "")
    return f"[{finding.code}] {where}: {finding.message}" if where else f"[{finding.code}] {finding.message}"


def format_github(report: PackageReport, package_path: str) -> str:
    """One `::error file=...,line=...,title=CODE::message` line per finding, file paths as seen from
    the working directory (`package_path` is the submitter folder as given on the command line),
    then a plain summary line."""
    findings = report.all_findings()
    lines = [github_annotation(f, package_path) for f in findings]
    errors = sum(1 for f in findings if f.severity == ERROR and not f.waived_by)
    waived = sum(1 for f in findings if f.waived_by)
    others = len(findings) - errors - waived
    lines.append(f"{report.submitter}: {errors} errors, {others} warnings and notes"
                 + (f", {waived} waived by a decision" if waived else ""))
    return "\n".join(lines)


def github_annotation(finding: Finding, package_path: str) -> str:
    properties = []
    if finding.file:
        path = os.path.normpath(Path(package_path) / finding.file) if package_path else finding.file
        properties.append(f"file={_escape_property(path)}")
        if finding.line:
            properties.append(f"line={finding.line}")
    properties.append(f"title={_escape_property(finding.code)}")
    if finding.waived_by:  # a note, never an error: a decision waived it
        return f"::notice {','.join(properties)}::{_escape_data(f'waived by {finding.waived_by}: {finding.message}')}"
    level = GITHUB_LEVELS.get(finding.severity, "notice")
    return f"::{level} {','.join(properties)}::{_escape_data(finding.message)}"


# The escaping of GitHub's workflow commands (actions/toolkit, packages/core/src/command.ts):
# data escapes %, CR and LF; property values also escape the separators ':' and ','.
def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
