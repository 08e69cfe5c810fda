"""The only writers of uploads and ingestion jobs.

accept_upload() stores a tarball and creates its Upload, the empty Submission version it will
fill, and a `received` IngestJob, then enqueues the job after commit. If the broker is down the
job simply stays `received` with no `enqueued_at`; sweep_pending() (celery beat) sends it later.

run_ingest() does one job. It first CLAIMS the job with a conditional UPDATE and looks at the row
count (healthchecks' sendalerts idiom): only one attempt can own a job, so a duplicate delivery
does nothing. An attempt owns the job while `claim_token` is its token and its heartbeat is fresh;
a worker killed with -9 stops beating, and once the heartbeat is stale the next delivery (the
redelivered message, or the sweep's) takes the job over. Every later write checks the token, and
the final write happens under a row lock in one transaction, so a job ends with exactly one
consistent result whatever the deliveries.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import shutil
import tempfile
import threading
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path, PurePosixPath

from celery import current_app
from django.conf import settings
from django.core.files.storage import storages
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from audit import events
from results import suites as results_suites
from results.models import Organization, Round, fitted
from results.querysets import RoundNotFound
from results.services.lifecycle import make_current
from results.services.training_import import waivers_for
from results.services.versions import new_version
from review.services import check_borrowings, upload_refusal

from .constants import ACTIVE_STATES, ARCHIVE_SUFFIXES, FINAL_STATES, PROCESS_UPLOAD_TASK, ErrorKind, JobState
from .models import IngestJob, Upload

log = logging.getLogger(__name__)

COPY_CHUNK_BYTES = 1024 * 1024


class UploadRefused(Exception):
    """The upload is not accepted; `status` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400, code: str = ""):
        super().__init__(message)
        self.status = status
        self.code = code  # for clients that act on it, e.g. "identical" (send confirm_identical)


class SubmitterError(Exception):
    """The package is at fault: the job fails for the submitter to fix, with no retry."""


class LostClaim(Exception):
    """Another attempt took the job over (ours was presumed dead); stop without writing."""


@dataclass
class IngestOutcome:
    status: str  # "done" | "failed" | "nothing" (already final or gone) | "busy" (owned by a live attempt)
    retry_in: float = 0.0


# --- Upload -------------------------------------------------------------------------------------


def archive_suffix(name: str) -> str:
    """The archive suffix of a file name, or "" when it is not one we accept."""
    lowered = name.lower()
    for suffix in sorted(ARCHIVE_SUFFIXES, key=len, reverse=True):
        if lowered.endswith(suffix):
            return suffix
    return ""


def submissions_storage():
    return storages["submissions"]


def upload_target(user, round_slug: str, organization_slug: str = "") -> tuple[Round, Organization]:
    """The round and organization an upload by `user` goes to, or UploadRefused saying why not:
    unknown round, not a member (of any organization, or of the one named), several to choose from."""
    try:
        round_ = Round.objects.named(round_slug)
    except RoundNotFound as exc:
        raise UploadRefused(str(exc)) from exc
    organizations = user.organizations.all()
    if organization_slug:
        organization = organizations.filter(slug=organization_slug).first()
        if organization is None:
            raise UploadRefused(f"you are not a member of an organization {organization_slug!r}", status=403)
        return round_, organization
    found = list(organizations[:2])
    if not found:
        raise UploadRefused("you are not a member of any organization", status=403)
    if len(found) > 1:
        raise UploadRefused("you belong to several organizations: say which with `organization`")
    return round_, found[0]


def refusal_before_body(user, round_slug: str = "", organization_slug: str = "") -> UploadRefused | None:
    """What can be refused before a byte of the upload is read: a user in no organization (or
    not in the one named), and, when the round is named, an unknown or closed round and an
    organization already at its concurrent-job limit. None when the body may be read."""
    if user is None or not user.is_authenticated:
        return None  # the permission check answers
    if not round_slug:
        if not user.organizations.exists():
            return UploadRefused("you are not a member of any organization", status=403)
        if organization_slug and not user.organizations.filter(slug=organization_slug).exists():
            return UploadRefused(f"you are not a member of an organization {organization_slug!r}", status=403)
        return None
    try:
        round_, organization = upload_target(user, round_slug, organization_slug)
    except UploadRefused as refused:
        return refused
    refusal = upload_refusal(round_=round_, organization=organization)
    if refusal:
        return UploadRefused(refusal, status=403)
    if _running_jobs(organization) >= settings.MAX_CONCURRENT_JOBS_PER_ORG:
        return UploadRefused(_too_many_jobs(organization), status=429)
    return None


