"""A round's page, its table downloads, its summary and its charts: each suite draws its own
(pages/suites/)."""

from __future__ import annotations

from django.http import JsonResponse

from pages import suites
from pages.caching import cache_public_page
from pages.common import csv_response
from results.lookups import round_or_404


@cache_public_page
def round_detail(request, slug: str):
    round_ = round_or_404(request.user, slug)
    return suites.of_round(round_).round_page(request, round_)


@cache_public_page
def round_export(request, slug: str, fmt: str):
    round_ = round_or_404(request.user, slug)
    return suites.of_round(round_).round_export(request, round_, fmt)


@cache_public_page
def round_summary(request, slug: str):
    """The official-style summary, visible results only."""
    round_ = round_or_404(request.user, slug)
    columns, rows = suites.of_round(round_).summary_rows(round_, user=request.user, query=request.GET)
    return csv_response(columns, rows, f"{round_.slug}-summary.csv")


@cache_public_page
def round_summary_results(request, slug: str, fmt: str):
    """The round as MLCommons publishes it: summary_results.json, or its CSV (inference rounds)."""
    round_ = round_or_404(request.user, slug)
    columns, records = suites.of_round(round_).summary_results(request.user, round_)
    if fmt == "csv":
        return csv_response(columns, records, f"{round_.slug}-summary_results.csv")
    return JsonResponse(records, safe=False, json_dumps_params={"indent": 2})


@cache_public_page
def round_tables_csv(request, slug: str):
    """The round's results tables (a row per system, a column per model and scenario: inference)."""
    round_ = round_or_404(request.user, slug)
    return suites.of_round(round_).round_tables_csv(request, round_)


@cache_public_page
def round_chart(request, slug: str, chart: str, fmt: str):
    round_ = round_or_404(request.user, slug)
    return suites.of_round(round_).round_chart(request, round_, chart, fmt)
