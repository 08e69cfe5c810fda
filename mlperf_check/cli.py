"""`mlperf-check`: the offline check of one submitter folder or archive.

The check needs no settings, database or broker: it is the same code the server's ingestion
worker runs. `manage.py check_package` is a thin alias of it for tools that call that name.

Exit status: 0 no errors, 1 errors found, 2 bad usage (missing path, unknown ruleset, unreadable
or unsafe archive).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from mlperf_check.inference import cli as inference_cli
from mlperf_check.inference import looks_like_inference
from mlperf_check.pipeline import PackageError, check_package
from mlperf_check.report import ERROR, INFO, WARNING, PackageReport
from mlperf_check.rules.catalog import UnknownRuleset

USAGE_ERROR = 2


DESCRIPTION = "Check an MLPerf training submission folder (or .tar/.tar.gz/.tar.xz/.zip of one) offline."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="submitter folder or archive")
    parser.add_argument("--ruleset", help="training ruleset, e.g. 1.0.0 (default: from the logs)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mlperf-check", description=DESCRIPTION)
    add_arguments(parser)
    return parser


def main(argv: list[str] | None = None, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    args = build_parser().parse_args(argv)  # exits with 2 on bad usage
    return run(args.path, ruleset=args.ruleset, as_json=args.json, stdout=stdout, stderr=stderr)


def run(path: str, *, ruleset: str | None, as_json: bool, stdout: TextIO, stderr: TextIO) -> int:
    if os.path.exists(path) and looks_like_inference(Path(path)):  # an inference folder, round or archive
        return inference_cli.run(path, round_version=ruleset, as_json=as_json, stdout=stdout, stderr=stderr)
    try:
        report = check_package(path, ruleset=ruleset, jobs=os.cpu_count() or 1)
    except (PackageError, UnknownRuleset) as exc:
        stderr.write(f"mlperf-check: {exc}\n")
        return USAGE_ERROR
    if as_json:
        stdout.write(json.dumps(report.to_json(), indent=2, default=str) + "\n")
    else:
        stdout.write(format_report(report) + "\n")
    return 1 if report.has_errors else 0


def format_report(report: PackageReport) -> str:
    lines = [f"{report.submitter}: training ruleset {report.ruleset}", ""]
    findings = report.all_findings()
    counts = {severity: sum(1 for f in findings if f.severity == severity) for severity in (ERROR, WARNING, INFO)}
    for severity in (ERROR, WARNING, INFO):
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        lines.append(f"{severity.upper()}S ({len(group)})")
        for f in group:
            where = f.file + (f":{f.line}" if f.line else "")
            lines.append(f"  [{f.code}] {where}: {f.message}" if where else f"  [{f.code}] {f.message}")
        lines.append("")
    lines.append("SCORES (minutes)")
    for result in report.results:
        score = f"{result.score_minutes:.4f}" if result.score_minutes is not None else "-"
        extra = f"  RCP {result.rcp.status}"
        if result.rcp.scaling_factor != 1.0:
            extra += f" x{result.rcp.scaling_factor:.6f}"
        note = f"  ({result.score_note})" if result.score_note else ""
        lines.append(f"  {result.system_id:40} {result.benchmark:16} {result.division:7} {score:>12}{extra}{note}")
    lines.append("")
    lines.append(f"{counts[ERROR]} errors, {counts[WARNING]} warnings, {counts[INFO]} notes")
    return "\n".join(lines)
