"""Training pages: the round table, a benchmark's ranking and charts, a result with its runs,
convergence and findings (pages/suites/time_to_train/, shared with HPC), and the official-style
summary. This module is the suite's PageSuite (pages/suites/__init__.py)."""

from __future__ import annotations

from urllib.parse import quote

from django.http import Http404, JsonResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse

from pages.charts import Chart
from pages.common import chart_response, csv_response, draws
from pages.normalised import View, factor_view, time_normalised, time_view, view_links
from pages.suites.time_to_train import charts, progress, snapshot
from pages.suites.time_to_train import results as timed_results
from pages.suites.time_to_train.results import convergence_unit
from pages.system_groups import CATEGORIES, CATEGORY_ORDER, DIVISION_ORDER, system_fields
from pages.templatetags.numbers import format_quantity
from results.constants import FactorSource, Suite
from results.models import Benchmark, Result, Round, System

from .round_table import round_table

# How the shared pages (home, progress, compare) speak of this suite: pages/suites/__init__.py.
HOME_TAGLINE = "Who trained what, how fast: minutes to train each benchmark to its quality target, per system."
PROGRESS_NOTE = ("Closed division only. Quality targets changed between some rounds (hollow diamonds on the lines, "
                 "hatched bars), so the times are not strictly the same task; see each benchmark page for its target.")
# The system page's table of a system's results in training rounds.
SYSTEM_RESULTS_TEMPLATE = "results/_system_results_training.html"

SUMMARY_COLUMNS = [
    "division",
    "availability",
    "submitter",
    "system",
    "number_of_nodes",
    "host_processor_model_name",
    "host_processors_count",
    "accelerator_model_name",
    "accelerators_count",
    "framework",
    "notes",
]


def _point(result: Result) -> dict:
    """A result as the chart builders and ranked tables take it."""
    system = result.system
    return {
        "result_id": result.result_id,
        **system_fields(result),
        "framework": system.framework,
        "minutes": result.score_minutes,
        "note": result.score_note,
        "batch_size": result.global_batch_size,
        "converge": result.converge_mean,
        "rcp_status": result.get_rcp_status_display(),
        "energy": result.energy_joules,
    }


def _benchmark_points(user, round_: Round, benchmark: Benchmark) -> list[dict]:
    results = (
        Result.objects.visible_to(user).current().for_round(round_).filter(benchmark=benchmark)
        .select_related("system", "submission__organization")
    )
    return [_point(result) for result in results]


def _benchmark_charts(points: list[dict], benchmark: Benchmark, colour_by: str, view: View) -> list[Chart]:
    unit = convergence_unit(benchmark.name)
    built = [
        charts.time_to_train(points, benchmark.name, category_order=[label for _, label in CATEGORIES], view=view),
        charts.scaling(points, benchmark.name, colour_by=colour_by),
        charts.batch_size(points, benchmark.name, unit=unit),
        charts.pareto(points, benchmark.name),
    ]
    if any(p["energy"] is not None for p in points):
        built.append(charts.energy(points, benchmark.name))
    return built


# -- the suite interface (pages/suites/__init__.py) ------------------------------------------------


# A result's page and charts, the links into the published package, the snapshot's tables: as HPC's.
result_page = timed_results.result_page
result_chart = timed_results.result_chart
official_links = timed_results.official_links
SNAPSHOT_TABLES = snapshot.SNAPSHOT_TABLES


def round_page(request, round_: Round):
    table = round_table(round_, request.user, request.GET)
    # Built with string formatting rather than {% url %} per cell: 500 rows x 10 cells add up.
    result_url = reverse("pages:result", args=["RID"])
    system_url = reverse("pages:system", args=["ORG", "SID"])
    for row in table.rows:
        row["url"] = system_url.replace("ORG", quote(row["organization"])).replace("SID", quote(row["system_id"]))
        for cell in row["cell_list"]:
            if cell.get("result_id"):
                cell["url"] = result_url.replace("RID", quote(cell["result_id"]))
    query = request.GET.copy()
    query.pop("sort", None)
    context = {
        "round": round_,
        "table": table,
        "decided_cells": any(cell.get("factor_source") == FactorSource.DECISION
                             for row in table.rows for cell in row["cell_list"]),
        "groups": table.groups(),
        "colspan": 9 + len(table.shown_benchmarks) + len(table.energy_benchmarks),
        "sort_base": query.urlencode(),
        "export_query": request.GET.urlencode(),
        "benchmark_rows": round_.benchmarks.order_by("name"),
        # Benchmarks nobody entered are named, not linked: their page would be empty.
        "benchmarks_with_results": set(
            Result.objects.visible_to(request.user).current().for_round(round_)
            .values_list("benchmark__name", flat=True).distinct()
        ),
    }
    return render(request, "results/round.html", context)


def round_export(request, round_: Round, fmt: str):
    factors = factor_view(request.GET)
    table = round_table(round_, request.user, request.GET, factors=factors)
    if fmt == "csv":
        return csv_response(table.columns, table.export_rows(), f"{round_.slug}-results.csv")
    return JsonResponse(
        {"round": round_.slug, "factors": factors, "columns": table.columns, "rows": table.export_rows()}
    )


def round_chart(request, round_: Round, chart: str, fmt: str):
    raise Http404("no such chart")  # a training round's charts are on its benchmarks' pages


def round_tables_csv(request, round_: Round):
    raise Http404("the results tables are the inference suite's")


def summary_results(user, round_: Round) -> tuple[list[str], list[dict]]:
    raise Http404("summary_results is the inference suite's round summary")


