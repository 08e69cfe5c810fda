# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""An MLPerf Automotive submitter folder goes through the same upload and ingestion as every
suite: the archive is unpacked, checked with the round's automotive rules and stored in the
upload's submission version; a result the official checker would refuse is stored INVALID with
the official reason."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from ingest import services
from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.tests.upload_fixtures import client_for, dead_broker, post_upload, unthrottled  # noqa: F401
from results.models import Finding, Result, Round
from results.services.rounds import ensure_round

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "automotive-v0.5" / "closed" / "NVIDIA"
RUN = "results/Thor-X_TRT/bevformer/SingleStream/performance/run_1/mlperf_log_detail.txt"


@pytest.fixture
def open_automotive_round(db):
    round_ = ensure_round("automotive-v0.5")
    Round.objects.filter(pk=round_.pk).update(state="open", submission_deadline=None)
    return round_


def alpha_tarball(tmp_path: Path, wrong_seed: bool = False) -> Path:
    """The real NVIDIA Thor-X folder as Alpha's own (the system's submitter is the folder's)."""
    folder = Path(shutil.copytree(SAMPLE, tmp_path / "Alpha"))
    system = folder / "systems" / "Thor-X_TRT.json"
    description = json.loads(system.read_bytes())
    description["submitter"] = "Alpha"
    system.write_text(json.dumps(description, indent=4))
    if wrong_seed:
        detail = folder / RUN
        detail.write_text(detail.read_text().replace('"effective_qsl_rng_seed", "value": 1575625098',
                                                     '"effective_qsl_rng_seed", "value": 1'))
    target = tmp_path / "alpha.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder, arcname="Alpha")
    return target


def ingested(personas, tarball: Path) -> tuple[Upload, dict[str, Result]]:
    response = post_upload(client_for(personas["owner"]), tarball, "automotive-v0.5")
    assert response.status_code == 201, response.content
    upload = Upload.objects.select_related("job", "submission").get(pk=response.json()["id"])
    assert services.run_ingest(upload.job.pk, token="t1").status == "done"
    job = IngestJob.objects.get(pk=upload.job.pk)
    assert (job.state, job.error) == (JobState.DONE, "")
    return upload, {r.scenario: r for r in Result.objects.filter(submission=upload.submission)}


def test_an_automotive_upload_is_checked_and_stored(personas, open_automotive_round, tmp_path):
    upload, results = ingested(personas, alpha_tarball(tmp_path))
    assert set(results) == {"SingleStream", "ConstantStream"}
    assert not Finding.objects.filter(submission=upload.submission, severity="error").exists()
    single, constant = results["SingleStream"], results["ConstantStream"]
    assert (single.metric_value, single.metric_unit, single.metric_direction, single.valid) == (
        5.209854, "ms", "lower", True)
    assert (constant.metric_value, constant.official_valid) == (5.319681, True)
    assert upload.submission.ruleset_version == "automotive-0.5"


def test_a_wrong_seed_is_refused_for_the_official_reason(personas, open_automotive_round, tmp_path):
    upload, results = ingested(personas, alpha_tarball(tmp_path, wrong_seed=True))
    single = results["SingleStream"]
    assert not single.valid and single.official_valid is False and results["ConstantStream"].valid
    seed = Finding.objects.get(result=single, code="wrong_seed")
    assert seed.message.endswith("qsl_rng_seed is wrong, expected=1575625098, found=1")
    assert seed.file == RUN and seed.line


def test_a_training_package_is_refused_in_an_automotive_round(personas, open_automotive_round, tmp_path, sample_data):
    folder = shutil.copytree(sample_data / "training-v1.0" / "Inspur", tmp_path / "Alpha")
    target = tmp_path / "training.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder, arcname="Alpha")
    response = post_upload(client_for(personas["owner"]), target, "automotive-v0.5")
    if response.status_code == 201:
        upload = Upload.objects.select_related("job").get(pk=response.json()["id"])
        services.run_ingest(upload.job.pk, token="t1")
        job = IngestJob.objects.get(pk=upload.job.pk)
        assert job.state == JobState.FAILED and job.error
    else:
        assert response.status_code == 400


def test_review_reads_an_automotive_upload(personas, open_automotive_round, tmp_path, client):
    """The review's pages of an uploaded version and of its rejected result, as its submitter sees
    them: the official reason on the result and in the version's report; the chair's round page."""
    upload, results = ingested(personas, alpha_tarball(tmp_path, wrong_seed=True))
    owner = client
    owner.force_login(personas["owner"])
    single = results["SingleStream"]
    page = owner.get(f"/review/results/{single.result_id}/")
    assert page.status_code == 200
    assert "qsl_rng_seed is wrong, expected=1575625098, found=1" in page.content.decode()
    version = owner.get(f"/review/versions/{upload.submission.pk}/")
    assert version.status_code == 200 and "qsl_rng_seed is wrong" in version.content.decode()
    client.force_login(personas["chair"])
    control = client.get("/review/rounds/automotive-v0.5/")
    assert control.status_code == 200 and "automotive-0.5" in control.content.decode()
