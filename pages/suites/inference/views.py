"""Inference pages: the round's leaderboards per model and scenario, its charts and downloads,
and a result page. Every query starts from `visible_to(request.user)`. This module is the suite's
PageSuite (pages/suites/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from django.http import Http404, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.defaultfilters import floatformat, pluralize
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import mark_safe

from mlperf_check.errors import UnknownRules
from mlperf_check.inference.rules import rules_for
from mlperf_check.inference.summary_export import SUMMARY_COLUMNS
from pages.caching import round_figures
from pages.charts import Chart, caseless_sorted
from pages.common import (
    chart_outlines,
    chart_response,
    csv_response,
    published_package,
    result_page_context,
    waived_findings,
)
from pages.normalised import View, throughput_view, view_links
from pages.system_groups import CATEGORIES, CATEGORY_LABELS, accelerator_choices, category_of
from pages.templatetags.numbers import format_power, format_quantity
from results.constants import Division, Scenario, Suite
from results.models import Benchmark, Result, Round, System
from results.paging import PAGE_SIZE, linked, linker, page_of

from . import charts as inference_charts
from . import snapshot
from .leaderboards import (
    POWER_CHOICES,
    SYSTEM_TYPES,
    TABLE_SORTS,
    filtered,
    inference_export_rows,
    inference_points,
    leaderboards,
    metric_label,
    power_boards,
    round_tables,
    round_tables_export,
)
from .leaderboards import summary_results as accepted_results

# How the shared pages (home, progress, compare) speak of this suite: pages/suites/__init__.py.
HOME_TAGLINE = ("How fast each system runs each model, per scenario: samples, queries or tokens per second, or "
                "latency, as LoadGen measures them under each round's rules.")
PROGRESS_NOTE = ("Closed division, valid results only. For each model and throughput scenario (Offline solid, Server "
                 "dotted), the best result of each round relative to the model's first round with one: the models' "
                 "units differ (samples/s, queries/s, tokens/s), the ratio shares one axis. The second chart divides "
                 "each throughput by the system's accelerators first (normalised). Latency scenarios are left out.")
# The system page's table of a system's results in inference rounds.
SYSTEM_RESULTS_TEMPLATE = "results/_system_results_inference.html"
SNAPSHOT_TABLES = snapshot.SNAPSHOT_TABLES


def _chart_builders(round_: Round, points: list[dict], view: View, chosen: dict) -> dict[str, Callable[[], Chart]]:
    """The round's charts in the page's order, by name, each built when called: a chart's download
    builds its own only (the page's four figures are four downloads of a round of 13,000 points).
    A model of the round's rules has its own place on a chart's axis, the others share one,
    unless the visitor chose a model."""
    own = None if chosen.get("model") else _round_models(round_)
    builders = {
        "server-offline-ratio": lambda: inference_charts.server_offline_ratio(points, own),
        "relative-performance": lambda: inference_charts.relative_performance(points, view, own),
    }
    if any(p["power"] is not None for p in points):
        builders["performance-per-watt"] = lambda: inference_charts.performance_per_watt(points, own)
    builders["coverage"] = lambda: inference_charts.coverage(points, own)
    return builders


def _ranked_by(points: list[dict]) -> list[str]:
    """What the shown results are ranked by, from their own figures: each unit with its scenarios
    and direction, "Tokens/s for Server and Offline (higher is better)"."""
    scenarios: dict[tuple[str, str], set[str]] = {}
    for p in points:
        if p["unit"]:
            scenarios.setdefault((p["unit"], p["direction"]), set()).add(p["scenario"])
    return [
        f"{unit} for {' and '.join(sorted(names, key=inference_charts.scenario_rank))} ({direction} is better)"
        for (unit, direction), names in sorted(scenarios.items(), key=lambda item: item[0][1] != "lower")
    ]


def round_page(request, round_: Round):
    points = inference_points(request.user, round_)
    kept, chosen = filtered(points, request.GET)
    sort = request.GET.get("sort", "")
    view = throughput_view(request.GET, kept)
    tables = _shown_tables(round_tables(kept, sort, _round_models(round_)), request.GET)
    boards = _shown_boards(leaderboards(kept, view), request.GET, "page", "leaderboards")
    watt_boards = _shown_boards(power_boards(kept), request.GET, "power_page", "performance-per-watt")
    # The figures' own filters: what the charts and downloads show does not depend on the page or the order.
    figure_query = request.GET.copy()
    for name in ["page", "power_page", "sort", "table", *(f"{key}_page" for key in TABLE_KEYS)]:
        figure_query.pop(name, None)
    context = {
        "round": round_,
        # The page's words follow what it shows: TTFT and TPOT only where a shown result has them
        # (LLMs, from v4.0), the units its results are ranked by.
        "ranked_by": _ranked_by(kept),
        "token_latency": any(p["ttft_limit_ms"] or p["tpot_limit_ms"] for p in kept),
        "tables": tables,
        "leaderboards": boards,
        "power_boards": watt_boards,
        # Kept for the public under the filters and the view: a page of the tables or another
        # order leaves them as they were (four charts of a 13,000-result round are 300 ms).
        "charts": chart_outlines(request.user, round_, [chosen, view.per], _chart_builders(round_, kept, view, chosen)),
        "view": view,
        "view_links": view_links(request.GET, view),
        "chosen": chosen,
        "sort": sort if sort in TABLE_SORTS else "system",
        "sorts": [(key, label) for key, (label, _) in TABLE_SORTS.items()],
        # (query name, label, options); the system type only where the round's systems give one.
        "choices": [
            ("division", "Division", Division.choices),
            ("system_type", "System type",
             [(k, v) for k, v in SYSTEM_TYPES if any(k in p["system_type"].split(",") for p in points)]),
            ("category", "Availability", [(k, v) for k, v in CATEGORIES if any(p["category_key"] == k for p in points)]),
            ("submitter", "Submitter", [(s, s) for s in caseless_sorted({p["submitter"] for p in points})]),
            ("accelerator", "Accelerator", accelerator_choices(p["accelerator"] for p in points)),
            ("power", "Power", POWER_CHOICES if any(p["power"] is not None for p in points) else []),
            ("model", "Model", [(m, m) for m in sorted({p["model"] for p in points})]),
            ("scenario", "Scenario", [(s.value, s.label) for s in Scenario if any(p["scenario"] == s.value for p in points)]),
        ],
        "query": figure_query.urlencode(),
        "result_count": len(kept),
        "page_size": PAGE_SIZE,
    }
    return render(request, "results/inference_round.html", context)


def _round_models(round_: Round) -> set[str] | None:
    """The models of the round's rules (None for a round without rules: every model a column)."""
    try:
        rules, _note = rules_for(round_.ruleset_version or round_.version)
    except UnknownRules:
        return None
    return set(rules.models)


# Each results table pages on its own (`datacenter_page`, ...), so a link to rows of one keeps the others'.
TABLE_KEYS = ("datacenter", "edge", "network", "all")


def _shown_tables(tables: list[dict], query: QueryDict) -> dict:
    """The results tables, each paged. Where together they hold more than a page of rows, one is
    shown at a time (`table` in the URL, else the first) with links to the others."""
    one_at_a_time = len(tables) > 1 and sum(len(t["rows"]) for t in tables) > PAGE_SIZE
    keys = [t["key"] for t in tables]
    chosen = query.get("table") if query.get("table") in keys else (keys[0] if keys else "")
    for table in tables:
        table["page"] = page_of(table["rows"], query, f"{table['key']}_page", anchor=f"table-{table['key']}")
        table["shown"] = not one_at_a_time or table["key"] == chosen
        table["url"] = linked(query, table=table["key"]) + "#round-tables"
        if table["shown"]:
            # A result's address as reverse() writes it, without asking reverse() for each of ~1,000 cells.
            before, after = reverse("pages:result", args=["RESULT"]).split("RESULT")
            for row in table["page"].rows:
                cells = [_cell_html(cell, before, after) for cell in row["cells"]]
                if table["other_models"]:
                    cells.append(_other_models_html(row))
                row["cells_html"] = mark_safe("".join(cells))
    return {"all": tables, "one_at_a_time": one_at_a_time}


def _cell_html(cell: dict | None, before: str, after: str) -> str:
    """A round table's cell: the result's figure linked to it, its power, a badge where a verdict
    says invalid. Built here, not in the template: a page holds 100 rows of up to 50 columns, and
    the template language takes most of the page's time on so many cells."""
    if cell is None:
        return "<td></td>"  # a wide round has more empty cells than results
    figure = floatformat(cell["value"], "-4") if cell["value"] is not None else "—"
    address = before + quote(cell["result_id"], safe=RFC3986_SUBDELIMS + "/~:@") + after  # as reverse() quotes
    parts = [format_html('<td class="num score"><a href="{}">{}</a>', address, figure)]
    if cell["power"] is not None:
        parts.append(format_html('<br><span class="muted">{}</span>', format_power(cell["power"], cell["power_unit"])))
    if cell["official_valid"] != cell["valid"]:
        parts.append(format_html('<br><span class="badge warn verdicts" title="{}">{}</span>', cell["verdict"],
                                 "official: invalid" if cell["valid"] else "ours: invalid"))
    elif not cell["valid"]:
        parts.append('<br><span class="badge bad">invalid</span>')
    return "".join(parts) + "</td>"


def _other_models_html(row: dict) -> str:
    """A row's results of models that are not the round's, counted, linking to its system's page
    (which lists them all)."""
    other = row["other"]
    if not other["results"]:
        return "<td></td>"
    address = reverse("pages:system", args=[row["organization"], row["system_id"]]) + "#results"
    models = len(other["models"])
    return format_html('<td class="num other-models"><a href="{}">{} result{} of {} model{}</a></td>', address,
                       other["results"], pluralize(other["results"]), models, pluralize(models))


def _shown_boards(boards: list[dict], query: QueryDict, param: str, anchor: str) -> dict:
    """Leaderboards as a page can hold them: all of them whole while they hold a page of rows in
    all; one board alone (a model and scenario chosen) paged by `param`; else their leaders, a row
    per board linking to the whole board (its model and scenario chosen), themselves paged by
    `param` (inference v3.0 has 576 boards, its open models each their own). A row's rank is its
    place in the whole board."""
    leaders = len(boards) > 1 and sum(len(b["rows"]) for b in boards) > PAGE_SIZE
    board_link = linker(query, "model", "scenario", "page", "power_page")
    for board in boards:
        board["page"] = page_of(board["rows"], query, param, anchor=anchor)
        board["offset"] = max(board["page"].first - 1, 0)
        board["url"] = board_link(model=board["model"], scenario=board["scenario"]) + f"#{anchor}"
        board["leader"] = board["rows"][0]
    leader_page = page_of(boards, query, param, anchor=anchor) if leaders else None
    return {"all": boards, "leaders": leaders, "leader_page": leader_page}


def round_chart(request, round_: Round, chart: str, fmt: str):
    """The round's charts (server/offline ratio, relative performance, coverage) as CSV or JSON."""
    kept, chosen = filtered(inference_points(request.user, round_), request.GET)
    build = _chart_builders(round_, kept, throughput_view(request.GET, kept), chosen).get(chart)
    if build is None:
        raise Http404("no such chart")
    return chart_response(build(), fmt, round_.slug)


def round_export(request, round_: Round, fmt: str):
    columns, rows = inference_export_rows(request.user, round_, request.GET)
    if fmt == "csv":
        return csv_response(columns, rows, f"{round_.slug}-results.csv")
    return JsonResponse({"round": round_.slug, "columns": columns, "rows": rows})


def round_tables_csv(request, round_: Round):
    """The round tables (a row per system, a column per model and scenario) as one CSV, filtered."""
    kept, _ = filtered(inference_points(request.user, round_), request.GET)
    columns, rows = round_tables_export(kept)
    return csv_response(columns, rows, f"{round_.slug}-tables.csv")


def summary_rows(round_: Round, user=None, query=None, factors: str | None = None) -> tuple[list[str], list[dict]]:
    """One row per result, per model and scenario, best first (no scaling factors in inference)."""
    return inference_export_rows(user, round_, QueryDict())


def summary_results(user, round_: Round) -> tuple[list[str], list[dict]]:
    """The round's accepted results as MLCommons publishes a round: summary_results.json's
    columns and records (leaderboards.summary_results)."""
    return SUMMARY_COLUMNS, accepted_results(user, round_)


def benchmark_page(request, round_: Round, benchmark: Benchmark):
    """A model's results are the round's leaderboards of that model."""
    return redirect(f"{reverse('pages:round', args=[round_.slug])}?model={quote(benchmark.name)}")


def benchmark_chart(request, round_: Round, benchmark: Benchmark, chart: str, fmt: str):
    raise Http404("no such chart")  # an inference model's charts are on its round's page


def result_page(request, result: Result):
    details = result.inference or {}
    findings = waived_findings(result)
    accuracy = details.get("accuracy") or {}
    latency = _result_chart(result, "latency")
    checks = []
    bound, percentile = _query_latency_bound(details)
    if bound and percentile:
        observed = (details.get("latency_ms") or {}).get(f"{percentile * 100:.2f}")
        checks.append(("Latency bound", f"p{percentile * 100:g} {observed:.3f} ms" if observed is not None else "—",
                       f"≤ {bound:g} ms", observed is not None and observed <= bound))
    tokens = details.get("token_latency") or {}
    for name, label in (("ttft", "Time to first token"), ("tpot", "Time per output token")):
        observed, limit = tokens.get(f"{name}_p99_ms"), tokens.get(f"{name}_limit_ms")
        if limit:
            checks.append((f"{label} (p99)", f"{observed:.3f} ms" if observed is not None else "—", f"≤ {limit:g} ms",
                           None if observed is None else observed <= limit))
    if details.get("min_query_count"):
        count = details.get("query_count")
        minimum = details["min_query_count"]
        label = "Samples (Offline query)" if result.scenario == "Offline" else "Queries"
        checks.append((label, count if count is not None else "—", f"≥ {minimum}",
                       None if count is None else count >= minimum))
    if details.get("min_duration_ms"):
        duration = details.get("duration_ms")
        checks.append(("Duration", f"{duration / 1000:.1f} s" if duration is not None else "—",
                       f"≥ {details['min_duration_ms'] / 1000:g} s",
                       None if duration is None else duration >= details["min_duration_ms"]))
    if accuracy.get("target") is not None:
        value = accuracy.get("value")
        checks.append((f"Accuracy ({accuracy.get('kind')})", value if value is not None else "—",
                       f"≥ {accuracy['target']:.4f}", None if value is None else value >= accuracy["target"]))
    context = {
        **result_page_context(request, result, findings),
        "details": details,
        "checks": checks,
        "settings": sorted((details.get("settings") or {}).items()),
        "latency_chart": latency,
        "category": CATEGORY_LABELS[category_of(result.system.availability, result.system.deployment)],
        "system_type": (details.get("system_type") or "").replace(",", " and "),
        "metric": metric_label(details.get("metric_name") or ""),
        "endpoints": details.get("endpoints") or {},
        "endpoints_percentiles": _endpoints_percentiles(details.get("endpoints") or {}),
    }
    return render(request, "results/inference_result.html", context)


# The percentiles the MLCommons Endpoints client reports, as the result page shows them.
ENDPOINTS_PERCENTILES = ("50.0", "90.0", "95.0", "99.0", "99.9")


def _endpoints_percentiles(endpoints: dict) -> list[tuple[str, list]]:
    """Rows of (measure, [ms at each of ENDPOINTS_PERCENTILES]) for an Endpoints-client result:
    time to first token, time per output token, whole-query latency ([] for a LoadGen result)."""
    rows = []
    for key, label in (("ttft_ms", "Time to first token"), ("tpot_ms", "Time per output token"),
                       ("latency_ms", "Query latency")):
        values = endpoints.get(key) or {}
        if values:
            rows.append((label, [values.get(p) for p in ENDPOINTS_PERCENTILES]))
    return rows


def result_chart(request, result: Result, chart: str, fmt: str):
    built = _result_chart(result, chart)
    if built is None:
        raise Http404("no such chart")
    return chart_response(built, fmt, result.result_id)


def _result_chart(result: Result, name: str):
    """The named chart of an inference result, or None."""
    if name != "latency":
        return None
    details = result.inference or {}
    # An Endpoints-client result has no LoadGen summary: its percentiles are the client's.
    latencies = details.get("latency_ms") or {
        f"{float(p):.2f}": ms for p, ms in ((details.get("endpoints") or {}).get("latency_ms") or {}).items()
    }
    return inference_charts.latency_percentiles(latencies, *_query_latency_bound(details))


def _query_latency_bound(details: dict) -> tuple[float | None, float | None]:
    """The per-query latency bound and its percentile, or (None, None) for a result judged by its
    token latencies (LLM Server and Interactive: the rules bound TTFT and TPOT, not whole queries)."""
    tokens = details.get("token_latency") or {}
    if tokens.get("ttft_limit_ms") or tokens.get("tpot_limit_ms"):
        return None, None
    return details.get("latency_bound_ms"), details.get("latency_percentile")


def progress_charts(user) -> list:
    """Progress across inference rounds: the best valid closed result per model and throughput
    scenario relative to the model's first round, in total and per accelerator."""
    rounds = list(Round.objects.visible_to(user).filter(suite=Suite.INFERENCE))
    # Which results of a round the charts can pick is kept per round (pages.caching.round_figures):
    # the suite is tens of thousands of results. What the charts show of them (names) is read afresh.
    candidates = round_figures(user, "progress-candidates", rounds, _progress_candidates)
    pks = [pk for round_ in rounds for pk in candidates[round_.pk]]
    place = {pk: number for number, pk in enumerate(pks)}  # each round's candidates in their order
    entries = sorted(_progress_entries(Result.objects.filter(pk__in=pks)), key=lambda entry: place[entry["pk"]])
    return [inference_charts.progress(entries), inference_charts.progress(entries, per_accelerator=True)]


def _progress_candidates(user, rounds) -> dict[int, list[int]]:
    """{round pk: the pks of its valid closed results that the progress charts can pick}."""
    results = (Result.objects.visible_to(user).current()
               .filter(submission__round__in=rounds, division="closed", valid=True, metric_value__isnull=False))
    by_round: dict[int, list[dict]] = {round_.pk: [] for round_ in rounds}
    for entry in _progress_entries(results):
        by_round[entry["round_pk"]].append(entry)
    return {pk: [entry["pk"] for entry in inference_charts.progress_candidates(entries)]
            for pk, entries in by_round.items()}


def _progress_entries(results) -> list[dict]:
    """The progress charts' entry of each of `results`, in the results' order."""
    return [
        {"pk": row["pk"], "round_pk": row["submission__round"], "round": row["submission__round__version"],
         "model": row["benchmark__name"], "scenario": row["scenario"], "value": row["metric_value"],
         "unit": row["metric_unit"], "accelerators": row["system__accelerators_count"], "system": row["system__name"],
         "submitter": row["submission__organization__name"], "result_id": row["result_id"]}
        for row in results.values(
            "pk", "submission__round", "submission__round__version", "benchmark__name", "scenario", "metric_value",
            "metric_unit", "system__accelerators_count", "system__name", "submission__organization__name", "result_id")
    ]


def home_charts(user) -> list[dict]:
    return []  # the home page plots training's progress; inference's is on its progress page


def compare_rows() -> list[tuple[str, object]]:
    """The compare page's score rows of an inference result: (label, the figure of a result)."""
    def power(result: Result):
        figure = (result.inference or {}).get("power") or {}
        return format_power(figure["value"], figure.get("unit", "")) if figure.get("value") is not None else None

    return [
        ("Model", lambda r: r.benchmark.name),
        ("Scenario", lambda r: r.scenario),
        ("Result", lambda r: format_quantity(r.metric_value, r.metric_unit) if r.metric_value is not None else "n/a"),
        ("Verdict", lambda r: r.verdict),
        ("Power", power),
    ]


def official_links(submission, system_id: str, division: str = "") -> dict[str, str]:
    """The system description and code of an imported result in the round's public MLCommons
    repository, as generate_final_report.py builds them (`<division>/<submitter>/systems/` and
    `.../code/`); empty where the package is not published there (common.published_package)."""
    package = published_package(submission)
    if package is None:
        return {}
    base, folder = package
    place = f"{base}/tree/main/{quote(division or 'closed')}/{quote(folder)}"
    platform = system_id.removesuffix(".open")  # the open-division row of a system in both divisions
    return {"details_url": f"{place}/systems/{quote(platform)}.json", "code_url": f"{place}/code"}


def system_type(system: System) -> str:
    """Where a v2.1+ system runs, as its description says: datacenter, edge, or both."""
    if not isinstance(system.description, dict):
        return ""
    return str(system.description.get("system_type") or "").replace(",", " and ")


def snapshot_tables(round_: Round) -> dict[str, tuple[list[str], list[dict]]]:
    return snapshot.snapshot_tables(round_)
