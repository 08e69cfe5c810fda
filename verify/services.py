"""The only writers of verification jobs.

request_verification() creates a queued job and, after commit, sends it BY NAME to the `gpu` queue
with a fresh worker token (only its SHA-256 is stored). The worker then speaks to the internal API,
whose views call the functions below: start_job() (the spec, and the submission's implementation
folder packed for the worker), record_progress(), append_output(), finish_job(). Every write checks
that the job is not finished, and finishing clears the token: a job ends exactly once, and a late
or duplicate worker cannot write to it. sweep_stale() finishes jobs whose worker stopped beating.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import shutil
import tarfile
import tempfile
from datetime import timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from audit import events
from audit.roles import is_privileged
from config.celery import PUBLISH_RETRY_POLICY
from ingest.services import local_copy
from results.models import Result, Submission, fitted

from .constants import WORKER_OUTCOMES, JobState, Outcome
from .models import VerificationJob, VerificationLogChunk
from .task_names import GPU_QUEUE, RUN_JOB_TASK

log = logging.getLogger(__name__)

MAX_RUNS = 10
MAX_TELEMETRY_SAMPLES = 20_000
MAX_CURVE_POINTS = 5_000  # as mlperf_check.runlog keeps
MAX_RERUN_TEXTS = 20


class VerificationRefused(Exception):
    """The request is refused; `status` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class JobClosed(Exception):
    """The job is finished (or unknown): its worker token no longer works."""


# --- Requesting ---------------------------------------------------------------------------------


def tolerance_for(benchmark) -> float:
    """VERIFY_TOLERANCES[name] when configured, else 5 % for vision benchmarks and 10 % for the
    rest: the run-to-run spread MLPerf chose its run counts for."""
    if benchmark.name in settings.VERIFY_TOLERANCES:
        return settings.VERIFY_TOLERANCES[benchmark.name]
    if benchmark.area.lower() == "vision":
        return settings.VERIFY_TOLERANCE_VISION
    return settings.VERIFY_TOLERANCE_OTHER


def can_request(user) -> bool:
    return is_privileged(user)


def may_request_for(user, result: Result) -> bool:
    """Whether the request link is offered: a reviewer or chair of another organization."""
    return can_request(user) and not result.submission.organization.members.filter(pk=user.pk).exists()


def request_verification(*, actor, result: Result, runs: int | None = None, rule: str = "") -> VerificationJob:
    """Queue a verification of `result` with `runs` re-runs (default: the benchmark's required count),
    asked by `actor` (a reviewer or chair) or, with no actor, by the named `rule`."""
    if actor is None and not rule:
        raise VerificationRefused("a verification is requested by a reviewer, a chair or a named rule", status=403)
    if actor is not None and not can_request(actor):
        raise VerificationRefused("only reviewers and chairs may request a verification", status=403)
    organization = result.submission.organization
    if actor is not None and organization.members.filter(pk=actor.pk).exists():
        raise VerificationRefused(
            f"conflict of interest: you belong to {organization} and may not request verifications of its results",
            status=403,
        )
    runs = result.benchmark.required_runs if runs is None else runs
    if not 1 <= runs <= MAX_RUNS:
        raise VerificationRefused(f"the number of runs must be between 1 and {MAX_RUNS}, not {runs}")
    if not hasattr(result.submission, "upload"):
        raise VerificationRefused(
            f"{result.result_id} was imported, not uploaded: no submitted code is stored to re-run", status=409
        )
    with transaction.atomic():
        # The result's row lock orders two requests for it: the second sees the first's job.
        Result.objects.select_for_update().filter(pk=result.pk).first()
        _refuse_repeat(result)
        job = VerificationJob.objects.create(
            result=result,
            requested_by=actor,
            runs_requested=runs,
            claimed_minutes=result.mean_minutes if result.mean_minutes is not None else result.score_minutes,
            tolerance=tolerance_for(result.benchmark),
            stage="waiting for a GPU worker",
        )
        token = secrets.token_urlsafe(32)
        VerificationJob.objects.filter(pk=job.pk).update(token_sha256=_digest(token))
        requester = f"by rule: {rule}; " if actor is None else ""
        _record_event(job.pk, events.verification_requested, f"{requester}{runs} run(s), tolerance {job.tolerance:.0%}",
                      actor=actor)
        transaction.on_commit(lambda: enqueue(job.pk, token))
    job.refresh_from_db()
    return job


