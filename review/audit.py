"""The audit API: record_event(), called inside the transaction of the state change it records
(so a rolled-back change leaves no event). Kept apart from review/services.py so that
results/ and ingest/ services can record events without importing the review workflow."""

from __future__ import annotations

from .models import AuditEvent


def record_event(
    kind: str,
    *,
    actor=None,
    reason: str = "",
    round_=None,
    organization=None,
    submission=None,
    result_id: str = "",
    subject: str = "",
    data: dict | None = None,
) -> AuditEvent:
    """Append one event. The round and organization are taken from the submission when not given."""
    if submission is not None:
        round_ = round_ or submission.round
        organization = organization or submission.organization
    return AuditEvent.objects.create(
        kind=kind,
        actor=actor if actor is not None and actor.is_authenticated else None,
        actor_name=actor.get_username() if actor is not None and actor.is_authenticated else "system",
        round=round_,
        organization=organization,
        submission=submission,
        result_id=result_id,
        subject=subject,
        reason=reason,
        data=data or {},
    )
