"""Whether an ingestion worker is running, told to a submitter whose upload waits.

Every Celery worker that consumes the `ingest` queue records itself in WorkerPresence when it starts
and every PRESENCE_SECONDS after (the bootstep below, which config/celery.py adds to the web project's
workers by name, so that it loads after Django), and removes itself when it stops. A job still `received` is then explained in
words: waiting behind others, or waiting because no worker runs at all (never a silent "waiting").
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import bootsteps
from django.db import DatabaseError
from django.utils import timezone

from .constants import ACTIVE_STATES, INGEST_QUEUE, JobState
from .models import IngestJob, WorkerPresence

log = logging.getLogger(__name__)

PRESENCE_SECONDS = 15.0
# A worker not heard from for this long is gone (killed, its machine down).
GONE_AFTER_SECONDS = 4 * PRESENCE_SECONDS

NO_WORKER = (
    "no ingestion worker is running: your upload is stored and will be checked as soon as one starts "
    "(`make run` starts one beside the web server; in production it is the `worker` service)"
)


def record_presence(hostname: str, started_at) -> None:
    WorkerPresence.objects.update_or_create(
        hostname=hostname, defaults={"started_at": started_at, "seen_at": timezone.now()}
    )


def forget_presence(hostname: str) -> None:
    WorkerPresence.objects.filter(hostname=hostname).delete()


def ingest_worker_running(now=None) -> bool:
    now = now or timezone.now()
    return WorkerPresence.objects.filter(seen_at__gte=now - timedelta(seconds=GONE_AFTER_SECONDS)).exists()


def no_worker_note() -> str:
    """The warning the upload pages show while no ingestion worker runs; "" while one does."""
    return "" if ingest_worker_running() else NO_WORKER[0].upper() + NO_WORKER[1:] + "."


def waiting_note(job) -> str:
    """Why a `received` job has not started, in words; "" once a worker has it."""
    if job.state != JobState.RECEIVED:
        return ""
    if not ingest_worker_running():
        return NO_WORKER
    ahead = IngestJob.objects.filter(pk__lt=job.pk, state=JobState.RECEIVED).count()
    running = IngestJob.objects.filter(state__in=ACTIVE_STATES).count()
    if ahead or running:
        return f"waiting for a worker: {running} upload(s) being checked, {ahead} ahead of yours in the queue"
    return "waiting for a worker to take it"


class WorkerPresenceStep(bootsteps.StartStopStep):
    """Keeps this worker's WorkerPresence row fresh while it consumes the `ingest` queue."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs):
        self.timer_entry = None
        self.hostname = ""
        self.started_at = None

    def start(self, worker):
        if INGEST_QUEUE not in worker.app.amqp.queues.consume_from:
            return
        self.hostname, self.started_at = worker.hostname, timezone.now()
        self.beat()
        self.timer_entry = worker.timer.call_repeatedly(PRESENCE_SECONDS, self.beat)

    def beat(self) -> None:
        try:
            record_presence(self.hostname, self.started_at)
        except DatabaseError as exc:  # the database is down: the next beat tries again
            log.warning("cannot record this worker's presence: %s", exc)

    def stop(self, worker):
        if self.timer_entry is None:
            return
        self.timer_entry.cancel()
        self.timer_entry = None
        try:
            forget_presence(self.hostname)
        except DatabaseError as exc:
            log.warning("cannot remove this worker's presence: %s", exc)
