"""The public state of a result, derived from what the database already holds (versions, the
result's status, the round's state, factor decisions in the audit log): never stored, so it
cannot drift from the data it describes."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models

from audit.events import FACTOR_ACCEPTED, FACTOR_REJECTED
from audit.models import AuditEvent

from .constants import ResultStatus, RoundState
from .models import Result, Submission


class PublicationState(models.TextChoices):
    OFFICIAL = "official", "Official"
    PROVISIONAL = "provisional", "Provisional"
    SUPERSEDED = "superseded", "Superseded"
    CORRECTED = "corrected", "Corrected"
    WITHDRAWN = "withdrawn", "Withdrawn"
    REMOVED = "removed", "Removed"


@dataclass(frozen=True)
class State:
    value: str
    label: str
    why: str


def publication_state(result: Result) -> State:
    """Withdrawn or removed (the result's status) before anything else; then superseded (a later
    version is the current one); provisional (public before the round is published, where a chair
    allowed it); corrected (a version published before this one, or a scaling-factor decision
    after publication); else official."""

    def state(value: PublicationState, why: str) -> State:
        return State(value.value, value.label, why)

    if result.status == ResultStatus.WITHDRAWN:
        return state(PublicationState.WITHDRAWN, "withdrawn by its organization")
    if result.status == ResultStatus.REMOVED:
        return state(PublicationState.REMOVED, "removed by a review decision")
    submission, round_ = result.submission, result.submission.round
    if not submission.is_current:
        return state(PublicationState.SUPERSEDED, f"version {submission.version}: a later version is the current one")
    if round_.state != RoundState.PUBLISHED:
        return state(PublicationState.PROVISIONAL, "public before the round's review ended")
    earlier = Submission.objects.filter(
        round=round_, organization=submission.organization, version__lt=submission.version, is_published=True
    ).order_by("-version").first()
    if earlier is not None:
        return state(PublicationState.CORRECTED, f"version {submission.version} replaces published version {earlier.version}")
    decided = AuditEvent.objects.filter(
        round=round_, result_id=result.result_id, kind__in=(FACTOR_ACCEPTED, FACTOR_REJECTED)
    )
    if round_.publish_at is not None and decided.filter(created_at__gt=round_.publish_at).exists():
        return state(PublicationState.CORRECTED, "a scaling-factor decision after publication")
    return state(PublicationState.OFFICIAL, "published with the round")
