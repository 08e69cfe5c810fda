# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""A submission speaks for its uploader only (issue 14): a member of Alpha uploading a package whose
system JSONs and logs say another company gets error findings naming both, and nothing is stored
or shown as the other company's. A package with errors is "done, N errors", never a green "done"."""

from __future__ import annotations

import csv
import io
import shutil
import tarfile
from pathlib import Path

import pytest

from ingest import services
from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.tests.tarballs import SAMPLE_V1, sample_tarball
from ingest.tests.upload_fixtures import client_for, dead_broker, open_round, post_upload, unthrottled  # noqa: F401
from results.models import Finding, Result, System
from review.services import ReviewRefused, release_held_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]


def impersonating_tarball(tmp_path: Path, victim: str) -> Path:
    """The real Fujitsu sample with every mention of Fujitsu (folder, JSON, logs) made `victim`."""
    tree = tmp_path / victim
    shutil.copytree(SAMPLE_V1 / "Fujitsu", tree)
    for path in tree.rglob("*"):
        if path.is_file():
            path.write_text(path.read_text().replace("Fujitsu", victim))
    target = tmp_path / f"{victim}.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(tree, arcname=victim)
    return target


def ingest(personas, path: Path, user: str = "owner") -> Upload:
    response = post_upload(client_for(personas[user]), path)
    assert response.status_code == 201, response.content
    item = Upload.objects.select_related("job", "submission").get(pk=response.json()["id"])
    outcome = services.run_ingest(item.job.pk, token="t")
    assert outcome.status == "done", IngestJob.objects.filter(pk=item.job.pk).values("state", "error").get()
    return item


def test_an_upload_claiming_to_be_nvidia_gets_errors_naming_both_and_is_stored_as_the_uploader(
    personas, open_round, tmp_path, client
):
    item = ingest(personas, impersonating_tarball(tmp_path, "NVIDIA"))
    uploader_errors = Finding.objects.filter(submission=item.submission, checker="uploader", severity="error")
    codes = set(uploader_errors.values_list("code", flat=True))
    assert codes == {"SYSTEM_SUBMITTER_NOT_UPLOADER", "LOG_ORG_NOT_UPLOADER"}
    assert uploader_errors.filter(code="LOG_ORG_NOT_UPLOADER").count() == 5  # every log
    message = uploader_errors.filter(code="SYSTEM_SUBMITTER_NOT_UPLOADER").first().message
    assert "NVIDIA" in message and "Alpha Systems" in message
    # Nothing is stored as NVIDIA's: the systems carry the uploader's name.
    assert set(System.objects.filter(submission=item.submission).values_list("submitter", flat=True)) == {
        "Alpha Systems"
    }
    # The job says so, and a reviewer sees the findings in the status API.
    job = IngestJob.objects.get(pk=item.job.pk)
    assert job.state == JobState.DONE and job.error_count >= 8
    assert job.summary == f"done, {job.error_count} errors"
    status = client_for(personas["reviewer"]).get(f"/api/v1/uploads/{item.pk}/").json()
    assert status["job"]["summary"] == job.summary
    assert any(f["code"] == "SYSTEM_SUBMITTER_NOT_UPLOADER" for f in status["findings"])
    # The version is held: not current (so never published) until a chair decides.
    item.submission.refresh_from_db()
    assert not item.submission.is_current and "speak for another organization" in item.submission.held_reason
    client.force_login(personas["owner"])
    assert list(csv.DictReader(io.StringIO(client.get("/rounds/training-v1.0/table.csv").content.decode()))) == []
    with pytest.raises(ReviewRefused, match="only a chair"):
        release_held_version(personas["reviewer"], item.submission, "a partner's system")
    release_held_version(personas["chair"], item.submission, "NVIDIA is the partner named in the contract")
    item.submission.refresh_from_db()
    assert item.submission.is_current and not item.submission.held_reason
    # The round table and its CSV, as the owner sees them, show Alpha, never NVIDIA.
    rows = list(csv.DictReader(io.StringIO(client.get("/rounds/training-v1.0/table.csv").content.decode())))
    assert rows and {row["submitter"] for row in rows} == {"Alpha Systems"}


def test_an_upload_with_a_real_foreign_folder_is_not_stored_as_that_company(personas, open_round, tmp_path):
    item = ingest(personas, sample_tarball(tmp_path, "Graphcore"))
    assert Finding.objects.filter(submission=item.submission, code="SYSTEM_SUBMITTER_NOT_UPLOADER").count() == 6
    assert "Graphcore" not in set(System.objects.filter(submission=item.submission).values_list("submitter", flat=True))


def test_an_upload_under_a_recorded_alias_is_clean(personas, open_round, tmp_path):
    personas["alpha"].aliases = ["Fujitsu"]
    personas["alpha"].save()
    item = ingest(personas, sample_tarball(tmp_path, "Fujitsu"))
    assert not Finding.objects.filter(submission=item.submission, checker="uploader").exists()
    assert set(System.objects.filter(submission=item.submission).values_list("submitter", flat=True)) == {"Fujitsu"}


def test_a_name_that_only_contains_the_uploaders_is_not_the_uploader(personas, open_round, tmp_path):
    # Containment is not identity: an organization called "NV" must not pass as "NVIDIA".
    personas["alpha"].aliases = ["NV"]
    personas["alpha"].save()
    item = ingest(personas, impersonating_tarball(tmp_path, "NVIDIA"))
    assert Finding.objects.filter(submission=item.submission, checker="uploader").count() == 3 + 5


def test_a_published_result_with_errors_carries_a_marker_on_the_round_row_and_result_page(
    personas, open_round, tmp_path, client
):
    item = ingest(personas, impersonating_tarball(tmp_path, "NVIDIA"))
    from results.services.rounds import publish_round

    # Held until a chair lets it stand; its errors still show (nobody waived them).
    release_held_version(personas["chair"], item.submission, "the partner's name is expected here")
    publish_round(open_round)
    result = Result.objects.filter(submission=item.submission).first()
    errors = Finding.objects.filter(result=result, severity="error").count()
    assert errors
    page = client.get(f"/results/{result.result_id}/").content.decode()
    assert f"{errors} checker error" in page
    table = client.get("/rounds/training-v1.0/").content.decode()
    assert 'class="error-mark"' in table
    ranking = client.get(f"/rounds/training-v1.0/{result.benchmark.name}/").content.decode()
    assert f"⚠ {errors}</span>" in ranking

