"""Who may upload to a round now (upload_refusal: the one rule), and the resubmission windows that
let one organization upload after the deadline."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from audit import events
from results.constants import RoundState
from results.models import Organization, Round

from ..models import ResubmissionWindow
from .access import ReviewRefused, _refuse_conflict, _require_reason, _require_reviewer
from .notifications import _notify_members

# A "fix required" opens a resubmission window this long when the round names no publication date.
DEFAULT_FIX_WINDOW = timedelta(days=7)


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
