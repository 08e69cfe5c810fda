"""Reviewer-facing pages: request a verification, watch its job. Thin: services do the writing,
VerificationJob.objects.visible_to decides who sees a job (whoever may see its result). Its
charts are pages/verification_charts.py's."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from pages.common import chart_response
from pages.verification_charts import job_charts, telemetry_charts
from pages.views.logs import page_context, requested_page
from results.audit_log import events_visible_to
from results.models import Result
from verify import services
from verify.evaluators import evaluator_for
from verify.models import VerificationJob


@require_http_methods(["GET", "POST"])
def request_verification(request, result_pk: int):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not services.can_request(request.user):
        return HttpResponseForbidden("only reviewers and chairs may request a verification")
    result = get_object_or_404(Result.objects.visible_to(request.user).with_related(), pk=result_pk)
    error = ""
    if request.method == "POST":
        try:
            text = request.POST.get("runs", "").strip()
            runs = int(text) if text else None
            job = services.request_verification(actor=request.user, result=result, runs=runs)
        except ValueError:
            error = "the number of runs must be a whole number"
        except services.VerificationRefused as exc:
            error = str(exc)
        else:
            return redirect("pages:verify-job", pk=job.pk)
    return render(
        request,
        "verify/request.html",
        {"result": result, "error": error, "max_runs": services.MAX_RUNS, "evaluator": evaluator_for(result.benchmark.name)},
        status=400 if error else 200,
    )


def _job_or_404(user, pk: int) -> VerificationJob:
    job = VerificationJob.objects.visible_to(user).select_related("result__benchmark", "result__system", "result__submission__round").filter(pk=pk).first()
    if job is None:
        raise Http404("no such verification")
    return job


def job_detail(request, pk: int):
    """The job, its charts and one page of its log (`?page=N` or `?line=N`, as the stored log
    pages): the page reads only the log chunks it shows, whatever the log's length."""
    job = _job_or_404(request.user, pk)
    page = job.log_page(requested_page(request))
    if page is None:
        raise Http404("the log has no such page")
    return render(request, "verify/job.html", {
        "job": job,
        **page_context(page, reverse("pages:verify-job", args=[job.pk])),
        "events": events_visible_to(request.user).with_shown_actor(request.user).filter(subject=services.job_subject(job.pk)),
        "result": job.result,
        "reruns": [rerun for rerun in job.reruns if isinstance(rerun, dict)] if isinstance(job.reruns, list) else [],
        "checks": [check for check in job.checks if isinstance(check, dict)] if isinstance(job.checks, list) else [],
        "charts": job_charts(job),
        "telemetry_charts": telemetry_charts(job),
    })


def job_status(request, pk: int):
    """What the running job's page polls every second: its state and counters, a few hundred
    bytes read from one row (never the log, the re-runs or the telemetry)."""
    status = (
        VerificationJob.objects.visible_to(request.user).filter(pk=pk)
        .values("state", "stage", "runs_done", "runs_requested", "outcome", "log_chars", "log_lines")
        .first()
    )
    if status is None:
        raise Http404("no such verification")
    status["runs"] = status.pop("runs_requested")
    return JsonResponse(status)


def job_chart(request, pk: int, chart: str, fmt: str):
    job = _job_or_404(request.user, pk)
    for built in [*job_charts(job), *telemetry_charts(job)]:
        if built.name == chart:
            return chart_response(built, fmt, f"verification-{job.pk}")
    raise Http404("no such chart")
