"""An upload that waits says why: whether an ingestion worker runs is known (ingest/presence.py)
and told on the upload pages and in the status API, never a silent "waiting for a worker"."""

# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ingest.models import IngestJob, WorkerPresence
from ingest.presence import GONE_AFTER_SECONDS, NO_WORKER, record_presence, waiting_note
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import client_for, dead_broker, open_round, post_upload, unthrottled  # noqa: F401


@pytest.fixture
def waiting_upload(personas, open_round, dead_broker, unthrottled, tmp_path, django_capture_on_commit_callbacks):
    """An upload whose job nobody has taken (its message went nowhere)."""
    with django_capture_on_commit_callbacks(execute=True):
        response = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path))
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.django_db
def test_with_no_worker_the_status_and_the_pages_say_nobody_will_check_it(client, personas, waiting_upload):
    status = client_for(personas["owner"]).get(f"/api/v1/uploads/{waiting_upload['id']}/").json()
    assert status["job"]["state"] == "received"
    assert status["job"]["worker_running"] is False
    assert status["job"]["waiting"] == NO_WORKER
    client.force_login(personas["owner"])
    for page in ("/submit/", f"/submit/uploads/{waiting_upload['id']}/"):
        html = client.get(page).content.decode()
        assert 'id="no-worker"' in html and "No ingestion worker is running" in html, page


@pytest.mark.django_db
def test_with_a_live_worker_the_job_waits_in_line_and_no_warning_shows(client, personas, waiting_upload):
    record_presence("ingest-1@host", timezone.now())
    status = client_for(personas["owner"]).get(f"/api/v1/uploads/{waiting_upload['id']}/").json()
    assert status["job"]["worker_running"] is True
    assert status["job"]["waiting"] == "waiting for a worker to take it"
    client.force_login(personas["owner"])
    assert 'id="no-worker"' not in client.get("/submit/").content.decode()


@pytest.mark.django_db
def test_a_worker_not_heard_from_is_gone_and_a_busy_one_puts_the_job_in_line(personas, waiting_upload):
    long_ago = timezone.now() - timedelta(seconds=GONE_AFTER_SECONDS + 1)
    WorkerPresence.objects.create(hostname="ingest-1@host", started_at=long_ago, seen_at=long_ago)
    job = IngestJob.objects.get(upload_id=waiting_upload["id"])
    assert waiting_note(job) == NO_WORKER
    record_presence("ingest-2@host", timezone.now())
    IngestJob.objects.filter(pk=job.pk).update(state="parsing")  # another upload being checked ...
    later = IngestJob.objects.get(pk=job.pk)
    later.pk, later.state = job.pk + 1, "received"  # ... and ours behind it
    assert waiting_note(later) == "waiting for a worker: 1 upload(s) being checked, 0 ahead of yours in the queue"
    assert waiting_note(IngestJob.objects.get(pk=job.pk)) == ""  # a worker has it


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_records_itself_while_it_runs_and_leaves_when_stopped(tmp_path):
    from ingest.tests.processes import RedisServer, Worker, database_url_of_test_db, wait_for

    redis = RedisServer(tmp_path)
    redis.start()
    process = Worker(tmp_path, redis.url, database_url_of_test_db())
    try:
        process.start()
        present = wait_for(lambda: list(WorkerPresence.objects.all()), 20, "the worker's presence")
        assert len(present) == 1 and present[0].hostname.startswith("ingest-test-")
        assert timezone.now() - present[0].seen_at < timedelta(seconds=GONE_AFTER_SECONDS)
    finally:
        process.stop()
        redis.stop()
    assert not WorkerPresence.objects.exists(), process.text()
