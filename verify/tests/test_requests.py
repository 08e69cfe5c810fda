"""Requesting a verification is a reviewer's action like the others: never on a result of one's
own organization, never while a job of the result is open, and at most once per
VERIFY_REPEAT_SECONDS per result (GPU hours are scarce)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User

from verify import services
from verify.constants import JobState
from verify.models import VerificationJob
from verify.services import VerificationRefused
from verify.tests.world import verifiable_result

pytestmark = pytest.mark.django_db


def refusal(**kwargs) -> tuple[int, str]:
    with pytest.raises(VerificationRefused) as caught:
        services.request_verification(**kwargs)
    return caught.value.status, str(caught.value)


def test_a_reviewer_of_the_results_organization_may_not_request_its_verification(personas, tmp_path, client):
    result = verifiable_result(personas, tmp_path)
    insider = User.objects.create_user("insider", "i@alpha.example", "password")
    insider.groups.add(Group.objects.get_or_create(name="reviewers")[0])
    personas["alpha"].members.add(insider)
    status, message = refusal(actor=insider, result=result, runs=1)
    assert status == 403 and "conflict of interest" in message
    client.force_login(insider)
    assert "request a verification" not in client.get(f"/results/{result.result_id}/").content.decode()
    page = client.post(f"/verify/results/{result.pk}/request/", {"runs": "1"})
    assert page.status_code == 400 and "conflict of interest" in page.content.decode()
    assert not VerificationJob.objects.exists()


def test_a_result_is_verified_once_at_a_time_and_at_most_once_per_interval(personas, tmp_path, settings):
    settings.VERIFY_REPEAT_SECONDS = 3600
    result = verifiable_result(personas, tmp_path)
    job = services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    status, message = refusal(actor=personas["chair"], result=result, runs=1)
    assert status == 409 and "already queued or running" in message
    VerificationJob.objects.filter(pk=job.pk).update(state=JobState.FINISHED)
    status, message = refusal(actor=personas["chair"], result=result, runs=1)
    assert status == 429 and "may be verified again from" in message
    VerificationJob.objects.filter(pk=job.pk).update(created_at=job.created_at - timedelta(hours=2))
    assert services.request_verification(actor=personas["chair"], result=result, runs=1).pk != job.pk
