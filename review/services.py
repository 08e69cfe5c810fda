"""The only writers of the review workflow: round lifecycle, reviewer assignments, objections,
fixes, waivers, hyperparameter borrowing, notifications.

Every action checks who acts (ReviewRefused otherwise, with the HTTP status that says why), moves
its row only along the transition tables below, and records an audit event (audit/events.py) in the same transaction.
Conflict of interest: nobody decides on an organization they belong to.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.mail import send_mass_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit import events
from audit.roles import CHAIR_ROLE, CHAIRS_GROUP, PRIVILEGED_GROUPS, ROLE_GROUPS, is_chair, is_privileged
from mlperf_check.package import natural_key
from mlperf_check.rules.borrowing import Mismatch, batch_dependent, compare_hyperparameters, compare_systems
from results.constants import Division, ResultStatus, RoundState, Suite, WaiverKind
from results.models import Finding, Organization, Result, Round, Run, Submission, System, Waiver, fitted
from results.querysets import RoundSlugError, parse_round_slug
from results.services import lifecycle
from results.services.factors import DecisionRefused, accept_shipped_factor, reject_shipped_factor
from results.services.lifecycle import ROUND_TRANSITIONS, TransitionRefused
from results.services.rounds import UnknownRuleset, fill_benchmarks, publish_round, ruleset_of
from results.services.versions import touch_submissions

from .constants import BorrowingState, ObjectionOutcome, ObjectionState, WithdrawalState
from .models import (
    BorrowingDeclaration,
    Notification,
    Objection,
    ResubmissionWindow,
    ReviewerAssignment,
    WithdrawalRequest,
)
from .signals import findings_waived

# A round's transitions (ROUND_TRANSITIONS), a result's and a version's are the lifecycle's
# (results/services/lifecycle.py, docs/lifecycle.md); the review record's own are below.
OBJECTION_TRANSITIONS = {
    ObjectionState.OPEN: {ObjectionState.ANSWERED},
    ObjectionState.ANSWERED: {ObjectionState.RESOLVED},
    ObjectionState.RESOLVED: set(),
}
BORROWING_TRANSITIONS = {
    BorrowingState.DECLARED: {BorrowingState.CHECKED},
    BorrowingState.CHECKED: {BorrowingState.CHECKED, BorrowingState.APPROVED, BorrowingState.REJECTED},
    BorrowingState.APPROVED: set(),
    BorrowingState.REJECTED: {BorrowingState.REVERTED, BorrowingState.OVERRIDDEN},
    BorrowingState.REVERTED: set(),
    BorrowingState.OVERRIDDEN: set(),
}
# A "fix required" opens a resubmission window this long when the round names no publication date.
DEFAULT_FIX_WINDOW = timedelta(days=7)


class ReviewRefused(Exception):
    """The action is not allowed; `status` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


# --- Who may act ---------------------------------------------------------------------------------


def is_reviewer(user) -> bool:
    """Reviewers and chairs (is_privileged: they read every submission)."""
    return is_privileged(user)


def member_of(user, organization: Organization | None) -> bool:
    if user is None or not user.is_authenticated or organization is None:
        return False
    return organization.members.filter(pk=user.pk).exists()


def may_read_mismatches(user, declaration: BorrowingDeclaration) -> bool:
    """A borrowing check's mismatches hold the lender's unpublished values: reviewers and chairs
    read them while the round is unpublished; the borrower and, after publication, everyone
    see the decision only."""
    return is_reviewer(user) and not declaration.round.is_published


def _require_chair(actor, doing: str) -> None:
    if not is_chair(actor):
        raise ReviewRefused(f"only a chair may {doing}")


def _require_reviewer(actor, doing: str) -> None:
    if not is_reviewer(actor):
        raise ReviewRefused(f"only a reviewer or chair may {doing}")


def _refuse_conflict(actor, organization: Organization, doing: str) -> None:
    if member_of(actor, organization):
        raise ReviewRefused(f"conflict of interest: you belong to {organization} and may not {doing}")


def _require_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ReviewRefused("a reason is required", status=400)
    return reason


def _move(current: str, wanted: str, table: dict, what: str) -> None:
    if wanted not in table.get(current, set()):
        raise ReviewRefused(f"{what} cannot go from {current} to {wanted}", status=409)


# --- People: organizations and roles -------------------------------------------------------------


def set_membership(actor, user, organization: Organization, member: bool = True) -> bool:
    """Add `user` to `organization` (or remove); `actor` None is the operator at the command line.
    Audited; True when something changed."""
    if actor is not None:
        _require_chair(actor, "change organization memberships")
    if member_of(user, organization) == member:
        return False
    with transaction.atomic():
        (organization.members.add if member else organization.members.remove)(user)
        events.membership_changed(user, organization, actor=actor, member=member)
    return True


