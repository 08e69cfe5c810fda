"""Celery entry points of the web side. `verify.sweep_stale` runs from celery beat on a worker that
has the database (queue `ingest`, set in the beat schedule). The GPU workers' task, `verify.run_job`,
is in verify/gpu_worker.py: a Celery app of its own that loads no Django settings.
"""

from __future__ import annotations

from celery import shared_task


@shared_task(name="verify.sweep_stale", acks_late=True, soft_time_limit=60, time_limit=90)
def sweep_stale_task() -> list[int]:
    from .services import sweep_stale

    return sweep_stale()
