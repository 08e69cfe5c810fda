"""States derived from what the database already holds, never stored, so they cannot drift from
the data they describe: a submission version's lifecycle state (version_state, the states of
results.services.lifecycle's VERSION_TRANSITIONS) and the public state of a result (versions, its
citable id's status, the round's state, factor decisions in the audit log). docs/lifecycle.md."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models

from audit.events import FACTOR_ACCEPTED, FACTOR_REJECTED
from audit.models import AuditEvent

from .constants import ResultStatus, RoundState
from .models import Result, Submission


class VersionState(models.TextChoices):
    RECEIVED = "received", "Received, being checked"
    HELD = "held", "Held for a chair's decision"
    WRITTEN = "written", "Checked, not current"
    CURRENT = "current", "Current, not published"
    PUBLISHED = "published", "Published"
    SUPERSEDED = "superseded", "Published, then superseded"


def version_state(submission: Submission) -> str:
    """Where a version stands: received (its rows not written yet), held (its files speak for
    another organization: a chair decides), written (checked but not the one the round shows: an
    older version, or a fix waiting for a chair to publish it), current (the one the round shows,
    before publication), published (the one the public sees), superseded (published once, then
    another version was published)."""
    if submission.written_at is None:
        return VersionState.RECEIVED
    if submission.held_reason:
        return VersionState.HELD
    if submission.is_current:
        return VersionState.PUBLISHED if submission.is_published else VersionState.CURRENT
    return VersionState.SUPERSEDED if submission.is_published else VersionState.WRITTEN


class PublicationState(models.TextChoices):
    OFFICIAL = "official", "Official"
    PROVISIONAL = "provisional", "Provisional"
    SUPERSEDED = "superseded", "Superseded"
    HELD = "held", "Held"
    PENDING = "pending", "Not published"
    CORRECTED = "corrected", "Corrected"
    WITHDRAWN = "withdrawn", "Withdrawn"
    REMOVED = "removed", "Removed"


@dataclass(frozen=True)
class State:
    value: str
    label: str
    why: str


def publication_state(result: Result) -> State:
    """Withdrawn or removed (its citable id's status, in every version) before anything else; then,
    for a version that is not the current one: held (a chair decides), superseded (published, or
    older than the current one) or not published (a later version waiting for a chair); provisional
    (public before the round is published, where a chair allowed it); corrected (a version
    published before this one, or a scaling-factor decision after publication); else official."""
    return publication_states([result])[0]


def publication_states(results: list[Result]) -> list[State]:
    """publication_state of each result, the published versions and factor decisions it depends on
    read in one query each for all of them (an organization's page lists hundreds)."""
    rounds = {result.submission.round_id for result in results}
    published: dict[tuple[int, int], list[int]] = {}
    decided: dict[tuple[int, str], list] = {}
    if results:
        for key in (Submission.objects.filter(round__in=rounds, is_published=True,
                                              organization__in={r.submission.organization_id for r in results})
                    .values_list("round_id", "organization_id", "version")):
            published.setdefault(key[:2], []).append(key[2])
    # Only a decision after publication corrects a result: none to look for before it.
    published_rounds = {r.submission.round_id for r in results if r.submission.round.publish_at is not None}
    if published_rounds:
        for round_id, result_id, created_at in AuditEvent.objects.filter(
            round__in=published_rounds, result_id__in={r.result_id for r in results},
            kind__in=(FACTOR_ACCEPTED, FACTOR_REJECTED),
        ).values_list("round_id", "result_id", "created_at"):
            decided.setdefault((round_id, result_id), []).append(created_at)
    return [_state(result, published, decided) for result in results]


def _state(result: Result, published: dict, decided: dict) -> State:
    def state(value: PublicationState, why: str) -> State:
        return State(value.value, value.label, why)

    if result.status == ResultStatus.WITHDRAWN:
        return state(PublicationState.WITHDRAWN, "withdrawn by its organization")
    if result.status == ResultStatus.REMOVED:
        return state(PublicationState.REMOVED, "removed by a review decision")
    submission, round_ = result.submission, result.submission.round
    version = version_state(submission)
    if version == VersionState.HELD:
        return state(PublicationState.HELD, f"version {submission.version}: {submission.held_reason}")
    if version == VersionState.WRITTEN and not Submission.objects.filter(
        round=round_, organization=submission.organization, version__gt=submission.version, is_current=True
    ).exists():
        return state(PublicationState.PENDING, f"version {submission.version} waits for a chair to publish it")
    if not submission.is_current:
        return state(PublicationState.SUPERSEDED, f"version {submission.version}: a later version is the current one")
    if round_.state != RoundState.PUBLISHED:
        return state(PublicationState.PROVISIONAL, "public before the round's review ended")
    earlier = [v for v in published.get((round_.pk, submission.organization_id), []) if v < submission.version]
    if earlier:
        return state(PublicationState.CORRECTED, f"version {submission.version} replaces published version {max(earlier)}")
    decisions = decided.get((round_.pk, result.result_id), [])
    if round_.publish_at is not None and any(when > round_.publish_at for when in decisions):
        return state(PublicationState.CORRECTED, "a scaling-factor decision after publication")
    return state(PublicationState.OFFICIAL, "published with the round")
