"""The one way to write the audit log: one function per event kind, each called inside the
transaction of the state change it records (a rolled-back change leaves no event).

Kinds are the constants below; notifications reuse them as their own kind. Rounds, organizations,
submissions and results arrive as the other apps' model instances (audit does not import them).
"""

from __future__ import annotations

from .models import AuditEvent

UPLOAD = "upload"
VERSION_SWITCHED = "version.switched"
VERSION_PUBLISHED = "version.published"
ROUND_STATE_CHANGED = "round.state_changed"
ROUND_DATES_CHANGED = "round.dates_changed"
ROUND_PUBLISHED = "round.published"
RESUBMISSION_WINDOW_GRANTED = "resubmission_window.granted"
REVIEWER_ASSIGNED = "reviewer.assigned"
OBJECTION_FILED = "objection.filed"
OBJECTION_ANSWERED = "objection.answered"
OBJECTION_RESOLVED = "objection.resolved"
RESULT_WITHDRAWN = "result.withdrawn"
RESULT_REMOVED = "result.removed"
RESULT_REINSTATED = "result.reinstated"
FINDING_WAIVED = "finding.waived"
FACTOR_ACCEPTED = "factor.accepted"
FACTOR_REJECTED = "factor.rejected"
BORROWING_DECLARED = "borrowing.declared"
BORROWING_CHECKED = "borrowing.checked"
BORROWING_APPROVED = "borrowing.approved"
BORROWING_REJECTED = "borrowing.rejected"
VERIFICATION_REQUESTED = "verification.requested"
VERIFICATION_STARTED = "verification.started"
VERIFICATION_CODE_SENT = "verification.code_sent"
VERIFICATION_FINISHED = "verification.finished"
VERSION_HELD = "version.held"
VERSION_RELEASED = "version.released"
ROUND_CREATED = "round.created"
ROUND_RULESET_CHANGED = "round.ruleset_changed"
MEMBER_ADDED = "member.added"
MEMBER_REMOVED = "member.removed"
ROLE_GRANTED = "role.granted"
ROLE_REVOKED = "role.revoked"
WITHDRAWAL_REQUESTED = "withdrawal.requested"
WITHDRAWAL_REFUSED = "withdrawal.refused"
BORROWING_REVERTED = "borrowing.reverted"
BORROWING_OVERRIDDEN = "borrowing.overridden"

# The review record's outcomes the public sees once a round is published (results.audit_log):
# publication, withdrawals, removals and reinstatements, and decisions that change a score, with
# their reason. Objections, borrowing and who reviewed stay confidential.
PUBLIC_EVENT_KINDS = (
    ROUND_PUBLISHED, VERSION_PUBLISHED, VERSION_SWITCHED, RESULT_WITHDRAWN, RESULT_REMOVED, RESULT_REINSTATED,
    FACTOR_ACCEPTED, FACTOR_REJECTED, FINDING_WAIVED,
    VERIFICATION_STARTED, VERIFICATION_CODE_SENT, VERIFICATION_FINISHED,
)
# An objection.resolved event is public with one of these outcomes (they change the tables):
# review.constants.ObjectionOutcome MOVED_TO_OPEN and REMOVED (audit cannot import review).
SCORE_CHANGING_OUTCOMES = ("moved_to_open", "removed")


