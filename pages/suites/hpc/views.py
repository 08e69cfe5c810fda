"""MLPerf HPC pages: the round's leaderboards per benchmark for both scores (time to solution,
strong scaling; throughput, weak scaling), a benchmark's leaderboards with its scaling,
throughput and energy charts, and a result page (the training one, which shows the weak-scaling
figures and energy: pages/suites/time_to_train/, shared with training). This module is the
suite's PageSuite (pages/suites/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from pages.charts import Chart
from pages.common import chart_response, csv_response, shown_charts
from pages.normalised import time_view, view_links
from pages.suites.time_to_train import charts as time_charts
from pages.suites.time_to_train import progress, snapshot
from pages.suites.time_to_train import results as timed_results
from pages.suites.time_to_train.filters import ResultFilters, filter_options, filter_query
from pages.suites.time_to_train.results import convergence_unit
from pages.templatetags.numbers import format_quantity
from results.constants import Scaling, Suite
from results.models import Benchmark, Round, System
from results.paging import PAGE_SIZE, page_of

from . import charts
from .leaderboards import export_rows, hpc_points, leaderboards

# How the shared pages (home, progress, compare) speak of this suite: pages/suites/__init__.py.
HOME_TAGLINE = ("Scientific machine learning at supercomputer scale: time to solution (strong scaling) and "
                "models trained per minute (weak scaling), per benchmark and system.")
PROGRESS_NOTE = ("Closed division, time to solution (strong scaling) only: throughput (weak scaling) is on each "
                 "round's benchmark pages. Quality targets changed between some rounds (hollow diamonds, hatched "
                 "bars), so the times are not strictly the same task.")
# The system page's table of a system's results in HPC rounds (both scores).
SYSTEM_RESULTS_TEMPLATE = "results/_system_results_hpc.html"


def _chosen(points: list[dict], query) -> list[dict]:
    """The points of ?benchmark= and ?scaling= where given (the CSV beside each leaderboard)."""
    benchmark, scaling = query.get("benchmark", ""), query.get("scaling", "")
    return [p for p in points if (not benchmark or p["benchmark"] == benchmark)
            and (scaling not in Scaling.values or p["scaling"] == scaling)]


def _chart_builders(points: list[dict], benchmark: Benchmark) -> dict[str, Callable[[], Chart]]:
    """The benchmark page's charts in its order, by name, each built when called: a chart's
    download builds its own only."""
    strong = [p for p in points if p["scaling"] == Scaling.STRONG]
    builders = {
        "scaling": lambda: time_charts.scaling(strong, benchmark.name, minutes_axis=charts.MINUTES_TO_SOLUTION_AXIS),
        "throughput": lambda: charts.throughput([p for p in points if p["scaling"] == Scaling.WEAK], benchmark.name),
    }
    if any(p["energy"] is not None for p in strong):
        builders["energy"] = lambda: time_charts.energy(strong, benchmark.name, measure="time to solution",
                                                        minutes_axis=charts.MINUTES_TO_SOLUTION_AXIS)
    return builders


# Where a round's leaderboards hold more than a page of rows together, each shows this many of its
# best, linking to the whole board on its benchmark page (paged there).
BOARD_LEADERS = 10


def round_page(request, round_: Round):
    filters = ResultFilters.from_query(request.GET)
    points = hpc_points(request.user, round_, filters=filters)
    view = time_view(request.GET, points)
    boards = leaderboards(points, view)
    cut = sum(len(board["strong"]) + len(board["weak"]) for board in boards) > PAGE_SIZE
    query = request.GET.urlencode()
    for board in boards:
        board["strong_rows"] = board["strong"][:BOARD_LEADERS] if cut else board["strong"]
        board["weak_rows"] = board["weak"][:BOARD_LEADERS] if cut else board["weak"]
        board["whole_url"] = (reverse("pages:benchmark", args=[round_.slug, board["benchmark"]])
                              + (f"?{query}" if query else "")) if cut else ""
    context = {
        "round": round_,
        "boards": boards,
        "view": view,
        "view_links": view_links(request.GET, view),
        "filters": filters,
        "options": filter_options(round_, request.user),
        "filter_query": filter_query(request.GET),
        "benchmark_rows": round_.benchmarks.order_by("name"),
        "result_count": len(points),
    }
    return render(request, "results/hpc_round.html", context)


def round_export(request, round_: Round, fmt: str):
    points = hpc_points(request.user, round_, filters=ResultFilters.from_query(request.GET))
    columns, rows = export_rows(_chosen(points, request.GET))
    if fmt == "csv":
        return csv_response(columns, rows, f"{round_.slug}-results.csv")
    return JsonResponse({"round": round_.slug, "columns": columns, "rows": rows})


def round_chart(request, round_: Round, chart: str, fmt: str):
    raise Http404("no such chart")  # an HPC round's charts are on its benchmarks' pages


def round_tables_csv(request, round_: Round):
    raise Http404("the results tables are the inference suite's")


def summary_results(user, round_: Round) -> tuple[list[str], list[dict]]:
    raise Http404("summary_results is the inference suite's round summary")


def summary_rows(round_: Round, user=None, query=None, factors: str | None = None) -> tuple[list[str], list[dict]]:
    """One row per result, per benchmark and score, in leaderboard order (models per minute is
    derived, and named so)."""
    return export_rows(hpc_points(user, round_))


# The benchmark page's tables, each paged in the URL; the charts and downloads do not depend on them.
BENCHMARK_PAGES = ("strong_page", "weak_page", "scaling_page")


def benchmark_page(request, round_: Round, benchmark: Benchmark):
    filters = ResultFilters.from_query(request.GET)
    points = hpc_points(request.user, round_, benchmark.name, filters)
    view = time_view(request.GET, points)
    (board,) = leaderboards(points, view) or [{"benchmark": benchmark.name, "strong": [], "weak": [],
                                                "has_energy": False}]
    builders = _chart_builders(points, benchmark)
    # A figure holds a point per result: beyond a page of them it is fetched when drawn, and the
    # page carries the charts' outlines only.
    lazy_charts = len(points) > PAGE_SIZE
    shown, draws_charts = shown_charts(request.user, round_, ["hpc-benchmark", benchmark.name, asdict(filters)],
                                       builders, lazy=lazy_charts)
    strong = [p for p in points if p["scaling"] == Scaling.STRONG]
    families = time_charts.scaling_families(strong)
    board["strong_page"] = page_of(board["strong"], request.GET, "strong_page", anchor=f"{benchmark.name}-strong")
    board["weak_page"] = page_of(board["weak"], request.GET, "weak_page", anchor=f"{benchmark.name}-weak")
    scaling_page = page_of(families, request.GET, "scaling_page", anchor="scaling-families")
    board["strong_rows"], board["weak_rows"] = board["strong_page"].rows, board["weak_page"].rows
    figure_query = request.GET.copy()
    for name in BENCHMARK_PAGES:
        figure_query.pop(name, None)
    context = {
        "round": round_,
        "benchmark": benchmark,
        "board": board,
        "filters": filters,
        "options": filter_options(round_, request.user),
        "filter_query": filter_query(request.GET),
        "result_count": len(points),
        "charts": shown,
        "lazy_charts": lazy_charts,
        "figure_query": filter_query(request.GET),
        "energy_chart": shown[2] if len(shown) > 2 else None,
        "draws_charts": draws_charts,
        "scaling_families": scaling_page.rows,
        "scaling_page": scaling_page,
        "view": view,
        # A new view ranks anew: its links start from the first page of each board.
        "view_links": view_links(figure_query, view),
    }
    return render(request, "results/hpc_benchmark.html", context)


def benchmark_chart(request, round_: Round, benchmark: Benchmark, chart: str, fmt: str):
    points = hpc_points(request.user, round_, benchmark.name, ResultFilters.from_query(request.GET))
    build_chart = _chart_builders(points, benchmark).get(chart)
    if build_chart is None:
        raise Http404("no such chart")
    return chart_response(build_chart(), fmt, f"{round_.slug}-{benchmark.name}")


# A result's page and charts (with the weak-scaling figures), the links into the published
# package, the snapshot's tables: as training's.
result_page = timed_results.result_page
result_chart = timed_results.result_chart
official_links = timed_results.official_links
SNAPSHOT_TABLES = snapshot.SNAPSHOT_TABLES


def progress_charts(user) -> list[Chart]:
    """Progress across HPC rounds: the training charts of the time to solution (strong scaling)."""
    return progress.progress_charts(user, Suite.HPC, measure="time to solution",
                                    minutes_axis=charts.MINUTES_TO_SOLUTION_AXIS)


def home_charts(user) -> list[dict]:
    return []  # the home page plots training's progress; HPC's is on its progress page


def compare_rows() -> list[tuple[str, object]]:
    """The compare page's score rows of an HPC result: each score in its own row (time to
    solution for strong scaling, the summarizer's figures for weak scaling), the note apart."""
    def weak(figure):
        return lambda r: figure(r) if r.scaling == Scaling.WEAK else None

    def strong(figure):
        return lambda r: figure(r) if r.scaling != Scaling.WEAK else None

    return [
        ("Benchmark", lambda r: r.benchmark.name),
        ("Scaling", lambda r: r.get_scaling_display() if r.scaling else None),
        ("Time to solution (min)", strong(lambda r: f"{r.score_minutes:.2f}" if r.score_minutes is not None else "n/a")),
        ("Models per minute (derived)", weak(lambda r: f"{r.models_per_minute:.4g}"
                                              if r.models_per_minute is not None else "n/a")),
        ("Models trained", weak(lambda r: r.number_of_models)),
        ("Time to train all (min)", weak(lambda r: f"{r.time_to_train_all_minutes:.2f}"
                                          if r.time_to_train_all_minutes is not None else None)),
        ("Olympic mean before RCP factor (min)", strong(lambda r: f"{r.mean_minutes:.2f}" if r.mean_minutes else None)),
        ("Energy to train (MJ)", lambda r: f"{r.energy_joules / 1e6:.3f}" if r.energy_joules is not None else None),
        ("Score note", lambda r: r.score_note or None),
        ("RCP status", strong(lambda r: r.get_rcp_status_display())),
        ("Global batch size", lambda r: r.global_batch_size),
        ("To converge (olympic mean)", strong(lambda r: format_quantity(r.converge_mean, convergence_unit(
            r.benchmark.name)) if r.converge_mean is not None else None)),
    ]


def system_type(system: System) -> str:
    return ""  # HPC systems are not typed (inference's datacenter and edge)


def snapshot_tables(round_: Round) -> dict[str, tuple[list[str], list[dict]]]:
    return {"results": summary_rows(round_, user=None), "runs": snapshot.runs_table(round_)}
