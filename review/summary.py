"""What the public result page shows of the review: where borrowed hyperparameters came from, the
waivers of its checks, and the result's history (the audit events the visitor may see)."""

from __future__ import annotations

from results.audit_log import events_visible_to
from results.models import Waiver

from .models import BorrowingDeclaration


def review_summary(result, user) -> dict:
    round_ = result.submission.round
    return {
        "borrowing": BorrowingDeclaration.objects.visible_to(user)
        .filter(round=round_, result_id=result.result_id, state="approved")
        .select_related("lender_result__submission__organization", "lender_result__system")
        .first(),
        "waivers": list(
            Waiver.objects.filter(round=round_, organization=result.submission.organization_id,
                                  system_id=result.system.system_id, benchmark=result.benchmark.name)
            .select_related("granted_by")
        ),
        "events": list(
            events_visible_to(user).with_shown_actor(user)
            .filter(round=round_, result_id=result.result_id).order_by("created_at")
        ),
    }
