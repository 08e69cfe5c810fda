import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# How the web side sends a task (ingest, verify): retry briefly, then give up and let the sweep resend.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}

app = Celery("mlperf_dashboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# A worker consuming the ingest queue says it is alive, for the upload pages (ingest/presence.py). By
# name: the step's module needs Django's models, loaded when the worker starts, not at this import.
app.steps["worker"].add("ingest.presence.WorkerPresenceStep")
