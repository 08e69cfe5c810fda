"""Submission versions: new_version() numbers them for uploads and imports alike and the imports
write each once; which one is current or published is the lifecycle's (services/lifecycle.py:
make_current, publish_version). Also what both imports share when they write a version's rows
(outcome, organization, findings)."""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from ..models import Finding, Organization, Round, Submission, fitted
from ..signals import data_changed


@dataclass
class ImportOutcome:
    submission: Submission
    status: str  # "created" | "updated" | "unchanged"
    results: int = 0
    runs: int = 0
    decisions: int = 0  # published_factor decisions recorded or changed


def organization_named(submitter: str, spellings) -> Organization:
    """The organization of a submitter folder (both imports): found by the folder's slug, created
    on first import with the name its system descriptions spell most often (`spellings`)."""
    spelled = Counter(str(spelling).strip() for spelling in spellings if spelling)
    spelled.pop("", None)
    name = spelled.most_common(1)[0][0] if spelled else submitter
    slug = slugify(submitter) or slugify(name) or "unknown"
    org = Organization.objects.filter(slug=slug).first()
    if org is None:
        if Organization.objects.filter(name=name).exists():
            name = f"{name} ({submitter})"
        org = Organization.objects.create(name=name, slug=slug, aliases=sorted({submitter, *spelled}))
    return org


class VersionAlreadyWritten(Exception):
    """A submission version is written once; a change is a new version."""


def new_version(
    *,
    round_: Round,
    organization: Organization,
    sha256: str,
    source: str,
    size_bytes: int = 0,
    uploaded_by=None,
) -> Submission:
    """Allocate the next version number of `organization`'s submission to `round_` (previous
    maximum + 1) and create its empty, non-current row. The only place versions are numbered,
    for uploads and imports alike; the lock on the organization row makes two simultaneous
    callers get two versions."""
    with transaction.atomic():
        Organization.objects.select_for_update().get(pk=organization.pk)
        latest = Submission.objects.filter(round=round_, organization=organization).aggregate(v=Max("version"))["v"]
        return Submission.objects.create(
            round=round_,
            organization=organization,
            version=(latest or 0) + 1,
            sha256=sha256,
            size_bytes=size_bytes,
            source=source,
            ruleset_version=round_.ruleset_version,
            uploaded_by=uploaded_by,
            is_current=False,
            is_published=False,
        )


def touch_submissions(submissions) -> None:
    """A change the page cache's data version does not see by itself (a result's status, a
    waiver, a decision): stamp the submissions, so that every cached page and API answer built
    before it is stale at once in this process (results.signals.data_changed), and within
    DATA_VERSION_SECONDS in the others (pages/caching.py keys on the newest submission timestamp)."""
    rounds = set(submissions.values_list("round_id", flat=True))
    submissions.update(updated_at=timezone.now())
    transaction.on_commit(lambda: data_changed.send(sender=Submission, rounds=rounds))


def jsonable(value):
    """Logs may hold NaN and Infinity, which PostgreSQL's JSON refuses: store them as strings."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, str):
        return value.replace("\x00", "")
    return value


def finding_rows(findings, submission, result=None, run=None) -> list[Finding]:
    return [
        Finding(
            submission=submission,
            result=result,
            run=run,
            checker=fitted(Finding, "checker", f.checker),
            checker_version=f.checker_version,
            severity=f.severity,
            code=fitted(Finding, "code", f.code),
            message=f.message.replace("\x00", ""),
            file=fitted(Finding, "file", f.file),
            line=f.line,
            key=fitted(Finding, "key", f.key or ""),
            expected=(f.expected or "").replace("\x00", ""),
            actual=(f.actual or "").replace("\x00", ""),
        )
        for f in findings
    ]