def set_role(actor, user, role: str, granted: bool = True) -> bool:
    """Give (or take) a role: `reviewer` or `chair` (the `reviewers` / `chairs` groups); `actor`
    None is the operator at the command line. Chairs work in the admin too: the chair role sets the
    user's staff flag (the admin's door; the chairs group's permissions say what they may do there,
    audit.roles.CHAIR_PERMISSIONS) and taking it clears the flag, unless the user is a superuser.
    Audited; True when something changed."""
    from django.contrib.auth.models import Group

    if role not in ROLE_GROUPS:
        raise ReviewRefused(f"unknown role {role!r}: expected one of {', '.join(ROLE_GROUPS)}", status=400)
    if actor is not None:
        _require_chair(actor, "give roles")
    group, _ = Group.objects.get_or_create(name=ROLE_GROUPS[role])
    staff = (granted or user.is_superuser) if role == CHAIR_ROLE else user.is_staff
    if user.groups.filter(pk=group.pk).exists() == granted and user.is_staff == staff:
        return False
    with transaction.atomic():
        (user.groups.add if granted else user.groups.remove)(group)
        if user.is_staff != staff:
            user.is_staff = staff
            user.save(update_fields=["is_staff"])
        events.role_changed(user, role, actor=actor, granted=granted)
    return True


# --- Round lifecycle -----------------------------------------------------------------------------


def create_round(actor, round_: Round, reason: str) -> Round:
    """A chair creates a round (an unsaved Round: suite, version, ruleset, dates) as a draft. Its
    ruleset is one of its suite's (results.services.rounds.suite_rulesets; none given: the one of
    its version) and its benchmarks come from it, so uploads to it have somewhere to go."""
    _require_chair(actor, "create a round")
    reason = _require_reason(reason)
    round_.version = (round_.version or "").strip()
    try:
        parse_round_slug(round_.slug)
    except RoundSlugError as exc:
        raise ReviewRefused(
            f"a round names its suite ({', '.join(Suite.values)}) and its version as two numbers, e.g. 5.0; "
            f"got {round_.suite or 'no suite'} {round_.version or 'no version'}", status=400) from exc
    if Round.objects.filter(suite=round_.suite, version=round_.version).exists():
        raise ReviewRefused(f"{round_.slug} already exists", status=409)
    round_.ruleset_version = _known_ruleset(round_.suite, round_.ruleset_version or round_.version)
    round_.state = RoundState.DRAFT
    with transaction.atomic():
        round_.save()
        count = fill_benchmarks(round_)
        events.round_created(round_, actor=actor, reason=reason, benchmarks=count)
    return round_


def change_ruleset(actor, round_: Round, ruleset_version: str, reason: str) -> Round:
    """A chair changes the ruleset of a round that takes no review yet (draft or open) to another
    of its suite's; its benchmarks follow the new ruleset (those the old one alone had stay, with
    whatever results they hold)."""
    _require_chair(actor, "change a round's ruleset")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        if locked.state not in (RoundState.DRAFT, RoundState.OPEN):
            raise ReviewRefused(f"{locked} is {locked.state}: its ruleset is fixed once review starts", status=409)
        previous = locked.ruleset_version
        locked.ruleset_version = _known_ruleset(locked.suite, ruleset_version)
        if locked.ruleset_version == previous:
            return locked
        locked.save(update_fields=["ruleset_version"])
        count = fill_benchmarks(locked)
        events.round_ruleset_changed(locked, actor=actor, reason=reason, previous=previous, benchmarks=count)
    round_.refresh_from_db()
    return round_


def _known_ruleset(suite: str, text: str) -> str:
    """The ruleset of `suite` that `text` names, as its suite's rules name it (training 1.0 ->
    1.0.0, HPC 2.0 -> hpc-2.0.0, inference 5.0 -> v5.0); ReviewRefused when the suite has none
    (another suite's ruleset included)."""
    try:
        return ruleset_of(suite, text)
    except UnknownRuleset as exc:
        raise ReviewRefused(str(exc), status=400) from exc


def move_round(actor, round_: Round, to_state: str, reason: str) -> Round:
    """A chair moves the round one step along draft -> open -> review -> final -> published."""
    _require_chair(actor, "move a round")
    reason = _require_reason(reason)
    if to_state == RoundState.PUBLISHED:
        with transaction.atomic():
            locked = Round.objects.select_for_update().get(pk=round_.pk)
            _move(locked.state, to_state, ROUND_TRANSITIONS, f"round {locked}")
            publish_round(locked, actor=actor, reason=reason, withheld=withheld_versions(locked))
            _notify_round(locked, events.ROUND_PUBLISHED, f"{locked} is published.")
        round_.refresh_from_db()
        return round_
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        _move(locked.state, to_state, ROUND_TRANSITIONS, f"round {locked}")
        previous = locked.state
        locked.state = to_state
        locked.save(update_fields=["state"])
        events.round_state_changed(locked, actor=actor, reason=reason, previous=previous)
        _notify_round(locked, events.ROUND_STATE_CHANGED, f"{locked} is now {locked.get_state_display().lower()}.")
    round_.refresh_from_db()
    return round_


def set_round_dates(actor, round_: Round, reason: str, **dates) -> Round:
    """A chair sets submission_deadline, borrowing_deadline and/or publish_at."""
    _require_chair(actor, "set a round's dates")
    reason = _require_reason(reason)
    allowed = {"submission_deadline", "borrowing_deadline", "publish_at"}
    unknown = set(dates) - allowed
    if unknown:
        raise ReviewRefused(f"unknown round dates: {', '.join(sorted(unknown))}", status=400)
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        if locked.state == RoundState.PUBLISHED:
            raise ReviewRefused(f"{locked} is published; its dates are history", status=409)
        for name, value in dates.items():
            setattr(locked, name, value)
        locked.save(update_fields=list(dates))
        events.round_dates_changed(locked, actor=actor, reason=reason, dates=dates)
    round_.refresh_from_db()
    return round_


