# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""GET /api/v1/submissions/permission/: the checks an upload gets before its body is read, asked
alone. deploy/nginx.conf asks it (auth_request) before reading an upload's body; tests/test_proxy.py
attacks it through nginx."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from rest_framework.authtoken.models import Token

from ingest.models import IngestJob, Upload
from ingest.tests.upload_fixtures import client_for, open_round  # noqa: F401
from results.models import Submission

pytestmark = pytest.mark.django_db
URL = "/api/v1/submissions/permission/"
AS_THE_PROXY = {"HTTP_X_UPLOAD_PERMISSION_CHECK": "1"}


def test_it_answers_204_to_a_member_and_the_refusal_with_its_status_to_others(client, personas, open_round):
    owner = client_for(personas["owner"])
    assert owner.get(URL, {"round": "training-v1.0"}).status_code == 204
    assert owner.get(URL).status_code == 204
    anonymous = client.get(URL, {"round": "training-v1.0"})
    assert anonymous.status_code == 403 and anonymous.json() == {"detail": "Authentication credentials were not provided."}
    bad_token = client.get(URL, HTTP_AUTHORIZATION="Token nonsense")
    assert bad_token.status_code == 403 and bad_token.json() == {"detail": "Invalid token."}
    outsider = client_for(personas["outsider"]).get(URL, {"round": "training-v1.0", "organization": "alpha"})
    assert outsider.status_code == 403 and "not a member of an organization 'alpha'" in outsider.json()["detail"]
    unknown = owner.get(URL, {"round": "training-v9.9"})
    assert unknown.status_code == 400 and "training-v9.9" in unknown.json()["detail"]


def test_at_its_concurrent_job_limit_an_organization_is_told_before_it_sends_the_body(personas, open_round):
    for version in range(1, settings.MAX_CONCURRENT_JOBS_PER_ORG + 1):
        submission = Submission.objects.create(round=open_round, organization=personas["alpha"], version=version)
        upload = Upload.objects.create(round=open_round, organization=personas["alpha"], submission=submission,
                                       version=version, size_bytes=1, sha256=f"{version:064d}")
        IngestJob.objects.create(upload=upload)
    response = client_for(personas["owner"]).get(URL, {"round": "training-v1.0"})
    assert response.status_code == 429 and "already has" in response.json()["detail"]


def test_asked_by_the_proxy_every_refusal_is_a_403_carrying_its_status_and_body(client, personas, open_round):
    token = Token.objects.create(user=personas["owner"]).key
    allowed = client.get(URL, {"round": "training-v1.0"}, HTTP_AUTHORIZATION=f"Token {token}", **AS_THE_PROXY)
    assert allowed.status_code == 204 and "X-Upload-Refusal" not in allowed
    for query, headers, status, detail in [
        ({}, {}, 403, "Authentication credentials were not provided."),
        ({"round": "training-v9.9"}, {"HTTP_AUTHORIZATION": f"Token {token}"}, 400, "training-v9.9"),
    ]:
        response = client.get(URL, query, **headers, **AS_THE_PROXY)
        assert response.status_code == 403
        assert response["X-Upload-Refusal-Status"] == str(status)
        assert detail in json.loads(response["X-Upload-Refusal"])["detail"]
        assert response["X-Upload-Refusal"].isascii()
