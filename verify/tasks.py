"""Celery entry points.

`verify.run_job` runs on GPU workers (queue `gpu`, one job at a time, acks_late): it only calls
verify.worker, which is Django-free and talks HTTP to the internal API; the gpu-worker service has
no database credentials. `verify.sweep_stale` runs from celery beat on a worker that has them
(queue `ingest`, set in the beat schedule).
"""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings


@shared_task(
    name="verify.run_job",
    acks_late=True,
    soft_time_limit=settings.VERIFY_SOFT_TIME_LIMIT_SECONDS,
    time_limit=settings.VERIFY_HARD_TIME_LIMIT_SECONDS,
)
def run_job_task(job_id: int, token: str) -> str:
    from .worker import report_outcome, run_job

    try:
        return run_job(job_id, token)
    except SoftTimeLimitExceeded:
        limit = settings.VERIFY_SOFT_TIME_LIMIT_SECONDS
        report_outcome(job_id, token, "timed_out", f"the whole verification took longer than {limit} s and was stopped")
        return "timed_out"


@shared_task(name="verify.sweep_stale", acks_late=True, soft_time_limit=60, time_limit=90)
def sweep_stale_task() -> list[int]:
    from .services import sweep_stale

    return sweep_stale()
