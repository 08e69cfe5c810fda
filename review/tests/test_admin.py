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
