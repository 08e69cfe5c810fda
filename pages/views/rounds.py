"""A round's page, its table downloads, its summary and its charts: each suite draws its own
(pages/suites/)."""

from __future__ import annotations

from django.http import Http404, JsonResponse

from mlperf_check.inference.summary_export import SUMMARY_COLUMNS
from pages import suites
from pages.caching import cache_public_page
from pages.suites.inference import views as inference_views
from pages.suites.inference.tables import summary_results
from pages.views.common import csv_response
from results.constants import Suite
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
    """An inference round as MLCommons publishes it: summary_results.json, or its CSV."""
    round_ = round_or_404(request.user, slug)
    if round_.suite != Suite.INFERENCE:
        raise Http404("summary_results is the inference suite's round summary")
    records = summary_results(request.user, round_)
    if fmt == "csv":
        return csv_response(SUMMARY_COLUMNS, records, f"{round_.slug}-summary_results.csv")
    return JsonResponse(records, safe=False, json_dumps_params={"indent": 2})


@cache_public_page
def round_tables_csv(request, slug: str):
    """An inference round's results tables (a row per system, a column per model and scenario)."""
    round_ = round_or_404(request.user, slug)
    if round_.suite != Suite.INFERENCE:
        raise Http404("the results tables are the inference suite's")
    return inference_views.round_tables_csv(request, round_)


@cache_public_page
def round_chart(request, slug: str, chart: str, fmt: str):
    round_ = round_or_404(request.user, slug)
    return suites.of_round(round_).round_chart(request, round_, chart, fmt)
