"""People: organization memberships and the reviewer and chair roles (a chair, or the operator at
the command line)."""

from __future__ import annotations

from django.db import transaction

from audit import events
from audit.roles import CHAIR_ROLE, ROLE_GROUPS
from results.models import Organization

from .access import ReviewRefused, _require_chair, member_of


def set_membership(actor, user, organization: Organization, member: bool = True) -> bool:
    """Add `user` to `organization` (or remove); `actor` None is the operator at the command line.
    Audited; True when something changed."""
    if actor is not None:
        _require_chair(actor, "change organization memberships")
    if member_of(user, organization) == member:
        return False
    with transaction.atomic():
        (organization.members.add if member else organization.members.remove)(user)
        events.membership_changed(user, organization, actor=actor, member=member)
    return True


def set_role(actor, user, role: str, granted: bool = True) -> bool:
    """Give (or take) a role: `reviewer` or `chair` (the `reviewers` / `chairs` groups); `actor`
    None is the operator at the command line. Chairs work in the admin too: the chair role sets the
    user's staff flag (the admin's door; the chairs group's permissions say what they may do there,
    audit.roles.CHAIR_PERMISSIONS) and taking it clears the flag, unless the user is a superuser.
    Audited; True when something changed."""
    from django.contrib.auth.models import Group

    if role not in ROLE_GROUPS:
        raise ReviewRefused(f"unknown role {role!r}: expected one of {', '.join(ROLE_GROUPS)}", status=400)
    if actor is not None:
        _require_chair(actor, "give roles")
    group, _ = Group.objects.get_or_create(name=ROLE_GROUPS[role])
    staff = (granted or user.is_superuser) if role == CHAIR_ROLE else user.is_staff
    if user.groups.filter(pk=group.pk).exists() == granted and user.is_staff == staff:
        return False
    with transaction.atomic():
        (user.groups.add if granted else user.groups.remove)(group)
        if user.is_staff != staff:
            user.is_staff = staff
            user.save(update_fields=["is_staff"])
        events.role_changed(user, role, actor=actor, granted=granted)
    return True
