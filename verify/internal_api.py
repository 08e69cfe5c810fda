"""/internal/verify/<job>/...: the only way a GPU worker reads or writes anything.

Authenticated by the job's worker token (`Authorization: Bearer <token>`, derived from the task's
nonce with VERIFY_WORKER_KEY: verify/tokens.py), which opens this job only and only until it
finishes: any other job, a wrong token or a finished job answers 403 with the same words, so the
answer tells an attacker nothing. No session, no CSRF (no cookies are accepted here), bodies capped
at VERIFY_MAX_REQUEST_BYTES and checked field by field (verify/schema.py): a malformed one answers
400 saying what is wrong, and nothing of it is stored.

spec (GET, starts the job) · code (GET) · progress · log (output, arrivals, telemetry) ·
run (one re-run's evidence: the server judges it) · outcome (the job ended: the server decides).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from functools import wraps
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from . import schema, services

REFUSED = {"error": "this token does not open this job (wrong job, wrong token, or the job has finished)"}


def _job(request, job_id: int):
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme != "Bearer" or not token:
        return None
    try:
        return services.job_for_token(job_id, token.strip())
    except services.JobClosed:
        return None


def job_endpoint(view):
    """The view gets the job its caller's token opens; any other caller, or a job that finished
    meanwhile (services.JobClosed), gets the same 403. (csrf_exempt is copied onto the method
    decorators put above it.)"""

    @csrf_exempt
    @wraps(view)
    def wrapper(request, job_id: int):
        job = _job(request, job_id)
        if job is None:
            return JsonResponse(REFUSED, status=403)
        try:
            return view(request, job)
        except services.JobClosed:
            return JsonResponse(REFUSED, status=403)

    return wrapper


def _payload(request) -> dict | None:
    if len(request.body) > settings.VERIFY_MAX_REQUEST_BYTES:
        return None
    try:
        payload = json.loads(request.body or b"{}", parse_constant=_refuse_constant)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _bad(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@require_GET
@job_endpoint
def spec(request, job):
    return JsonResponse(services.start_job(job))


@require_GET
@job_endpoint
def code(request, job):
    folder = Path(tempfile.mkdtemp(prefix=f"verify-send-{job.pk}-"))
    try:
        archive = services.implementation_archive(job, folder / "implementation.tar.gz")
        # Open, then gone from the folder: the handle keeps the bytes until the response is sent.
        handle = archive.open("rb")
    except services.JobClosed as exc:
        return _bad(str(exc), status=410)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return FileResponse(handle, content_type="application/gzip", filename="implementation.tar.gz")


def _parsed(request, parse) -> tuple[dict | None, JsonResponse | None]:
    """The body as `parse` (verify/schema.py) checked it, or the 400 that says why it is refused."""
    payload = _payload(request)
    if payload is None:
        return None, _bad("expected a JSON object")
    try:
        return parse(payload), None
    except ValueError as exc:
        return None, _bad(str(exc))


# Each view below: parse, call one service; a ValueError of the service (e.g. a job that has not
# started, a re-run reported twice) is a 400 with its words.


@require_POST
@job_endpoint
def progress(request, job):
    cleaned, refused = _parsed(request, lambda body: schema.progress(body, job.runs_requested))
    if refused:
        return refused
    try:
        services.record_progress(job, cleaned)
    except ValueError as exc:
        return _bad(str(exc))
    return JsonResponse({"ok": True})


@require_POST
@job_endpoint
def output(request, job):
    append, refused = _parsed(request, lambda body: schema.log_append(body, job.runs_requested))
    if refused:
        return refused
    try:
        services.append_output(job, append["text"], append["telemetry"], run=append["run"], arrivals=append["arrivals"])
    except ValueError as exc:
        return _bad(str(exc))
    return JsonResponse({"ok": True})


@require_POST
@job_endpoint
def run(request, job):
    evidence, refused = _parsed(request, lambda body: schema.run_evidence(body, job.runs_requested))
    if refused:
        return refused
    try:
        rerun = services.record_run(job, evidence)
    except ValueError as exc:
        return _bad(str(exc))
    return JsonResponse({"ok": True, "violations": rerun["violations"]})


@require_POST
@job_endpoint
def outcome(request, job):
    ended, refused = _parsed(request, schema.ended)
    if refused:
        return refused
    finished = services.finish_job(job, **ended)
    return JsonResponse({"ok": True, "outcome": finished.outcome, "message": finished.message})
