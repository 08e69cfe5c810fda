"""Who may read everything and who runs a round: the one definition every app uses.

Reviewers and chairs are the `reviewers` and `chairs` groups; staff and superusers count as both.
Chairs also work in the admin: the chair role sets the staff flag (review.services.set_role) and
the chairs group holds the admin permissions below, and only those (sync_role_groups, after every
migrate).
"""

from __future__ import annotations

REVIEWERS_GROUP = "reviewers"
CHAIRS_GROUP = "chairs"
PRIVILEGED_GROUPS = (REVIEWERS_GROUP, CHAIRS_GROUP)
REVIEWER_ROLE = "reviewer"
CHAIR_ROLE = "chair"
# A role as the commands and review.services.set_role name it -> the group that grants it (the
# groups are created by review migration 0005, and again by sync_role_groups).
ROLE_GROUPS = {REVIEWER_ROLE: REVIEWERS_GROUP, CHAIR_ROLE: CHAIRS_GROUP}

# What a chair does in the admin (README "Review"), as Django model permissions. Every change there
# still goes through the services (review/admin.py), which check the role again and audit it.
CHAIR_PERMISSIONS = (
    # Rounds: created (benchmarks from the ruleset), ruleset changed, moved by the lifecycle actions.
    "results.add_round", "results.change_round", "results.view_round", "results.view_benchmark",
    # Versions: the lifecycle's actions (publish a fix accepted after publication).
    "results.change_submission", "results.view_submission",
    # Late uploads: resubmission windows are granted, never edited.
    "review.add_resubmissionwindow", "review.view_resubmissionwindow",
    # People: the user list's organization and role actions (users are not edited there).
    "auth.view_user", "results.view_organization",
    # The records a chair reads.
    "audit.view_auditevent", "review.view_objection", "review.view_borrowingdeclaration",
    "review.view_reviewerassignment", "results.view_result", "results.view_system", "results.view_finding",
    "results.view_waiver",
)


def roles_of(user) -> frozenset[str]:
    """The review roles `user` holds (REVIEWER_ROLE, CHAIR_ROLE; staff and superusers hold both),
    in one query: what a read rule asks once per request."""
    if user is None or not user.is_authenticated:
        return frozenset()
    if user.is_staff or user.is_superuser:
        return frozenset(ROLE_GROUPS)
    held = set(user.groups.filter(name__in=PRIVILEGED_GROUPS).values_list("name", flat=True))
    return frozenset(role for role, group in ROLE_GROUPS.items() if group in held)


def is_privileged(user) -> bool:
    """Reviewers and chairs: they read every submission, published or not."""
    return bool(roles_of(user))


def is_chair(user) -> bool:
    """Chairs move rounds, publish versions, grant windows and record a published round's factors."""
    return CHAIR_ROLE in roles_of(user)


def sync_role_groups(using: str = "default", **_signal) -> None:
    """The role groups exist and the chairs group holds exactly CHAIR_PERMISSIONS. Connected to
    post_migrate (audit/apps.py), which runs once per app after auth has created that app's
    permissions: the last run sees them all."""
    from django.contrib.auth.models import Group, Permission
    from django.db.models import Q

    wanted = Q(pk__in=[])
    for name in CHAIR_PERMISSIONS:
        app_label, codename = name.split(".")
        wanted |= Q(content_type__app_label=app_label, codename=codename)
    groups = {name: Group.objects.using(using).get_or_create(name=name)[0] for name in PRIVILEGED_GROUPS}
    groups[CHAIRS_GROUP].permissions.set(Permission.objects.using(using).filter(wanted))
