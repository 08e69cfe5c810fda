from django.db import models


class ObjectionState(models.TextChoices):
    OPEN = "open", "Open"
    ANSWERED = "answered", "Answered"
    RESOLVED = "resolved", "Resolved"


class ObjectionOutcome(models.TextChoices):
    DISMISSED = "dismissed", "Dismissed"
    FIX_REQUIRED = "fix_required", "Fix required"
    MOVED_TO_OPEN = "moved_to_open", "Moved from closed to open division"
    REMOVED = "removed", "Result removed"


# Role -> the auth group that grants it (created by migration 0003; results.querysets reads them).
ROLE_GROUPS = {"reviewer": "reviewers", "chair": "chairs"}


class WithdrawalState(models.TextChoices):
    PENDING = "pending", "Waiting for a chair"
    APPROVED = "approved", "Approved: withdrawn"
    REFUSED = "refused", "Refused"


class BorrowingState(models.TextChoices):
    DECLARED = "declared", "Declared, waiting for the resubmission"
    CHECKED = "checked", "Resubmission checked"
    APPROVED = "approved", "Approved"
    # Rejected blocks the publication of the borrower's version until it reverts (a later version
    # without the borrowed hyperparameters) or a chair overrides the rejection with a reason.
    REJECTED = "rejected", "Rejected: the version is not published"
    REVERTED = "reverted", "Rejected, then reverted by a later version"
    OVERRIDDEN = "overridden", "Rejected, then overridden by a chair"


# Audit event kinds recorded here (review.audit.record_event).
FINDING_WAIVED = "finding.waived"
BORROWING_REVERTED = "borrowing.reverted"
BORROWING_OVERRIDDEN = "borrowing.overridden"
MEMBER_ADDED = "member.added"
MEMBER_REMOVED = "member.removed"
ROLE_GRANTED = "role.granted"
ROLE_REVOKED = "role.revoked"
ROUND_CREATED = "round.created"
ROUND_RULESET_CHANGED = "round.ruleset_changed"
VERSION_HELD = "version.held"
WITHDRAWAL_REQUESTED = "withdrawal.requested"
WITHDRAWAL_REFUSED = "withdrawal.refused"
RESULT_WITHDRAWN = "result.withdrawn"
VERSION_RELEASED = "version.released"

# The review record's outcomes the public sees once a round is published (review/models.py):
# publication, withdrawals, and decisions that change a score, with their reason. Objections,
# borrowing and who reviewed stay confidential.
PUBLIC_EVENT_KINDS = (
    "round.published", "version.published", "version.switched", RESULT_WITHDRAWN,
    "factor.accepted", "factor.rejected", FINDING_WAIVED,
    "verification.started", "verification.code_sent", "verification.finished",
)
# An objection.resolved event is public with one of these outcomes (they change the tables).
SCORE_CHANGING_OUTCOMES = (ObjectionOutcome.MOVED_TO_OPEN.value, ObjectionOutcome.REMOVED.value)
