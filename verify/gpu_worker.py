"""The GPU worker's Celery app: `celery -A verify.gpu_worker worker -Q gpu --concurrency 1`.

It loads no Django settings, so it needs neither a SECRET_KEY nor database credentials: its one
task runs verify.worker, which speaks HTTP to the web app's token-authenticated internal API.
Configured from the environment: CELERY_BROKER_URL (Redis, or the folder broker of `make run`:
verify/broker.py), CELERY_VISIBILITY_TIMEOUT, VERIFY_WORKER_KEY (or _FILE: verify/tokens.py), and
VERIFY_SOFT_TIME_LIMIT_SECONDS for a whole job (the hard limit is 1.2 x that; keep it under the
visibility timeout, or Redis redelivers a job still running). The web side sends the task by name
(verify/services.py), never importing this module. When the worker starts it removes what a killed
predecessor left behind (its jobs' folders, its runs' cgroups), and it refuses to start without a
usable key.
"""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_init

from .broker import broker_url, transport, transport_options
from .task_names import GPU_QUEUE, RUN_JOB_TASK
from .tokens import MissingWorkerKey
from .worker import WorkerConfig, clean_leftovers, report_ended, run_job

log = logging.getLogger(__name__)

SOFT_TIME_LIMIT_SECONDS = int(os.environ.get("VERIFY_SOFT_TIME_LIMIT_SECONDS", "2700"))
HARD_TIME_LIMIT_SECONDS = int(SOFT_TIME_LIMIT_SECONDS * 1.2)

# No fixups: Celery's Django fixup would load the settings wherever DJANGO_SETTINGS_MODULE happens to
# be set. Not the current app: imported beside the web project (its tests), it must not take over
# Celery's current_app, which the web side sends its tasks through.
BROKER_URL = broker_url()
app = Celery("mlperf_gpu_worker", broker=BROKER_URL, fixups=[], set_as_current=False)
app.conf.update(
    task_default_queue=GPU_QUEUE,
    task_acks_late=True,  # a worker lost mid-job leaves the message for Redis to redeliver
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    broker_transport=transport(BROKER_URL),
    broker_transport_options=transport_options(BROKER_URL, int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))),
    result_backend=None,
    broker_connection_retry_on_startup=True,
)


# shared=False: a task is otherwise added to every Celery app of the process, the web side's included.
@app.task(
    name=RUN_JOB_TASK, shared=False, acks_late=True,
    soft_time_limit=SOFT_TIME_LIMIT_SECONDS, time_limit=HARD_TIME_LIMIT_SECONDS,
)
def run_job_task(job_id: int, nonce: str) -> str:
    """`nonce` is no secret: the job's token is derived from it with this worker's key."""
    try:
        return run_job(job_id, nonce)
    except SoftTimeLimitExceeded:
        message = f"the whole verification took longer than {SOFT_TIME_LIMIT_SECONDS} s and was stopped"
        return report_ended(job_id, nonce, "timed_out", message)


@worker_init.connect
def start_clean(sender=None, **_kwargs) -> None:
    """Before the first task: a usable key, and nothing left of a killed predecessor's runs."""
    if getattr(sender, "app", None) is not app:
        return
    try:
        config = WorkerConfig.from_env()
    except MissingWorkerKey as exc:
        raise SystemExit(f"the verification worker cannot start: {exc}") from exc
    for path in clean_leftovers(config):
        log.warning("removed what a killed verification worker left behind: %s", path)
