"""`mlperf-check` on an inference round, division or submitter folder (the command dispatches here
when the folder holds LoadGen results). Same exit status as for training: 0 no errors, 1 errors,
2 the path cannot be checked."""

from __future__ import annotations

import json
from typing import TextIO

from mlperf_check.inference.pipeline import InferencePackageError, check_inference_package
from mlperf_check.inference.report import InferenceReport, verdict_text
from mlperf_check.inference.summary_export import report_summary, summary_csv, summary_json
from mlperf_check.report import ERROR, INFO, WARNING

USAGE_ERROR = 2


def run(path: str, *, round_version: str | None, output_format: str, stdout: TextIO, stderr: TextIO) -> int:
    """`output_format`: text, json, or the round's accepted results as MLCommons publishes them
    (summary-json, summary-csv); the exit status is the check's in every format."""
    try:
        report = check_inference_package(path, round_version=round_version)
    except InferencePackageError as exc:
        stderr.write(f"mlperf-check: {exc}\n")
        return USAGE_ERROR
    if output_format == "json":
        stdout.write(json.dumps(report.to_json(), indent=2, default=str) + "\n")
    elif output_format == "summary-json":
        stdout.write(summary_json(report_summary(report)) + "\n")
    elif output_format == "summary-csv":
        stdout.write(summary_csv(report_summary(report)))
    else:
        stdout.write(format_report(report) + "\n")
    return 1 if report.has_errors else 0


def format_report(report: InferenceReport) -> str:
    lines = [f"inference round {report.round or '(no rules)'}: {len(report.results)} results", ""]
    findings = report.all_findings()
    for severity in (ERROR, WARNING, INFO):
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        lines.append(f"{severity.upper()}S ({len(group)})")
        for f in group:
            where = f.file + (f":{f.line}" if f.line else "")
            lines.append(f"  [{f.code}] {where}: {f.message}" if where else f"  [{f.code}] {f.message}")
        lines.append("")
    lines.append("RESULTS (scenario metric; higher or lower is better)")
    for result in report.results:
        value = f"{result.metric_value:.6g}" if result.metric_value is not None else "-"
        verdict = verdict_text(result.official, result.valid, result.stricter)
        metric = f"{value} {result.metric_unit} ({result.metric_direction})" if result.metric_unit else value
        lines.append(f"  {verdict:8} {result.folder:80} {metric}{_extras(result)}")
    counts = {
        severity: sum(1 for f in findings if f.severity == severity) for severity in (ERROR, WARNING, INFO)
    }
    lines.append("")
    lines.append(f"{counts[ERROR]} errors, {counts[WARNING]} warnings, {counts[INFO]} notes")
    return "\n".join(lines)


def _extras(result) -> str:
    """Power and LLM token latencies, where a result has them (v2.1+ rounds)."""
    out = ""
    if result.power_value is not None:
        out += (
            f"; power {result.power_value:.6g} {result.power_unit}, {result.power_efficiency:.6g} samples/J"
        )
    latency = result.token_latency
    if latency.get("ttft_p99_ms") is not None and latency.get("ttft_limit_ms") is not None:
        out += (
            f"; TTFT p99 {latency['ttft_p99_ms']:.4g}/{latency['ttft_limit_ms']:g} ms, "
            f"TPOT p99 {latency['tpot_p99_ms']:.4g}/{latency['tpot_limit_ms']:g} ms"
        )
    return out
