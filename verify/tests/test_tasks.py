"""The Celery wiring: names, queues, limits, and the beat sweep."""

from django.conf import settings

from config.celery import app
from verify.services import RUN_JOB_TASK


def test_the_run_task_goes_to_the_gpu_queue_acks_late_with_time_limits():
    import verify.tasks  # noqa: F401  (registers the tasks)

    task = app.tasks[RUN_JOB_TASK]
    assert task.acks_late is True
    assert task.soft_time_limit == settings.VERIFY_SOFT_TIME_LIMIT_SECONDS
    assert task.time_limit == int(settings.VERIFY_SOFT_TIME_LIMIT_SECONDS * 1.2)
    assert app.amqp.router.route({}, RUN_JOB_TASK)["queue"].name == "gpu"
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1


def test_the_sweep_runs_from_beat_where_the_database_is():
    import verify.tasks  # noqa: F401

    entry = settings.CELERY_BEAT_SCHEDULE["verify-sweep-stale"]
    assert entry["task"] == "verify.sweep_stale" and entry["options"]["queue"] == "ingest"
    assert app.amqp.router.route({}, "verify.sweep_stale")["queue"].name == "ingest"
