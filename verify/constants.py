from django.db import models


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued for a GPU worker"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"


class Outcome(models.TextChoices):
    """How a finished job ended, as the server decided it (verify.reproduce.decide; the failures'
    values are verify.sandbox's). "Reproduced" needs the worker's own evaluation of the quality;
    without an evaluator for the benchmark the best a job can say is "timing only"."""

    REPRODUCED = "reproduced", "Reproduced"
    TIMING_ONLY = "timing_only", "Timing only"
    NOT_REPRODUCED = "not_reproduced", "Not reproduced"
    CANNOT_COMPARE = "cannot_compare", "Cannot compare"
    FAILED = "failed", "Failed"
    TIMED_OUT = "timed_out", "Timed out"
    OUT_OF_MEMORY = "out_of_memory", "Out of memory"
    SANDBOX_VIOLATION = "sandbox_violation", "Sandbox violation"
    WORKER_LOST = "worker_lost", "Worker lost"
