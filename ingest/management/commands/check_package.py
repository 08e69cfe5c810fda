"""Offline check of one submitter folder or an archive of one. No database needed.

Exit status: 0 no errors, 1 errors found, 2 bad usage (missing path, unknown ruleset, unreadable
or unsafe archive).
"""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from ingest.pipeline import PackageError, check_package
from ingest.report import ERROR, INFO, WARNING, PackageReport
from ingest.rules.catalog import UnknownRuleset


class Command(BaseCommand):
    help = "Check an MLPerf training submission folder (or .tar/.tar.gz/.tar.xz/.zip of one) offline."
    requires_system_checks: list = []

    def add_arguments(self, parser):
        parser.add_argument("path", help="submitter folder or archive")
        parser.add_argument("--ruleset", help="training ruleset, e.g. 1.0.0 (default: from the logs)")
        parser.add_argument("--json", action="store_true", help="print one JSON document")

    def handle(self, *args, path, ruleset, json: bool, **options):
        try:
            report = check_package(path, ruleset=ruleset)
        except (PackageError, UnknownRuleset) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        if json:
            self.stdout.write(_dumps(report.to_json()))
        else:
            self.stdout.write(format_report(report))
        if report.has_errors:
            sys.exit(1)


def _dumps(document) -> str:
    return json.dumps(document, indent=2, sort_keys=False, default=str)


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
