"""The audit log (audit/models.py AuditEvent) as each reader may see it. The rule rests on the
results' own publication rules (a published round, a published version, a public result), so it
lives here, above audit, which knows nothing of them.

Reviewers and chairs see every event; members see their organizations' events; once a round is
published everyone sees the outcomes (audit.events.PUBLIC_EVENT_KINDS) of its round, of its
published versions and of each public result (earlier versions included), never the rest of the
review record.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from audit.events import OBJECTION_RESOLVED, PUBLIC_EVENT_KINDS, SCORE_CHANGING_OUTCOMES
from audit.models import AuditEvent
from audit.roles import is_privileged

from .constants import RoundState
from .models import Result


def events_visible_to(user) -> QuerySet[AuditEvent]:
    """The audit events `user` may read (None: an anonymous visitor)."""
    events = AuditEvent.objects.all()
    if is_privileged(user):
        return events
    public_results = Result.objects.visible_to(None).values("result_id")
    outcomes = Q(kind__in=PUBLIC_EVENT_KINDS) | Q(kind=OBJECTION_RESOLVED, data__outcome__in=SCORE_CHANGING_OUTCOMES)
    public = Q(round__state=RoundState.PUBLISHED) & outcomes & (
        Q(organization__isnull=True)
        | Q(submission__is_published=True)
        | Q(result_id__gt="", result_id__in=public_results)
    )
    if user is not None and user.is_authenticated:
        public |= Q(organization__members=user)
    return events.filter(public).distinct()
