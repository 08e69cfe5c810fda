# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""An MLPerf HPC submitter folder goes through the same upload and ingestion as training: the
round's HPC ruleset checks it, strong and weak results are stored with their figures, and a
package of the other layout is told so."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from ingest import services
from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.tests.upload_fixtures import client_for, dead_broker, open_round, post_upload, unthrottled  # noqa: F401
from results.models import Finding, Result, Round
from results.services.rounds import ensure_round
from review.services import release_held_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "hpc-v1.0" / "HelmholtzAI"


def open_round_named(slug: str) -> Round:
    round_ = ensure_round(slug)
    Round.objects.filter(pk=round_.pk).update(state="open", submission_deadline=None)
    return round_


def alpha_tarball(tmp_path: Path) -> Path:
    """The real HelmholtzAI sample as Alpha's submitter folder: one strong and one weak deepcam."""
    folder = Path(shutil.copytree(SAMPLE, tmp_path / "Alpha"))
    shutil.rmtree(folder / "results" / "juwelsbooster_gpu_n512_mxnet1.9")
    for system in (folder / "systems").glob("*.json"):
        description = json.loads(system.read_bytes())
        description["submitter"] = "Alpha Systems"
        system.write_text(json.dumps(description))
    target = tmp_path / "alpha.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder, arcname="Alpha")
    return target


def upload_to(personas, tmp_path, slug: str) -> Upload:
    response = post_upload(client_for(personas["owner"]), alpha_tarball(tmp_path), slug)
    assert response.status_code == 201, response.content
    upload = Upload.objects.select_related("job", "submission").get(pk=response.json()["id"])
    services.run_ingest(upload.job.pk, token="t1")
    return upload


def test_an_hpc_upload_is_checked_with_the_rounds_hpc_rules_and_stored(personas, tmp_path):
    open_round_named("hpc-v1.0")
    upload = upload_to(personas, tmp_path, "hpc-v1.0")
    job = IngestJob.objects.get(pk=upload.job.pk)
    assert (job.state, job.error) == (JobState.DONE, "")
    upload.submission.refresh_from_db()
    assert upload.submission.ruleset_version == "hpc-1.0.0"
    results = {r.scaling: r for r in Result.objects.filter(submission=upload.submission)}
    assert set(results) == {"strong", "weak"}
    assert results["strong"].score_minutes == pytest.approx(4.355905555555556)
    weak = results["weak"]
    assert (weak.number_of_models, weak.instance_scale) == (6, 512)
    assert weak.time_to_train_all_minutes == pytest.approx(7.9394)
    assert weak.metric_value == weak.models_per_minute
    # The logs name HelmholtzAI, not the uploading organization: the uploader check says so, and the
    # version is held, with no result ids, until a chair lets it stand (docs/lifecycle.md).
    assert Finding.objects.filter(submission=upload.submission, severity="error").exists()
    assert upload.submission.held_reason and {r.result_id for r in results.values()} == {""}
    release_held_version(personas["chair"], upload.submission, "HelmholtzAI's package, uploaded for it")
    strong, weak = (Result.objects.get(pk=results[scaling].pk) for scaling in ("strong", "weak"))
    assert strong.result_id and weak.result_id and strong.result_id != weak.result_id


def test_an_hpc_package_uploaded_to_a_training_round_is_refused_with_the_reason(personas, open_round, tmp_path):
    upload = upload_to(personas, tmp_path, "training-v1.0")
    job = IngestJob.objects.get(pk=upload.job.pk)
    assert job.state == JobState.FAILED
    assert "is an MLPerf HPC package" in job.error and "training-v1.0 is a Training round" in job.error
    assert not Result.objects.filter(submission=upload.submission).exists()
