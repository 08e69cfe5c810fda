# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""Faults against real processes: a Celery worker subprocess on its own Redis, reading the test
database. (1) worker killed with -9 mid-job, (2) the same job delivered twice, (3) upload while
Redis is down, (4) PostgreSQL restarted mid-job. Each ends with exactly one complete result.

"Mid-job" is made deterministic by holding a row lock from a second connection: the worker blocks
inside its final write (job state `checking`) until the test lets go.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import psycopg2
import pytest
from django.conf import settings
from django.db import connection

from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.services import enqueue_job
from ingest.tasks import process_upload_task
from ingest.tests.processes import REPO, RedisServer, Worker, database_url_of_test_db, wait_for
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import (  # noqa: F401
    celery_broker,
    client_for,
    free_port,
    open_round,
    post_upload,
    unthrottled,
)
from results.models import Result, Run, Submission

pytestmark = [
    pytest.mark.slow(minutes=1),
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("unthrottled"),
]


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    with celery_broker(server.url):
        yield server
    server.stop()


@pytest.fixture
def workers(tmp_path, redis_server):
    started: list[Worker] = []

    def start(beat: bool = False, database_url: str | None = None) -> Worker:
        worker = Worker(tmp_path, redis_server.url, database_url or database_url_of_test_db(), beat=beat)
        started.append(worker)
        worker.start()
        return worker

    yield start
    for worker in started:
        worker.stop()


@contextmanager
def round_locked(round_id: int):
    """Hold a row lock on the Round from a second connection: the worker's final write (which
    allocates result ids under that lock) waits for it, so the job is caught mid-job. NO KEY
    UPDATE, so that inserting the upload's Submission (a KEY SHARE on the round) is not held up."""
    locker = psycopg2.connect(database_url_of_test_db())
    try:
        locker.cursor().execute("SELECT 1 FROM results_round WHERE id = %s FOR NO KEY UPDATE", (round_id,))
        yield
    finally:
        locker.close()


def worker_blocked() -> bool:
    with psycopg2.connect(database_url_of_test_db()) as conn, conn.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] >= 1


def job_state(job_id: int) -> str:
    return IngestJob.objects.values_list("state", flat=True).get(pk=job_id)


def assert_one_complete_result(upload: Upload) -> IngestJob:
    job = IngestJob.objects.get(upload=upload)
    assert (job.state, job.error_kind, job.error) == (JobState.DONE, "", "")
    submission = Submission.objects.get(pk=upload.submission_id)
    assert submission.is_current
    assert submission.systems.count() == 3
    assert Result.objects.filter(submission=submission).count() == len(
        {(r.system_id, r.benchmark_id) for r in Result.objects.filter(submission=submission)}
    )
    assert Run.objects.filter(result__submission=submission).count() == 5
    return job


def upload_sample(personas, tmp_path) -> Upload:
    response = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path))
    assert response.status_code == 201, response.content
    return Upload.objects.get(pk=response.json()["id"])


def test_it_survives_a_worker_killed_mid_job(personas, open_round, tmp_path, workers):
    worker = workers(beat=True)
    with round_locked(open_round.pk):
        upload = upload_sample(personas, tmp_path)
        wait_for(worker_blocked, 20, "the worker to block in its final write")
        assert job_state(upload.job.pk) == JobState.CHECKING
        worker.kill9()
    replacement = workers(beat=True)
    wait_for(lambda: job_state(upload.job.pk) == JobState.DONE, 30, "the job to finish after the restart")
    job = assert_one_complete_result(upload)
    assert job.attempts == 2, replacement.text()


def test_sending_a_job_a_worker_already_holds_does_not_wait_for_the_worker(personas, open_round, tmp_path,
                                                                          redis_server):
    """A fast worker can take the job between the upload's commit and the record of its sending, and
    hold the job row through its final write: the upload must not wait for that (with the round
    locked by this test as well, it waited forever)."""
    upload = upload_sample(personas, tmp_path)
    job = IngestJob.objects.get(upload=upload)
    IngestJob.objects.filter(pk=job.pk).update(task_id="", enqueued_at=None)
    holder = psycopg2.connect(database_url_of_test_db())  # the worker inside _finish
    try:
        holder.cursor().execute("SELECT 1 FROM ingest_ingestjob WHERE id = %s FOR UPDATE", (job.pk,))
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '5s'")  # waiting for the holder fails the test, not hangs it
        assert enqueue_job(job.pk)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
        holder.rollback()  # the lock is gone when this returns; a closed socket frees it when the server notices
        holder.close()
    assert IngestJob.objects.values_list("task_id", "enqueued_at").get(pk=job.pk) == ("", None)
    assert enqueue_job(job.pk)  # nobody holds it: the sending is recorded
    job.refresh_from_db()
    assert job.task_id and job.enqueued_at is not None


def test_it_ingests_a_job_delivered_twice_once(personas, open_round, tmp_path, workers):
    worker = workers()
    with round_locked(open_round.pk):
        upload = upload_sample(personas, tmp_path)
        wait_for(worker_blocked, 20, "the worker to block in its final write")
        process_upload_task.apply_async(args=[upload.job.pk])
        process_upload_task.apply_async(args=[upload.job.pk])
        time.sleep(0.5)
    wait_for(lambda: job_state(upload.job.pk) == JobState.DONE, 20, "the job to finish")
    wait_for(lambda: worker.text().count("'nothing'") >= 2, 20, "both duplicates to be ignored")
    job = assert_one_complete_result(upload)
    assert job.attempts == 1