def _refuse_repeat(result: Result) -> None:
    """One verification of a citable result at a time, and at most one per VERIFY_REPEAT_SECONDS."""
    jobs = VerificationJob.objects.filter(
        result__result_id=result.result_id, result__submission__round=result.submission.round_id
    )
    if jobs.exclude(state=JobState.FINISHED).exists():
        raise VerificationRefused(f"a verification of {result.result_id} is already queued or running", status=409)
    last = jobs.order_by("-created_at").values_list("created_at", flat=True).first()
    next_allowed = last + timedelta(seconds=settings.VERIFY_REPEAT_SECONDS) if last else None
    if next_allowed and timezone.now() < next_allowed:
        raise VerificationRefused(
            f"{result.result_id} was verified on {last:%Y-%m-%d %H:%M} UTC; it may be verified again from "
            f"{next_allowed:%Y-%m-%d %H:%M} UTC", status=429,
        )


def request_for_new_records(round_, runs: int | None = None) -> list[VerificationJob]:
    """The rule "verify every new record": in `round_`, each benchmark's fastest scored result per
    division that is faster than every result of that benchmark and division in every other round
    of the suite, uploaded (its code is stored) and never verified, is queued for a verification."""
    results = Result.objects.filter(submission__round=round_, submission__is_current=True, score_minutes__isnull=False)
    jobs = []
    for benchmark, division in results.values_list("benchmark__name", "division").distinct().order_by("benchmark__name", "division"):
        fastest = results.filter(benchmark__name=benchmark, division=division).order_by("score_minutes", "pk").first()
        earlier_best = (
            Result.objects.filter(benchmark__name=benchmark, division=division, submission__round__suite=round_.suite,
                                  score_minutes__isnull=False)
            .exclude(submission__round=round_)
            .order_by("score_minutes")
            .values_list("score_minutes", flat=True)
            .first()
        )
        is_record = earlier_best is None or fastest.score_minutes < earlier_best
        if is_record and hasattr(fastest.submission, "upload") and not fastest.verification_jobs.exists():
            jobs.append(request_verification(actor=None, result=fastest, runs=runs, rule="every new record"))
    return jobs


def enqueue(job_id: int, token: str) -> bool:
    """Send the job by task name (the GPU worker's code is not imported here) to the `gpu` queue."""
    try:
        sent = current_app.send_task(
            RUN_JOB_TASK,
            args=[job_id, token],
            queue=GPU_QUEUE,
            retry=True,
            retry_policy=PUBLISH_RETRY_POLICY,
        )
    except Exception as exc:  # the broker refused it: the job stays queued and the sweep fails it
        log.warning("verification %s stays queued: the broker refused it (%s)", job_id, exc)
        return False
    VerificationJob.objects.filter(pk=job_id).update(task_id=sent.id or "")
    return True


# --- The worker's calls (through verify/internal_api.py) ----------------------------------------


def job_for_token(job_id: int, token: str) -> VerificationJob:
    """The job `token` was issued for, while it is not finished; JobClosed otherwise. Comparing
    digests in constant time, a token of another job opens nothing here."""
    job = VerificationJob.objects.filter(pk=job_id).select_related("result__benchmark").first()
    if job is None or not job.token_sha256 or not secrets.compare_digest(job.token_sha256, _digest(token)):
        raise JobClosed("no such job for this token")
    if job.is_finished:
        raise JobClosed("the job has finished")
    return job


