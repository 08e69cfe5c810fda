"""`mlperf-check` on a Tiny round, division or submitter folder (mlperf_check/suites/tiny.py sends
it a path holding Tiny results). Exit status: 0 no errors, 1 errors, 2 the path cannot be checked."""

from __future__ import annotations

import json
from typing import TextIO

from mlperf_check.errors import PackageUnreadable, UnknownRules
from mlperf_check.report import ERROR, INFO, WARNING
from mlperf_check.tiny.pipeline import check_tiny_package
from mlperf_check.tiny.report import TinyReport, TinyResult
from mlperf_check.tiny.summary import final_report_csv, summary_csv

USAGE_ERROR = 2


def run(path: str, *, ruleset: str | None, output_format: str, stdout: TextIO, stderr: TextIO) -> int:
    """`output_format`: text (github prints it too), json, or the round's published tables:
    summary-csv (the official checker's --csv) and final-report-csv (generate_final_report.py's
    closed sheet)."""
    try:
        report = check_tiny_package(path, ruleset=ruleset)
    except (PackageUnreadable, UnknownRules) as exc:
        stderr.write(f"mlperf-check: {exc}\n")
        return USAGE_ERROR
    if output_format == "json":
        stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
    elif output_format == "summary-csv":
        stdout.write(summary_csv(report.results))
    elif output_format == "final-report-csv":
        stdout.write(final_report_csv(report.results, version=report.round))
    else:
        stdout.write(format_report(report) + "\n")
    return 1 if report.has_errors else 0


def verdict_text(result: TinyResult) -> str:
    """"VALID" where both verdicts agree; both, with our stricter rules, where they do not."""
    if result.official == result.valid:
        return "VALID" if result.valid else "INVALID"
    return f"official: VALID, ours: INVALID ({', '.join(result.stricter)})"


def _figures(result: TinyResult) -> str:
    if result.throughput is None:
        return "-"
    text = f"{result.throughput:g} inf./sec."
    if result.accuracy is not None:
        name = {"top-1": "Top-1", "auc": "AUC", "fps_fns": "F1"}[result.accuracy_kind]
        text += f", {name} {result.accuracy:.4g}"
    if result.scenario and result.false_positives is not None:
        text += f" (FP {result.false_positives}, FN {result.false_negatives})"
    if result.energy is not None:
        text += f", {result.energy:g} {result.energy_unit}"
    return text


def format_report(report: TinyReport) -> str:
    lines = [f"MLPerf Tiny tiny-{report.round} ({report.rules_source}): {len(report.results)} results", ""]
    findings = report.all_findings()
    for severity in (ERROR, WARNING, INFO):
        group = [f for f in findings if f.severity == severity]
        if group:
            lines.append(f"{severity.upper()}S ({len(group)})")
            lines.extend(f"  [{f.code}] {f.file}: {f.message}" if f.file else f"  [{f.code}] {f.message}"
                         for f in group)
            lines.append("")
    lines.append("RESULTS (median throughput, higher is better; accuracy; energy, lower is better)")
    for result in report.results:
        lines.append(f"  {verdict_text(result):8} {result.folder:70} {_figures(result)}")
    counts = [sum(1 for f in findings if f.severity == s) for s in (ERROR, WARNING, INFO)]
    lines += ["", f"{counts[0]} errors, {counts[1]} warnings, {counts[2]} notes"]
    return "\n".join(lines)
