"""Thin Celery wrappers around ingest.services. Routed by name to the `ingest` queue.

process_upload_task is acks_late (settings): a worker killed mid-job leaves its message unacked, so
Redis redelivers it; the claim in services.run_ingest makes every extra delivery a no-op.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from . import services
from .constants import PROCESS_UPLOAD_TASK, ErrorKind

log = logging.getLogger(__name__)

# Lost database connections and the like: our side, worth retrying, never the submitter's fault.
TRANSIENT_ERRORS = (OperationalError, InterfaceError)


@shared_task(
    bind=True,
    name=PROCESS_UPLOAD_TASK,
    acks_late=True,
    soft_time_limit=settings.INGEST_SOFT_TIME_LIMIT_SECONDS,
    time_limit=settings.INGEST_HARD_TIME_LIMIT_SECONDS,
    max_retries=settings.INGEST_MAX_RETRIES,
)
def process_upload_task(self, job_id: int, claim: str | None = None) -> str:
    """Ingest job `job_id`. `claim` is the token of the attempt being retried, so a retry after a
    transient error takes its own job straight back; a fresh delivery gets a fresh token.

    Transient errors retry with exponential backoff (then fail the job as a system error); a job
    owned by a live attempt is looked at again once that attempt's heartbeat could be stale.
    """
    token = claim or services.new_token()
    try:
        outcome = services.run_ingest(job_id, token=token)
    except TRANSIENT_ERRORS as exc:
        if self.request.retries >= self.max_retries:
            log.exception("job %s: giving up after %s retries", job_id, self.request.retries)
            services.fail_job(
                job_id, token, ErrorKind.SYSTEM, "the database was unavailable; an operator will retry it"
            )
            raise
        countdown = min(settings.INGEST_RETRY_BACKOFF_MAX_SECONDS, 2**self.request.retries)
        log.warning("job %s: transient error, retry in %ss: %s", job_id, countdown, exc)
        raise self.retry(exc=exc, kwargs={"job_id": job_id, "claim": token}, countdown=countdown) from exc
    except SoftTimeLimitExceeded:
        services.fail_job(
            job_id,
            token,
            ErrorKind.SYSTEM,
            f"ingestion took longer than {settings.INGEST_SOFT_TIME_LIMIT_SECONDS} s and was stopped",
        )
        return "failed"
    except Exception:
        log.exception("job %s: internal error", job_id)
        services.fail_job(
            job_id,
            token,
            ErrorKind.SYSTEM,
            f"an internal error stopped the ingestion (job {job_id}); it is not a problem in your package "
            "and the operators have been told",
        )
        return "failed"
    if outcome.status == "busy":
        # Another delivery owns the job. Look again when its heartbeat could be stale: by then it
        # has finished (and this does nothing) or died (and this takes over).
        raise self.retry(kwargs={"job_id": job_id}, countdown=outcome.retry_in, max_retries=None)
    return outcome.status


@shared_task(name="ingest.sweep_pending", acks_late=True, soft_time_limit=60, time_limit=90)
def sweep_pending_task() -> list[int]:
    """Periodic (celery beat): enqueue jobs that were never sent or whose worker died."""
    return services.sweep_pending()
