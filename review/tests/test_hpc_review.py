"""Review works on MLPerf HPC results as on training ones: the queue lists both scores of a
round in review, a weak-scaling result's review page shows its figures, and a reviewer's
objection to it is filed and answered in the same workflow."""

import io

import pytest
from django.core.management import call_command
from django.test import Client

from results.constants import RoundState
from results.models import Result, Round
from review.models import Objection

pytestmark = pytest.mark.django_db


@pytest.fixture
def hpc_in_review(sample_data, personas):
    call_command("import_results", str(sample_data / "hpc-v1.0"), "--round", "hpc-v1.0", "--jobs", "1",
                 stdout=io.StringIO())
    Round.objects.filter(suite="hpc", version="1.0").update(state=RoundState.REVIEW)
    return personas


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_queue_and_a_weak_result_review_page(hpc_in_review):
    chair = logged_in(hpc_in_review["chair"])
    queue = chair.get("/review/", {"round": "hpc-v1.0"}).content.decode()
    weak = Result.objects.get(scaling="weak")
    assert weak.result_id in queue and "0.756 models/min" in queue and "256.27" in queue
    page = chair.get(f"/review/results/{weak.result_id}/").content.decode()
    assert "(throughput (weak scaling))" in page and "Models/min (derived)" in page and "0.756" in page
    assert chair.get("/review/rounds/hpc-v1.0/").status_code == 200


def test_an_objection_to_a_weak_result_is_filed_and_resolved(hpc_in_review):
    weak = Result.objects.get(scaling="weak")
    reviewer, chair = logged_in(hpc_in_review["reviewer"]), logged_in(hpc_in_review["chair"])
    response = reviewer.post(f"/review/results/{weak.result_id}/objections/",
                             {"rule": "HPC rules 4.2", "evidence": "models of different sizes"})
    assert response.status_code == 302
    objection = Objection.objects.get(result__result_id=weak.result_id)
    weak.submission.organization.members.add(hpc_in_review["owner"])
    assert logged_in(hpc_in_review["owner"]).post(f"/review/objections/{objection.pk}/answer/",
                                                  {"answer": "all models are 512 accelerators"}).status_code == 302
    assert chair.post(f"/review/objections/{objection.pk}/resolve/",
                      {"outcome": "dismissed", "reason": "one size"}).status_code == 302
    assert Objection.objects.get(pk=objection.pk).resolved_by == hpc_in_review["chair"]
