"""`mlperf-check` on an MLPerf Automotive round, division or submitter folder (the command
dispatches here when mlperf_check/suites/automotive.py recognizes the path). Exit status: 0 no
errors, 1 errors, 2 the path cannot be checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from mlperf_check.automotive.pipeline import check_automotive_package
from mlperf_check.automotive.rules import SUMMARY_REPOSITORY, rules_for
from mlperf_check.automotive.summary import checker_row, summary_json, summary_results
from mlperf_check.errors import PackageUnreadable, UnknownRules
from mlperf_check.inference.discovery import read_system_descriptions
from mlperf_check.inference.report import InferenceReport, verdict_text
from mlperf_check.report import ERROR, INFO, WARNING

USAGE_ERROR = 2


def run(path: str, *, ruleset: str | None, output_format: str, stdout: TextIO, stderr: TextIO) -> int:
    """`output_format`: text (github prints it), json, or summary-json (the round's accepted
    results as MLCommons publishes them)."""
    try:
        report = check_automotive_package(path, ruleset=ruleset)
    except (PackageUnreadable, UnknownRules) as exc:
        stderr.write(f"mlperf-check: {exc}\n")
        return USAGE_ERROR
    if output_format == "json":
        stdout.write(json.dumps(report.to_json(), indent=2, default=str) + "\n")
    elif output_format == "summary-json":
        stdout.write(summary_json(report_summary(report, Path(path))) + "\n")
    else:
        stdout.write(format_report(report) + "\n")
    return 1 if report.has_errors else 0


def report_summary(report: InferenceReport, root: Path) -> list[dict]:
    """summary_results.json of the report's results that the official verdict accepts."""
    rules = rules_for(report.round)
    descriptions: dict[str, dict] = {}
    rows = []
    for result in report.results:
        if not result.official or result.metric_value is None:
            continue
        # <submitter folder>/results/<system>/<model>/<scenario>
        key = str(Path(result.folder).parents[3])
        if key not in descriptions:
            descriptions[key] = read_system_descriptions(root / key)
        rows.append(checker_row(
            submitter=result.submitter, division=result.division, system=result.system,
            description=descriptions[key].get(result.system, {}), model_folder=result.model_folder,
            model=result.model, scenario=result.scenario, figure=result.metric_value,
            unit=rules.table["units"][result.scenario], accuracy=result.accuracy_printed, location=result.folder,
            weight_data_types=result.system_info.get("weight_data_types", ""), version=rules.version,
        ))
    repository = SUMMARY_REPOSITORY.get(rules.version, "")
    return summary_results(rows, version=rules.version.lstrip("v"), repository=repository)


def format_report(report: InferenceReport) -> str:
    lines = [f"MLPerf Automotive, rules {report.round}: {len(report.results)} results", ""]
    findings = report.all_findings()
    for severity in (ERROR, WARNING, INFO):
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        lines.append(f"{severity.upper()}S ({len(group)})")
        for f in group:
            # The official wording names the file itself, mostly; where it does not, it follows.
            where = f.file + (f":{f.line}" if f.line else "")
            lines.append(f"  [{f.code}] {f.message}" + (f" ({where})" if f.file and f.file not in f.message else ""))
        lines.append("")
    lines.append("RESULTS (latency in ms, lower is better)")
    for result in report.results:
        value = f"{result.metric_value} {result.metric_unit}" if result.metric_value is not None else "-"
        verdict = verdict_text(result.official, result.valid, result.stricter)
        lines.append(f"  {verdict:8} {result.folder:70} {value}")
    counts = {severity: sum(1 for f in findings if f.severity == severity) for severity in (ERROR, WARNING, INFO)}
    lines.append("")
    lines.append(f"{counts[ERROR]} errors, {counts[WARNING]} warnings, {counts[INFO]} notes")
    return "\n".join(lines)
