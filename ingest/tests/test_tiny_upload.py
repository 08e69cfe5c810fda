# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""An MLPerf Tiny submitter folder uploaded to a Tiny round: a real Celery ingestion worker checks
it with the round's rules and stores its results with their figures and both verdicts, which a
reviewer then reads; a broken result is stored with the official checker's reason."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest

from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.tests.processes import wait_for
from ingest.tests.upload_fixtures import client_for, post_upload, unthrottled, worker  # noqa: F401
from results.models import Finding, Result, Round
from results.services.rounds import ensure_round

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled")]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "tiny-v1.3" / "closed" / "syntiant"


def tiny_tarball(tmp_path: Path, *, break_accuracy: bool = False) -> Path:
    """The real syntiant sample as Alpha's submitter folder (closed/alpha/ in the archive)."""
    folder = Path(shutil.copytree(SAMPLE, tmp_path / "closed" / "alpha"))
    if break_accuracy:
        results = folder / "results" / "syntiant_9120_0v9_30mhz" / "ic" / "accuracy" / "results.txt"
        results.write_text(results.read_text().replace("Top-1: 86.0%", "Top-1: 80.0%"))
    target = tmp_path / "alpha.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(folder.parent, arcname="closed")
    return target


def upload_and_wait(personas, tmp_path, **tarball) -> Upload:
    round_ = ensure_round("tiny-v1.3")
    Round.objects.filter(pk=round_.pk).update(state="open", submission_deadline=None)
    response = post_upload(client_for(personas["owner"]), tiny_tarball(tmp_path, **tarball), "tiny-v1.3")
    assert response.status_code == 201, response.content
    upload = Upload.objects.select_related("job").get(pk=response.json()["id"])
    wait_for(lambda: IngestJob.objects.get(pk=upload.job.pk).state in (JobState.DONE, JobState.FAILED), 90,
             "the worker to ingest the upload")
    job = IngestJob.objects.get(pk=upload.job.pk)
    assert (job.state, job.error) == (JobState.DONE, "")
    upload.refresh_from_db()
    return upload


@pytest.mark.worker
def test_a_tiny_upload_is_checked_by_the_worker_stored_and_reviewed(personas, worker, tmp_path, client):
    upload = upload_and_wait(personas, tmp_path)
    assert upload.submission.ruleset_version == "tiny-1.3"
    results = {(r.system.system_id, r.benchmark.name): r for r in Result.objects.filter(submission=upload.submission)}
    assert len(results) == 4
    kws = results[("syntiant_9120_0v9_30mhz", "kws")]
    assert (kws.metric_value, kws.metric_unit, kws.valid, kws.official_valid) == (228.982, "inf./sec.", True, True)
    assert kws.inference["energy"] == {"value": 31.537, "unit": "uJ/inf."}
    assert results[("syntiant_9120_1v0_49mhz", "sww")].inference["energy"]["unit"] == "mW"
    assert all(r.result_id.startswith("tiny:") for r in results.values())
    client.force_login(personas["reviewer"])
    page = client.get(f"/review/results/{kws.result_id}/")
    assert page.status_code == 200 and kws.result_id in page.content.decode()


@pytest.mark.worker
def test_a_result_below_its_accuracy_target_is_stored_with_the_official_reason(personas, worker, tmp_path):
    upload = upload_and_wait(personas, tmp_path, break_accuracy=True)
    ic = Result.objects.get(submission=upload.submission, benchmark__name="ic")
    assert (ic.valid, ic.official_valid) == (False, False)
    finding = Finding.objects.get(result=ic, severity="error")
    assert finding.code == "tiny_accuracy_not_met"
    assert finding.message.endswith("(official checker: closed/alpha/results/syntiant_9120_0v9_30mhz/ic/accuracy, "
                                    "accuracy not valid)")
