from django.db import models


class JobState(models.TextChoices):
    RECEIVED = "received", "Received, waiting for a worker"
    UNPACKING = "unpacking", "Unpacking"
    PARSING = "parsing", "Parsing logs"
    CHECKING = "checking", "Checking"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class ErrorKind(models.TextChoices):
    """RTD's BuildUserError vs BuildAppError: only a submitter error is the submitter's to fix."""

    SUBMITTER = "submitter", "Problem in the package"
    SYSTEM = "system", "Problem on our side"


FINAL_STATES = (JobState.DONE, JobState.FAILED)
ACTIVE_STATES = (JobState.UNPACKING, JobState.PARSING, JobState.CHECKING)

ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".zip")

# The queue ingestion tasks are routed to (settings.CELERY_TASK_ROUTES) and its workers consume.
INGEST_QUEUE = "ingest"

# The Celery task that ingests one upload (ingest/tasks.py); the services send it by this name.
PROCESS_UPLOAD_TASK = "ingest.process_upload"
