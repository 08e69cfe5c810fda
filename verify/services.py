"""The only writers of verification jobs, and the server's side of the decision.

request_verification() creates a queued job and, after commit, sends `verify.run_job(job, nonce)`
BY NAME to the `gpu` queue. The message carries no secret: the job's token is derived from the
nonce with VERIFY_WORKER_KEY (verify/tokens.py), which only the web app and the GPU workers hold,
and only its SHA-256 is stored. The worker then speaks to the internal API, whose views call the
functions below: start_job() (the spec, and the submission's implementation folder packed for the
worker), record_progress(), append_output() (the log, each line's arrival, telemetry), record_run()
(one re-run's evidence: the server parses the stored log and judges the re-run itself) and
finish_job() (the server decides the outcome from what it holds; a worker's word is only a hint
that the job ended). Every write checks that the job is not finished, and finishing clears the
token: a job ends exactly once, and a late or duplicate worker cannot write to it. sweep_stale()
finishes jobs whose worker stopped beating.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import shutil
import tarfile
import tempfile
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from audit import events
from audit.roles import is_privileged
from ingest.services import local_copy
from results.constants import Severity
from results.models import Finding, Result, Submission, fitted

from . import hardware, tokens
from .constants import JobState, Outcome
from .evaluators import evaluator_for
from .models import VerificationArrivals, VerificationJob, VerificationLogChunk
from .reproduce import RULES, ArrivalClock, Rerun, decide, judge_rerun
from .sandbox import EXITED
from .task_names import GPU_QUEUE, RUN_JOB_TASK

log = logging.getLogger(__name__)

MAX_RUNS = 10
MAX_TELEMETRY_SAMPLES = 20_000
LOG_TAIL_CHARS = 3000


class VerificationRefused(Exception):
    """The request is refused; `status` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class JobClosed(Exception):
    """The job is finished (or unknown): its worker token no longer works."""


def worker_key() -> str:
    """VERIFY_WORKER_KEY; in development, else, the machine-local key the local worker finds too."""
    key = settings.VERIFY_WORKER_KEY or ("" if settings.PRODUCTION else tokens.local_key())
    if not key:
        raise VerificationRefused("verification is not configured here: VERIFY_WORKER_KEY is not set", status=503)
    try:
        tokens.check_key(key)
    except tokens.MissingWorkerKey as exc:
        raise VerificationRefused(f"verification is not configured here: {exc}", status=503) from exc
    return key


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
    key = worker_key()
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
        nonce = tokens.new_nonce()
        VerificationJob.objects.filter(pk=job.pk).update(token_sha256=_digest(tokens.job_token(key, job.pk, nonce)))
        requester = f"by rule: {rule}; " if actor is None else ""
        _record_event(job.pk, events.verification_requested, f"{requester}{runs} run(s), tolerance {job.tolerance:.0%}",
                      actor=actor)
        transaction.on_commit(lambda: enqueue(job.pk, nonce))
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


