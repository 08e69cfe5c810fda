# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""The ingestion job in-process (no worker): claim, states, versions, current version, failures.

transaction=True: the job's heartbeat thread and the claim need committed rows, as in a worker.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from ingest import services
from ingest.constants import ErrorKind, JobState
from ingest.models import IngestJob, Upload
from ingest.tests.tarballs import sample_tarball, tarball_with_symlink
from ingest.tests.upload_fixtures import (  # noqa: F401
    client_for,
    dead_broker,
    open_round,
    post_upload,
    unthrottled,
)
from results.models import Result, Run, Submission

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]


def upload(personas, path: Path, user: str = "owner", **extra) -> Upload:
    response = post_upload(client_for(personas[user]), path, **extra)
    assert response.status_code == 201, response.content
    return Upload.objects.select_related("job", "submission").get(pk=response.json()["id"])


def test_it_leaves_the_job_pending_when_the_broker_is_down(personas, open_round, tmp_path):
    job = upload(personas, sample_tarball(tmp_path)).job
    assert (job.state, job.enqueued_at, job.task_id) == (JobState.RECEIVED, None, "")


def test_it_ingests_a_real_sample_into_its_submission_version(personas, open_round, tmp_path, settings):
    # A work directory of its own: another test run on the machine may use the same job ids in /tmp.
    settings.INGEST_WORK_DIR = str(tmp_path / "work")
    Path(settings.INGEST_WORK_DIR).mkdir()
    item = upload(personas, sample_tarball(tmp_path))
    outcome = services.run_ingest(item.job.pk, token="t1")
    assert outcome.status == "done"
    job = IngestJob.objects.get(pk=item.job.pk)
    assert (job.state, job.attempts, job.error) == (JobState.DONE, 1, "")
    assert job.files_total == job.files_done == 5
    submission = Submission.objects.get(pk=item.submission_id)
    assert submission.is_current and not submission.is_published
    assert submission.systems.count() == 3
    assert Run.objects.filter(result__submission=submission).count() == 5
    # Log copies are stored content-addressed; the job's temporary directory is gone.
    run = Run.objects.filter(result__submission=submission).first()
    assert run.log_name.endswith(f"{run.sha256}.txt")
    assert not list(Path(settings.INGEST_WORK_DIR).glob(f"ingest-job-{job.pk}-*"))


def test_it_does_nothing_on_a_second_delivery(personas, open_round, tmp_path):
    item = upload(personas, sample_tarball(tmp_path))
    assert services.run_ingest(item.job.pk, token="first").status == "done"
    results = list(Result.objects.filter(submission=item.submission).values_list("pk", flat=True))
    assert services.run_ingest(item.job.pk, token="second").status == "nothing"
    assert list(Result.objects.filter(submission=item.submission).values_list("pk", flat=True)) == results
    assert IngestJob.objects.get(pk=item.job.pk).attempts == 1


def test_it_leaves_a_job_to_its_live_owner_and_takes_over_a_dead_one(personas, open_round, tmp_path):
    job = upload(personas, sample_tarball(tmp_path)).job
    assert services.claim_job(job.pk, "alive")
    outcome = services.run_ingest(job.pk, token="intruder")
    assert outcome.status == "busy" and outcome.retry_in > 0
    # The owner stops beating (killed): once stale, the next delivery takes the job over.
    IngestJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert services.run_ingest(job.pk, token="rescuer").status == "done"
    job.refresh_from_db()
    assert (job.state, job.attempts, job.claim_token) == (JobState.DONE, 2, "rescuer")
    # The presumed-dead owner wakes up: it must not write anything.
    with pytest.raises(services.LostClaim):
        services._advance(job.pk, "alive", stage="late")


def test_taking_over_a_dead_attempt_removes_what_it_unpacked_on_this_machine(personas, open_round, tmp_path, settings):
    settings.INGEST_WORK_DIR = str(tmp_path / "work")
    Path(settings.INGEST_WORK_DIR).mkdir()
    job = upload(personas, sample_tarball(tmp_path)).job
    assert services.claim_job(job.pk, "killed")
    # What the killed attempt had unpacked, as it names its directory; beside it the directory of
    # a job of the same number of another database sharing the folder (another attempt's token).
    left = Path(tempfile.mkdtemp(prefix=services._work_dir_prefix(job.pk, "killed"), dir=settings.INGEST_WORK_DIR))
    (left / "package").mkdir()
    (left / "package" / "result_0.txt").write_text(":::MLLOG {}\n")
    other = Path(tempfile.mkdtemp(prefix=services._work_dir_prefix(job.pk, "elsewhere"), dir=settings.INGEST_WORK_DIR))
    IngestJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert services.run_ingest(job.pk, token="rescuer").status == "done"
    assert not left.exists() and other.exists()
    assert [p.name for p in Path(settings.INGEST_WORK_DIR).iterdir()] == [other.name]  # the rescuer's own is gone too


