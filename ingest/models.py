"""Uploads and their ingestion jobs.

An Upload is the stored tarball and its receipt: it reserves the submission version (previous
maximum + 1 for that organization and round) when it arrives, so the receipt can name it. Its
IngestJob carries the state machine received -> unpacking -> parsing -> checking -> done | failed,
written only by ingest/services.py. A worker owns a job while `claim_token` is its token and its
heartbeat is fresh; a duplicate delivery finds the claim taken and does nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from audit.roles import is_privileged
from results.models import Organization, Round, Submission

from .constants import ACTIVE_STATES, FINAL_STATES, ErrorKind, JobState


class UploadQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Members see their organizations' uploads; reviewers and chairs see all; nobody else any."""
        if user is None or not user.is_authenticated:
            return self.none()
        if is_privileged(user):
            return self
        return self.filter(organization__members=user).distinct()


class Upload(models.Model):
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="uploads")
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="uploads")
    submission = models.OneToOneField(Submission, on_delete=models.PROTECT, related_name="upload")
    version = models.PositiveIntegerField()
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="uploads"
    )
    original_name = models.CharField(max_length=255)
    storage_name = models.CharField(max_length=512, help_text="Name in the `submissions` storage")
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = UploadQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "organization", "version"], name="upload_unique_version")
        ]
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.organization} {self.round.slug} v{self.version} ({self.original_name})"


class IngestJob(models.Model):
    upload = models.OneToOneField(Upload, on_delete=models.CASCADE, related_name="job")
    state = models.CharField(
        max_length=16, choices=JobState.choices, default=JobState.RECEIVED, db_index=True
    )
    error_kind = models.CharField(max_length=16, choices=ErrorKind.choices, blank=True)
    error = models.TextField(blank=True, help_text="Why it failed, in words for the one who must act")
    stage = models.CharField(max_length=128, blank=True, help_text="What the worker is doing now")
    files_done = models.PositiveIntegerField(default=0)
    files_total = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0, help_text="Error findings of the finished job")
    attempts = models.PositiveSmallIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True)
    claim_token = models.CharField(max_length=64, blank=True, help_text="The attempt that owns the job")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="Last time a task was sent")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"job {self.pk} ({self.state})"

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES

    @property
    def is_active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def summary(self) -> str:
        """The state in a few words: "done, 3 errors" for a finished package with error findings,
        which must never read like a clean "done"."""
        if self.state == JobState.DONE and self.error_count:
            return f"done, {self.error_count} error{'s' if self.error_count != 1 else ''}"
        return self.state

    @property
    def badge_class(self) -> str:
        return "state-done-errors" if self.state == JobState.DONE and self.error_count else f"state-{self.state}"


class WorkerPresence(models.Model):
    """A Celery worker consuming the `ingest` queue, as it last said it was alive (ingest/presence.py):
    how the upload pages know whether anyone will check an upload that waits."""

    hostname = models.CharField(max_length=255, unique=True)
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["-seen_at"]

    def __str__(self) -> str:
        return f"{self.hostname} (seen {self.seen_at:%Y-%m-%d %H:%M:%S})"