def upload_refusal(*, round_: Round, organization: Organization | None, now=None) -> str:
    """Why `organization` may not upload to `round_` now, or "" when it may: the one rule the upload
    service and the /submit/ page both apply. A draft or final round takes nothing, not even through a window.
    `organization` None: one without a resubmission window."""
    now = now or timezone.now()
    if round_.state == RoundState.DRAFT:
        return f"{round_.slug} is a draft: it takes no submissions until a chair opens it"
    if round_.state == RoundState.FINAL:
        return f"{round_.slug} is final: its results are frozen until publication"
    if ResubmissionWindow.objects.open_for(round_, organization, now).exists():
        return ""
    if round_.state != RoundState.OPEN:
        return f"{round_.slug} is not open for submissions (it is {round_.get_state_display().lower()})"
    if round_.submission_deadline and now > round_.submission_deadline:
        return (
            f"the submission deadline of {round_.slug} passed on "
            f"{round_.submission_deadline:%Y-%m-%d %H:%M} UTC and {organization} has no resubmission window"
        )
    return ""


def publish_due_rounds(now=None) -> list[str]:
    """The beat task's work: publish every final round whose publish_at has come. Safe to run
    anywhere and often: publish_round publishes a round once, under its row lock."""
    now = now or timezone.now()
    published = []
    for round_ in Round.objects.filter(state=RoundState.FINAL, publish_at__lte=now):
        with transaction.atomic():
            if publish_round(round_, reason=f"publish_at {round_.publish_at:%Y-%m-%d %H:%M} UTC",
                             withheld=withheld_versions(round_)):
                _notify_round(round_, events.ROUND_PUBLISHED, f"{round_} is published.")
                published.append(round_.slug)
    return published


def publish_fix(actor, submission: Submission, reason: str) -> Submission:
    """A chair publishes a later version of one organization after the round's publication (a
    fix accepted late); it becomes that organization's current version. A withdrawn or removed
    result stays so in it (its citable id's status): only reinstate_result brings one back."""
    _require_chair(actor, "publish a version")
    _refuse_conflict(actor, submission.organization, "publish its versions")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = Submission.objects.select_for_update().select_related("round", "organization").get(pk=submission.pk)
        if not locked.round.is_published:
            raise ReviewRefused(f"{locked.round} is not published yet: publication publishes its current versions",
                                status=409)
        if locked.written_at is None:
            raise ReviewRefused(f"{locked} has not been ingested", status=409)
        if locked.is_published and locked.is_current:
            raise ReviewRefused(f"{locked} is already the published version", status=409)
        if locked.held_reason:
            raise ReviewRefused(f"{locked} is held ({locked.held_reason}): release it first", status=409)
        if locked.pk in withheld_versions(locked.round):
            raise ReviewRefused(withheld_versions(locked.round)[locked.pk], status=409)
        _lifecycle(lifecycle.publish_version, locked, actor=actor, reason=reason)
        _notify_members(locked.organization, events.VERSION_PUBLISHED,
                        f"Version {locked.version} of {locked.organization} in {locked.round} is published.")
    submission.refresh_from_db()
    return submission


def release_held_version(actor, submission: Submission, reason: str) -> Submission:
    """A chair of another organization decides that a held version (its files speak for another
    organization) may stand for its uploader: its results get their ids, it becomes current like
    any newest version (after the round's publication a chair then publishes it with publish_fix),
    and its declared borrowings are checked as at ingestion."""
    _require_chair(actor, "release a held version")
    _refuse_conflict(actor, submission.organization, "release its versions")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = Submission.objects.select_for_update().select_related("round", "organization").get(pk=submission.pk)
        if not locked.held_reason:
            raise ReviewRefused(f"{locked} is not held", status=409)
        _lifecycle(lifecycle.release_version, locked, actor=actor, reason=reason)
        check_borrowings(locked)
        _notify_members(locked.organization, events.VERSION_RELEASED,
                        f"Version {locked.version} of {locked.organization} in {locked.round} was released: {reason}")
    submission.refresh_from_db()
    return submission


def grant_resubmission_window(actor, round_: Round, organization: Organization, closes_at, reason: str):
    """A chair (or a fix-required decision) lets one organization upload after the deadline, in
    review or, for a correction, after publication (a draft or final round takes no upload at all)."""
    _require_reviewer(actor, "open resubmission windows")
    _refuse_conflict(actor, organization, "open resubmission windows for it")
    reason = _require_reason(reason)
    if round_.state in (RoundState.DRAFT, RoundState.FINAL):
        raise ReviewRefused(f"{round_} is {round_.get_state_display().lower()}: it takes no upload, window or not",
                            status=409)
    with transaction.atomic():
        window = ResubmissionWindow.objects.create(
            round=round_, organization=organization, closes_at=closes_at, reason=reason, granted_by=actor
        )
        events.resubmission_window_granted(window, actor=actor)
        _notify_members(organization, events.RESUBMISSION_WINDOW_GRANTED,
                        f"{organization} may upload to {round_} until {closes_at:%Y-%m-%d %H:%M} UTC: {reason}",
                        link="/submit/")
    return window