def test_it_lets_a_retry_of_the_same_attempt_take_its_job_back(personas, open_round, tmp_path):
    job = upload(personas, sample_tarball(tmp_path)).job
    assert services.claim_job(job.pk, "attempt")
    assert services.run_ingest(job.pk, token="attempt").status == "done"


def test_it_fails_an_unsafe_archive_as_a_submitter_error(personas, open_round, tmp_path):
    item = upload(personas, tarball_with_symlink(tmp_path))
    assert services.run_ingest(item.job.pk, token="t").status == "failed"
    job = IngestJob.objects.get(pk=item.job.pk)
    assert (job.state, job.error_kind) == (JobState.FAILED, ErrorKind.SUBMITTER)
    assert "passwd.json" in job.error
    assert not Submission.objects.get(pk=item.submission_id).is_current


def test_it_keeps_the_newest_ingested_version_current(personas, open_round, tmp_path):
    first = upload(personas, sample_tarball(tmp_path))
    second = upload(personas, sample_tarball(tmp_path, suffix=".zip"), user="teammate")
    assert services.run_ingest(second.job.pk, token="b").status == "done"
    assert services.run_ingest(first.job.pk, token="a").status == "done"  # an older version, finishing late
    current = Submission.objects.filter(round=open_round, organization=personas["alpha"], is_current=True)
    assert list(current.values_list("version", flat=True)) == [2]
    # Earlier versions stay, with their own rows; result ids are shared across versions.
    assert (
        Result.objects.filter(submission=first.submission).count()
        == Result.objects.filter(submission=second.submission).count()
    )
    assert set(Result.objects.filter(submission=first.submission).values_list("result_id", flat=True)) == set(
        Result.objects.filter(submission=second.submission).values_list("result_id", flat=True)
    )


def test_it_gives_up_after_too_many_attempts(personas, open_round, tmp_path, settings):
    job = upload(personas, sample_tarball(tmp_path)).job
    IngestJob.objects.filter(pk=job.pk).update(attempts=settings.INGEST_MAX_ATTEMPTS)
    assert services.run_ingest(job.pk, token="t").status == "failed"
    job.refresh_from_db()
    assert (job.state, job.error_kind) == (JobState.FAILED, ErrorKind.SYSTEM)


def test_it_sweeps_only_jobs_that_no_worker_has(personas, open_round, tmp_path, settings):
    pending = upload(personas, sample_tarball(tmp_path)).job
    running = upload(personas, sample_tarball(tmp_path), user="teammate", confirm_identical="true").job
    orphan = upload(personas, sample_tarball(tmp_path, suffix=".zip"), user="outsider").job
    services.claim_job(running.pk, "live")
    services.claim_job(orphan.pk, "dead")
    IngestJob.objects.filter(pk=orphan.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    sent = []
    original = services.enqueue_job
    services.enqueue_job = lambda job_id: sent.append(job_id) or True
    try:
        services.sweep_pending()
    finally:
        services.enqueue_job = original
    assert sent == [pending.pk, orphan.pk]


def test_it_keeps_the_published_version_current_in_a_published_round(personas, open_round, tmp_path):
    first = upload(personas, sample_tarball(tmp_path))
    assert services.run_ingest(first.job.pk, token="t1").status == "done"
    (tmp_path / "again").mkdir()
    second = upload(personas, sample_tarball(tmp_path / "again"), confirm_identical="true")  # may be the same bytes
    from results.services.rounds import publish_round

    publish_round(open_round)
    # A version still being checked when the round is published does not replace the published
    # one in the public tables: publication decides which version is current.
    assert services.run_ingest(second.job.pk, token="t2").status == "done"
    assert Submission.objects.get(pk=first.submission_id).is_current
    assert not Submission.objects.get(pk=second.submission_id).is_current
    assert Result.objects.filter(submission_id=second.submission_id).exists()
