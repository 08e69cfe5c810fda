"""A result's findings as the public and the review result pages list them: each with a link to
the log line it cites. The stored log copies are read page by page (results/logs.py)."""

from __future__ import annotations

from django.urls import reverse

from results import logs
from results.models import Finding, Result, Run, Waiver


def log_line_url(sha256: str, line: int) -> str:
    """A link to one line of a log, on whichever page holds it."""
    return f"{reverse('pages:log', args=[sha256])}?page={logs.page_of_line(line)}#L{line}"


def findings_with_log_urls(result: Result, runs: list[Run]) -> list[Finding]:
    """The result's findings, each with `log_url`: the log line it cites (or ""), and `waiver`:
    the decision that waived it (or None)."""
    findings = list(Finding.objects.with_waiver().filter(result=result).order_by("file", "line", "pk"))
    waivers = Waiver.objects.in_bulk({f.waiver_id for f in findings if f.waiver_id})
    log_of_file = {run.file: run for run in runs if run.log_name}
    for finding in findings:
        finding.waiver = waivers.get(finding.waiver_id)
        run = log_of_file.get(finding.file)
        finding.log_url = log_line_url(run.sha256, finding.line) if run and finding.line else ""
    return findings