def summary_rows(round_: Round, user=None, query=None, factors: str | None = None) -> tuple[list[str], list[dict]]:
    """The official-style summary of the results `user` may see (None: public only): the round
    table without filters, in the column layout of the MLCommons result summarizer, plus our
    citable result ids and where each score's scaling factor comes from ("computed" from the logs,
    or a recorded "decision"). `factors` (or the query's ?factors=) picks the decided scores or
    the ones the logs give (pages.normalised.FACTOR_VIEWS)."""
    factors = factors or factor_view(query or {})
    table = round_table(round_, user, QueryDict(), factors=factors)
    benchmarks = table.benchmarks
    columns = (
        SUMMARY_COLUMNS
        + ["system_id"]
        + benchmarks
        + [f"{name}_result_id" for name in benchmarks]
        + [f"{name}_factor_source" for name in benchmarks]
    )
    rows = [{**row, "availability": row["category_label"]} for row in table.rows]
    return columns, rows


def _viewed(request, points: list[dict]) -> View:
    """The view of the URL (?per=), its figure set on every point as "normalised"."""
    view = time_view(request.GET, points)
    for point in points:
        point["normalised"] = time_normalised(point, view.per)
    return view


def benchmark_page(request, round_: Round, benchmark: Benchmark):
    points = _benchmark_points(request.user, round_, benchmark)
    colour_by = "submitter" if request.GET.get("colour") == "submitter" else "accelerator"
    view = _viewed(request, points)
    # Ranked by the figure shown: the time, or the normalised one.
    ranked = sorted(
        points,
        key=lambda p: (DIVISION_ORDER.get(p["division"], 9), CATEGORY_ORDER[p["category_key"]],
                       p["normalised"] is None, p["normalised"] or 0),
    )
    # A ranked result with checker errors nobody waived carries a marker (one query for all).
    error_counts = dict(
        Result.objects.visible_to(request.user).current().for_round(round_).filter(benchmark=benchmark)
        .with_unwaived_errors().filter(unwaived_errors__gt=0).values_list("result_id", "unwaived_errors")
    )
    groups: list[dict] = []
    for point in ranked:
        point["errors"] = error_counts.get(point["result_id"], 0)
        key = (point["division"], point["category"])
        if not groups or groups[-1]["key"] != key:
            groups.append({"key": key, "division": point["division"], "category": point["category"], "rows": []})
        rows = groups[-1]["rows"]
        # Ranked rows come first in each group, so the rank is the row's position.
        point["rank"] = len(rows) + 1 if point["normalised"] is not None else None
        rows.append(point)
    built = _benchmark_charts(points, benchmark, colour_by, view)
    scaling_families = [p for p in built[1].rows if p["speedup"] is not None]
    context = {
        "round": round_,
        "benchmark": benchmark,
        "groups": groups,
        "charts": built,
        "colour_by": colour_by,
        "scaling_families": sorted(scaling_families, key=lambda p: (p["submitter"], p["accelerator"],
                                                                    p["accelerators"])),
        "targets": benchmark.quality_targets,
        "unit": convergence_unit(benchmark.name),
        "draws_charts": draws(built),
        "energy_chart": built[4] if len(built) > 4 else None,
        "view": view,
        "view_links": view_links(request.GET, view),
        "view_query": f"per={view.per}" if view.normalised else "",
    }
    return render(request, "results/benchmark.html", context)


def benchmark_chart(request, round_: Round, benchmark: Benchmark, chart: str, fmt: str):
    colour_by = "submitter" if request.GET.get("colour") == "submitter" else "accelerator"
    points = _benchmark_points(request.user, round_, benchmark)
    for built in _benchmark_charts(points, benchmark, colour_by, _viewed(request, points)):
        if built.name == chart:
            return chart_response(built, fmt, f"{round_.slug}-{benchmark.name}")
    raise Http404("no such chart")


def progress_charts(user) -> list[Chart]:
    return progress.progress_charts(user, Suite.TRAINING)


def home_charts(user) -> list[dict]:
    """The home page's pictures of this suite, each {"chart", "caption"}: the newest round against
    the previous one, and the best time per benchmark across rounds (none before any result)."""
    built = {chart.name: chart for chart in progress_charts(user)}
    if built["headlines"].empty:
        return []
    return [
        {"chart": built["headlines"],
         "caption": "closed division; the change since the previous round, where the quality target stayed the same"},
        {"chart": built["best-time"], "caption": "closed division; hollow diamonds mark a changed quality target"},
    ]


def compare_rows() -> list[tuple[str, object]]:
    """The compare page's score rows of a training result: (label, the figure of a result)."""
    return [
        ("Benchmark", lambda r: r.benchmark.name),
        ("Time to train (min)", lambda r: f"{r.score_minutes:.2f}" if r.score_minutes is not None else "n/a"),
        ("Olympic mean before RCP factor (min)", lambda r: f"{r.mean_minutes:.2f}" if r.mean_minutes else None),
        ("Energy to train (MJ)", lambda r: f"{r.energy_joules / 1e6:.3f}" if r.energy_joules is not None else None),
        ("Score note", lambda r: r.score_note or None),
        ("RCP status", lambda r: r.get_rcp_status_display()),
        ("Global batch size", lambda r: r.global_batch_size),
        ("To converge (olympic mean)", lambda r: format_quantity(r.converge_mean, convergence_unit(r.benchmark.name))
         if r.converge_mean is not None else None),
    ]


def system_type(system: System) -> str:
    return ""  # training systems are not typed (inference's datacenter and edge)


def snapshot_tables(round_: Round) -> dict[str, tuple[list[str], list[dict]]]:
    return {"results": summary_rows(round_, user=None), "runs": snapshot.runs_table(round_)}
