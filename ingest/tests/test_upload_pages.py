# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""/submit/ and /submit/uploads/<id>/: access for every persona, and what the pages show."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import client_for, open_round, post_upload, unthrottled  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("unthrottled")]


def browser_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def alpha_upload(personas, open_round, tmp_path):
    return post_upload(client_for(personas["owner"]), sample_tarball(tmp_path)).json()


def test_it_sends_anonymous_visitors_to_log_in(personas, open_round):
    response = browser_for(None).get("/submit/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_it_shows_the_upload_form_with_open_rounds(personas, open_round):
    response = browser_for(personas["owner"]).get("/submit/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="upload-form"' in page
    assert '<option value="training-v1.0">' in page
    assert "for Alpha Systems" in page
    assert "js/upload.js" in page


def test_it_hides_rounds_past_their_deadline(personas, open_round):
    open_round.submission_deadline = timezone.now() - timedelta(minutes=1)
    open_round.save()
    page = browser_for(personas["owner"]).get("/submit/").content.decode()
    assert "No round is open" in page


def test_a_window_reopens_a_round_past_its_deadline_but_not_a_final_one(personas, open_round):
    """The page offers what the upload service accepts (review.services.upload_refusal)."""
    from results.models import Organization
    from review.models import ResubmissionWindow

    alpha = Organization.objects.get(members=personas["owner"])
    open_round.submission_deadline = timezone.now() - timedelta(minutes=1)
    open_round.save()
    ResubmissionWindow.objects.create(round=open_round, organization=alpha, closes_at=timezone.now() + timedelta(days=1))
    page = browser_for(personas["owner"]).get("/submit/").content.decode()
    assert '<option value="training-v1.0">' in page
    open_round.state = "final"
    open_round.save()
    page = browser_for(personas["owner"]).get("/submit/").content.decode()
    assert '<option value="training-v1.0">' not in page and "No round is open" in page


def test_it_tells_users_without_an_organization_there_is_nothing_to_upload(personas, open_round):
    page = browser_for(personas["reviewer"]).get("/submit/").content.decode()
    assert "not a member of any submitting organization" in page
    assert 'id="upload-form"' not in page


def test_it_lists_only_my_organizations_uploads(personas, alpha_upload):
    page = browser_for(personas["teammate"]).get("/submit/").content.decode()
    assert f"/submit/uploads/{alpha_upload['id']}/" in page
    page = browser_for(personas["outsider"]).get("/submit/").content.decode()
    assert f"/submit/uploads/{alpha_upload['id']}/" not in page
    assert "No uploads yet." in page


@pytest.mark.parametrize(
    ("persona", "expected"),
    [
        ("owner", 200),
        ("teammate", 200),
        ("reviewer", 200),
        ("chair", 200),
        ("outsider", 404),
        ("anonymous", 302),
    ],
)
def test_it_shows_an_upload_page_only_to_its_organization_and_staff(
    personas, alpha_upload, persona, expected
):
    response = browser_for(personas[persona]).get(f"/submit/uploads/{alpha_upload['id']}/")
    assert response.status_code == expected
    if expected == 200:
        page = response.content.decode()
        assert alpha_upload["sha256"] in page
        assert f'data-status-url="/api/v1/uploads/{alpha_upload["id"]}/"' in page


def test_it_404s_on_missing_uploads(personas):
    assert browser_for(personas["owner"]).get("/submit/uploads/999999/").status_code == 404