def enqueue(job_id: int, nonce: str) -> bool:
    """Send the job by task name (the GPU worker's code is not imported here) to the `gpu` queue.
    The message holds the job id and the nonce only: whoever reads the queue cannot make the token."""
    try:
        sent = current_app.send_task(
            RUN_JOB_TASK,
            args=[job_id, nonce],
            queue=GPU_QUEUE,
            retry=True,
            retry_policy=settings.PUBLISH_RETRY_POLICY,
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
    """Mark the queued job running and return what the worker needs to run it. A job runs once: a
    second start (a redelivered message after a worker was killed) is refused, and the sweep
    finishes the job when its first worker's heartbeat stops."""
    now = timezone.now()
    with transaction.atomic():
        moved = VerificationJob.objects.filter(pk=job.pk, state=JobState.QUEUED).update(
            state=JobState.RUNNING, started_at=now, heartbeat_at=now, stage="starting"
        )
        if not moved:
            raise JobClosed("the job was started already")
        _record_event(job.pk, events.verification_started, "a GPU worker took the job")
    evaluator = evaluator_for(job.result.benchmark.name)
    return {
        "job": job.pk,
        "benchmark": job.result.benchmark.name,
        "runs": job.runs_requested,
        "run_script": settings.VERIFY_RUN_SCRIPT,
        "evaluator": evaluator.module if evaluator else None,
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


def claim_spec(job: VerificationJob) -> dict:
    """What the server judges the re-runs against: the claim (its ruleset, system, score, target, the
    error findings its runs had), the hardware comparison and the thresholds (verify.reproduce)."""
    result = Result.objects.with_related().get(pk=job.result_id)
    system = result.system
    claimed_system = {
        "number_of_nodes": system.number_of_nodes,
        "accelerator_model_name": system.accelerator_model_name,
        "accelerators_per_node": system.accelerators_per_node,
        "host_processor_model_name": system.host_processor_model_name,
    }
    if job.worker_hardware:
        like, note = hardware.compare(claimed_system, job.worker_hardware)
    else:
        like, note = False, "the worker did not say what hardware it runs on"
    evaluator = evaluator_for(result.benchmark.name)
    claimed_errors = Finding.objects.filter(run__result=result, severity=Severity.ERROR).values_list("code", "key")
    return {
        "ruleset": result.submission.ruleset_version or result.submission.round.ruleset_version,
        "system_id": system.system_id,
        "benchmark": result.benchmark.name,
        "organization": result.submission.organization.slug,
        "division": result.division,
        "runs": job.runs_requested,
        "olympic_drop": result.benchmark.olympic_drop,
        "claimed_minutes": job.claimed_minutes,
        "quality_target": result.benchmark.quality_target,
        "direction": result.benchmark.metric_direction,
        "tolerance": job.tolerance,
        "timing_slack_seconds": settings.VERIFY_TIMING_SLACK_SECONDS,
        "timing_slack_fraction": settings.VERIFY_TIMING_SLACK_FRACTION,
        "claimed_errors": sorted(set(claimed_errors)),
        "accelerator_system": hardware.is_accelerator_system(claimed_system),
        "like_hardware": like,
        "hardware_note": note,
        "evaluator": asdict(evaluator) if evaluator else None,
        "min_cpu_busy": settings.VERIFY_MIN_CPU_BUSY,
        "min_gpu_busy_pct": settings.VERIFY_MIN_GPU_BUSY_PCT,
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


def _running(job_id: int, fields: tuple[str, ...] = ("state",)) -> VerificationJob:
    """The job, locked, while it runs: JobClosed once finished; ValueError before it started."""
    locked = VerificationJob.objects.select_for_update().only(*fields).get(pk=job_id)
    if locked.is_finished:
        raise JobClosed("the job has finished")
    if locked.state != JobState.RUNNING:
        raise ValueError("the job has not started: GET its spec first")
    return locked


def record_progress(job: VerificationJob, progress: dict) -> None:
    """The worker's stage, runs done, GPU availability and hardware (verify.schema.progress);
    every call is a heartbeat."""
    fields = {"heartbeat_at": timezone.now()}
    if "stage" in progress:
        fields["stage"] = fitted(VerificationJob, "stage", progress["stage"])
    if "runs_done" in progress:
        fields["runs_done"] = progress["runs_done"]
    if "gpu" in progress:
        fields["gpu"] = progress["gpu"]
    if "hardware" in progress:
        fields["worker_hardware"] = progress["hardware"]
    with transaction.atomic():
        _running(job.pk)
        VerificationJob.objects.filter(pk=job.pk).update(**fields)


def append_output(job: VerificationJob, text: str, telemetry: list = (), *, run: int | None = None,
                  arrivals: list = ()) -> None:
    """Append a chunk of output of re-run `run` (None: the worker's own notes), up to
    VERIFY_MAX_LOG_CHARS in all, its lines' `arrivals` and GPU `telemetry`, as verify.schema.log_append
    checked them. The chunk is one new row and the job's running totals move on: the stored log is
    never read or measured, so an append costs the same at the first line and at the millionth."""
    with transaction.atomic():
        locked = _running(job.pk, ("state", "log_truncated", "log_chars", "log_newlines", "telemetry"))
        fields = {"heartbeat_at": timezone.now()}
        if text and not locked.log_truncated:
            # PostgreSQL text holds neither NUL nor lone surrogates (JSON can carry both): one
            # character for one, so the counts stay true.
            text = text.replace("\x00", "\ufffd").encode("utf-8", "replace").decode("utf-8")
            room = settings.VERIFY_MAX_LOG_CHARS - locked.log_chars
            if len(text) > room:
                text = text[: max(room, 0)] + f"\n[log cut at {settings.VERIFY_MAX_LOG_CHARS} characters]\n"
                fields["log_truncated"] = True
            VerificationLogChunk.objects.create(job_id=job.pk, run=run, chars_before=locked.log_chars,
                                                newlines_before=locked.log_newlines, text=text)
            newlines = locked.log_newlines + text.count("\n")
            fields.update(
                log_chars=locked.log_chars + len(text),
                log_newlines=newlines,
                log_lines=newlines + (0 if text.endswith("\n") else 1),
            )
        if arrivals:
            VerificationArrivals.objects.create(job_id=job.pk, run=run, points=list(arrivals))
        if telemetry and len(locked.telemetry) < MAX_TELEMETRY_SAMPLES:
            fields["telemetry"] = (locked.telemetry + list(telemetry))[:MAX_TELEMETRY_SAMPLES]
        VerificationJob.objects.filter(pk=job.pk).update(**fields)


def record_run(job: VerificationJob, evidence: dict) -> dict:
    """Judge one re-run from the worker's evidence (verify.schema.run_evidence) and what the server
    stored of it (its log and its lines' arrivals, the job's telemetry): the server parses the log
    itself (verify.reproduce.judge_rerun). Re-runs are reported in order, each once."""
    with transaction.atomic():
        expected = len(_running(job.pk, ("state", "reruns")).reruns) + 1
    if evidence["number"] != expected:
        raise ValueError(f"expected the evidence of re-run {expected}, not of re-run {evidence['number']}")
    claim = claim_spec(VerificationJob.objects.get(pk=job.pk))
    chunks = VerificationLogChunk.objects.filter(job=job, run=evidence["number"]).order_by("chars_before")
    points = [point for batch in VerificationArrivals.objects.filter(job=job, run=evidence["number"]).order_by("pk")
              .values_list("points", flat=True) for point in batch]
    with tempfile.TemporaryDirectory(prefix=f"verify-judge-{job.pk}-") as folder:
        log_path = Path(folder) / f"rerun_{evidence['number']}.txt"
        with log_path.open("w", encoding="utf-8") as handle:
            for text in chunks.values_list("text", flat=True).iterator(chunk_size=16):
                handle.write(text)
        telemetry = VerificationJob.objects.values_list("telemetry", flat=True).get(pk=job.pk)
        rerun = judge_rerun(log_path, claim, evidence, ArrivalClock.from_points(points), telemetry)
    if VerificationJob.objects.filter(pk=job.pk, log_truncated=True).exists():
        rerun.violate(RULES, f"the stored log was cut at VERIFY_MAX_LOG_CHARS ({settings.VERIFY_MAX_LOG_CHARS} "
                               f"characters): the re-run cannot be checked whole")
    fields = {"heartbeat_at": timezone.now(), "runs_done": evidence["number"]}
    if rerun.status != EXITED or rerun.exit_code != 0:
        last_chunks = list(chunks.reverse().values_list("text", flat=True)[:8])
        tail = "".join(reversed(last_chunks))[-LOG_TAIL_CHARS:]
        fields.update(exit_code=rerun.exit_code, log_tail=tail)
    with transaction.atomic():
        locked = _running(job.pk, ("state", "reruns"))
        if len(locked.reruns) + 1 != evidence["number"]:
            raise ValueError(f"the evidence of re-run {evidence['number']} was reported already")
        VerificationJob.objects.filter(pk=job.pk).update(reruns=[*locked.reruns, rerun.as_json()], **fields)
    return rerun.as_json()


def finish_job(job: VerificationJob, *, hint: str = "", message: str = "") -> VerificationJob:
    """The worker says the job ended: the server decides the outcome from the re-runs it judged
    (verify.reproduce.decide) and closes the job (its token stops working). The worker's `hint`
    counts only as the reason the job ended early (e.g. the job's time limit); a job that never
    started, or whose re-runs were never reported, is never reproduced."""
    fresh = VerificationJob.objects.get(pk=job.pk)
    if fresh.state == JobState.QUEUED:
        return _finish(job.pk, Outcome.FAILED, f"the job never started{': ' + message if message else ''}")
    decision = decide(claim_spec(fresh), [Rerun(**rerun) for rerun in fresh.reruns], hint, message)
    return _finish(job.pk, decision.outcome, decision.message, rerun_minutes=decision.rerun_minutes,
                   checks=decision.checks)


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
    job_id: int, outcome: str, message: str, only_if_state: str | None = None, by: str = "decided by the server", **fields
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
