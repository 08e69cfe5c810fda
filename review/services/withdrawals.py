"""Withdrawal: an organization withdraws its result (a published one when a chair approves), and a
chair reinstates a withdrawn or removed one. Each moves the citable result, every version of it
(results/services/lifecycle.py)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from audit import events
from audit.roles import CHAIRS_GROUP
from results.constants import ResultStatus
from results.models import Result
from results.services import lifecycle

from ..constants import WithdrawalState
from ..models import WithdrawalRequest
from .access import ReviewRefused, _lifecycle, _refuse_conflict, _require_chair, _require_reason, member_of
from .notifications import _notify_members, _notify_users


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


def _chairs():
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    return (users.filter(groups__name=CHAIRS_GROUP) | users.filter(is_staff=True)).distinct()
