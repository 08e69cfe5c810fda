"""A result's page and its charts: each suite draws its own (pages/suites/)."""

from __future__ import annotations

from django.shortcuts import redirect

from pages import suites
from pages.caching import cache_public_page
from results.lookups import result_or_404


def permalink(request, result_id: str):
    """`/r/<id>`: the citable link, to the result's page wherever it lives (404 where the user may
    not see it, so a hidden result's existence is not told)."""
    result = result_or_404(request.user, result_id)
    return redirect("pages:result", result_id=result.result_id)


@cache_public_page
def result_detail(request, result_id: str):
    result = result_or_404(request.user, result_id)
    return suites.of_round(result.submission.round).result_page(request, result)


@cache_public_page
def result_chart(request, result_id: str, chart: str, fmt: str):
    result = result_or_404(request.user, result_id)
    return suites.of_round(result.submission.round).result_chart(request, result, chart, fmt)
