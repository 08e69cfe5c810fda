"""Training pages: the round table, a benchmark's ranking and charts, a result with its runs,
convergence and findings (pages/suites/time_to_train/, shared with HPC), and the official-style
summary. This module is the suite's PageSuite (pages/suites/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from django.db.models import Exists, OuterRef
from django.http import Http404, JsonResponse, QueryDict
from django.shortcuts import render

from pages.caching import rows_seen_by, view_name
from pages.charts import Chart
from pages.common import chart_response, csv_response, link, shown_charts
from pages.normalised import View, factor_view, time_normalised, time_view, view_links
from pages.suites.time_to_train import charts, progress, snapshot
from pages.suites.time_to_train import results as timed_results
from pages.suites.time_to_train.filters import ResultFilters, filter_options
from pages.suites.time_to_train.results import convergence_unit
from pages.system_groups import (
    CATEGORIES,
    CATEGORY_ORDER,
    DIVISION_ORDER,
    SYSTEM_VALUES,
    system_fields_of_row,
)
from pages.templatetags.numbers import format_quantity
from results.constants import FactorSource, RcpStatus, Suite
from results.models import Benchmark, Finding, Result, Round, System
from results.paging import PAGE_SIZE, linked, page_of

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


# A result's RCP status as get_rcp_status_display() words it, for points read as rows.
RCP_STATUS_LABELS = dict(RcpStatus.choices)


def _benchmark_results(user, round_: Round, benchmark: Benchmark, filters: ResultFilters):
    """The benchmark's current results `user` may see that `filters` keep."""
    return filters.apply(Result.objects.visible_to(user).current().for_round(round_).filter(benchmark=benchmark))


def _kept_points(user, round_: Round, benchmark: Benchmark, filters: ResultFilters) -> list[dict]:
    """The benchmark's points (_benchmark_points) `user` sees under `filters`, each with its
    checker errors nobody waived (`errors`). Kept under the round's version for the views many users
    share (pages.caching.rows_seen_by): the page, its other pages and views, and each chart it
    fetches when drawn read them once."""

    def build(viewer) -> list[dict]:
        points = _benchmark_points(_benchmark_results(viewer, round_, benchmark, filters))
        # (A current result's id is its own: the findings of current versions keyed by it.)
        error_counts = Finding.objects.filter(
            submission__round=round_, submission__is_current=True, result__benchmark=benchmark
        ).unwaived_error_counts("result__result_id")
        for point in points:
            point["errors"] = error_counts.get(point["result_id"], 0)
        return points

    return rows_seen_by(user, round_, view_name("training-points", [benchmark.pk, asdict(filters)]), build)


def _benchmark_points(results) -> list[dict]:
    """The results as the chart builders and ranked tables take them. Read as rows, not model
    instances: a benchmark of a large round holds thousands of results."""
    rows = results.values("result_id", *SYSTEM_VALUES, "system__framework", "score_minutes", "score_note",
                          "global_batch_size", "converge_mean", "rcp_status", "energy_joules")
    return [
        {
            "result_id": row["result_id"],
            **system_fields_of_row(row),
            "framework": row["system__framework"],
            "minutes": row["score_minutes"],
            "note": row["score_note"],
            "batch_size": row["global_batch_size"],
            "converge": row["converge_mean"],
            "rcp_status": RCP_STATUS_LABELS.get(row["rcp_status"], row["rcp_status"]),
            "energy": row["energy_joules"],
        }
        for row in rows
    ]


def _chart_builders(points: list[dict], benchmark: Benchmark, colour_by: str, view: View) -> dict[str, Callable[[], Chart]]:
    """The benchmark page's charts in its order, by name, each built when called: a chart's
    download builds its own only."""
    unit = convergence_unit(benchmark.name)
    builders = {
        "time-to-train": lambda: charts.time_to_train(points, benchmark.name,
                                                      category_order=[label for _, label in CATEGORIES], view=view),
        "scaling": lambda: charts.scaling(points, benchmark.name, colour_by=colour_by),
        "batch-size": lambda: charts.batch_size(points, benchmark.name, unit=unit),
        "pareto": lambda: charts.pareto(points, benchmark.name),
    }
    if any(p["energy"] is not None for p in points):
        builders["energy"] = lambda: charts.energy(points, benchmark.name)
    return builders


# -- the suite interface (pages/suites/__init__.py) ------------------------------------------------


# A result's page and charts, the links into the published package, the snapshot's tables: as HPC's.
result_page = timed_results.result_page
result_chart = timed_results.result_chart
official_links = timed_results.official_links
SNAPSHOT_TABLES = snapshot.SNAPSHOT_TABLES


