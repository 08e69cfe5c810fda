"""Verification jobs: one re-run of a result's submitted code, requested by a reviewer or chair.

The state machine queued -> running -> finished is written only by verify/services.py. A job
carries the SHA-256 of its worker token: the token works on the internal API for this job only
and only until the job is finished. Every state change is an audit event (audit.events,
subject "verification <id>").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from results.models import Result

from .constants import JobState, Outcome


class VerificationJobQuerySet(models.QuerySet):
    def visible_to(self, user):
        """A job is seen by whoever may see its result (the same read rule as the result pages)."""
        return self.filter(result__in=Result.objects.visible_to(user))

    def latest_finished_for(self, result):
        return self.filter(result=result, state=JobState.FINISHED).order_by("-finished_at", "-pk").first()


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
    reruns = models.JSONField(default=list, blank=True, help_text="One entry per re-run (verify.reproduce.Rerun)")
    exit_code = models.IntegerField(null=True, blank=True)
    log_tail = models.TextField(blank=True)
    log = models.TextField(blank=True, help_text="The whole output of every re-run (capped)")
    log_truncated = models.BooleanField(default=False)
    gpu = models.JSONField(default=dict, blank=True, help_text='{"available": bool, "note": text}')
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
