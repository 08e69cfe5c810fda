from django.db import models


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued for a GPU worker"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"


class Outcome(models.TextChoices):
    """How a finished job ended. Values match the worker's (verify.reproduce, verify.sandbox)."""

    REPRODUCED = "reproduced", "Reproduced"
    NOT_REPRODUCED = "not_reproduced", "Not reproduced"
    CANNOT_COMPARE = "cannot_compare", "Cannot compare"
    FAILED = "failed", "Failed"
    TIMED_OUT = "timed_out", "Timed out"
    OUT_OF_MEMORY = "out_of_memory", "Out of memory"
    SANDBOX_VIOLATION = "sandbox_violation", "Sandbox violation"
    WORKER_LOST = "worker_lost", "Worker lost"


# The outcomes a worker may report (worker_lost is the sweep's).
WORKER_OUTCOMES = tuple(value for value in Outcome.values if value != Outcome.WORKER_LOST)
