# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""POST /api/v1/submissions/ and GET /api/v1/uploads/[<id>/]: receipts, versions, limits, access."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.files.storage import storages
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import client_for, open_round, post_upload, unthrottled  # noqa: F401
from results.models import Organization, Submission
from review.models import ResubmissionWindow

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("unthrottled")]


@pytest.fixture
def tarball(tmp_path):
    return sample_tarball(tmp_path)


def test_it_returns_a_receipt_and_stores_the_file(personas, open_round, tarball):
    response = post_upload(client_for(personas["owner"]), tarball)
    assert response.status_code == 201, response.content
    body = response.json()
    content = tarball.read_bytes()
    assert body["sha256"] == hashlib.sha256(content).hexdigest()
    assert body["size"] == len(content)
    assert body["version"] == 1
    assert body["uploader"] == "owner"
    assert body["organization"] == "alpha"
    assert body["state"] == "received"
    assert body["status_url"].endswith(f"/api/v1/uploads/{body['id']}/")
    upload = Upload.objects.get(pk=body["id"])
    assert upload.submission_id == body["submission"]
    assert storages["submissions"].open(upload.storage_name).read() == content
    submission = Submission.objects.get(pk=body["submission"])
    assert (submission.version, submission.is_current, submission.is_published) == (1, False, False)
    assert IngestJob.objects.get(upload=upload).state == JobState.RECEIVED


def test_it_schedules_the_job_after_commit(personas, open_round, tarball, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = post_upload(client_for(personas["owner"]), tarball)
    assert response.status_code == 201
    assert len(callbacks) == 1


def test_it_makes_each_upload_a_new_version(personas, open_round, tarball):
    Submission.objects.create(round=open_round, organization=personas["alpha"], version=1, sha256="imported")
    first = post_upload(client_for(personas["owner"]), tarball).json()
    # The same bytes again: refused, naming the earlier version, until confirmed.
    refused = post_upload(client_for(personas["teammate"]), tarball)
    assert refused.status_code == 409 and refused.json()["code"] == "identical"
    assert "identical to version 2" in refused.json()["detail"]
    second = post_upload(client_for(personas["teammate"]), tarball, confirm_identical="true").json()
    assert (first["version"], second["version"]) == (2, 3)
    assert Submission.objects.filter(organization=personas["alpha"], round=open_round).count() == 3
    # The same bytes are stored once (content-addressed name).
    assert Upload.objects.get(pk=first["id"]).storage_name == Upload.objects.get(pk=second["id"]).storage_name


def test_it_accepts_zip_and_xz(personas, open_round, tmp_path):
    for suffix in (".zip", ".tar.xz", ".tgz", ".tar"):
        response = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path, suffix=suffix))
        assert response.status_code == 201, (suffix, response.content)
        IngestJob.objects.update(state=JobState.DONE)  # keep under the concurrent-job limit


def test_it_refuses_files_that_are_not_archives(personas, open_round, tmp_path):
    path = tmp_path / "results.txt"
    path.write_text("not an archive")
    response = post_upload(client_for(personas["owner"]), path)
    assert response.status_code == 400
    assert "not an accepted archive" in response.json()["detail"]
    assert not Upload.objects.exists()


def test_it_refuses_anonymous_uploads(personas, open_round, tarball):
    response = post_upload(APIClient(), tarball)
    assert response.status_code in (401, 403)
    assert not Upload.objects.exists()


def test_it_refuses_users_without_an_organization(personas, open_round, tarball):
    response = post_upload(client_for(personas["reviewer"]), tarball)
    assert response.status_code == 403
    assert "not a member" in response.json()["detail"]


def test_it_refuses_an_organization_the_user_is_not_in(personas, open_round, tarball):
    response = post_upload(client_for(personas["owner"]), tarball, organization="beta")
    assert response.status_code == 403
    assert not Upload.objects.exists()


def test_it_asks_which_organization_when_there_are_several(personas, open_round, tarball):
    personas["beta"].members.add(personas["owner"])
    assert post_upload(client_for(personas["owner"]), tarball).status_code == 400
    response = post_upload(client_for(personas["owner"]), tarball, organization="beta")
    assert response.status_code == 201
    assert response.json()["organization"] == "beta"


def test_it_refuses_unknown_rounds(personas, open_round, tarball):
    assert post_upload(client_for(personas["owner"]), tarball, round_slug="training-v9.9").status_code == 400
    assert post_upload(client_for(personas["owner"]), tarball, round_slug="nonsense").status_code == 400


def test_it_refuses_uploads_after_the_deadline(personas, open_round, tarball):
    open_round.submission_deadline = timezone.now() - timedelta(hours=1)
    open_round.save()
    response = post_upload(client_for(personas["owner"]), tarball)
    assert response.status_code == 403
    assert "deadline" in response.json()["detail"]
    assert not Submission.objects.exists()