def start_job(job: VerificationJob) -> dict:
    """Mark the job running (first call) and return what the worker needs to run it."""
    now = timezone.now()
    moved = VerificationJob.objects.filter(pk=job.pk, state=JobState.QUEUED).update(
        state=JobState.RUNNING, started_at=now, heartbeat_at=now, stage="starting"
    )
    if moved:
        _record_event(job.pk, events.verification_started, "a GPU worker took the job")
    result = Result.objects.with_related().get(pk=job.result_id)
    benchmark = result.benchmark
    return {
        "job": job.pk,
        "result_id": result.result_id,
        "benchmark": benchmark.name,
        "ruleset": result.submission.ruleset_version or result.submission.round.ruleset_version,
        "organization": result.submission.organization.slug,
        "system_id": result.system.system_id,
        "division": result.division,
        "runs": job.runs_requested,
        "olympic_drop": benchmark.olympic_drop,
        "claimed_minutes": job.claimed_minutes,
        "quality_target": benchmark.quality_target,
        "direction": benchmark.metric_direction,
        "tolerance": job.tolerance,
        "run_script": settings.VERIFY_RUN_SCRIPT,
        "timing_slack_seconds": settings.VERIFY_TIMING_SLACK_SECONDS,
        "timing_slack_fraction": settings.VERIFY_TIMING_SLACK_FRACTION,
        "limits": {
            "wall_seconds": settings.VERIFY_RUN_WALL_SECONDS,
            "memory_bytes": settings.VERIFY_MEMORY_BYTES,
            "max_processes": settings.VERIFY_MAX_PROCESSES,
            "cpu_seconds": settings.VERIFY_CPU_SECONDS,
            "file_size_bytes": settings.VERIFY_FILE_SIZE_BYTES,
            "tmpfs_bytes": settings.VERIFY_TMPFS_BYTES,
            "output_bytes": settings.VERIFY_OUTPUT_BYTES,
            "cpus": settings.VERIFY_CPUS,
        },
    }


def implementation_archive(job: VerificationJob, dest: Path) -> Path:
    """Pack `benchmarks/<benchmark>/implementations/<impl>/` of the job's uploaded package into
    `dest` (a tar.gz with one top folder). The package is unpacked with the ingestion's archive
    safety checks. Finishes the job as failed, and raises JobClosed, when there is no such folder."""
    from mlperf_check.safety import ArchiveLimits, UnsafeArchive, extract_archive

    result = Result.objects.select_related("benchmark", "submission__upload").get(pk=job.result_id)
    upload = result.submission.upload
    workdir = Path(tempfile.mkdtemp(prefix=f"verify-code-{job.pk}-", dir=settings.INGEST_WORK_DIR or None))
    try:
        try:
            root = extract_archive(local_copy(upload, workdir), workdir / "package", ArchiveLimits(**settings.ARCHIVE_LIMITS))
        except UnsafeArchive as exc:
            _fail_and_close(job, f"the stored package could not be unpacked: {exc}")
        implementations = root / "benchmarks" / result.benchmark.name / "implementations"
        candidates = sorted(
            folder for folder in (implementations.iterdir() if implementations.is_dir() else [])
            if (folder / settings.VERIFY_RUN_SCRIPT).is_file()
        )
        if not candidates:
            _fail_and_close(
                job,
                f"the package has no benchmarks/{result.benchmark.name}/implementations/<impl>/"
                f"{settings.VERIFY_RUN_SCRIPT} to run",
            )
        with tarfile.open(dest, "w:gz") as archive:
            archive.add(candidates[0], arcname="implementation")
        _record_event(job.pk, events.verification_code_sent, f"implementation {candidates[0].name}")
        return dest
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def clean_rerun(value) -> dict:
    """A re-run as the worker reports it (verify.reproduce.Rerun.as_json), checked field by field:
    the job page renders what is stored, so a malformed one is refused (ValueError), never kept."""
    if not isinstance(value, dict):
        raise ValueError("a rerun must be a JSON object")

    def number(name, required=False, kind=(int, float)):
        item = value.get(name)
        if item is None and not required:
            return None
        if isinstance(item, bool) or not isinstance(item, kind):
            raise ValueError(f"rerun.{name} must be a {'whole ' if kind is int else ''}number, not {item!r:.60}")
        return item

    def texts(name, limit=500):
        items = value.get(name, [])
        if not isinstance(items, list) or not all(isinstance(item, str | int | float) for item in items):
            raise ValueError(f"rerun.{name} must be a list of texts")
        return [item if isinstance(item, int | float) else item[:limit] for item in items[:MAX_RERUN_TEXTS]]

    curve = value.get("eval_curve", [])
    if not isinstance(curve, list) or not all(
        isinstance(point, list) and len(point) == 3
        and all(item is None or isinstance(item, str | int | float) for item in point)
        for point in curve
    ):
        raise ValueError("rerun.eval_curve must be a list of [epoch, value, minutes] points")
    how = value.get("how", {})
    if not isinstance(how, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in how.items()):
        raise ValueError("rerun.how must map figure names to texts")
    if not isinstance(value.get("reached_target", False), bool):
        raise ValueError("rerun.reached_target must be true or false")
    return {
        "number": number("number", required=True, kind=int),
        "seed": number("seed", required=True, kind=int),
        "minutes": number("minutes"),
        "reached_target": value.get("reached_target", False),
        "run_stop_status": str(value.get("run_stop_status", ""))[:100],
        "final_quality": number("final_quality"),
        "error_findings": number("error_findings", kind=int) or 0,
        "eval_curve": [[str(item)[:100] if isinstance(item, str) else item for item in point] for point in curve[:MAX_CURVE_POINTS]],
        "wall_seconds": number("wall_seconds") or 0.0,
        "logged_minutes": number("logged_minutes"),
        "logged_seeds": texts("logged_seeds", 100),
        "max_drift_seconds": number("max_drift_seconds"),
        "violations": texts("violations"),
        "how": {str(k)[:50]: str(v)[:500] for k, v in list(how.items())[:MAX_RERUN_TEXTS]},
    }


