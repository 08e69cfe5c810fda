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
# What the page shows of a system (templates/review/preview.html).
SHOWN_FIELDS = ("name", "system_id", "availability", "accelerator_model_name", "submission__organization",
                "submission__round")


@dataclass
class PreviewObligation:
    system_pk: int
    due: datetime
    met_by_pk: int | None
    # Read for the obligations a page shows (with_systems): a suite has thousands of systems.
    system: System | None = None
    met_by: System | None = None

    @property
    def state(self) -> str:
        if self.met_by_pk is not None:
            return "met"
        return "overdue" if timezone.now() > self.due else "pending"


def _submission_date(round_: Round) -> datetime | None:
    return round_.submission_deadline or round_.publish_at


def preview_obligations(user, suite: str = "training") -> list[PreviewObligation]:
    """Every preview system the user may see, with its due date and the system that met it, overdue
    first. Worked out from a few columns of each system: building the models of a suite's systems
    took a second (11,375 at the bench database's size)."""
    rounds = sorted(
        (r for r in Round.objects.visible_to(user).filter(suite=suite) if _submission_date(r)),
        key=_submission_date,
    )
    submitted = {r.pk: _submission_date(r) for r in rounds}
    # Due 60 days after the round's submission date or at the next round's, whichever is later.
    due = {}
    for pk, date in submitted.items():
        later = [other for other in submitted.values() if other > date]
        due[pk] = max(date + PREVIEW_GRACE, min(later, default=date))
    systems = list(
        System.objects.visible_to(user).current()
        .filter(submission__round__in=rounds, availability__in=[Availability.PREVIEW, Availability.AVAILABLE])
        .values_list("pk", "submission__organization_id", "accelerator_model_name", "availability",
                     "submission__round_id")
    )
    # The available systems of each organization and accelerator, in the systems' order: a preview
    # system is met by the first of them in a later round. Looked up, not searched for each preview
    # system among all (24 s with the bench database's 20,000 training systems).
    available: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
    for pk, organization, accelerator, availability, round_pk in systems:
        if availability == Availability.AVAILABLE:
            available[(organization, accelerator.strip().lower())].append((pk, round_pk))
    obligations = []
    for pk, organization, accelerator, availability, round_pk in systems:
        if availability != Availability.PREVIEW:
            continue
        met_by = next((other for other, other_round in available[(organization, accelerator.strip().lower())]
                       if submitted[other_round] > submitted[round_pk]), None)
        obligations.append(PreviewObligation(pk, due[round_pk], met_by))
    obligations.sort(key=lambda o: (o.state != "overdue", o.due))
    return obligations


def with_systems(obligations: list[PreviewObligation]) -> list[PreviewObligation]:
    """The obligations with their systems read, in one query."""
    wanted = {o.system_pk for o in obligations} | {o.met_by_pk for o in obligations if o.met_by_pk}
    systems = (System.objects.filter(pk__in=wanted).select_related("submission__organization", "submission__round")
               .only(*SHOWN_FIELDS).in_bulk())
    for obligation in obligations:
        obligation.system = systems[obligation.system_pk]
        obligation.met_by = systems.get(obligation.met_by_pk)
    return obligations