def test_it_keeps_uploads_made_while_redis_is_down_and_sweeps_them_later(
    personas, open_round, tmp_path, redis_server, workers
):
    redis_server.stop()
    upload = upload_sample(personas, tmp_path)
    job = IngestJob.objects.get(upload=upload)
    assert (job.state, job.enqueued_at) == (JobState.RECEIVED, None)
    redis_server.start()
    worker = workers(beat=True)  # beat runs ingest.sweep_pending every second here
    wait_for(lambda: job_state(job.pk) == JobState.DONE, 30, "the sweep to enqueue the pending job")
    assert "ingest.sweep_pending" in worker.text()
    assert assert_one_complete_result(upload).attempts == 1


@pytest.fixture
def throwaway_postgres():
    """A PostgreSQL of this test's own (scripts/services.sh with its own directory and ports).
    Its directory is directly under /tmp: the postgres user cannot enter pytest's tmp_path."""
    env = {
        **os.environ,
        "SERVICES_DIR": tempfile.mkdtemp(prefix="mlperf-upload-pg-"),
        "PG_PORT": str(free_port()),
        "REDIS_PORT": str(free_port()),
        "WITH_BROWSER": "0",
    }
    started = subprocess.run(
        [str(REPO / "scripts/services.sh"), "start"], env=env, capture_output=True, text=True
    )
    assert started.returncode == 0, started.stdout + started.stderr
    url = f"postgres://postgres@127.0.0.1:{env['PG_PORT']}/postgres"
    try:
        yield env, url
    finally:
        subprocess.run([str(REPO / "scripts/services.sh"), "stop"], env=env, capture_output=True)


SETUP_SCRIPT = """
import json, sys
import django
django.setup()
from django.core.files import File
from django.contrib.auth.models import User
from results.models import Organization, Round
from results.services.rounds import ensure_round
from ingest.services import accept_upload
round_ = ensure_round("training-v1.0")
Round.objects.filter(pk=round_.pk).update(state="open")
round_.refresh_from_db()
org = Organization.objects.create(name="Alpha Systems", slug="alpha")
user = User.objects.create_user("owner")
org.members.add(user)
with open(sys.argv[1], "rb") as handle:
    upload_file = File(handle, name="Fujitsu.tar.gz")
    upload_file.sha256 = sys.argv[2]
    upload = accept_upload(actor=user, round_=round_, organization=org, uploaded_file=upload_file)
print(json.dumps({"job": upload.job.pk, "submission": upload.submission_id}))
"""


def test_it_completes_a_job_when_postgresql_restarts_mid_job(
    tmp_path, throwaway_postgres, redis_server, workers
):
    import hashlib
    import json

    env, url = throwaway_postgres
    run_env = {
        **env,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": redis_server.url,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "REDIS_URL": "",
    }
    python = [sys.executable]
    subprocess.run([*python, "manage.py", "migrate", "-v0"], cwd=REPO, env=run_env, check=True)
    tarball = sample_tarball(tmp_path)
    created = subprocess.run(
        [*python, "-c", SETUP_SCRIPT, str(tarball), hashlib.sha256(tarball.read_bytes()).hexdigest()],
        cwd=REPO,
        env=run_env,
        check=True,
        capture_output=True,
        text=True,
    )
    ids = json.loads(created.stdout.strip().splitlines()[-1])

    def query(sql: str, *args):
        with psycopg2.connect(url) as conn, conn.cursor() as cursor:
            cursor.execute(sql, args)
            return cursor.fetchone()

    locker = psycopg2.connect(url)
    locker.cursor().execute("SELECT 1 FROM results_submission WHERE id = %s FOR UPDATE", (ids["submission"],))
    worker = workers(database_url=url)
    wait_for(
        lambda: query("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")[0] >= 1,
        20,
        "the worker to block in its final write",
    )
    assert query("SELECT state FROM ingest_ingestjob WHERE id = %s", ids["job"])[0] == JobState.CHECKING
    pg_bin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(
        [
            *as_postgres,
            str(pg_bin / "pg_ctl"),
            "-s",
            "-D",
            f"{env['SERVICES_DIR']}/pg",
            "-m",
            "fast",
            "-w",
            "stop",
        ],
        check=True,
    )
    locker.close()
    subprocess.run([str(REPO / "scripts/services.sh"), "start"], env=env, check=True, capture_output=True)

    def finished():
        try:
            return query("SELECT state, attempts, error_kind FROM ingest_ingestjob WHERE id = %s", ids["job"])
        except psycopg2.OperationalError:
            return None

    wait_for(lambda: (finished() or ("",))[0] == JobState.DONE, 40, "the retried job to finish")
    state, attempts, error_kind = finished()
    assert (state, error_kind) == (JobState.DONE, "")
    assert attempts == 2  # the retry took its own job back at once
    assert "Retry in" in worker.text()
    runs = query(
        "SELECT count(*) FROM results_run r JOIN results_result s ON r.result_id = s.id WHERE s.submission_id = %s",
        ids["submission"],
    )[0]
    assert runs == 5