def record_progress(job: VerificationJob, payload: dict) -> None:
    """Raises ValueError for a malformed re-run (the internal API answers 400)."""
    rerun = clean_rerun(payload["rerun"]) if "rerun" in payload else None
    fields = {"heartbeat_at": timezone.now()}
    if isinstance(payload.get("stage"), str):
        fields["stage"] = fitted(VerificationJob, "stage", payload["stage"])
    if isinstance(payload.get("runs_done"), int) and 0 <= payload["runs_done"] <= job.runs_requested:
        fields["runs_done"] = payload["runs_done"]
    if isinstance(payload.get("gpu"), dict):
        fields["gpu"] = {"available": bool(payload["gpu"].get("available")), "note": str(payload["gpu"].get("note", ""))[:500]}
    with transaction.atomic():
        locked = VerificationJob.objects.select_for_update().get(pk=job.pk)
        if locked.is_finished:
            raise JobClosed("the job has finished")
        if rerun is not None and len(locked.reruns) < job.runs_requested:
            fields["reruns"] = [*locked.reruns, rerun]
        VerificationJob.objects.filter(pk=job.pk).update(**fields)


def append_output(job: VerificationJob, text: str, telemetry: list) -> None:
    """Append a chunk of the runs' output (up to VERIFY_MAX_LOG_CHARS in all) and GPU samples.
    The chunk is one new row and the job's running totals move on: the stored log is never read
    or measured, so an append costs the same at the first line and at the millionth."""
    with transaction.atomic():
        locked = (
            VerificationJob.objects.select_for_update()
            .only("state", "log_truncated", "log_chars", "log_newlines", "telemetry")
            .get(pk=job.pk)
        )
        if locked.is_finished:
            raise JobClosed("the job has finished")
        fields = {"heartbeat_at": timezone.now()}
        if text and not locked.log_truncated:
            # PostgreSQL text holds neither NUL nor lone surrogates (JSON can carry both): one
            # character for one, so the counts stay true.
            text = text.replace("\x00", "\ufffd").encode("utf-8", "replace").decode("utf-8")
            room = settings.VERIFY_MAX_LOG_CHARS - locked.log_chars
            if len(text) > room:
                text = text[: max(room, 0)] + f"\n[log cut at {settings.VERIFY_MAX_LOG_CHARS} characters]\n"
                fields["log_truncated"] = True
            VerificationLogChunk.objects.create(
                job_id=job.pk, chars_before=locked.log_chars, newlines_before=locked.log_newlines, text=text
            )
            newlines = locked.log_newlines + text.count("\n")
            fields.update(
                log_chars=locked.log_chars + len(text),
                log_newlines=newlines,
                log_lines=newlines + (0 if text.endswith("\n") else 1),
            )
        if telemetry and len(locked.telemetry) < MAX_TELEMETRY_SAMPLES:
            samples = [sample for sample in telemetry if isinstance(sample, dict)]
            fields["telemetry"] = (locked.telemetry + samples)[:MAX_TELEMETRY_SAMPLES]
        VerificationJob.objects.filter(pk=job.pk).update(**fields)


