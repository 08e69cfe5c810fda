"""The audit log: one append-only row per dated, attributed state change.

The audit app sits below every other app (the import contract in pyproject.toml): it names the
rounds, organizations, submissions and results it points at by app label only, never by import,
and reads nothing of theirs. Rows are written only through audit/events.py; who may read which
rows rests on the results' publication rules, so that rule is results' (results/audit_log.py).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models.functions import Now

from .roles import is_privileged


class AppendOnly(Exception):
    """Audit events are never edited or deleted."""


class AuditEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnly("audit events cannot be edited")

    def delete(self):
        raise AppendOnly("audit events cannot be deleted")

    def with_shown_actor(self, user):
        """Each event's `shown_actor`: who acted, for reviewers and chairs and on the events of the
        viewer's own organizations; "" elsewhere (the public never learns reviewers' names)."""
        if is_privileged(user):
            return self.annotate(shown_actor=models.F("actor_name"))
        if user is None or not user.is_authenticated:
            return self.annotate(shown_actor=models.Value(""))
        own = AuditEvent.objects.filter(pk=models.OuterRef("pk"), organization__members=user)
        return self.annotate(shown_actor=models.Case(
            models.When(models.Exists(own), then=models.F("actor_name")), default=models.Value(""),
        ))


class AuditEvent(models.Model):
    """One dated, attributed state change. Append-only: the model, its queryset and a database
    trigger (review migration 0001, where the table was created) refuse updates and deletes."""

    # Dated by the database (its column default, and on PostgreSQL a trigger that overrides any
    # time an INSERT names: audit migration 0003); Django reads it back with RETURNING.
    created_at = models.DateTimeField(db_default=Now(), db_index=True)
    # What the public API calls an event: random, so gaps in `id` reveal nothing of hidden events.
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=48, db_index=True, help_text="e.g. objection.filed, round.published")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True, help_text="'system' when no person acted")
    round = models.ForeignKey("results.Round", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    organization = models.ForeignKey(
        "results.Organization", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    submission = models.ForeignKey(
        "results.Submission", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    result_id = models.CharField(max_length=96, blank=True, db_index=True, help_text="Citable result id")
    subject = models.CharField(max_length=64, blank=True, help_text="e.g. objection 12")
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        db_table = "review_auditevent"  # created by the review app, moved here without a copy
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.kind} by {self.actor_name}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise AppendOnly("audit events cannot be edited")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("audit events cannot be deleted")
