# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""One writer of versions: uploads and imports share the numbering, and nothing rewrites a
version once written.

transaction=True: ingestion's heartbeat thread and claim need committed rows, as in a worker.
"""

from __future__ import annotations

import io
import shutil

import pytest
from django.core.management import call_command

from audit.models import AuditEvent
from ingest import services as ingest_services
from ingest.models import IngestJob
from ingest.tests.tarballs import SAMPLE_V1, sample_tarball
from ingest.tests.upload_fixtures import client_for, dead_broker, open_round, post_upload, unthrottled  # noqa: F401
from results.models import Finding, Result, Run, Submission
from results.services.training_import import write_report
from results.services.versions import VersionAlreadyWritten

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]

# Every ordered pair of these steps occurs in this sequence (a de Bruijn sequence of order 2),
# so every "X then Y" of uploads, imports and changed imports is exercised.
STEPS = ["upload", "upload", "import", "import", "changed", "changed", "upload", "changed", "import", "upload"]


def version_snapshot(submission: Submission):
    return (
        submission.sha256,
        submission.written_at,
        sorted(Result.objects.filter(submission=submission).values_list("pk", "result_id", "score_minutes")),
        sorted(Run.objects.filter(result__submission=submission).values_list("pk", "sha256")),
        Finding.objects.filter(submission=submission).count(),
    )


def test_no_sequence_of_uploads_and_imports_overwrites_a_version(personas, open_round, tmp_path):
    # The sample Fujitsu folder under Alpha's slug, as imported; and a changed copy (one run fewer).
    same = tmp_path / "same" / "alpha"
    changed = tmp_path / "changed" / "alpha"
    shutil.copytree(SAMPLE_V1 / "Fujitsu", same)
    shutil.copytree(SAMPLE_V1 / "Fujitsu", changed)
    next(changed.rglob("result_5.txt")).unlink()
    tarball = sample_tarball(tmp_path)

    written: dict[int, tuple] = {}
    for step in STEPS:
        if step == "upload":
            response = post_upload(client_for(personas["owner"]), tarball, confirm_identical="true")
            assert response.status_code == 201, response.content
            job_id = IngestJob.objects.get(upload_id=response.json()["id"]).pk
            assert ingest_services.run_ingest(job_id, token=f"t{job_id}").status == "done"
        else:
            folder = same if step == "import" else changed
            call_command("import_results", str(folder), "--round", "training-v1.0", "--jobs", "1", stdout=io.StringIO())

        versions = list(Submission.objects.filter(round=open_round, organization=personas["alpha"]).order_by("version"))
        assert [v.version for v in versions] == list(range(1, len(versions) + 1)), step
        for version in versions:
            if version.pk in written:
                assert version_snapshot(version) == written[version.pk], f"{step} rewrote version {version.version}"
            else:
                written[version.pk] = version_snapshot(version)
        assert [v.version for v in versions if v.is_current] == [versions[-1].version]
        # Result ids stay citable across versions: one id per (system, benchmark).
        assert Result.objects.filter(submission__in=versions).values("result_id").distinct().count() == 1

    # 4 uploads, and imports make a version only when their content differs from the newest one.
    assert len(written) == 4 + 4
    assert AuditEvent.objects.filter(kind="upload").count() == 4


def test_a_written_version_is_never_written_again(personas, open_round, tmp_path):
    from mlperf_check.pipeline import check_package

    folder = tmp_path / "alpha"
    shutil.copytree(SAMPLE_V1 / "Fujitsu", folder)
    call_command("import_results", str(folder), "--round", "training-v1.0", "--jobs", "1", stdout=io.StringIO())
    submission = Submission.objects.get()
    with pytest.raises(VersionAlreadyWritten):
        write_report(check_package(str(folder)), submission=submission)
