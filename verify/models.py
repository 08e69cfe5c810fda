"""Verification jobs: re-runs of a result's submitted code, requested by a reviewer or chair.

The state machine queued -> running -> finished is written only by verify/services.py. A job
carries the SHA-256 of its worker token: the token works on the internal API for this job only
and only until the job is finished. Every state change is an audit event (audit.events,
subject "verification <id>"). What the worker observed is kept as evidence (the log in chunks,
each line's arrival time, telemetry, each re-run's exit and CPU time); the re-runs' figures, the
checks and the outcome are the server's, computed from it (verify/reproduce.py).
"""

from __future__ import annotations

import io

from django.conf import settings
from django.db import models

from results import logs
from results.models import Result

from .constants import JobState, Outcome


class VerificationJobQuerySet(models.QuerySet):
    def visible_to(self, user):
        """A job is seen by whoever may see its result (the same read rule as the result pages)."""
        return self.filter(result__in=Result.objects.visible_to(user))

    def latest_and_in_progress(self, result) -> tuple[VerificationJob | None, VerificationJob | None]:
        """The result's latest finished job (by finished_at, then id) and its newest unfinished
        one, from one query over its few jobs (the result page's badge)."""
        jobs = list(self.filter(result=result).order_by("-pk"))
        latest = max((job for job in jobs if job.is_finished), default=None,
                     key=lambda job: (job.finished_at is not None, job.finished_at, job.pk))
        return latest, next((job for job in jobs if not job.is_finished), None)


class VerificationJob(models.Model):
    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="verification_jobs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    runs_requested = models.PositiveSmallIntegerField()
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.QUEUED, db_index=True)
    outcome = models.CharField(max_length=24, choices=Outcome.choices, blank=True)
    message = models.TextField(blank=True, help_text="The outcome in words, with both numbers")
    stage = models.CharField(max_length=255, blank=True, help_text="What the worker is doing now")
    runs_done = models.PositiveSmallIntegerField(default=0)
    claimed_minutes = models.FloatField(null=True, blank=True, help_text="The claimed olympic mean")
    rerun_minutes = models.FloatField(null=True, blank=True, help_text="Olympic mean of the re-runs")
    tolerance = models.FloatField(help_text="Allowed relative difference, e.g. 0.05")
    reruns = models.JSONField(default=list, blank=True, help_text="One entry per re-run, as the server judged it (verify.reproduce.Rerun)")
    checks = models.JSONField(default=list, blank=True, help_text="What the verification established (verify.reproduce.established)")
    exit_code = models.IntegerField(null=True, blank=True)
    log_tail = models.TextField(blank=True)
    # The output of every re-run (capped) is stored in VerificationLogChunk rows, one per append;
    # these running totals make an append and a page of the log cost the same whatever its length.
    log_chars = models.BigIntegerField(default=0)
    log_newlines = models.BigIntegerField(default=0)
    log_lines = models.BigIntegerField(default=0, help_text="Lines of the log, a last unfinished one included")
    log_truncated = models.BooleanField(default=False)
    gpu = models.JSONField(default=dict, blank=True, help_text='{"available": bool, "note": text}')
    worker_hardware = models.JSONField(default=dict, blank=True, help_text="What the worker runs on (verify.hardware.describe_worker)")
    telemetry = models.JSONField(default=list, blank=True, help_text="NVML samples (verify.telemetry)")
    token_sha256 = models.CharField(max_length=64, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = VerificationJobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"verification {self.pk} ({self.outcome or self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state == JobState.FINISHED

    def log_page(self, number: int) -> logs.LogPage | None:
        """Page `number` of the log as results.logs pages a stored log (same lines per page, same
        byte cap), or None when the log has fewer pages. Reads only the chunks the page spans."""
        page_count = logs.page_of_line(self.log_lines) if self.log_lines else 1
        if not 1 <= number <= page_count:
            return None
        skip = (number - 1) * logs.LINES_PER_PAGE  # the page starts after this many newlines
        chunks = self.log_chunks.all()
        if skip == 0:
            first = chunks.order_by("chars_before").first()
        else:  # the chunk holding the skip-th newline: the last one that starts before it
            first = chunks.filter(newlines_before__lt=skip).order_by("-newlines_before", "-chars_before").first()
        data, newlines = bytearray(), 0
        if first is not None:
            head = first.text.encode()
            data += head[logs.end_of_nth_newline(head, skip - first.newlines_before):]
            newlines = data.count(b"\n")
            later = chunks.filter(
                chars_before__gt=first.chars_before,
                chars_before__lte=first.chars_before + len(first.text) + logs.PAGE_MAX_BYTES,
                newlines_before__lte=skip + logs.LINES_PER_PAGE,
            ).order_by("chars_before").values_list("text", flat=True)
            for text in later.iterator(chunk_size=16):
                if len(data) > logs.PAGE_MAX_BYTES or newlines >= logs.LINES_PER_PAGE:
                    break
                encoded = text.encode()
                data += encoded
                newlines += encoded.count(b"\n")
        return logs.page_at(io.BytesIO(data), number, self.log_lines)


class VerificationLogChunk(models.Model):
    """One append of a job's output, with where it starts in the whole log (characters and
    newlines before it), so a page of the log is found by an indexed lookup, never a scan; and
    which re-run printed it (none: the worker's own notes), so each re-run's log can be parsed."""

    job = models.ForeignKey(VerificationJob, on_delete=models.CASCADE, related_name="log_chunks")
    run = models.PositiveSmallIntegerField(null=True, blank=True)
    chars_before = models.BigIntegerField()
    newlines_before = models.BigIntegerField()
    text = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "chars_before"], name="verify_log_chunk_order")]
        indexes = [models.Index(fields=["job", "newlines_before"], name="verify_log_chunk_line")]


class VerificationArrivals(models.Model):
    """When the lines of a re-run's output reached the worker, as it reported them with one append:
    [[lines complete, seconds on the job's clock], ...] (verify.reproduce.ArrivalClock)."""

    job = models.ForeignKey(VerificationJob, on_delete=models.CASCADE, related_name="arrivals")
    run = models.PositiveSmallIntegerField()
    points = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["job", "run"], name="verify_arrivals_run")]