def assign_reviewer(actor, round_: Round, reviewer, organization: Organization) -> ReviewerAssignment:
    _require_chair(actor, "assign reviewers")
    if organization is None:
        raise ReviewRefused("no such organization", status=400)
    if not is_reviewer(reviewer):
        raise ReviewRefused(f"{reviewer} is not a reviewer", status=400)
    _refuse_conflict(reviewer, organization, "review it")
    with transaction.atomic():
        assignment, created = ReviewerAssignment.objects.get_or_create(
            round=round_, reviewer=reviewer, organization=organization, defaults={"assigned_by": actor}
        )
        if created:
            events.reviewer_assigned(assignment, actor=actor)
    return assignment


# --- Objections ----------------------------------------------------------------------------------


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


def _check_resolver(actor, objection: Objection) -> None:
    _require_reviewer(actor, "resolve objections")
    if objection.filed_by_id == actor.pk:
        raise ReviewRefused("whoever filed an objection cannot resolve it")
    _refuse_conflict(actor, objection.organization, "resolve objections against it")
    if objection.filed_for is not None:
        _refuse_conflict(actor, objection.filed_for, "resolve objections it filed")


def may_resolve(user, objection: Objection) -> bool:
    """Whether the resolve form is offered: an answered objection, to a reviewer who may resolve it
    (never whoever filed it, nor a member of either organization)."""
    if objection.state != ObjectionState.ANSWERED:
        return False
    try:
        _check_resolver(user, objection)
    except ReviewRefused:
        return False
    return True


def _target_name(objection: Objection) -> str:
    if objection.result is not None:
        return f"result {objection.result.result_id}"
    return f"system {objection.system.system_id}"


def _deciders_of(objection: Objection):
    """Who hears of an answer: the filer and the reviewers assigned to the accused organization."""
    from django.contrib.auth import get_user_model

    assigned = ReviewerAssignment.objects.filter(round=objection.round, organization=objection.organization)
    return get_user_model().objects.filter(pk__in=[objection.filed_by_id, *assigned.values_list("reviewer", flat=True)])


# --- Results: withdrawal and waivers -------------------------------------------------------------


def withdraw_result(actor, result: Result, reason: str) -> WithdrawalRequest | None:
    """Its organization withdraws a result: its citable id, so every version, later ones included.
    Before publication it is withdrawn at once; a published result is withdrawn when a chair
    approves the request (decide_withdrawal), which this returns."""
    organization = result.submission.organization
    if not member_of(actor, organization):
        raise ReviewRefused(f"only members of {organization} withdraw its results")
    reason = _require_reason(reason)
    if result.status != ResultStatus.ACTIVE:
        raise ReviewRefused(f"{result.result_id} is already {result.get_status_display().lower()}", status=409)
    round_ = result.submission.round
    published = round_.is_published and Result.objects.filter(
        citable=result.citable_id, submission__is_published=True
    ).exists()
    with transaction.atomic():
        if not published:
            _lifecycle(lifecycle.withdraw_result, result, actor=actor, reason=reason)
            return None
        try:
            with transaction.atomic():
                request = WithdrawalRequest.objects.create(
                    round=round_, organization=organization, result_id=result.result_id, reason=reason,
                    requested_by=actor,
                )
        except IntegrityError as exc:
            raise ReviewRefused(f"the withdrawal of {result.result_id} already waits for a chair", status=409) from exc
        events.withdrawal_requested(request, result, actor=actor)
        _notify_users(_chairs(), events.WITHDRAWAL_REQUESTED,
                      f"{organization} asks to withdraw its published result {result.result_id}: {reason}",
                      link=f"/review/results/{result.result_id}/")
    return request


def decide_withdrawal(actor, request: WithdrawalRequest, approve: bool, reason: str) -> WithdrawalRequest:
    """A chair of another organization approves (the result is withdrawn everywhere at once: pages,
    cached pages, API, every version) or refuses a request to withdraw a published result."""
    _require_chair(actor, "decide on withdrawals")
    _refuse_conflict(actor, request.organization, "decide on its withdrawals")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = WithdrawalRequest.objects.select_for_update().get(pk=request.pk)
        if locked.state != WithdrawalState.PENDING:
            raise ReviewRefused(f"{locked.subject} is already {locked.state}", status=409)
        locked.state = WithdrawalState.APPROVED if approve else WithdrawalState.REFUSED
        locked.decided_by, locked.decided_at, locked.decision_reason = actor, timezone.now(), reason
        locked.save()
        current = Result.objects.filter(
            submission__round=locked.round_id, submission__organization=locked.organization_id,
        ).citable(locked.result_id).select_related("submission").first()
        if approve:
            _lifecycle(lifecycle.withdraw_result, current, actor=actor, reason=f"{locked.reason} (approved: {reason})")
        else:
            events.withdrawal_refused(locked, current, actor=actor)
        _notify_members(locked.organization, f"withdrawal.{locked.state}",
                        f"The withdrawal of {locked.result_id} was {locked.state}: {reason}")
    return locked


