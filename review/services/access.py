"""Who may act: the refusal every review service raises (ReviewRefused, with the HTTP status
that says why), the role and conflict-of-interest guards (nobody decides on an organization they
belong to), the checks the pages use to offer a form (member_of, is_reviewer, may_*), and moves
only along a transition table."""

from __future__ import annotations

from audit.roles import is_chair, is_privileged
from results.models import Organization
from results.services.lifecycle import TransitionRefused

from ..constants import ObjectionState
from ..models import BorrowingDeclaration, Objection


class ReviewRefused(Exception):
    """The action is not allowed; `status` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


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


def _lifecycle(move, *args, **kwargs):
    """Call a lifecycle transition (results.services.lifecycle); a move its tables do not allow is
    refused with 409."""
    try:
        return move(*args, **kwargs)
    except TransitionRefused as exc:
        raise ReviewRefused(str(exc), status=409) from exc


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
