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
