"""Preview-category systems carry an obligation: to be available within 60 days of the round's
submission date or by the next round's submission deadline, whichever is later. It is met when
the same organization publishes an available system with the same accelerator in a later round."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from results.constants import Availability
from results.models import Round, System

PREVIEW_GRACE = timedelta(days=60)
PREVIEW_STATES = ("overdue", "pending", "met")  # an obligation's states, in the order the page lists them
# What the obligations are worked out from and the page shows of a system (templates/review/preview.html).
SHOWN_FIELDS = ("name", "system_id", "availability", "accelerator_model_name", "submission__organization",
                "submission__round")


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


def _accelerator(system: System) -> str:
    return system.accelerator_model_name.strip().lower()


def preview_obligations(user, suite: str = "training") -> list[PreviewObligation]:
    """Every preview system the user may see, with its due date and the system that met it."""
    rounds = sorted(
        (r for r in Round.objects.visible_to(user).filter(suite=suite) if _submission_date(r)),
        key=_submission_date,
    )
    systems = list(
        System.objects.visible_to(user).current()
        .filter(submission__round__in=rounds, availability__in=[Availability.PREVIEW, Availability.AVAILABLE])
        .select_related("submission__organization", "submission__round")
        .only(*SHOWN_FIELDS)  # not each system's description (JSON): the suite's systems are thousands
    )
    # The available systems of each organization and accelerator, in the systems' order: a preview
    # system is met by the first of them in a later round. Looked up, not searched for each preview
    # system among all (24 s with the bench database's 20,000 training systems).
    available: dict[tuple[int, str], list[System]] = defaultdict(list)
    for other in systems:
        if other.availability == Availability.AVAILABLE:
            available[(other.submission.organization_id, _accelerator(other))].append(other)
    obligations = []
    for system in systems:
        if system.availability != Availability.PREVIEW:
            continue
        submitted = _submission_date(system.submission.round)
        later = [r for r in rounds if _submission_date(r) > submitted]
        due = max(submitted + PREVIEW_GRACE, _submission_date(later[0]) if later else submitted)
        met_by = next((other for other in available[(system.submission.organization_id, _accelerator(system))]
                       if _submission_date(other.submission.round) > submitted), None)
        obligations.append(PreviewObligation(system, due, met_by))
    obligations.sort(key=lambda o: (o.state != "overdue", o.due))
    return obligations
