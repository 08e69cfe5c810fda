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


class BorrowingState(models.TextChoices):
    DECLARED = "declared", "Declared, waiting for the resubmission"
    CHECKED = "checked", "Resubmission checked"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
