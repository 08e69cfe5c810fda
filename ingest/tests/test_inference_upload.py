# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""An inference submitter folder goes through the same upload and ingestion as training: the
archive is unpacked, checked with the round's inference rules and stored in the upload's
submission version."""

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

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "inference-v0.7" / "closed" / "Mobilint"
V41_SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "inference-v4.1" / "closed" / "UntetherAI"


@pytest.fixture
def open_inference_round(db):
    round_ = ensure_round("inference-v0.7")
    Round.objects.filter(pk=round_.pk).update(state="open", submission_deadline=None)
    return round_


def alpha_tarball(tmp_path: Path, break_accuracy: bool = False, sample: Path = SAMPLE, submitter="Alpha Systems") -> Path:
    """A real sample submitter folder (Mobilint's unless told) as Alpha's own."""
    folder = Path(shutil.copytree(sample, tmp_path / "Alpha"))
    for system in (folder / "systems").glob("*.json"):
        description = json.loads(system.read_bytes())
        description["submitter"] = submitter
        system.write_text(json.dumps(description))
    if break_accuracy:
        accuracy = folder / "results/mobilint_edge/resnet/SingleStream/accuracy/accuracy.txt"
        accuracy.write_text("accuracy=50.000%, good=25000, total=50000\n")
    target = tmp_path / "alpha.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder, arcname="Alpha")
    return target


def ingested(personas, tarball: Path, round_slug: str) -> tuple[Upload, dict[str, Result]]:
    """Alpha's owner uploads `tarball`; the job runs to the end: the upload and its results by scenario."""
    response = post_upload(client_for(personas["owner"]), tarball, round_slug)
    assert response.status_code == 201, response.content
    upload = Upload.objects.select_related("job", "submission").get(pk=response.json()["id"])
    assert services.run_ingest(upload.job.pk, token="t1").status == "done"
    job = IngestJob.objects.get(pk=upload.job.pk)
    assert (job.state, job.error) == (JobState.DONE, "")
    return upload, {r.scenario: r for r in Result.objects.filter(submission=upload.submission)}


def test_an_inference_upload_is_checked_and_stored(personas, open_inference_round, tmp_path):
    upload, results = ingested(personas, alpha_tarball(tmp_path, break_accuracy=True), "inference-v0.7")
    assert set(results) == {"SingleStream", "Offline"}
    offline, singlestream = results["Offline"], results["SingleStream"]
    assert (offline.metric_value, offline.metric_unit, offline.metric_direction, offline.valid) == (
        106.847, "samples/s", "higher", True
    )
    assert singlestream.metric_unit == "ms" and not singlestream.valid
    below = Finding.objects.get(result=singlestream, code="accuracy_below_target")
    assert below.severity == "error" and below.file.endswith("accuracy/accuracy.txt") and below.line == 1
    assert upload.submission.ruleset_version == "v0.7"


def test_a_v41_upload_with_power_is_checked_and_stored(personas, db, tmp_path):
    """A real v4.1 submitter folder (UntetherAI's edge system, resnet50 with power) as Alpha's:
    stored with the round's units, the category and the power figures the official checker prints."""
    round_ = ensure_round("inference-v4.1")
    Round.objects.filter(pk=round_.pk).update(state="open", submission_deadline=None)
    # v2.1+: the system's submitter is the folder's name (the official checker's rule).
    upload, results = ingested(personas, alpha_tarball(tmp_path, sample=V41_SAMPLE, submitter="Alpha"), "inference-v4.1")
    assert set(results) == {"SingleStream", "MultiStream", "Offline"}
    assert not Finding.objects.filter(submission=upload.submission, severity="error").exists()
    assert all(r.valid and r.inference["system_type"] == "edge" for r in results.values())
    offline, single = results["Offline"], results["SingleStream"]
    assert (offline.metric_value, offline.metric_unit, offline.metric_direction) == (168720.0, "Samples/s", "higher")
    assert (single.metric_value, single.metric_unit, single.metric_direction) == (0.120438, "Latency (ms)", "lower")
    assert offline.inference["power"]["unit"] == "Watts"
    assert f"{offline.inference['power']['value']:.6f}" == "398.329985"
    assert f"{single.inference['power']['value']:.6f}" == "29.238987" and single.inference["power"]["unit"] == "millijoules"
    assert upload.submission.ruleset_version == "v4.1"
