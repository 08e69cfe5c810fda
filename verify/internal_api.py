"""/internal/verify/<job>/...: the only way a GPU worker reads or writes anything.

Authenticated by the job's worker token (`Authorization: Bearer <token>`), which opens this job
only and only until it finishes: any other job, a wrong token or a finished job answers 403 with
the same words, so the answer tells an attacker nothing. No session, no CSRF (no cookies are
accepted here), bodies capped at VERIFY_MAX_REQUEST_BYTES.
"""

from __future__ import annotations

import json
import tempfile
from functools import wraps
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from . import services

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
    except services.JobClosed as exc:
        return _bad(str(exc), status=410)
    # Unlinked right away: the open handle keeps the bytes until the response is sent.
    handle = archive.open("rb")
    archive.unlink()
    folder.rmdir()
    return FileResponse(handle, content_type="application/gzip", filename="implementation.tar.gz")


@require_POST
@job_endpoint
def progress(request, job):
    payload = _payload(request)
    if payload is None:
        return _bad("expected a JSON object")
    try:
        services.record_progress(job, payload)
    except ValueError as exc:
        return _bad(str(exc))
    return JsonResponse({"ok": True})


@require_POST
@job_endpoint
def output(request, job):
    payload = _payload(request)
    if payload is None or not isinstance(payload.get("text", ""), str) or not isinstance(payload.get("telemetry", []), list):
        return _bad('expected {"text": str, "telemetry": [sample, ...]}')
    services.append_output(job, payload.get("text", ""), payload.get("telemetry", []))
    return JsonResponse({"ok": True})


@require_POST
@job_endpoint
def outcome(request, job):
    payload = _payload(request)
    if payload is None:
        return _bad("expected a JSON object")
    try:
        finished = services.finish_job(job, payload)
    except ValueError as exc:
        return _bad(str(exc))
    return JsonResponse({"ok": True, "outcome": finished.outcome})
