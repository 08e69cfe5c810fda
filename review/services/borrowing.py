"""Hyperparameter borrowing: a declaration, the borrower's resubmission window, the check of the
resubmission against the lender's, a reviewer's decision, a chair's override, and the versions a
rejected borrowing withholds from publication."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from audit import events
from mlperf_check.package import natural_key
from mlperf_check.rules.borrowing import Mismatch, batch_dependent, compare_hyperparameters, compare_systems
from results.constants import Division, ResultStatus, RoundState
from results.models import Organization, Result, Round, Submission

from ..constants import BorrowingState
from ..models import BorrowingDeclaration, ResubmissionWindow, ReviewerAssignment
from .access import (
    ReviewRefused,
    _move,
    _refuse_conflict,
    _require_chair,
    _require_reason,
    _require_reviewer,
    member_of,
)
from .notifications import _notify_members, _notify_users
from .windows import DEFAULT_FIX_WINDOW

# A borrowing declaration's own transitions.
BORROWING_TRANSITIONS = {
    BorrowingState.DECLARED: {BorrowingState.CHECKED},
    BorrowingState.CHECKED: {BorrowingState.CHECKED, BorrowingState.APPROVED, BorrowingState.REJECTED},
    BorrowingState.APPROVED: set(),
    BorrowingState.REJECTED: {BorrowingState.REVERTED, BorrowingState.OVERRIDDEN},
    BorrowingState.REVERTED: set(),
    BorrowingState.OVERRIDDEN: set(),
}


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