def reinstate_result(actor, result: Result, reason: str) -> Result:
    """A chair of another organization reinstates a withdrawn or removed result (its citable id,
    every version): the only way one is public again, and the public change log says so.
    Returns the version shown."""
    _require_chair(actor, "reinstate a result")
    organization = result.submission.organization
    _refuse_conflict(actor, organization, "reinstate its results")
    reason = _require_reason(reason)
    with transaction.atomic():
        shown = _lifecycle(lifecycle.reinstate_result, result, actor=actor, reason=reason)
        _notify_members(organization, events.RESULT_REINSTATED, f"{result.result_id} was reinstated: {reason}",
                        link=f"/review/results/{result.result_id}/")
    return shown


def _lifecycle(move, *args, **kwargs):
    """Call a lifecycle transition (results.services.lifecycle); a move its tables do not allow is
    refused with 409."""
    try:
        return move(*args, **kwargs)
    except TransitionRefused as exc:
        raise ReviewRefused(str(exc), status=409) from exc


def _chairs():
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    return (users.filter(groups__name=CHAIRS_GROUP) | users.filter(is_staff=True)).distinct()


# A shipped scaling factor is decided with decide_shipped_factor, which records the factor itself.
WAIVABLE_KINDS = (WaiverKind.RCP_BYPASS, WaiverKind.SEED_BYPASS, WaiverKind.KNOWN_FALSE_POSITIVE)


def waiver_kinds_for(user) -> list[str]:
    """The waiver kinds `user` may grant: a known false positive is a chair's decision."""
    return [kind for kind in WAIVABLE_KINDS if kind != WaiverKind.KNOWN_FALSE_POSITIVE or is_chair(user)]


def grant_waiver(actor, result: Result, kind: str, reason: str, code: str = "") -> Waiver:
    """A reviewer waives a check for a result's (system, benchmark): an RCP or seed bypass; a chair
    declares the findings of one code a known false positive. The waived findings leave every
    count and badge at once (FindingQuerySet.not_waived); a bypass also reaches the checks of the
    organization's next version."""
    _require_reviewer(actor, "waive findings")
    organization = result.submission.organization
    _refuse_conflict(actor, organization, "waive its findings")
    reason = _require_reason(reason)
    if kind not in WAIVABLE_KINDS:
        raise ReviewRefused(f"unknown waiver kind {kind!r}", status=400)
    code = (code or "").strip() if kind == WaiverKind.KNOWN_FALSE_POSITIVE else ""
    if kind == WaiverKind.KNOWN_FALSE_POSITIVE:
        _require_chair(actor, "declare a known false positive")
        if not Finding.objects.filter(result__result_id=result.result_id, result__submission__round=result.submission.round_id,
                                      code=code).exists():
            raise ReviewRefused(f"{result.result_id} has no finding with code {code!r}", status=400)
    return _record_waiver(actor, result.submission, kind=kind, code=code, reason=reason, result=result)


def waive_package_findings(actor, submission: Submission, code: str, reason: str) -> Waiver:
    """A chair declares the findings of one code that no result carries (the package's layout,
    system descriptions, archive) a known false positive for the organization in this round. They
    leave every count and badge like a result's waived findings (FindingQuerySet.not_waived:
    system and benchmark "")."""
    _require_chair(actor, "waive findings of a package")
    _refuse_conflict(actor, submission.organization, "waive its findings")
    reason = _require_reason(reason)
    code = (code or "").strip()
    if not submission.findings.filter(result__isnull=True, code=code).exists():
        raise ReviewRefused(f"version {submission.version} has no package finding with code {code!r}", status=400)
    return _record_waiver(actor, submission, kind=WaiverKind.KNOWN_FALSE_POSITIVE, code=code, reason=reason)


def _record_waiver(actor, submission: Submission, *, kind: str, code: str, reason: str, result=None) -> Waiver:
    """Store the decision for every version of the organization in the round, audit it, tell the
    organization; `result` None: the package's own findings (system and benchmark "")."""
    organization = submission.organization
    what = result.result_id if result is not None else f"{organization} {submission.round.slug} (package)"
    with transaction.atomic():
        try:
            with transaction.atomic():
                waiver = Waiver.objects.create(
                    round=submission.round, organization=organization,
                    system_id=result.system.system_id if result is not None else "",
                    benchmark=result.benchmark.name if result is not None else "",
                    kind=kind, code=code, reason=reason, granted_by=actor,
                )
        except IntegrityError as exc:
            raise ReviewRefused(f"{what} already has a {kind} waiver{f' for {code}' if code else ''}",
                                status=409) from exc
        versions = Submission.objects.filter(round=submission.round_id, organization=organization)
        touch_submissions(versions)
        findings_waived.send(sender=Waiver, submissions=versions)
        events.finding_waived(waiver, actor=actor, submission=submission, result=result)
        _notify_members(organization, events.FINDING_WAIVED,
                        f"{what}: {waiver.get_kind_display()}{f' ({code})' if code else ''}: {reason}.")
    return waiver


