# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""A version held because its files speak for another organization (issue 34): its uploader sees
it held, with the reason and what comes next, on /submit/, the upload's page and the status API,
not only the chair; and it registers no result id until a chair releases it."""

from __future__ import annotations

import pytest

from ingest.tests.test_upload_integrity import impersonating_tarball, ingest
from ingest.tests.upload_fixtures import client_for, dead_broker, open_round, unthrottled  # noqa: F401
from results.models import CitableId, Result, Round
from review.services import release_held_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]


def test_the_uploader_sees_a_held_version_held_and_it_takes_no_result_id(personas, open_round, tmp_path, client):
    next_number = Round.objects.get(pk=open_round.pk).next_result_number
    item = ingest(personas, impersonating_tarball(tmp_path, "NVIDIA"))
    item.submission.refresh_from_db()
    assert item.submission.held_reason
    assert not CitableId.objects.exists() and Round.objects.get(pk=open_round.pk).next_result_number == next_number
    assert set(Result.objects.filter(submission=item.submission).values_list("result_id", flat=True)) == {""}

    client.force_login(personas["teammate"])  # any member of the uploading organization
    listed = client.get("/submit/").content.decode()
    assert "held for a chair" in listed and f'href="/submit/uploads/{item.pk}/"' in listed
    page = client.get(f"/submit/uploads/{item.pk}/").content.decode()
    assert 'id="job-held"' in page and 'id="job-held" class="warning" hidden' not in page
    assert item.submission.held_reason in page and "A chair of another organization decides" in page

    status = client_for(personas["teammate"]).get(f"/api/v1/uploads/{item.pk}/").json()
    assert (status["version_state"], status["held_reason"]) == ("held", item.submission.held_reason)
    assert status["results"] and all(r["result_id"] == "" and r["url"] is None for r in status["results"])
    listing = client_for(personas["teammate"]).get("/api/v1/uploads/").json()
    assert listing[0]["version_state"] == "held"
    client.force_login(personas["chair"])  # the chair reviews the held version's report
    report = client.get(f"/review/versions/{item.submission.pk}/")
    assert report.status_code == 200 and 'id="held"' in report.content.decode()

    release_held_version(personas["chair"], item.submission, "NVIDIA is the partner named in the contract")
    status = client_for(personas["teammate"]).get(f"/api/v1/uploads/{item.pk}/").json()
    assert (status["version_state"], status["held_reason"]) == ("current", "")
    assert all(r["result_id"] and r["url"] == f"/results/{r['result_id']}/" for r in status["results"])
    assert CitableId.objects.count() == len(status["results"])
    client.force_login(personas["teammate"])
    assert "held for a chair" not in client.get("/submit/").content.decode()
