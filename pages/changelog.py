"""The public change log: what changed in a published round after its publication, from the audit
log (audit/events.py). Only what anyone may read: the event's date, the result, before and after,
and the reason; never who acted (reviewers are not named) nor an event a visitor may not see
(results.audit_log.events_visible_to(None))."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from audit import events
from audit.models import AuditEvent
from results.audit_log import events_visible_to
from results.constants import ResultStatus
from results.models import Result, Round, Submission

# The kinds a public log shows, with the words it uses for them.
PUBLIC_KINDS = {
    events.ROUND_PUBLISHED: "Publication",
    events.VERSION_PUBLISHED: "Correction (new version published)",
    events.RESULT_WITHDRAWN: "Withdrawal",
    events.RESULT_REMOVED: "Removal by review",
    events.RESULT_REINSTATED: "Reinstatement",
    events.FACTOR_ACCEPTED: "Scaling-factor decision",
    events.FACTOR_REJECTED: "Scaling-factor decision",
}
# A citable result's status in the log's words: an active result of a published round is published.
STATUS_WORDS = {ResultStatus.ACTIVE: "published", ResultStatus.WITHDRAWN: "withdrawn", ResultStatus.REMOVED: "removed"}


@dataclass(frozen=True)
class Change:
    pk: int  # the audit row's number: which changes a snapshot covers; never shown (it counts hidden events)
    public_id: UUID  # the event's public name: its anchor in the change log and the feeds
    date: datetime
    round: Round
    kind: str
    label: str
    result_id: str
    organization_id: int | None
    subject: str  # who or what changed, in public words: an organization, a system and benchmark
    before: str
    after: str
    reason: str


def public_changes(round_: Round | None = None, limit: int | None = None, organization=None) -> list[Change]:
    """Newest first: the publication of each published round and every change after it; those of
    `organization`'s results and versions only, where given (a round's publication is no one's)."""
    rounds = Round.objects.visible_to(None)
    if round_ is not None:
        rounds = rounds.filter(pk=round_.pk)
    rounds = {r.pk: r for r in rounds}
    found = (
        events_visible_to(None)
        .filter(round__in=list(rounds), kind__in=list(PUBLIC_KINDS))
        .select_related("organization", "submission")
        .order_by("-created_at", "-pk")
    )
    if organization is not None:
        found = found.filter(organization=organization)
    changes = []
    for event in found:
        round_of = rounds[event.round_id]
        if event.kind != events.ROUND_PUBLISHED and round_of.publish_at and event.created_at < round_of.publish_at:
            continue  # review before publication is not a change to published data
        if event.kind == events.VERSION_PUBLISHED and event.submission is not None and event.submission.version == 1:
            continue  # a first version published is the publication itself (an import of a published round)
        changes.append(_change(event, round_of))
        if limit is not None and len(changes) >= limit:
            break
    return changes


def _change(event: AuditEvent, round_: Round) -> Change:
    data = event.data or {}
    organization = event.organization.name if event.organization else ""
    before = after = ""
    subject = organization
    if event.kind == events.ROUND_PUBLISHED:
        before, after = data.get("from", ""), "published"
        count = len(data.get("versions", []))
        subject = f"{count} submission{'' if count == 1 else 's'}"
    elif event.kind == events.VERSION_PUBLISHED and event.submission is not None:
        previous = _previously_published(event)
        before = f"version {previous}" if previous else "unpublished"
        after = f"version {event.submission.version}"
    elif event.kind in (events.RESULT_WITHDRAWN, events.RESULT_REMOVED, events.RESULT_REINSTATED):
        before = STATUS_WORDS.get(data.get("from", ResultStatus.ACTIVE), "")
        after = STATUS_WORDS.get(data.get("to", ""), "") or event.kind.removeprefix("result.")
    elif event.kind in (events.FACTOR_ACCEPTED, events.FACTOR_REJECTED):
        subject = f"{organization} · {data.get('system', '')} · {data.get('benchmark', '')}"
        computed = (
            Result.objects.filter(result_id=event.result_id).values_list("computed_scaling_factor", flat=True).first()
            if event.result_id else None
        )
        accepted = event.kind == events.FACTOR_ACCEPTED
        before = f"factor {computed:g} (from the logs)" if computed is not None else "factor from the logs"
        after = f"factor {data.get('factor'):g} (shipped, accepted)" if accepted else "shipped factor rejected"
    return Change(
        pk=event.pk, public_id=event.public_id, date=event.created_at, round=round_, kind=event.kind, label=PUBLIC_KINDS[event.kind],
        result_id=event.result_id, organization_id=event.organization_id, subject=subject, before=before,
        after=after, reason=event.reason,
    )


def _previously_published(event: AuditEvent) -> int | None:
    """The version the public saw before a correction: the event names it (publish_version records
    the published current version it replaced), never a version that was held or never published.
    Events written before it did: the newest published version below this one."""
    data = event.data or {}
    if "previous" in data:
        return data["previous"]
    return (
        Submission.objects.filter(round=event.round_id, organization=event.organization_id, is_published=True,
                                  version__lt=event.submission.version)
        .order_by("-version").values_list("version", flat=True).first()
    )
