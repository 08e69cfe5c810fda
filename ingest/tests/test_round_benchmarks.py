# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""An upload to a round whose benchmarks do not match the package is refused with the reason;
it is never stored empty while the job says "done". A chair's new round has its benchmarks from
the ruleset catalog, so the same upload is stored."""

from __future__ import annotations

import pytest

from ingest import services
from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import client_for, dead_broker, post_upload, unthrottled  # noqa: F401
from results.models import Benchmark, Result, Round
from review import services as review

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]


def upload(personas, tmp_path) -> IngestJob:
    response = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path))
    assert response.status_code == 201, response.content
    job = Upload.objects.get(pk=response.json()["id"]).job
    services.run_ingest(job.pk, token="t")
    return IngestJob.objects.get(pk=job.pk)


def test_an_upload_to_a_round_without_benchmarks_is_refused_with_the_reason(personas, tmp_path):
    # A round as the admin made it before: no benchmarks.
    Round.objects.create(version="1.0", ruleset_version="1.0.0", state="open")
    job = upload(personas, tmp_path)
    assert job.state == JobState.FAILED
    assert "training-v1.0 has no benchmark ssd" in job.error and "nothing of this package was stored" in job.error
    assert not Result.objects.exists()


def test_a_chairs_round_takes_its_benchmarks_from_the_catalog_and_stores_the_upload(personas, tmp_path):
    round_ = review.create_round(personas["chair"], Round(suite="training", version="1.0", ruleset_version="1.0"),
                                 "v1.0 opens")
    assert round_.ruleset_version == "1.0.0" and round_.state == "draft"
    assert set(Benchmark.objects.filter(round=round_).values_list("name", flat=True)) >= {"resnet", "ssd", "bert"}
    review.move_round(personas["chair"], round_, "open", "submissions open")
    job = upload(personas, tmp_path)
    assert job.state == JobState.DONE and Result.objects.filter(benchmark__name="ssd").exists()
