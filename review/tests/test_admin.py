"""The admin cannot bypass the services: state fields are read-only, state changes are actions
that call the services (and so are audited), audit events cannot be added, edited or deleted."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from audit.models import AuditEvent
from results.models import Round, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(world):
    user = User.objects.create_superuser("admin", "admin@mlcommons.example", "password")
    client = Client()
    client.force_login(user)
    return client


def test_round_state_is_read_only_and_moves_by_action(world, admin_client):
    round_ = world["round"]
    page = admin_client.get(f"/admin/results/round/{round_.pk}/change/").content.decode()
    assert 'name="state"' not in page and 'name="publish_at"' not in page
    response = admin_client.post("/admin/results/round/", {"action": "move_to_final", "_selected_action": [round_.pk]})
    assert response.status_code == 302
    assert Round.objects.get(pk=round_.pk).state == "final"
    assert AuditEvent.objects.get(kind="round.state_changed").actor.username == "admin"
    admin_client.post("/admin/results/round/", {"action": "move_to_open", "_selected_action": [round_.pk]})
    assert Round.objects.get(pk=round_.pk).state == "final"  # not in the table: refused, and said so


def test_submission_flags_are_read_only_and_publication_is_an_action(world, admin_client):
    submission = world["alpha_result"].submission
    page = admin_client.get(f"/admin/results/submission/{submission.pk}/change/").content.decode()
    assert 'name="is_current"' not in page and 'name="is_published"' not in page
    assert admin_client.get("/admin/results/submission/add/").status_code == 403
    admin_client.post("/admin/results/submission/", {"action": "publish_fix", "_selected_action": [submission.pk]})
    assert not Submission.objects.get(pk=submission.pk).is_published  # the round is not published: refused


def test_audit_events_cannot_be_changed_in_the_admin(world, admin_client):
    from review import services

    services.move_round(world["chair"], world["round"], "final", "frozen")
    event = AuditEvent.objects.get()
    assert admin_client.get("/admin/audit/auditevent/add/").status_code == 403
    assert admin_client.post(f"/admin/audit/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.get("/admin/audit/auditevent/").status_code == 200


def test_resubmission_windows_from_the_admin_go_through_the_service(world, admin_client):
    from review.models import ResubmissionWindow

    response = admin_client.post("/admin/review/resubmissionwindow/add/", {
        "round": world["round"].pk, "organization": world["alpha"].pk,
        "closes_at_0": "2030-01-01", "closes_at_1": "12:00:00", "reason": "power outage",
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    assert ResubmissionWindow.objects.get().granted_by.username == "admin"
    assert AuditEvent.objects.get(kind="resubmission_window.granted").actor.username == "admin"


def _people_action(client, action: str, users, **fields):
    return client.post("/admin/auth/user/", {"action": action, "_selected_action": [u.pk for u in users], **fields})


def test_the_user_admin_adds_members_and_gives_roles_through_the_services(world, admin_client):
    owner, outsider = world["owner"], world["outsider"]
    response = _people_action(admin_client, "add_to_organization", [outsider], organization=world["alpha"].pk)
    assert response.status_code == 302
    assert world["alpha"].members.filter(pk=outsider.pk).exists()
    _people_action(admin_client, "give_chair", [owner, outsider])
    assert {u.username for u in User.objects.filter(groups__name="chairs")} == {"chair", "owner", "outsider"}
    _people_action(admin_client, "take_chair", [outsider])
    _people_action(admin_client, "remove_from_organization", [outsider], organization=world["alpha"].pk)
    assert not world["alpha"].members.filter(pk=outsider.pk).exists()
    assert list(AuditEvent.objects.order_by("pk").values_list("kind", "actor_name", "reason")) == [
        ("member.added", "admin", "outsider joins Alpha Systems"),
        ("role.granted", "admin", "outsider is now a chair"),  # the user admin's order: by username
        ("role.granted", "admin", "owner is now a chair"),
        ("role.revoked", "admin", "outsider is no longer a chair"),
        ("member.removed", "admin", "outsider leaves Alpha Systems"),
    ]
    # Without an organization the membership actions say what is missing and change nothing.
    response = admin_client.post("/admin/auth/user/", {"action": "add_to_organization",
                                                       "_selected_action": [outsider.pk]}, follow=True)
    assert "choose the organization next to the action" in [str(m) for m in response.context["messages"]]
    assert AuditEvent.objects.count() == 5
    # Roles and members are never ticked on a form, which would bypass the audit.
    assert 'name="groups"' not in admin_client.get(f"/admin/auth/user/{owner.pk}/change/").content.decode()
    assert 'name="members"' not in admin_client.get(f"/admin/results/organization/{world['alpha'].pk}/change/").content.decode()


def test_only_chairs_and_superusers_use_the_people_actions(world):
    from django.contrib.admin.sites import site
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.test import RequestFactory

    reviewer = world["reviewer"]
    assert Client().get("/admin/auth/user/").status_code == 302  # anonymous: the login page
    client = Client()
    client.force_login(reviewer)
    assert client.get("/admin/auth/user/").status_code == 302  # not staff: no admin at all
    # A reviewer who reached the actions anyway is refused by the service and changes nothing.
    model_admin = site._registry[User]
    request = RequestFactory().post("/admin/auth/user/", {"organization": world["alpha"].pk})
    request.user = reviewer
    request.session, request._messages = {}, None
    request._messages = FallbackStorage(request)
    assert not model_admin.has_people_permission(request)
    assert "give_chair" not in model_admin.get_actions(request)
    action = dict((name, func) for func, name, _ in model_admin._get_base_actions())["give_chair"]
    action(model_admin, request, User.objects.filter(pk=reviewer.pk))
    assert not reviewer.groups.filter(name="chairs").exists()
    assert "only a chair may give roles" in " ".join(str(m) for m in request._messages)
    assert not AuditEvent.objects.exists()
    # A chair (here one with admin access) may.
    chair = world["chair"]
    chair.is_staff = True
    chair.save()
    request.user = chair
    assert model_admin.has_people_permission(request)
    assert {"give_chair", "take_reviewer", "add_to_organization"} <= set(model_admin.get_actions(request))