def _running_jobs(organization: Organization) -> int:
    return IngestJob.objects.filter(upload__organization=organization).exclude(state__in=FINAL_STATES).count()


def _too_many_jobs(organization: Organization) -> str:
    return (
        f"{organization} already has {settings.MAX_CONCURRENT_JOBS_PER_ORG} uploads being ingested; "
        "wait for one to finish"
    )


def accept_upload(
    *, actor, round_: Round, organization: Organization, uploaded_file, confirm_identical: bool = False
) -> Upload:
    """Store `uploaded_file` (a HashingUploadHandler file carrying `.sha256`) as the next version of
    `organization`'s submission to `round_`, and enqueue its ingestion after commit.

    Refuses (UploadRefused) non-members, unknown archive types, closed rounds without an open
    resubmission window, organizations already running MAX_CONCURRENT_JOBS_PER_ORG jobs, and
    (unless `confirm_identical`) the very bytes of an earlier version (409, naming it). The
    version is allocated by results.services.new_version (under a lock on the organization row),
    so two simultaneous uploads get two versions. The stored name is content-addressed, so the same bytes are stored once.
    """
    if actor is None or not organization.members.filter(pk=actor.pk).exists():
        raise UploadRefused(f"you are not a member of {organization}", status=403)
    original_name = fitted(Upload, "original_name", PurePosixPath(uploaded_file.name or "").name)
    suffix = archive_suffix(original_name)
    if not suffix:
        raise UploadRefused(
            f"{original_name or 'the file'} is not an accepted archive: expected one of {', '.join(ARCHIVE_SUFFIXES)}"
        )
    refusal = upload_refusal(round_=round_, organization=organization)
    if refusal:
        raise UploadRefused(refusal, status=403)

    if _running_jobs(organization) >= settings.MAX_CONCURRENT_JOBS_PER_ORG:
        raise UploadRefused(_too_many_jobs(organization), status=429)  # before storing anything

    sha256 = uploaded_file.sha256
    identical = Upload.objects.filter(round=round_, organization=organization, sha256=sha256).order_by("-version")
    if not confirm_identical and (earlier := identical.first()) is not None:
        raise UploadRefused(
            f"this file is identical to version {earlier.version} (uploaded {earlier.created_at:%Y-%m-%d %H:%M} UTC "
            f"as {earlier.original_name}); confirm to upload it again as a new version",
            status=409,
            code="identical",
        )
    storage = submissions_storage()
    wanted = f"uploads/{round_.slug}/{organization.slug}/{sha256}{suffix}"
    already_stored = storage.exists(wanted)
    stored_name = wanted if already_stored else _store(storage, wanted, uploaded_file)

    with transaction.atomic():
        Organization.objects.select_for_update().get(pk=organization.pk)
        if _running_jobs(organization) >= settings.MAX_CONCURRENT_JOBS_PER_ORG:  # a simultaneous upload won
            if not already_stored:
                storage.delete(stored_name)  # a refused upload is not kept
            raise UploadRefused(_too_many_jobs(organization), status=429)
        submission = new_version(
            round_=round_,
            organization=organization,
            sha256=sha256,
            size_bytes=uploaded_file.size,
            source=f"upload:{original_name}",
            uploaded_by=actor,
        )
        upload = Upload.objects.create(
            round=round_,
            organization=organization,
            submission=submission,
            version=submission.version,
            uploaded_by=actor,
            original_name=original_name,
            storage_name=stored_name,
            size_bytes=uploaded_file.size,
            sha256=sha256,
        )
        job = IngestJob.objects.create(upload=upload, stage="waiting for a worker")
        events.upload(submission, actor=actor, reason=f"{original_name} ({uploaded_file.size} bytes, sha256 {sha256})")
        transaction.on_commit(lambda: enqueue_job(job.pk))
    return upload


