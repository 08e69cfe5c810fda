"""The Celery wiring: names, queues, limits, the beat sweep, and sending with no broker."""

import pytest
from django.conf import settings

from config.celery import app
from verify.task_names import RUN_JOB_TASK


def test_the_run_task_goes_to_the_gpu_queue_acks_late_with_time_limits():
    from verify import gpu_worker

    task = gpu_worker.app.tasks[RUN_JOB_TASK]
    assert task.acks_late is True
    assert task.soft_time_limit == gpu_worker.SOFT_TIME_LIMIT_SECONDS
    assert task.time_limit == int(gpu_worker.SOFT_TIME_LIMIT_SECONDS * 1.2)
    assert gpu_worker.app.conf.worker_prefetch_multiplier == 1
    assert app.amqp.router.route({}, RUN_JOB_TASK)["queue"].name == "gpu"
    assert RUN_JOB_TASK not in app.tasks  # the web side only sends it, by name


def test_the_gpu_worker_app_loads_no_django_settings_and_needs_no_secret_key():
    """No SECRET_KEY, as on a GPU machine; even a stray DJANGO_SETTINGS_MODULE loads nothing of Django."""
    import subprocess
    import sys

    from ingest.tests.processes import REPO

    probe = (
        "import sys, verify.gpu_worker as w; "
        "w.app.loader.init_worker(); "
        "assert w.app.tasks['verify.run_job'].name == 'verify.run_job'; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'config', 'results', 'ingest', 'review', 'audit', 'pages') and m != 'django' "
        "and not m.startswith('django.utils')))"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "CELERY_BROKER_URL": "redis://127.0.0.1:1/0",
           "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # kombu imports django.utils.functional when it is installed; no settings, apps or database.
    assert done.stdout.strip() == "[]"


def test_the_gpu_worker_refuses_to_start_without_a_usable_key(tmp_path):
    """Without the key no job token can be derived: say so at start, not job by job."""
    import subprocess
    import sys

    from ingest.tests.processes import REPO, WORKER_MAIN

    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "CELERY_BROKER_URL": "redis://127.0.0.1:1/0",
           "VERIFY_WORKER_KEY": "too short", "LOCAL_STATE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", WORKER_MAIN, "-A", "verify.gpu_worker", "worker", "-Q", "gpu", "-c", "1",
                           "--without-gossip", "--without-mingle", "--without-heartbeat"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "the verification worker cannot start: VERIFY_WORKER_KEY must be at least 32 characters" in done.stderr


def test_the_sweep_runs_from_beat_where_the_database_is():
    import verify.tasks  # noqa: F401

    entry = settings.CELERY_BEAT_SCHEDULE["verify-sweep-stale"]
    assert entry["task"] == "verify.sweep_stale" and entry["options"]["queue"] == "ingest"
    assert app.amqp.router.route({}, "verify.sweep_stale")["queue"].name == "ingest"


@pytest.mark.django_db
def test_with_the_broker_down_the_job_stays_queued_and_the_request_is_quick(personas, tmp_path, settings, django_capture_on_commit_callbacks):
    import time

    from ingest.tests.upload_fixtures import celery_broker, free_port
    from verify import services
    from verify.models import VerificationJob
    from verify.tests.world import verifiable_result

    result = verifiable_result(personas, tmp_path)
    started = time.monotonic()
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"), django_capture_on_commit_callbacks(execute=True):
        job = services.request_verification(actor=personas["chair"], result=result, runs=1)
    assert time.monotonic() - started < 15
    job = VerificationJob.objects.get(pk=job.pk)
    assert (job.state, job.task_id) == ("queued", "")


@pytest.mark.django_db
def test_with_the_embedded_folder_broker_the_job_is_sent_for_a_verification_worker(
    personas, tmp_path, django_capture_on_commit_callbacks
):
    """No CELERY_BROKER_URL (`make run`): the job goes to the folder broker, where the verification
    worker that `make run` starts reads it (verify/broker.py); nothing waits for a broker forever."""
    import json

    from ingest.tests.upload_fixtures import celery_broker
    from verify import services
    from verify.broker import folder_broker_url
    from verify.models import VerificationJob
    from verify.tests.world import verifiable_result

    result = verifiable_result(personas, tmp_path)
    with celery_broker(folder_broker_url(tmp_path / "broker")), django_capture_on_commit_callbacks(execute=True):
        job = services.request_verification(actor=personas["chair"], result=result, runs=1)
    job = VerificationJob.objects.get(pk=job.pk)
    assert (job.state, bool(job.task_id)) == ("queued", True)
    [message] = (tmp_path / "broker" / "messages").glob("*.gpu.msg")
    assert json.loads(message.read_text())["headers"]["task"] == "verify.run_job"
    assert job.token_sha256 not in message.read_text()  # the job id and a nonce only (test_broker_secrets.py)


@pytest.mark.django_db
def test_the_new_record_rule_queues_each_record_once(personas, tmp_path, monkeypatch):
    from io import StringIO

    from django.core.management import call_command

    from results.models import Result
    from results.tests.factories import make_result, make_round, make_submission, make_system
    from verify import services
    from verify.models import VerificationJob
    from verify.tests.world import verifiable_result

    monkeypatch.setattr(services, "enqueue", lambda job_id, token: True)
    record = verifiable_result(personas, tmp_path)  # tiny_mlp in training-v6.1, ~0.017 min
    earlier = make_round("6.0", benchmarks=("tiny_mlp",))
    make_result(make_system(make_submission(earlier, personas["beta"])), "tiny_mlp", minutes=5.0)
    out = StringIO()
    call_command("verify_new_records", "--round", "training-v6.1", "--runs", "2", stdout=out)
    job = VerificationJob.objects.get()
    from audit.models import AuditEvent

    requested = AuditEvent.objects.get(kind="verification.requested")
    assert (job.result, job.runs_requested, requested.actor_name) == (record, 2, "system")
    assert requested.reason.startswith("by rule: every new record; 2 run(s)")
    assert "1 new record(s) queued" in out.getvalue()
    call_command("verify_new_records", "--round", "training-v6.1", stdout=StringIO())
    assert VerificationJob.objects.count() == 1  # never twice
    # Not a record when an earlier round was faster.
    Result.objects.filter(submission__round=earlier).update(score_minutes=0.001)
    VerificationJob.objects.all().delete()
    assert services.request_for_new_records(record.submission.round) == []
