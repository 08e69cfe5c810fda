"""Who may read everything and who runs a round: the one definition every app uses.

Reviewers and chairs are the `reviewers` and `chairs` groups; staff and superusers count as both.
"""

from __future__ import annotations

REVIEWERS_GROUP = "reviewers"
CHAIRS_GROUP = "chairs"
PRIVILEGED_GROUPS = (REVIEWERS_GROUP, CHAIRS_GROUP)
# A role as the commands and review.services.set_role name it -> the group that grants it (the
# groups are created by review migration 0005).
ROLE_GROUPS = {"reviewer": REVIEWERS_GROUP, "chair": CHAIRS_GROUP}


def is_privileged(user) -> bool:
    """Reviewers and chairs: they read every submission, published or not."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff or user.is_superuser:
        return True
    return user.groups.filter(name__in=PRIVILEGED_GROUPS).exists()


def is_chair(user) -> bool:
    """Chairs move rounds, publish versions, grant windows and record a published round's factors."""
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or user.is_superuser or user.groups.filter(name=CHAIRS_GROUP).exists()