def _store(storage, name: str, uploaded_file) -> str:
    """Save the archive as `name`. A save that fails part way (a full disk) leaves nothing behind:
    the name is content-addressed, so a later upload of the same bytes would take the partial file
    for the whole archive."""
    try:
        return storage.save(name, uploaded_file)
    except OSError:
        with contextlib.suppress(OSError):
            storage.delete(name)
        raise


def enqueue_job(job_id: int) -> bool:
    """Send the job to the `ingest` queue; False (and the job stays pending) if the broker is down."""
    try:
        # By name: the task module (ingest/tasks.py) imports this one, not the other way round.
        # A signature runs the registered task (eagerly, with no broker) or sends it by name.
        sent = current_app.signature(PROCESS_UPLOAD_TASK, args=[job_id]).apply_async(
            retry=True, retry_policy=settings.PUBLISH_RETRY_POLICY
        )
    except Exception as exc:  # kombu raises OperationalError, or the socket's own errors
        log.warning("job %s stays pending: the broker refused it (%s)", job_id, exc)
        return False
    with transaction.atomic():
        # A worker may have taken the job already and hold its row through the final write (_finish):
        # waiting for it would hold the upload's response for as long, so the record of the sending,
        # which only a job nobody has needs, is skipped.
        if IngestJob.objects.select_for_update(skip_locked=True).filter(pk=job_id).exists():
            IngestJob.objects.filter(pk=job_id).update(task_id=sent.id or "", enqueued_at=timezone.now())
    return True


def sweep_pending(now=None) -> list[int]:
    """Enqueue jobs that no worker has: `received` ones never sent (broker down at upload time) or
    sent long ago, and active ones whose worker stopped beating. Returns the job ids sent.

    Safe to run anywhere and often: a job sent twice is claimed once.
    """
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.INGEST_STALE_AFTER_SECONDS)
    resend = now - timedelta(seconds=settings.INGEST_RESEND_AFTER_SECONDS)
    pending = Q(state=JobState.RECEIVED) & (Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=resend))
    orphaned = Q(state__in=ACTIVE_STATES, heartbeat_at__lt=stale) & (
        Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=stale)
    )
    sent = []
    for job_id in IngestJob.objects.filter(pending | orphaned).order_by("pk").values_list("pk", flat=True):
        if not enqueue_job(job_id):
            break  # the broker is down: the next sweep tries again
        sent.append(job_id)
    return sent


# --- Ingestion ----------------------------------------------------------------------------------