def finish_job(job: VerificationJob, payload: dict) -> VerificationJob:
    """Record the worker's outcome and close the job (its token stops working)."""
    outcome = payload.get("outcome")
    if outcome not in WORKER_OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(WORKER_OUTCOMES)}, not {outcome!r}")
    reruns = payload.get("reruns")
    if reruns is not None and not isinstance(reruns, list):
        raise ValueError("reruns must be a list")
    reruns = [clean_rerun(rerun) for rerun in reruns[: job.runs_requested]] if reruns is not None else None
    minutes = payload.get("rerun_minutes")
    exit_code = payload.get("exit_code")
    return _finish(
        job.pk,
        outcome,
        str(payload.get("message", ""))[:4000],
        reruns=reruns,
        rerun_minutes=minutes if isinstance(minutes, int | float) else None,
        exit_code=exit_code if isinstance(exit_code, int) else None,
        log_tail=str(payload.get("log_tail", ""))[:4000],
    )


def sweep_stale(now=None) -> list[int]:
    """Finish as `worker_lost` the running jobs whose heartbeat stopped, and the queued jobs no worker
    took in VERIFY_QUEUED_EXPIRE_SECONDS: no job stays running (or queued) forever."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.VERIFY_STALE_AFTER_SECONDS)
    expired = now - timedelta(seconds=settings.VERIFY_QUEUED_EXPIRE_SECONDS)
    lost = VerificationJob.objects.filter(
        Q(state=JobState.RUNNING, heartbeat_at__lt=stale) | Q(state=JobState.QUEUED, created_at__lt=expired)
    )
    swept = []
    for job in lost.only("pk", "state", "heartbeat_at"):
        if job.state == JobState.RUNNING:
            why = f"the GPU worker stopped reporting (no heartbeat since {job.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC)"
        else:
            why = f"no GPU worker took the job within {settings.VERIFY_QUEUED_EXPIRE_SECONDS} s"
        if _finish(job.pk, Outcome.WORKER_LOST, why, only_if_state=job.state, by="sweep"):
            swept.append(job.pk)
    return swept


# --- helpers ------------------------------------------------------------------------------------


def _finish(
    job_id: int, outcome: str, message: str, only_if_state: str | None = None, by: str = "worker", **fields
) -> VerificationJob | None:
    fields = {name: value for name, value in fields.items() if value is not None and value != ""}
    with transaction.atomic():
        job = VerificationJob.objects.select_for_update().get(pk=job_id)
        if job.is_finished or (only_if_state and job.state != only_if_state):
            if only_if_state:
                return None
            raise JobClosed("the job has finished")
        now = timezone.now()
        VerificationJob.objects.filter(pk=job_id).update(
            state=JobState.FINISHED,
            outcome=outcome,
            message=message,
            stage="",
            token_sha256="",  # the token expires with the job
            finished_at=now,
            heartbeat_at=now,
            **fields,
        )
        _record_event(job_id, events.verification_finished, f"{Outcome(outcome).label} ({by}): {message}")
        # The result page shows the verification: touching its submission changes the data version
        # that keys the anonymous page cache (results/caching.py), so no cached page hides the badge.
        Submission.objects.filter(results__pk=job.result_id).update(updated_at=now)
    job.refresh_from_db()
    return job


def _fail_and_close(job: VerificationJob, message: str):
    _finish(job.pk, Outcome.FAILED, message)
    raise JobClosed(message)


def _record_event(job_id: int, record, detail: str, **actor) -> None:
    """An audit event about the job's result (`record`: one of audit.events' verification_*), in
    the caller's transaction."""
    result = Result.objects.select_related("submission__round", "submission__organization").get(verification_jobs__pk=job_id)
    record(result, subject=job_subject(job_id), detail=detail, **actor)


def job_subject(job_id: int) -> str:
    """How the audit log names a job."""
    return f"verification {job_id}"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