def round_page(request, round_: Round):
    table = round_table(round_, request.user, request.GET, placed_only=True)
    page = page_of(table.rows, request.GET, anchor="round-filters")
    table.fill(page.rows)
    # Links built in Python rather than {% url %} per cell: 100 rows x 10 cells add up.
    link(page.rows, "url", "pages:system", "organization", "system_id")
    for row in page.rows:
        # One entry per benchmark column of the page ({} where the system has no result), each
        # saying whether an energy column follows it.
        row["cell_list"] = [{**row["cells"].get(name, {}), "energy_column": name in table.energy_benchmarks}
                            for name in table.shown_benchmarks]
    link([cell for row in page.rows for cell in row["cell_list"] if cell.get("result_id")], "url", "pages:result",
         "result_id")
    # A new order starts from the first page; the downloads hold every page.
    unpaged = request.GET.copy()
    unpaged.pop("page", None)
    unsorted = unpaged.copy()
    unsorted.pop("sort", None)
    context = {
        "round": round_,
        "table": table,
        "options": filter_options(round_, request.user),  # the filter form's choices (the downloads need none)
        "page": page,
        "decided_cells": any(cell.get("factor_source") == FactorSource.DECISION
                             for row in page.rows for cell in row["cell_list"]),
        "groups": table.groups(max(page.first - 1, 0), page.last),
        "colspan": 9 + len(table.shown_benchmarks) + len(table.energy_benchmarks),
        "sort_base": unsorted.urlencode(),
        "export_query": unpaged.urlencode(),
        "benchmark_rows": round_.benchmarks.order_by("name"),
        # Benchmarks nobody entered are named, not linked: their page would be empty. One probe of
        # the results' benchmark index per benchmark (a DISTINCT over a 12,000-result round: 86 ms),
        # kept under the round's version.
        "benchmarks_with_results": set(rows_seen_by(request.user, round_, "benchmarks-with-results", lambda viewer: list(
            round_.benchmarks.filter(Exists(Result.objects.visible_to(viewer).current().filter(benchmark=OuterRef("pk"))))
            .values_list("name", flat=True)
        ))),
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


# The benchmark page's tables, each paged in the URL; the charts and downloads do not depend on them.
BENCHMARK_PAGES = ("page", "scaling_page")


def benchmark_page(request, round_: Round, benchmark: Benchmark):
    filters = ResultFilters.from_query(request.GET)
    points = _kept_points(request.user, round_, benchmark, filters)
    colour_by = "submitter" if request.GET.get("colour") == "submitter" else "accelerator"
    view = _viewed(request, points)
    # Ranked by the figure shown: the time, or the normalised one.
    ranked = sorted(
        points,
        key=lambda p: (DIVISION_ORDER.get(p["division"], 9), CATEGORY_ORDER[p["category_key"]],
                       p["normalised"] is None, p["normalised"] or 0),
    )
    ranks: dict[tuple[str, str], int] = {}
    for point in ranked:
        # Ranked rows come first in each group, so the rank is the row's position in its group.
        key = (point["division"], point["category"])
        ranks[key] = ranks.get(key, 0) + 1
        point["rank"] = ranks[key] if point["normalised"] is not None else None
    builders = _chart_builders(points, benchmark, colour_by, view)
    # A figure holds a point per result: beyond a page of them it is fetched when drawn, and the
    # page carries the charts' outlines only.
    lazy_charts = len(points) > PAGE_SIZE
    shown, draws_charts = shown_charts(request.user, round_,
                                       ["benchmark", benchmark.name, asdict(filters), colour_by, view.per], builders,
                                       lazy=lazy_charts)
    page = page_of(ranked, request.GET, anchor="all-results")
    families = page_of(charts.scaling_families(points), request.GET, "scaling_page", anchor="scaling-families")
    # Links built in Python rather than {% url %} per row: 200 rows add up.
    link([*page.rows, *families.rows], "url", "pages:result", "result_id")
    link(page.rows, "system_url", "pages:system", "organization", "system_id")
    groups: list[dict] = []
    for point in page.rows:
        key = (point["division"], point["category"])
        if not groups or groups[-1]["key"] != key:
            groups.append({"key": key, "division": point["division"], "category": point["category"], "rows": []})
        groups[-1]["rows"].append(point)
    figure_query = request.GET.copy()
    for name in BENCHMARK_PAGES:
        figure_query.pop(name, None)
    context = {
        "round": round_,
        "benchmark": benchmark,
        "groups": groups,
        "page": page,
        "result_count": len(points),
        "filters": filters,
        "options": filter_options(round_, request.user),
        "charts": shown,
        "lazy_charts": lazy_charts,
        "figure_query": figure_query.urlencode(),
        "colour_by": colour_by,
        "colour_links": {
            "accelerator": linked(figure_query, colour=None) + "#chart-scaling",
            "submitter": linked(figure_query, colour="submitter") + "#chart-scaling",
        },
        "scaling_families": families.rows,
        "scaling_page": families,
        "targets": benchmark.quality_targets,
        "unit": convergence_unit(benchmark.name),
        "draws_charts": draws_charts,
        "energy_chart": shown[4] if len(shown) > 4 else None,
        "view": view,
        # A new view ranks anew: its links start from the first page.
        "view_links": view_links(figure_query, view),
    }
    return render(request, "results/benchmark.html", context)


def benchmark_chart(request, round_: Round, benchmark: Benchmark, chart: str, fmt: str):
    colour_by = "submitter" if request.GET.get("colour") == "submitter" else "accelerator"
    points = _kept_points(request.user, round_, benchmark, ResultFilters.from_query(request.GET))
    build_chart = _chart_builders(points, benchmark, colour_by, _viewed(request, points)).get(chart)
    if build_chart is None:
        raise Http404("no such chart")
    return chart_response(build_chart(), fmt, f"{round_.slug}-{benchmark.name}")


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
