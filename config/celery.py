import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("mlperf_dashboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# A worker consuming the ingest queue says it is alive, for the upload pages (ingest/presence.py). By
# name: the step's module needs Django's models, loaded when the worker starts, not at this import.
app.steps["worker"].add("ingest.presence.WorkerPresenceStep")
