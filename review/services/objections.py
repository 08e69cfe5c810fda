"""Objections: filed against a result, a run or a system during review, answered by the accused,
resolved by a reviewer of neither organization (dismissed, fix required, moved to open, removed)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit import events
from results.constants import Division, RoundState
from results.models import Organization, Result, Run, Submission, System, fitted
from results.services import lifecycle
from results.services.versions import touch_submissions

from ..constants import ObjectionOutcome, ObjectionState
from ..models import Objection, ReviewerAssignment
from .access import ReviewRefused, _check_resolver, _lifecycle, _move, _require_reason, is_reviewer, member_of
from .notifications import _notify_members, _notify_users
from .windows import DEFAULT_FIX_WINDOW, grant_resubmission_window

# An objection's own transitions (a round's, a result's and a version's are the lifecycle's:
# results/services/lifecycle.py, docs/lifecycle.md).
OBJECTION_TRANSITIONS = {
    ObjectionState.OPEN: {ObjectionState.ANSWERED},
    ObjectionState.ANSWERED: {ObjectionState.RESOLVED},
    ObjectionState.RESOLVED: set(),
}


def file_objection(
    actor,
    *,
    rule: str,
    evidence: str,
    result: Result | None = None,
    run=None,
    system: System | None = None,
    evidence_file: str = "",
    evidence_line: int | None = None,
    severity: str = "error",
) -> Objection:
    """A reviewer, or a member of another organization, objects to a result, a run or a system
    during the round's review."""
    if actor is None or not actor.is_authenticated:
        raise ReviewRefused("sign in to file an objection", status=401)
    if run is not None:
        result = run.result
    target = result or system
    if target is None:
        raise ReviewRefused("an objection names a result, a run or a system", status=400)
    submission = target.submission
    accused = submission.organization
    round_ = submission.round
    if not (rule or "").strip() or not (evidence or "").strip():
        raise ReviewRefused("an objection names the rule it breaks and its evidence", status=400)
    filer_orgs = Organization.objects.filter(members=actor).exclude(pk=accused.pk)
    if member_of(actor, accused):
        raise ReviewRefused(f"you belong to {accused}: an objection is against another organization")
    if not is_reviewer(actor):
        # Peer review: a submitter objects for an organization that submitted to the round.
        filer_orgs = filer_orgs.filter(submissions__round=round_, submissions__written_at__isnull=False).distinct()
        if not filer_orgs.exists():
            raise ReviewRefused(f"only reviewers and organizations that submitted to {round_} may file objections")
    if round_.state != RoundState.REVIEW:
        raise ReviewRefused(f"{round_} is not in review (it is {round_.get_state_display().lower()})", status=409)
    if evidence_file and evidence_file not in _files_of(submission):
        raise ReviewRefused(f"{evidence_file} is not a file of {accused}'s version {submission.version}: the "
                            "evidence cites a result log or a system description of it", status=400)
    with transaction.atomic():
        objection = Objection.objects.create(
            round=round_,
            organization=accused,
            result=result,
            run=run,
            system=system if result is None else result.system,
            rule=fitted(Objection, "rule", rule.strip()),
            evidence=evidence.strip(),
            evidence_file=fitted(Objection, "evidence_file", evidence_file),
            evidence_line=evidence_line,
            severity=severity,
            filed_by=actor,
            filed_for=filer_orgs.first(),
        )
        events.objection_filed(objection, actor=actor)
        _notify_members(accused, events.OBJECTION_FILED,
                        f"An objection was filed against {_target_name(objection)}: {objection.rule}",
                        link=f"/review/objections/{objection.pk}/")
    return objection


def _files_of(submission: Submission) -> set[str]:
    """The files an objection's evidence may cite: the version's result logs and system files."""
    runs = Run.objects.filter(result__submission=submission).values_list("file", flat=True)
    return {*runs, *System.objects.filter(submission=submission).exclude(file="").values_list("file", flat=True)}


def answer_objection(actor, objection: Objection, answer: str) -> Objection:
    """The accused organization answers."""
    if not member_of(actor, objection.organization):
        raise ReviewRefused(f"only members of {objection.organization} answer this objection")
    answer = _require_reason(answer)
    with transaction.atomic():
        locked = Objection.objects.select_for_update().get(pk=objection.pk)
        _move(locked.state, ObjectionState.ANSWERED, OBJECTION_TRANSITIONS, locked.subject)
        locked.state = ObjectionState.ANSWERED
        locked.answer, locked.answered_by, locked.answered_at = answer, actor, timezone.now()
        locked.save()
        events.objection_answered(locked, actor=actor)
        _notify_users(_deciders_of(locked), events.OBJECTION_ANSWERED,
                      f"{locked.organization} answered {locked.subject}.", link=f"/review/objections/{locked.pk}/")
    return locked


def resolve_objection(actor, objection: Objection, outcome: str, reason: str, *, fix_until=None) -> Objection:
    """A chair or reviewer of neither organization, who did not file it, resolves the objection:
    dismissed, fix required (a resubmission window), moved to the open division, or removed."""
    _check_resolver(actor, objection)
    if outcome not in ObjectionOutcome.values:
        raise ReviewRefused(f"unknown outcome {outcome!r}: expected one of {', '.join(ObjectionOutcome.values)}",
                            status=400)
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = Objection.objects.select_for_update(of=("self",)).select_related("round", "organization", "result").get(
            pk=objection.pk
        )
        _move(locked.state, ObjectionState.RESOLVED, OBJECTION_TRANSITIONS, locked.subject)
        locked.state, locked.outcome = ObjectionState.RESOLVED, outcome
        locked.resolution, locked.resolved_by, locked.resolved_at = reason, actor, timezone.now()
        locked.save()
        data = {"outcome": outcome}
        if outcome == ObjectionOutcome.FIX_REQUIRED:
            window = grant_resubmission_window(
                actor, locked.round, locked.organization,
                fix_until or locked.round.publish_at or timezone.now() + DEFAULT_FIX_WINDOW,
                f"{locked.subject}: {reason}",
            )
            data["fix_until"] = window.closes_at.isoformat()
        elif outcome == ObjectionOutcome.MOVED_TO_OPEN and locked.result is not None:
            every_version = Result.objects.filter(
                submission__round=locked.round, submission__organization=locked.organization,
                result_id=locked.result.result_id,
            )
            every_version.update(division=Division.OPEN)
            touch_submissions(Submission.objects.filter(pk__in=every_version.values("submission")))
        elif outcome == ObjectionOutcome.REMOVED and locked.result is not None:
            # The citable result: every version of it, later ones included (results.services.lifecycle).
            _lifecycle(lifecycle.remove_result, locked.result, actor=actor, reason=f"{locked.subject}: {reason}")
        events.objection_resolved(locked, actor=actor, data=data)
        _notify_members(locked.organization, events.OBJECTION_RESOLVED,
                        f"{locked.subject} against {_target_name(locked)}: {locked.get_outcome_display()}. {reason}",
                        link=f"/review/objections/{locked.pk}/")
    return locked


def _target_name(objection: Objection) -> str:
    if objection.result is not None:
        return f"result {objection.result.result_id}"
    return f"system {objection.system.system_id}"


def _deciders_of(objection: Objection):
    """Who hears of an answer: the filer and the reviewers assigned to the accused organization."""
    from django.contrib.auth import get_user_model

    assigned = ReviewerAssignment.objects.filter(round=objection.round, organization=objection.organization)
    return get_user_model().objects.filter(pk__in=[objection.filed_by_id, *assigned.values_list("reviewer", flat=True)])
