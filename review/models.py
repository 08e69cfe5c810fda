"""Review records. Every state change also writes an audit event in the same transaction
(audit/events.py); the rows here hold the current state, the events hold the history."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from audit.roles import is_privileged
from results.constants import Severity
from results.models import Benchmark, Organization, Result, Round, Run, Submission, System

from .constants import (
    BorrowingState,
    ObjectionOutcome,
    ObjectionState,
    WithdrawalState,
)


class ResubmissionWindowQuerySet(models.QuerySet):
    def open_for(self, round_: Round, organization: Organization, now=None):
        return self.filter(round=round_, organization=organization, closes_at__gt=now or timezone.now())


class ResubmissionWindow(models.Model):
    """Lets one organization upload to a round after its deadline, until `closes_at`."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="resubmission_windows")
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="resubmission_windows"
    )
    closes_at = models.DateTimeField()
    reason = models.TextField(blank=True)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ResubmissionWindowQuerySet.as_manager()

    class Meta:
        db_table = "ingest_resubmissionwindow"  # created by the ingest app, moved here without a copy
        ordering = ["-closes_at"]

    def __str__(self) -> str:
        return f"{self.organization} {self.round.slug} until {self.closes_at:%Y-%m-%d %H:%M}"


class ObjectionQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Reviewers and chairs see all; the accused and the filing organization see theirs. The
        public never reads an objection, before or after publication: it sees the outcomes that
        change a table (AuditEvent.visible_to)."""
        if is_privileged(user):
            return self
        if user is None or not user.is_authenticated:
            return self.none()
        rule = models.Q(organization__members=user) | models.Q(filed_for__members=user) | models.Q(filed_by=user)
        return self.filter(rule).distinct()


class BorrowingQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Reviewers and chairs see all; the borrower sees its own (its mismatches only through
        review.services.may_read_mismatches). Borrowing details are never public."""
        if is_privileged(user):
            return self
        if user is None or not user.is_authenticated:
            return self.none()
        return self.filter(organization__members=user).distinct()


class ReviewerAssignment(models.Model):
    """A chair assigns a reviewer to a submitting organization in a round."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="reviewer_assignments")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="+")
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "reviewer", "organization"], name="assignment_unique")
        ]

    def __str__(self) -> str:
        return f"{self.reviewer} reviews {self.organization} in {self.round}"


class Objection(models.Model):
    """An objection against a result (optionally one of its runs) or a system of the accused
    organization. open -> answered -> resolved (review/services/objections.py holds the table)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="objections")
    organization = models.ForeignKey(
        Organization, on_delete=models.PROTECT, related_name="objections_against", help_text="The accused"
    )
    result = models.ForeignKey(Result, null=True, blank=True, on_delete=models.PROTECT, related_name="objections")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.PROTECT, related_name="objections")
    system = models.ForeignKey(System, null=True, blank=True, on_delete=models.PROTECT, related_name="objections")
    rule = models.CharField(max_length=255, help_text="The rule it breaks")
    evidence = models.TextField()
    evidence_file = models.CharField(max_length=512, blank=True)
    evidence_line = models.PositiveIntegerField(null=True, blank=True)
    severity = models.CharField(max_length=8, choices=Severity.choices, default=Severity.ERROR)
    state = models.CharField(max_length=16, choices=ObjectionState.choices, default=ObjectionState.OPEN)
    outcome = models.CharField(max_length=16, choices=ObjectionOutcome.choices, blank=True)
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    filed_for = models.ForeignKey(
        Organization, null=True, blank=True, on_delete=models.PROTECT, related_name="objections_filed",
        help_text="The filer's organization when a submitter files",
    )
    answer = models.TextField(blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolution = models.TextField(blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    answered_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    objects = ObjectionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"objection {self.pk} against {self.organization} ({self.state})"

    @property
    def subject(self) -> str:
        return f"objection {self.pk}"


class BorrowingDeclaration(models.Model):
    """A closed-division result (system, benchmark) of the borrower borrows the lender result's
    hyperparameters; its next version is checked against the lender's (check_borrowing)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="borrowings")
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="borrowings")
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="+")
    system_id = models.CharField(max_length=255)
    result_id = models.CharField(max_length=96, help_text="The borrower's citable result id")
    base_submission = models.ForeignKey(
        Submission, on_delete=models.PROTECT, related_name="+", help_text="The version before the borrowing"
    )
    lender_result = models.ForeignKey(Result, on_delete=models.PROTECT, related_name="lent_to")
    state = models.CharField(max_length=16, choices=BorrowingState.choices, default=BorrowingState.DECLARED)
    checked_submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    mismatches = models.JSONField(default=list, blank=True, help_text="[{key, actual, expected, message}]")
    declared_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    declared_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    objects = BorrowingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["round", "organization", "system_id", "benchmark"], name="borrowing_once_per_entry"
            )
        ]
        ordering = ["-declared_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.result_id} borrows from {self.lender_result.result_id}"

    @property
    def subject(self) -> str:
        return f"borrowing {self.pk}"


class WithdrawalRequest(models.Model):
    """An organization asks to withdraw a published result (every version of its citable id); a
    chair of another organization approves or refuses (review.services.decide_withdrawal)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="withdrawal_requests")
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="withdrawal_requests")
    result_id = models.CharField(max_length=32)
    reason = models.TextField()
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    state = models.CharField(max_length=16, choices=WithdrawalState.choices, default=WithdrawalState.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "result_id"], condition=models.Q(state="pending"),
                                    name="withdrawal_one_pending_per_result")
        ]
        ordering = ["-requested_at", "-pk"]

    def __str__(self) -> str:
        return f"withdrawal of {self.result_id} ({self.state})"

    @property
    def subject(self) -> str:
        return f"withdrawal {self.pk}"


class Notification(models.Model):
    """One line in a user's inbox (and an email, sent after commit)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=48)
    message = models.TextField()
    link = models.CharField(max_length=512, blank=True)
    key = models.CharField(max_length=128, blank=True, help_text="Set when sent once per user (deadline reminders)")
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.user}: {self.kind}"
