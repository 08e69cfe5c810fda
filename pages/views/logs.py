"""Stored log copies: one page of a log as HTML, and the raw file."""

from __future__ import annotations

import html

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe

from pages.caching import cache_public_page
from results import logs
from results.models import Run
from review.findings import log_line_url

# What results/log.html and the raw download read of the run.
LOG_PAGE_FIELDS = ("file", "sha256", "log_name", "run_start_line", "run_stop_line", "result__result_id",
                   "result__benchmark__name")


def _log_run_or_404(user, sha256: str) -> Run:
    """The newest visible run with this log. Visible only with a visible run. Only the fields its
    pages show: a run's and a result's other fields hold their eval curves and figures as JSON."""
    run = (
        Run.objects.visible_to(user).filter(sha256=sha256).exclude(log_name="")
        .select_related("result__benchmark")
        .only(*LOG_PAGE_FIELDS)
        .order_by("-result__submission__is_current", "-result__submission__version")
        .first()
    )
    if run is None or not default_storage.exists(run.log_name):
        raise Http404("no such log")
    return run


def requested_page(request) -> int:
    """The page a log page's query asks for: `?line=N` (the page holding line N) or `?page=N`."""
    try:
        line = int(request.GET.get("line", 0))
        return logs.page_of_line(line) if line > 0 else int(request.GET.get("page", 1))
    except ValueError:
        raise Http404("page and line are numbers") from None


def page_context(page: logs.LogPage, base: str) -> dict:
    """What results/_log_pages.html and a log body need: the page's lines as HTML, one anchor per
    line (#L123, numbered across pages), and the links to the pages either side of it. The lines
    go through html.escape, which Django's escape() calls: without escape()'s wrappers the body
    takes half the time."""
    body = "".join(
        f'<a class="ln" id="L{n}" href="#L{n}">{n}</a><span class="code">{html.escape(text)}</span>\n'
        for n, text in enumerate(page.lines, start=page.first_line)
    )
    return {
        "body": mark_safe(body), "page": page,
        "previous_url": f"{base}?page={page.number - 1}" if page.number > 1 else "",
        "next_url": f"{base}?page={page.number + 1}" if page.number < page.page_count else "",
    }


@cache_public_page
def run_log(request, sha256: str):
    """One page of a stored log copy as HTML, one anchor per line (#L123, numbered across pages);
    `?line=N` opens the page holding line N. Memory stays bounded whatever the log (results/logs.py)."""
    run = _log_run_or_404(request.user, sha256)
    number = requested_page(request)
    with default_storage.open(run.log_name, "rb") as handle:
        page = logs.read_page(handle, number)
    if page is None:
        raise Http404("the log has no such page")
    return render(request, "results/log.html", {
        "run": run, "result": run.result, **page_context(page, reverse("pages:log", args=[sha256])),
        "start_url": log_line_url(sha256, run.run_start_line) if run.run_start_line else "",
        "stop_url": log_line_url(sha256, run.run_stop_line) if run.run_stop_line else "",
    })


def run_log_raw(request, sha256: str):
    """The stored log as it was uploaded, streamed from storage as plain text."""
    run = _log_run_or_404(request.user, sha256)
    response = FileResponse(
        default_storage.open(run.log_name, "rb"), as_attachment=True, filename=run.file.rsplit("/", 1)[-1]
    )
    response["Content-Type"] = "text/plain; charset=utf-8"
    return response
