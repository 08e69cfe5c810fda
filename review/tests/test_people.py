"""Roles from the first minute: the groups exist after migrate; manage.py commands add a user to
an organization and give a role, audited; a chair may do the same through the services."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command

from audit.models import AuditEvent
from results.models import Organization
from results.querysets import is_privileged
from review import services
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db


def test_the_reviewers_and_chairs_groups_exist_after_migrate():
    assert set(Group.objects.values_list("name", flat=True)) >= {"reviewers", "chairs"}


def test_the_commands_add_a_member_and_give_a_role(capsys):
    user = User.objects.create_user("ada", "ada@nvidia.example", "password")
    org = Organization.objects.create(name="NVIDIA", slug="nvidia")
    call_command("add_member", "ada", "nvidia")
    call_command("grant_role", "ada", "reviewer")
    call_command("grant_role", "ada", "reviewer")
    out = capsys.readouterr().out
    assert "ada is a member of NVIDIA" in out and "ada is a reviewer (unchanged)" in out
    assert org.members.filter(pk=user.pk).exists() and is_privileged(user)
    assert list(AuditEvent.objects.values_list("kind", "actor_name")) == [
        ("member.added", "system"), ("role.granted", "system"),
    ]
    call_command("grant_role", "ada", "reviewer", "--revoke")
    assert not is_privileged(User.objects.get(pk=user.pk))
    with pytest.raises(CommandError, match="no organization 'amd'"):
        call_command("add_member", "ada", "amd")
    with pytest.raises(CommandError, match="no user 'bob'"):
        call_command("grant_role", "bob", "chair")


def test_only_a_chair_gives_roles_through_the_services(personas):
    with pytest.raises(ReviewRefused, match="only a chair"):
        services.set_role(personas["reviewer"], personas["owner"], "chair")
    assert services.set_role(personas["chair"], personas["owner"], "reviewer")
    assert services.set_membership(personas["chair"], personas["outsider"], personas["alpha"])
    with pytest.raises(ReviewRefused, match="unknown role"):
        services.set_role(personas["chair"], personas["owner"], "king")