def test_it_accepts_late_uploads_inside_a_resubmission_window(personas, open_round, tarball):
    open_round.submission_deadline = timezone.now() - timedelta(hours=1)
    open_round.state = "review"
    open_round.save()
    ResubmissionWindow.objects.create(
        round=open_round, organization=personas["alpha"], closes_at=timezone.now() + timedelta(hours=1)
    )
    assert post_upload(client_for(personas["owner"]), tarball).status_code == 201
    # The window is Alpha's only.
    assert post_upload(client_for(personas["outsider"]), tarball).status_code == 403


def test_it_refuses_late_uploads_when_the_window_closed(personas, open_round, tarball):
    open_round.submission_deadline = timezone.now() - timedelta(days=2)
    open_round.save()
    ResubmissionWindow.objects.create(
        round=open_round, organization=personas["alpha"], closes_at=timezone.now() - timedelta(hours=1)
    )
    assert post_upload(client_for(personas["owner"]), tarball).status_code == 403


def test_it_limits_concurrent_jobs_per_organization(personas, open_round, tarball, settings):
    settings.MAX_CONCURRENT_JOBS_PER_ORG = 1
    assert post_upload(client_for(personas["owner"]), tarball).status_code == 201
    response = post_upload(client_for(personas["teammate"]), tarball)
    assert response.status_code == 429
    assert "being ingested" in response.json()["detail"]
    # Another organization is not held up.
    assert post_upload(client_for(personas["outsider"]), tarball).status_code == 201


def test_it_rate_limits_uploads_per_organization(personas, open_round, tarball, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"uploads": "2/hour"}}
    alpha_ids = sorted(Organization.objects.filter(slug="alpha").values_list("pk", flat=True))
    key = "throttle_uploads_org-" + "-".join(map(str, alpha_ids))
    cache.delete(key)
    try:
        statuses = []
        for user in ("owner", "teammate", "owner"):
            IngestJob.objects.update(state=JobState.DONE)
            statuses.append(post_upload(client_for(personas[user]), tarball, confirm_identical="true").status_code)
        assert statuses == [201, 201, 429]
    finally:
        cache.delete(key)


def test_it_refuses_uploads_over_the_size_limit(personas, open_round, tarball, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    client = APIClient()
    client.force_login(personas["owner"])
    response = post_upload(client, tarball)
    assert response.status_code == 413
    assert not Upload.objects.exists()


def test_it_accepts_token_auth(personas, open_round, tarball):
    token = Token.objects.create(user=personas["owner"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert post_upload(client, tarball).status_code == 201
    client.credentials(HTTP_AUTHORIZATION="Token wrong")
    response = post_upload(client, tarball)
    assert response.status_code in (401, 403)  # 403: session auth comes first and has no challenge
    assert response.json()["detail"] == "Invalid token."


def test_it_requires_csrf_for_session_uploads(personas, open_round, tarball):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(personas["owner"])
    assert post_upload(client, tarball).status_code == 403
    assert not Upload.objects.exists()


@pytest.mark.parametrize(
    ("persona", "expected"),
    [
        ("owner", 200),
        ("teammate", 200),
        ("reviewer", 200),
        ("chair", 200),
        ("outsider", 404),
        ("anonymous", 403),
    ],
)
def test_it_shows_job_status_only_to_the_organization_and_staff(
    personas, open_round, tarball, persona, expected
):
    upload_id = post_upload(client_for(personas["owner"]), tarball).json()["id"]
    response = client_for(personas[persona]).get(f"/api/v1/uploads/{upload_id}/")
    assert response.status_code == expected
    if expected == 200:
        body = response.json()
        assert body["job"]["state"] == "received"
        assert body["findings"] == [] and body["results"] == []


def test_it_lists_only_my_organizations_uploads(personas, open_round, tarball):
    post_upload(client_for(personas["owner"]), tarball)
    post_upload(client_for(personas["outsider"]), tarball)
    mine = client_for(personas["teammate"]).get("/api/v1/uploads/").json()
    assert [row["organization"] for row in mine] == ["alpha"]
    assert len(client_for(personas["reviewer"]).get("/api/v1/uploads/").json()) == 2
    assert client_for(None).get("/api/v1/uploads/").status_code == 403


def test_it_refuses_other_methods(personas, open_round):
    client = client_for(personas["owner"])
    assert client.get("/api/v1/submissions/").status_code == 405
    assert client.delete("/api/v1/uploads/1/").status_code in (404, 405)


def test_it_documents_the_upload_api_in_the_schema(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/submissions/"]["post"]
    assert "multipart/form-data" in operation["requestBody"]["content"]
    assert "201" in operation["responses"]
    assert "/api/v1/uploads/{id}/" in schema["paths"]