def claim_job(job_id: int, token: str, now=None) -> bool:
    """Make attempt `token` the owner of the job, by conditional UPDATE. True when the row count
    says we got it: the job was `received`, or its owner's heartbeat is stale, or `token` already
    owned it (a retry of the same attempt after a transient error)."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.INGEST_STALE_AFTER_SECONDS)
    claimable = (
        Q(state=JobState.RECEIVED)
        | Q(state__in=ACTIVE_STATES, heartbeat_at__lt=stale)
        | Q(state__in=ACTIVE_STATES, claim_token=token)
    )
    claimed = IngestJob.objects.filter(Q(pk=job_id) & claimable).update(
        state=JobState.UNPACKING,
        stage="unpacking the archive",
        claim_token=token,
        heartbeat_at=now,
        started_at=now,
        attempts=F("attempts") + 1,
        files_done=0,
        error="",
        error_kind="",
    )
    return claimed == 1


def run_ingest(job_id: int, *, token: str) -> IngestOutcome:
    """Ingest one upload as attempt `token`: claim, unpack (mlperf_check.safety), check (its round's suite, results/suites/),
    write the rows into the upload's Submission version, make it current, clean up.

    Idempotent: an attempt that cannot claim the job writes nothing. Submitter errors fail the job
    (kind submitter). Database connection errors propagate so the task retries with the same token;
    any other error fails the job (kind system) without blaming the submitter.
    """
    previous_token = IngestJob.objects.filter(pk=job_id).values_list("claim_token", flat=True).first()
    if not claim_job(job_id, token):
        job = IngestJob.objects.filter(pk=job_id).first()
        if job is None or job.is_final:
            return IngestOutcome("nothing")
        age = (timezone.now() - job.heartbeat_at).total_seconds() if job.heartbeat_at else 0.0
        return IngestOutcome("busy", retry_in=max(1.0, settings.INGEST_STALE_AFTER_SECONDS - age + 1))

    if (
        IngestJob.objects.filter(pk=job_id).values_list("attempts", flat=True).get()
        > settings.INGEST_MAX_ATTEMPTS
    ):
        fail_job(job_id, token, ErrorKind.SYSTEM, f"gave up after {settings.INGEST_MAX_ATTEMPTS} attempts")
        return IngestOutcome("failed")

    if previous_token and previous_token != token:
        # An attempt that died on this machine (a worker killed mid-job) left its unpacked package.
        for abandoned in _work_dirs(job_id, previous_token):
            shutil.rmtree(abandoned, ignore_errors=True)
    workdir = Path(tempfile.mkdtemp(prefix=_work_dir_prefix(job_id, token), dir=settings.INGEST_WORK_DIR or None))
    try:
        with Heartbeat(job_id, token):
            checked, root = _unpack_and_check(job_id, token, workdir)
            _finish(job_id, token, checked, root)
    except SubmitterError as exc:
        fail_job(job_id, token, ErrorKind.SUBMITTER, str(exc))
        return IngestOutcome("failed")
    except LostClaim:
        return IngestOutcome("nothing")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return IngestOutcome("done")


def _work_dir_prefix(job_id: int, token: str) -> str:
    # The attempt's token names its directory (hashed: it comes from a task message), so a later
    # attempt finds exactly its own job's leftovers, never those of another database's job of the
    # same number on a shared temporary folder.
    return f"ingest-job-{job_id}-{hashlib.sha256(token.encode()).hexdigest()[:16]}-"


def _work_dirs(job_id: int, token: str) -> list[Path]:
    """The work directories attempt `token` of the job made on this machine."""
    return list(Path(settings.INGEST_WORK_DIR or tempfile.gettempdir()).glob(_work_dir_prefix(job_id, token) + "*"))


def _unpack_and_check(job_id: int, token: str, workdir: Path):
    from mlperf_check.safety import ArchiveLimits, UnsafeArchive, extract_archive

    upload = Upload.objects.select_related("round", "organization").get(job__pk=job_id)
    archive = local_copy(upload, workdir)
    try:
        root = extract_archive(archive, workdir / "package", ArchiveLimits(**settings.ARCHIVE_LIMITS))
    except UnsafeArchive as exc:
        _discard_archive(upload)
        raise SubmitterError(f"{upload.original_name} was refused: {exc}") from exc
    finally:
        if archive.parent == workdir:
            archive.unlink(missing_ok=True)  # our own download: the extracted tree is all we need now
    _advance(job_id, token, state=JobState.PARSING, stage="parsing result files")

    def progress(stage: str, done: int, total: int) -> None:
        # Every file while parsing (a few a second at most); every checker while checking.
        if stage == "parsing":
            _advance(job_id, token, stage="parsing result files", files_done=done, files_total=total)
        else:
            _advance(job_id, token, state=JobState.CHECKING, stage=f"package checks ({done} of {total})")

    try:
        checked = results_suites.of(upload.round).check_upload(
            root, name=upload.original_name, round_=upload.round, organization=upload.organization,
            bypasses=waivers_for(upload.round, upload.organization.slug), progress=progress,
        )
    except results_suites.PackageRefused as exc:
        raise SubmitterError(str(exc)) from exc
    _advance(job_id, token, state=JobState.CHECKING, stage="storing results and findings")
    return checked, root


def _discard_archive(upload: Upload) -> None:
    """A refused archive is not kept (its receipt and the job's error say what it was), unless
    another upload of the same bytes (the stored name is content-addressed) still holds it."""
    if not Upload.objects.filter(storage_name=upload.storage_name).exclude(pk=upload.pk).exists():
        submissions_storage().delete(upload.storage_name)


def local_copy(upload: Upload, workdir: Path) -> Path:
    """A local path to the stored archive: the file itself on the filesystem storage, a chunked
    download into the job's directory on object storage."""
    storage = submissions_storage()
    try:
        return Path(storage.path(upload.storage_name))
    except NotImplementedError:
        target = workdir / f"upload{archive_suffix(upload.storage_name)}"
        with storage.open(upload.storage_name, "rb") as source, target.open("wb") as sink:
            shutil.copyfileobj(source, sink, COPY_CHUNK_BYTES)
        return target


def _finish(job_id: int, token: str, checked: results_suites.Checked, root: Path) -> None:
    """Write the checked package into the upload's Submission version and mark the job done, in one
    transaction that holds the job row: if our claim is gone, nothing is written."""
    with transaction.atomic():
        job = IngestJob.objects.select_for_update().select_related("upload__submission").get(pk=job_id)
        if job.claim_token != token or job.state not in ACTIVE_STATES:
            raise LostClaim()
        submission = job.upload.submission
        results_suites.of(submission.round).write_checked(
            checked, submission=submission, read_file=lambda path: _read_log(root, path)
        )
        # Writing admitted the version (results.services.lifecycle): a held one is not made current.
        make_current(submission)
        check_borrowings(submission)
        now = timezone.now()
        IngestJob.objects.filter(pk=job_id).update(
            state=JobState.DONE,
            stage="",
            finished_at=now,
            heartbeat_at=now,
            files_done=F("files_total"),
            error_count=submission.findings.not_waived().filter(severity="error").count(),
        )


def recount_errors(submissions) -> None:
    """After a decision waived findings: each finished job of these versions counts the error
    findings no decision waived (its summary, "done, N errors")."""
    for job in IngestJob.objects.filter(upload__submission__in=submissions, state=JobState.DONE).select_related(
        "upload__submission"
    ):
        count = job.upload.submission.findings.not_waived().filter(severity="error").count()
        if count != job.error_count:
            IngestJob.objects.filter(pk=job.pk).update(error_count=count)


def _read_log(root: Path, rel: str) -> bytes | None:
    path = root / rel
    return path.read_bytes() if path.is_file() and not path.is_symlink() else None


def _advance(job_id: int, token: str, **fields) -> None:
    moved = IngestJob.objects.filter(pk=job_id, claim_token=token, state__in=ACTIVE_STATES).update(
        heartbeat_at=timezone.now(), **fields
    )
    if not moved:
        raise LostClaim()


def fail_job(job_id: int, token: str | None, kind: str, reason: str) -> bool:
    """Mark the job failed with `reason` (only if `token` still owns it, when given)."""
    owned = IngestJob.objects.filter(pk=job_id).exclude(state__in=FINAL_STATES)
    if token is not None:
        owned = owned.filter(claim_token=token)
    now = timezone.now()
    return bool(
        owned.update(state=JobState.FAILED, error_kind=kind, error=reason[:4000], stage="", finished_at=now)
    )


class Heartbeat:
    """Refreshes the job's heartbeat from a side thread while the worker is busy in the checker,
    so a live attempt is never taken for dead. A database outage only skips beats."""

    def __init__(self, job_id: int, token: str):
        self.job_id = job_id
        self.token = token
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"heartbeat-{job_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop.set()
        self.thread.join()

    def _beat(self) -> None:
        try:
            while not self.stop.wait(settings.INGEST_HEARTBEAT_SECONDS):
                try:
                    IngestJob.objects.filter(pk=self.job_id, claim_token=self.token).update(
                        heartbeat_at=timezone.now()
                    )
                except Exception as exc:  # the main thread meets the same outage and handles it
                    log.warning("job %s: heartbeat skipped (%s)", self.job_id, exc)
                    connection.close()
        finally:
            connection.close()  # this thread's own connection


def new_token() -> str:
    return uuid.uuid4().hex