def decide_shipped_factor(actor, result: Result, accept: bool, reason: str) -> Waiver:
    """A reviewer accepts the scaling factor a result's package ships (the score then rests on it)
    or rejects it (the logs decide); results.services checks role and conflict of interest."""
    with transaction.atomic():
        try:
            decide = accept_shipped_factor if accept else reject_shipped_factor
            decision = decide(result, by=actor, reason=reason)
        except DecisionRefused as exc:
            raise ReviewRefused(str(exc)) from exc
        verb = "accepted" if accept else "rejected"
        _notify_members(result.submission.organization, events.FACTOR_ACCEPTED if accept else events.FACTOR_REJECTED,
                        f"{result.result_id}: the shipped scaling factor {decision.factor} was {verb} "
                        f"({decision.reason}).")
    return decision


# --- Hyperparameter borrowing --------------------------------------------------------------------


def declare_borrowing(actor, result: Result, lender_result: Result, now=None) -> BorrowingDeclaration:
    """The borrower's organization declares that this closed-division result borrows the
    lender's hyperparameters; its next version is checked against the lender's. The borrower may
    upload that version through a resubmission window (borrowing_window), and the lender's
    organization is told which of its results was borrowed from, by whom."""
    organization = result.submission.organization
    round_ = result.submission.round
    if not member_of(actor, organization):
        raise ReviewRefused(f"only members of {organization} declare borrowing for its results")
    now = now or timezone.now()
    if round_.state != RoundState.REVIEW:
        raise ReviewRefused(f"borrowing is declared during review; {round_} is {round_.state}", status=409)
    if round_.borrowing_deadline and now > round_.borrowing_deadline:
        raise ReviewRefused(f"the borrowing deadline passed on {round_.borrowing_deadline:%Y-%m-%d %H:%M} UTC",
                            status=409)
    if lender_result.submission.round_id != round_.pk or lender_result.benchmark.name != result.benchmark.name:
        raise ReviewRefused("the lender's result must be of the same benchmark in the same round", status=400)
    if lender_result.submission.organization_id == organization.pk:
        raise ReviewRefused("borrowing is from another submitter", status=400)
    if lender_result.status != ResultStatus.ACTIVE:
        raise ReviewRefused(f"the lender's result is {lender_result.get_status_display().lower()}", status=400)
    if result.division != Division.CLOSED or lender_result.division != Division.CLOSED:
        raise ReviewRefused("borrowing is between closed-division results", status=400)
    with transaction.atomic():
        try:
            with transaction.atomic():
                declaration = BorrowingDeclaration.objects.create(
                    round=round_, organization=organization, benchmark=result.benchmark,
                    system_id=result.system.system_id, result_id=result.result_id,
                    base_submission=result.submission, lender_result=lender_result, declared_by=actor,
                )
        except IntegrityError as exc:
            raise ReviewRefused(f"{result.result_id} already declared its borrowing", status=409) from exc
        events.borrowing_declared(declaration, actor=actor)
        window = borrowing_window(declaration, now)
        _notify_members(organization, events.BORROWING_DECLARED,
                        f"{result.result_id} ({result.benchmark.name}) borrows the hyperparameters of "
                        f"{lender_result.result_id}: upload the resubmission to {round_} by "
                        f"{window.closes_at:%Y-%m-%d %H:%M} UTC; it is checked against the lender's.",
                        link="/submit/")
        _notify_members(lender_result.submission.organization, events.BORROWING_DECLARED,
                        f"{organization} declared that its result {result.result_id} ({result.benchmark.name}) "
                        f"borrows the hyperparameters of your result {lender_result.result_id} in {round_}.",
                        link=f"/review/results/{result.result_id}/")
    return declaration


def borrowing_window(declaration: BorrowingDeclaration, now=None) -> ResubmissionWindow:
    """The borrower's way to upload the version that uses the borrowed hyperparameters: a
    resubmission window for its organization in the round until the borrowing deadline (else the
    planned publication, else DEFAULT_FIX_WINDOW from now), as a fix required by review gets one.
    An open window lasting as long already serves; a new one is audited as a chair's grant is,
    granted by the rule (no actor)."""
    now = now or timezone.now()
    round_ = declaration.round
    ahead = [date for date in (round_.borrowing_deadline, round_.publish_at) if date and date > now]
    closes_at = ahead[0] if ahead else now + DEFAULT_FIX_WINDOW
    lasting = ResubmissionWindow.objects.open_for(round_, declaration.organization, now).filter(closes_at__gte=closes_at)
    window = lasting.order_by("-closes_at").first()
    if window is None:
        window = ResubmissionWindow.objects.create(
            round=round_, organization=declaration.organization, closes_at=closes_at, granted_by=None,
            reason=f"{declaration.subject}: {declaration.result_id} borrows the hyperparameters of "
                   f"{declaration.lender_result.result_id}; the resubmission is checked against them",
        )
        events.resubmission_window_granted(window, actor=None)
    return window


