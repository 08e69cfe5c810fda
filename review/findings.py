"""Findings as the review pages, the upload status and the waivers export show them: each with the
decision that waived it, counts without the waived ones, and a result's findings with a link to
the log line each cites. The stored log copies are read page by page (results/logs.py)."""

from __future__ import annotations

from collections import Counter

from django.urls import reverse

from mlperf_check.waivers import FINDING_WAIVER_KINDS, FORMAT, waived_checker_and_code
from results import logs
from results.models import Finding, Result, Run, Waiver


def log_line_url(sha256: str, line: int) -> str:
    """A link to one line of a log, on whichever page holds it."""
    return f"{reverse('pages:log', args=[sha256])}?page={logs.page_of_line(line)}#L{line}"


def findings_with_log_urls(result: Result, runs: list[Run]) -> list[Finding]:
    """The result's findings, each with `log_url`: the log line it cites (or ""), and `waiver`:
    the decision that waived it (or None)."""
    findings = with_waivers(Finding.objects.with_waiver().filter(result=result).order_by("file", "line", "pk"))
    log_of_file = {run.file: run for run in runs if run.log_name}
    for finding in findings:
        run = log_of_file.get(finding.file)
        finding.log_url = log_line_url(run.sha256, finding.line) if run and finding.line else ""
    return findings


def with_waivers(findings) -> list[Finding]:
    """Findings of a `with_waiver()` queryset, each with `waiver`: the decision that waived it (or
    None), as FindingQuerySet.covering_waivers decides (mlperf_check/waivers.py's rule)."""
    findings = list(findings)
    waivers = Waiver.objects.in_bulk({f.waiver_id for f in findings if f.waiver_id})
    for finding in findings:
        finding.waiver = waivers.get(finding.waiver_id)
    return findings


def finding_counts(findings) -> dict[str, int]:
    """A queryset of findings counted as every page and the upload status show them (the one
    count): by severity ("error", "warning", "info") only those no decision waived; "waived": how
    many a decision waived; and "waived_<severity>" for each severity with any waived ones, so that
    a page says "Errors: 0 (5 waived)" rather than counting them as open."""
    from django.db.models import Count

    rows = findings.with_waiver().order_by().values("severity").annotate(total=Count("pk"), waived=Count("waiver_id"))
    return _counts([(row["severity"], row["total"], row["waived"]) for row in rows])


def read_finding_counts(findings: list[Finding]) -> dict[str, int]:
    """finding_counts of findings already read with their waivers (with_waivers: all of a result's,
    as its pages list them), counted here rather than asked of the database again."""
    totals = Counter(finding.severity for finding in findings)
    waived = Counter(finding.severity for finding in findings if finding.waiver_id)
    return _counts([(severity, total, waived[severity]) for severity, total in totals.items()])


def _counts(rows: list[tuple[str, int, int]]) -> dict[str, int]:
    """finding_counts from (severity, findings, waived ones) of each severity."""
    open_ = {severity: total - waived for severity, total, waived in rows if total > waived}
    waived = {f"waived_{severity}": waived for severity, _, waived in rows if waived}
    return {**open_, "waived": sum(waived.values()), **waived}


# How the pages name each severity's count ("Errors: 0 (5 waived)").
SEVERITY_PLURALS = {"error": "Errors", "warning": "Warnings", "info": "Notes"}


def severity_groups(findings: list[Finding], counts: dict[str, int]) -> list[dict]:
    """A result's findings (each with `waiver`, as with_waivers gives them) grouped by severity
    for its pages: each group's `open` and `waived` counts come from finding_counts."""
    from results.constants import Severity

    return [
        {"key": severity, "label": SEVERITY_PLURALS[severity],
         "findings": [f for f in findings if f.severity == severity],
         "open": counts.get(severity, 0), "waived": counts.get(f"waived_{severity}", 0)}
        for severity in Severity.values
    ]


def waivers_document(submission) -> dict:
    """The decisions that waive findings of this version, as `mlperf-check --waivers FILE` reads
    them (mlperf_check/waivers.py, the rule both sides apply): which checker's findings (a bypass)
    or which code (a known false positive), on which system and benchmark ("" and "": the package's
    own findings)."""
    waivers = Waiver.objects.filter(
        round=submission.round_id, organization=submission.organization_id, accepted=True,
        kind__in=FINDING_WAIVER_KINDS,
    ).order_by("pk")
    entries = []
    for w in waivers:
        checker, code = waived_checker_and_code(w.kind, w.code)
        entries.append({
            "id": w.pk, "kind": w.kind, "label": w.get_kind_display(), "checker": checker, "code": code,
            "system": w.system_id, "benchmark": w.benchmark, "reason": w.reason, "decided_at": w.created_at.isoformat(),
        })
    return {
        "format": FORMAT,
        "round": submission.round.slug,
        "organization": submission.organization.slug,
        "version": submission.version,
        "waivers": entries,
    }
