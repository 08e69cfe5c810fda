"""Preview-category systems carry an obligation: to be available within 60 days of the round's
submission date or by the next round's submission deadline, whichever is later. It is met when
the same organization publishes an available system with the same accelerator in a later round."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from results.constants import Availability
from results.models import Round, System

PREVIEW_GRACE = timedelta(days=60)


@dataclass
class PreviewObligation:
    system: System
    due: datetime
    met_by: System | None

    @property
    def state(self) -> str:
        if self.met_by is not None:
            return "met"
        return "overdue" if timezone.now() > self.due else "pending"


def _submission_date(round_: Round) -> datetime | None:
    return round_.submission_deadline or round_.publish_at


def preview_obligations(user, suite: str = "training") -> list[PreviewObligation]:
    """Every preview system the user may see, with its due date and the system that met it."""
    rounds = sorted(
        (r for r in Round.objects.visible_to(user).filter(suite=suite) if _submission_date(r)),
        key=_submission_date,
    )
    systems = list(
        System.objects.visible_to(user).current().filter(submission__round__in=rounds)
        .select_related("submission__organization", "submission__round")
    )
    obligations = []
    for system in systems:
        if system.availability != Availability.PREVIEW:
            continue
        round_ = system.submission.round
        submitted = _submission_date(round_)
        later = [r for r in rounds if _submission_date(r) > submitted]
        due = max(submitted + PREVIEW_GRACE, _submission_date(later[0]) if later else submitted)
        met_by = next(
            (
                other for other in systems
                if other.availability == Availability.AVAILABLE
                and other.submission.organization_id == system.submission.organization_id
                and other.submission.round in later
                and other.accelerator_model_name.strip().lower() == system.accelerator_model_name.strip().lower()
            ),
            None,
        )
        obligations.append(PreviewObligation(system, due, met_by))
    obligations.sort(key=lambda o: (o.state != "overdue", o.due))
    return obligations