def check_borrowings(submission: Submission) -> list[BorrowingDeclaration]:
    """Check every declared borrowing of `submission`'s organization that this newly written
    version resubmits: hyperparameters against the lender's, system against the previous version.
    A rejected borrowing that this version reverts (see revert_rejected_borrowings) is released."""
    checked = revert_rejected_borrowings(submission)
    declarations = BorrowingDeclaration.objects.filter(
        round=submission.round_id, organization=submission.organization_id,
        state__in=[BorrowingState.DECLARED, BorrowingState.CHECKED], base_submission__version__lt=submission.version,
    ).select_related("lender_result__benchmark", "base_submission", "benchmark")
    for declaration in declarations:
        resubmitted = Result.objects.filter(submission=submission, result_id=declaration.result_id).first()
        if resubmitted is None:
            continue
        with transaction.atomic():
            mismatches = borrowing_mismatches(declaration, resubmitted)
            _move(declaration.state, BorrowingState.CHECKED, BORROWING_TRANSITIONS, declaration.subject)
            declaration.state = BorrowingState.CHECKED
            declaration.checked_submission = submission
            declaration.mismatches = [m.to_dict() for m in mismatches]
            declaration.save(update_fields=["state", "checked_submission", "mismatches"])
            events.borrowing_checked(declaration)
            _notify_users(_reviewers_of(declaration.round, declaration.organization), events.BORROWING_CHECKED,
                          f"{declaration} was checked: {len(mismatches)} mismatch(es).",
                          link=f"/review/results/{declaration.round.slug}/{declaration.result_id}/")
        checked.append(declaration)
    return checked


def borrowing_mismatches(declaration: BorrowingDeclaration, resubmitted: Result):
    lender = declaration.lender_result
    closed_keys = frozenset(rule["key"] for rule in declaration.benchmark.closed_hyperparameter_rules)
    may_differ = batch_dependent(closed_keys) | {"global_batch_size"}
    mismatches = compare_hyperparameters(_logged(resubmitted), _logged(lender), may_differ, closed_keys)
    previous = Result.objects.filter(
        submission=declaration.base_submission, result_id=declaration.result_id
    ).select_related("system").first()
    if previous is not None:
        mismatches += compare_systems(previous.system.description, resubmitted.system.description)
    if resubmitted.division != Division.CLOSED:
        mismatches.append(
            Mismatch("division", resubmitted.division, Division.CLOSED, "a borrowing resubmission is closed-division")
        )
    return mismatches


def revert_rejected_borrowings(submission: Submission) -> list[BorrowingDeclaration]:
    """A newly written version reverts a rejected borrowing when the borrowed result is gone from
    it, or logs the hyperparameters of the version before the borrowing again: its publication is
    no longer blocked (BORROWING_REVERTED)."""
    reverted = []
    rejected = BorrowingDeclaration.objects.filter(
        round=submission.round_id, organization=submission.organization_id, state=BorrowingState.REJECTED,
        checked_submission__version__lt=submission.version,
    ).select_related("benchmark", "base_submission")
    for declaration in rejected:
        resubmitted = Result.objects.filter(submission=submission, result_id=declaration.result_id).first()
        if resubmitted is None:
            why = f"version {submission.version} no longer holds {declaration.result_id}"
        else:
            base = Result.objects.filter(submission=declaration.base_submission, result_id=declaration.result_id).first()
            closed_keys = frozenset(rule["key"] for rule in declaration.benchmark.closed_hyperparameter_rules)
            if base is None or compare_hyperparameters(_logged(resubmitted), _logged(base), frozenset(), closed_keys):
                continue
            why = f"version {submission.version} logs the hyperparameters of version {declaration.base_submission.version}"
        with transaction.atomic():
            _move(declaration.state, BorrowingState.REVERTED, BORROWING_TRANSITIONS, declaration.subject)
            declaration.state = BorrowingState.REVERTED
            declaration.save(update_fields=["state"])
            events.borrowing_reverted(declaration, submission, why=why)
        reverted.append(declaration)
    return reverted


def override_rejected_borrowing(actor, declaration: BorrowingDeclaration, reason: str) -> BorrowingDeclaration:
    """A chair of another organization lets a version with a rejected borrowing be published."""
    _require_chair(actor, "override a rejected borrowing")
    _refuse_conflict(actor, declaration.organization, "override its rejected borrowing")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = BorrowingDeclaration.objects.select_for_update().get(pk=declaration.pk)
        _move(locked.state, BorrowingState.OVERRIDDEN, BORROWING_TRANSITIONS, locked.subject)
        locked.state, locked.decided_by, locked.decided_at, locked.decision_reason = (
            BorrowingState.OVERRIDDEN, actor, timezone.now(), reason,
        )
        locked.save()
        events.borrowing_overridden(locked, actor=actor)
        _notify_members(locked.organization, events.BORROWING_OVERRIDDEN,
                        f"A chair overrode the rejected borrowing of {locked.result_id}; its version may be "
                        f"published: {reason}")
    return locked


def withheld_versions(round_: Round) -> dict[int, str]:
    """The versions that may not be published, submission id -> why: every version, from the one
    checked on, of an organization with a rejected borrowing (until it reverts or a chair overrides)."""
    withheld = {}
    rejected = BorrowingDeclaration.objects.filter(round=round_, state=BorrowingState.REJECTED).select_related(
        "checked_submission"
    )
    for declaration in rejected:
        versions = Submission.objects.filter(
            round=round_, organization=declaration.organization_id, version__gte=declaration.checked_submission.version
        )
        for submission_id in versions.values_list("pk", flat=True):
            withheld[submission_id] = (
                f"the borrowing of {declaration.result_id} was rejected: this version is not published until a "
                "later version reverts it or a chair overrides the rejection"
            )
    return withheld