def _record(
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
    acted = actor is not None and actor.is_authenticated
    return AuditEvent.objects.create(
        kind=kind,
        actor=actor if acted else None,
        actor_name=actor.get_username() if acted else "system",
        round=round_,
        organization=organization,
        submission=submission,
        result_id=result_id,
        subject=subject,
        reason=reason,
        data=data or {},
    )


# -- submissions ----------------------------------------------------------------------------------


def upload(submission, *, actor, reason: str) -> AuditEvent:
    return _record(UPLOAD, actor=actor, submission=submission, reason=reason)


def version_switched(submission) -> AuditEvent:
    return _record(VERSION_SWITCHED, submission=submission, reason=f"version {submission.version} is the newest")


def version_published(submission, *, actor, reason: str, previous: int | None) -> AuditEvent:
    """`previous`: the version the public saw before (the organization's published current one),
    None when none was published: the change log's "before"."""
    return _record(VERSION_PUBLISHED, actor=actor, submission=submission, reason=reason,
                   data={"version": submission.version, "previous": previous})


def version_held(submission) -> AuditEvent:
    return _record(VERSION_HELD, submission=submission, reason=submission.held_reason)


def version_released(submission, *, actor, reason: str, held: str) -> AuditEvent:
    return _record(VERSION_RELEASED, actor=actor, submission=submission, reason=reason, data={"held": held})


def _result_status(kind: str, result, *, actor, reason: str, previous: str) -> AuditEvent:
    """A citable result's status changed (results.services.lifecycle); `result` is the version
    shown (the current one), `previous` the status it left."""
    return _record(kind, actor=actor, submission=result.submission, result_id=result.result_id, reason=reason,
                   data={"from": previous, "to": result.citable.status})


def result_withdrawn(result, *, actor, reason: str, previous: str) -> AuditEvent:
    return _result_status(RESULT_WITHDRAWN, result, actor=actor, reason=reason, previous=previous)


def result_removed(result, *, actor, reason: str, previous: str) -> AuditEvent:
    return _result_status(RESULT_REMOVED, result, actor=actor, reason=reason, previous=previous)


def result_reinstated(result, *, actor, reason: str, previous: str) -> AuditEvent:
    return _result_status(RESULT_REINSTATED, result, actor=actor, reason=reason, previous=previous)


def withdrawal_requested(request, result, *, actor) -> AuditEvent:
    return _record(WITHDRAWAL_REQUESTED, actor=actor, submission=result.submission, result_id=result.result_id,
                   subject=request.subject, reason=request.reason)


def withdrawal_refused(request, result, *, actor) -> AuditEvent:
    return _record(WITHDRAWAL_REFUSED, actor=actor, submission=result.submission, result_id=request.result_id,
                   subject=request.subject, reason=request.decision_reason)


# -- rounds ---------------------------------------------------------------------------------------


def round_created(round_, *, actor, reason: str, benchmarks: int) -> AuditEvent:
    return _record(ROUND_CREATED, actor=actor, round_=round_, reason=reason,
                   data={"ruleset": round_.ruleset_version, "benchmarks": benchmarks})


def round_ruleset_changed(round_, *, actor, reason: str, previous: str, benchmarks: int) -> AuditEvent:
    return _record(ROUND_RULESET_CHANGED, actor=actor, round_=round_, reason=reason,
                   data={"from": previous, "to": round_.ruleset_version, "benchmarks": benchmarks})


def round_state_changed(round_, *, actor, reason: str, previous: str) -> AuditEvent:
    return _record(ROUND_STATE_CHANGED, actor=actor, round_=round_, reason=reason,
                   data={"from": previous, "to": round_.state})


def round_dates_changed(round_, *, actor, reason: str, dates: dict) -> AuditEvent:
    return _record(ROUND_DATES_CHANGED, actor=actor, round_=round_, reason=reason,
                   data={name: value.isoformat() if value else None for name, value in dates.items()})


def round_published(round_, *, actor, reason: str, previous: str, versions: list[str],
                    withheld: dict[int, str]) -> AuditEvent:
    return _record(ROUND_PUBLISHED, actor=actor, round_=round_, reason=reason,
                   data={"from": previous, "versions": versions,
                         "withheld": {str(pk): why for pk, why in withheld.items()}})


def resubmission_window_granted(window, *, actor) -> AuditEvent:
    return _record(RESUBMISSION_WINDOW_GRANTED, actor=actor, round_=window.round, organization=window.organization,
                   reason=window.reason, data={"closes_at": window.closes_at.isoformat()})


def reviewer_assigned(assignment, *, actor) -> AuditEvent:
    return _record(REVIEWER_ASSIGNED, actor=actor, round_=assignment.round, organization=assignment.organization,
                   reason=f"{assignment.reviewer.get_username()} reviews {assignment.organization}")


# -- people ---------------------------------------------------------------------------------------


def membership_changed(user, organization, *, actor, member: bool) -> AuditEvent:
    """`actor` None: the operator at the command line."""
    return _record(MEMBER_ADDED if member else MEMBER_REMOVED, actor=actor, organization=organization,
                   reason=f"{user.get_username()} {'joins' if member else 'leaves'} {organization}")


def role_changed(user, role: str, *, actor, granted: bool) -> AuditEvent:
    """`actor` None: the operator at the command line."""
    return _record(ROLE_GRANTED if granted else ROLE_REVOKED, actor=actor,
                   reason=f"{user.get_username()} {'is now' if granted else 'is no longer'} a {role}")


# -- objections -----------------------------------------------------------------------------------


def _objection(kind: str, objection, *, actor, reason: str, data=None) -> AuditEvent:
    return _record(
        kind, actor=actor, round_=objection.round, organization=objection.organization,
        submission=objection.result.submission if objection.result else objection.system.submission,
        result_id=objection.result.result_id if objection.result else "",
        subject=objection.subject, reason=reason, data=data,
    )


def objection_filed(objection, *, actor) -> AuditEvent:
    return _objection(OBJECTION_FILED, objection, actor=actor, reason=f"{objection.rule}: {objection.evidence}")


def objection_answered(objection, *, actor) -> AuditEvent:
    return _objection(OBJECTION_ANSWERED, objection, actor=actor, reason=objection.answer)


def objection_resolved(objection, *, actor, data: dict) -> AuditEvent:
    return _objection(OBJECTION_RESOLVED, objection, actor=actor, reason=objection.resolution, data=data)


# -- waivers and scaling-factor decisions ---------------------------------------------------------


def finding_waived(waiver, *, actor, submission, result=None) -> AuditEvent:
    """`result` None: a waiver of the package's own findings (no result carries them)."""
    return _record(FINDING_WAIVED, actor=actor, submission=submission,
                   result_id=result.result_id if result is not None else "",
                   subject=f"waiver {waiver.pk}", reason=waiver.reason, data={"kind": waiver.kind, "code": waiver.code})


def _factor(kind: str, decision, *, result=None) -> AuditEvent:
    """A decision on a system and benchmark's published factor; `result` when a reviewer decided
    on one result, None when a chair's import recorded the factors a published round shipped."""
    return _record(
        kind, actor=decision.granted_by, round_=decision.round, organization=decision.organization,
        submission=result.submission if result is not None else None,
        result_id=result.result_id if result is not None else "",
        subject=f"decision {decision.pk}", reason=decision.reason,
        data={"factor": decision.factor, "system": decision.system_id, "benchmark": decision.benchmark},
    )


def factor_accepted(decision, *, result=None) -> AuditEvent:
    return _factor(FACTOR_ACCEPTED, decision, result=result)


def factor_rejected(decision, *, result=None) -> AuditEvent:
    return _factor(FACTOR_REJECTED, decision, result=result)


# -- hyperparameter borrowing ---------------------------------------------------------------------


def borrowing_declared(declaration, *, actor) -> AuditEvent:
    lender = declaration.lender_result.result_id
    return _record(BORROWING_DECLARED, actor=actor, submission=declaration.base_submission,
                   result_id=declaration.result_id, subject=declaration.subject, reason=f"borrows from {lender}",
                   data={"lender": lender})


def borrowing_checked(declaration) -> AuditEvent:
    """The count only: the mismatches hold the lender's unpublished values (confidential)."""
    mismatches = declaration.mismatches
    return _record(BORROWING_CHECKED, submission=declaration.checked_submission, result_id=declaration.result_id,
                   subject=declaration.subject,
                   reason=f"{len(mismatches)} mismatch(es)" if mismatches else "passed",
                   data={"mismatch_count": len(mismatches)})


def _borrowing_decided(kind: str, declaration, *, actor) -> AuditEvent:
    return _record(kind, actor=actor, submission=declaration.checked_submission, result_id=declaration.result_id,
                   subject=declaration.subject, reason=declaration.decision_reason)


def borrowing_approved(declaration, *, actor) -> AuditEvent:
    return _borrowing_decided(BORROWING_APPROVED, declaration, actor=actor)


def borrowing_rejected(declaration, *, actor) -> AuditEvent:
    return _borrowing_decided(BORROWING_REJECTED, declaration, actor=actor)


def borrowing_overridden(declaration, *, actor) -> AuditEvent:
    return _borrowing_decided(BORROWING_OVERRIDDEN, declaration, actor=actor)


def borrowing_reverted(declaration, submission, *, why: str) -> AuditEvent:
    return _record(BORROWING_REVERTED, submission=submission, result_id=declaration.result_id,
                   subject=declaration.subject, reason=why)


# -- verification ---------------------------------------------------------------------------------

REASON_LENGTH = 1000  # a worker's message can be long; the log keeps its start


def _verification(kind: str, result, *, subject: str, detail: str, actor=None) -> AuditEvent:
    return _record(kind, actor=actor, submission=result.submission, result_id=result.result_id, subject=subject,
                   reason=detail[:REASON_LENGTH])


def verification_requested(result, *, subject: str, detail: str, actor) -> AuditEvent:
    return _verification(VERIFICATION_REQUESTED, result, subject=subject, detail=detail, actor=actor)


def verification_started(result, *, subject: str, detail: str) -> AuditEvent:
    return _verification(VERIFICATION_STARTED, result, subject=subject, detail=detail)


def verification_code_sent(result, *, subject: str, detail: str) -> AuditEvent:
    return _verification(VERIFICATION_CODE_SENT, result, subject=subject, detail=detail)


def verification_finished(result, *, subject: str, detail: str) -> AuditEvent:
    return _verification(VERIFICATION_FINISHED, result, subject=subject, detail=detail)