def _logged(result: Result) -> dict:
    """The hyperparameters a result's runs logged (the first run that logged any)."""
    for run in sorted(result.runs.all(), key=lambda run: natural_key(run.file)):
        if run.hyperparameters:
            return run.hyperparameters
    return {}


def decide_borrowing(actor, declaration: BorrowingDeclaration, approve: bool, reason: str) -> BorrowingDeclaration:
    """A reviewer of another organization approves or rejects a checked borrowing."""
    _require_reviewer(actor, "decide on borrowing")
    _refuse_conflict(actor, declaration.organization, "approve its borrowing")
    reason = _require_reason(reason)
    to_state = BorrowingState.APPROVED if approve else BorrowingState.REJECTED
    with transaction.atomic():
        locked = BorrowingDeclaration.objects.select_for_update().get(pk=declaration.pk)
        _move(locked.state, to_state, BORROWING_TRANSITIONS, locked.subject)
        locked.state, locked.decided_by, locked.decided_at, locked.decision_reason = (
            to_state, actor, timezone.now(), reason,
        )
        locked.save()
        (events.borrowing_approved if approve else events.borrowing_rejected)(locked, actor=actor)
        consequence = "" if approve else (
            f" Version {locked.checked_submission.version} is not published until you upload a version without "
            "the borrowed hyperparameters (or without the result), or a chair overrides the rejection."
        )
        _notify_members(locked.organization, events.BORROWING_APPROVED if approve else events.BORROWING_REJECTED,
                        f"Borrowing for {locked.result_id} was {to_state}: {reason}.{consequence}")
    return locked


def _reviewers_of(round_: Round, organization: Organization):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(
        pk__in=ReviewerAssignment.objects.filter(round=round_, organization=organization).values("reviewer")
    )


# --- Notifications -------------------------------------------------------------------------------


def _notify_users(users, kind: str, message: str, link: str = "", key: str = "") -> int:
    """An inbox line for each user, and an email sent once the transaction commits (so a
    rolled-back change notifies nobody). `key` makes a notification once per user."""
    users = list(users)
    rows = []
    for user in users:
        if key and Notification.objects.filter(user=user, key=key).exists():
            continue
        rows.append(Notification(user=user, kind=kind, message=message, link=link, key=key))
    Notification.objects.bulk_create(rows)
    recipients = [row.user.email for row in rows if row.user.email]
    if recipients:
        url = f"{settings.SITE_URL}{link}" if link else settings.SITE_URL
        # One mail per recipient: they need not see each other's addresses.
        mails = [(f"[MLPerf results] {_one_line(message)[:80]}", f"{message}\n\n{url}\n", settings.DEFAULT_FROM_EMAIL, [to])
                 for to in recipients]
        transaction.on_commit(lambda: send_mass_mail(mails, fail_silently=True))
    return len(rows)


def _one_line(text: str) -> str:
    """`text` fit for a mail header: a line break there (a rule typed on two lines) would make
    Django refuse the whole mail (BadHeaderError, dropped silently), so every run of whitespace or
    other unprintable characters becomes one space; the body keeps the text as written."""
    return " ".join("".join(char if char.isprintable() else " " for char in text).split())


def _notify_members(organization: Organization, kind: str, message: str, link: str = "") -> int:
    return _notify_users(organization.members.all(), kind, message, link)


def _notify_round(round_: Round, kind: str, message: str, link: str = "", key: str = "") -> int:
    """Everyone with a stake in the round: its submitters, reviewers and chairs."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.filter(
        organizations__submissions__round=round_
    ) | get_user_model().objects.filter(groups__name__in=PRIVILEGED_GROUPS)
    return _notify_users(users.distinct(), kind, message, link, key)


def remind_deadlines(now=None) -> int:
    """A day before a round's submission, borrowing or publication deadline passes, tell everyone
    concerned, once (the notification key). The beat task runs it hourly. A draft is the chairs'
    alone: its deadlines are told once it opens."""
    now = now or timezone.now()
    sent = 0
    for round_ in Round.objects.exclude(state__in=[RoundState.PUBLISHED, RoundState.DRAFT]):
        for name in ("submission_deadline", "borrowing_deadline", "publish_at"):
            deadline = getattr(round_, name)
            if deadline is None or not (now < deadline <= now + timedelta(days=1)):
                continue
            label = Round._meta.get_field(name).verbose_name
            with transaction.atomic():
                sent += _notify_round(
                    round_, "deadline", f"{round_}: {label} on {deadline:%Y-%m-%d %H:%M} UTC (in less than a day).",
                    key=f"deadline:{round_.pk}:{name}:{deadline.isoformat()}",
                )
    return sent


def mark_read(user, notification_ids=None) -> int:
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if notification_ids is not None:
        unread = unread.filter(pk__in=notification_ids)
    return unread.update(read_at=timezone.now())
