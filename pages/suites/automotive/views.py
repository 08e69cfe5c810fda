"""MLPerf Automotive pages: a round's leaderboards per model and scenario (latency in ms, lower is
better) with its latency and accuracy charts, a model's page, a result page (LoadGen's latency
percentiles, the rules it was held to, its findings), the downloads (CSV/JSON, MLCommons'
summary_results.json) and the snapshot tables. Every query starts from `visible_to(user)`. This
module is the suite's PageSuite (pages/suites/__init__.py)."""

from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import render

from mlperf_check.automotive.rules import rules_for
from pages.charts import Chart
from pages.common import (
    chart_response,
    csv_response,
    draws,
    published_package,
    result_page_context,
    waived_findings,
)
from pages.templatetags.numbers import format_quantity
from results.models import Benchmark, Result, Round, System

from . import charts
from .leaderboards import FIGURES, accepted_summary, automotive_points, export_rows, leaderboards

# How the shared pages (home, progress, compare) speak of this suite: pages/suites/__init__.py.
HOME_TAGLINE = ("Perception models for driver assistance on automotive systems: latency in milliseconds per "
                "model, one frame at a time (SingleStream) and at a constant camera rate (ConstantStream).")
PROGRESS_NOTE = "MLPerf Automotive has had one round: each model's results are on its round's pages."
SYSTEM_RESULTS_TEMPLATE = "results/_system_results_automotive.html"
SNAPSHOT_TABLES = {
    "results": "MLCommons' summary_results.json of the results the round's official verdict accepts (ID: the "
               "system's entry, official where MLCommons published one)",
    "verdicts": "every public result with its latency (ms), accuracy and both verdicts: the round's official "
                "checker's and ours, with our stricter rules (docs/differences.md)",
}


def _round_charts(points: list[dict]) -> list[Chart]:
    return [charts.latency(points), charts.accuracy_latency(points)]


def round_page(request, round_: Round):
    points = automotive_points(request.user, round_)
    built = _round_charts(points)
    context = {
        "round": round_,
        "boards": leaderboards(points),
        "charts": built,
        "draws_charts": draws(built),
        "benchmark_rows": round_.benchmarks.order_by("name"),
        "result_count": len(points),
        "figures": FIGURES,
    }
    return render(request, "results/automotive_round.html", context)


def round_export(request, round_: Round, fmt: str):
    columns, rows = export_rows(automotive_points(request.user, round_))
    if fmt == "csv":
        return csv_response(columns, rows, f"{round_.slug}-results.csv")
    return JsonResponse({"round": round_.slug, "columns": columns, "rows": rows})


def round_chart(request, round_: Round, chart: str, fmt: str):
    for built in _round_charts(automotive_points(request.user, round_)):
        if built.name == chart:
            return chart_response(built, fmt, round_.slug)
    raise Http404("no such chart")


def round_tables_csv(request, round_: Round):
    raise Http404("the results tables are the inference suite's")


def summary_rows(round_: Round, user=None, query=None, factors: str | None = None) -> tuple[list[str], list[dict]]:
    """One row per result, per model and scenario, fastest first."""
    return export_rows(automotive_points(user, round_))


def summary_results(user, round_: Round) -> tuple[list[str], list[dict]]:
    return accepted_summary(user, round_)


def benchmark_page(request, round_: Round, benchmark: Benchmark):
    points = automotive_points(request.user, round_, benchmark.name)
    built = _benchmark_charts(points, benchmark)
    context = {
        "round": round_,
        "benchmark": benchmark,
        "boards": leaderboards(points),
        "charts": built,
        "draws_charts": draws(built),
        "figures": FIGURES,
    }
    return render(request, "results/automotive_benchmark.html", context)


def _benchmark_charts(points: list[dict], benchmark: Benchmark) -> list[Chart]:
    return [charts.latency(points, f"{benchmark.name}: latency per system"),
            charts.accuracy_latency(points, f"{benchmark.name}: accuracy against latency (● SingleStream, ◆ ConstantStream)")]


def benchmark_chart(request, round_: Round, benchmark: Benchmark, chart: str, fmt: str):
    for built in _benchmark_charts(automotive_points(request.user, round_, benchmark.name), benchmark):
        if built.name == chart:
            return chart_response(built, fmt, f"{round_.slug}-{benchmark.name}")
    raise Http404("no such chart")


def result_page(request, result: Result):
    details = result.inference or {}
    findings = waived_findings(result)
    settings = details.get("settings") or {}
    checks = rule_checks(result, settings)
    context = {
        **result_page_context(request, result, findings),
        "details": details,
        "checks": checks,
        "settings": sorted(settings.items()),
        "latency_chart": _result_chart(result, "latency"),
        "figure": FIGURES.get(result.scenario, ""),
    }
    return render(request, "results/automotive_result.html", context)


def rule_checks(result: Result, settings: dict) -> list[tuple[str, object, str, bool | None]]:
    """(check, measured, required, met) of the round's rules (its official checker's table) that a
    result's accuracy and effective LoadGen settings are held to."""
    details = result.inference or {}
    accuracy = details.get("accuracy") or {}
    round_ = result.submission.round
    table = rules_for(round_.ruleset_version or round_.version).table
    model, scenario = result.benchmark.name, result.scenario
    checks = []
    if accuracy.get("target") is not None:
        value = accuracy.get("value")
        checks.append((f"Accuracy ({accuracy.get('kind')})", value if value is not None else "—",
                       f"≥ {accuracy['target']:.6f}", None if value is None else value >= accuracy["target"]))
    at_least = [("min_duration_ms", "Minimum duration (ms)", table["min_duration_ms"])]
    if model in table["performance_sample_count"]:
        at_least.append(("performance_sample_count", "Performance sample count", table["performance_sample_count"][model]))
    for key, label, required in at_least:
        measured = _number(settings.get(key))
        checks.append((label, settings.get(key, "—"), f"≥ {required}", None if measured is None else measured >= required))
    equal = [("target_latency_percentile", "Target latency percentile", table["target_latency_percentile"])]
    equal += [(seed, f"LoadGen seed {seed}", value) for seed, value in table["seeds"].items()]
    for key, label, required in equal:
        measured = _number(settings.get(key))
        checks.append((label, settings.get(key, "—"), f"= {required}", None if measured is None else measured == required))
    flags = []
    if scenario in table["constant_gen_scenarios"]:
        flags.append(("server_constant_gen", "Constant query generation"))
    if model in table["grouped_qsl_models"]:
        flags.append(("use_grouped_qsl", "Grouped sample library"))
    for key, label in flags:
        measured = settings.get(key)
        checks.append((label, measured if measured is not None else "—", "on",
                       None if measured is None else str(measured).lower() == "true"))
    return checks


def _number(text) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def result_chart(request, result: Result, chart: str, fmt: str):
    built = _result_chart(result, chart)
    if built is None:
        raise Http404("no such chart")
    return chart_response(built, fmt, result.result_id)


def _result_chart(result: Result, name: str) -> Chart | None:
    if name != "latency":
        return None
    return charts.latency_percentiles((result.inference or {}).get("latency_ms") or {}, result.metric_value)


def progress_charts(user) -> list[Chart]:
    return []  # one round so far: nothing to compare across rounds


def home_charts(user) -> list[dict]:
    return []


def compare_rows() -> list[tuple[str, object]]:
    return [
        ("Model", lambda r: r.benchmark.name),
        ("Scenario", lambda r: r.scenario),
        ("Latency", lambda r: format_quantity(r.metric_value, r.metric_unit) if r.metric_value is not None else "n/a"),
        ("Accuracy", lambda r: (r.inference or {}).get("accuracy_printed") or None),
        ("Verdict", lambda r: r.verdict),
    ]


def official_links(submission, system_id: str, division: str = "") -> dict[str, str]:
    """The system's results and code in the round's MLCommons repository, as its final report
    links them (`<division>/<submitter>/results/<system>` and `.../code`); {} where the package
    is not published there."""
    package = published_package(submission)
    if package is None:
        return {}
    base, folder = package
    place = f"{base}/tree/main/{division or 'closed'}/{folder}"
    return {"details_url": f"{place}/results/{system_id}", "code_url": f"{place}/code"}


def system_type(system: System) -> str:
    """"adas" (advanced driver assistance), as its description says."""
    if not isinstance(system.description, dict):
        return ""
    return str(system.description.get("system_type") or "")


def snapshot_tables(round_: Round) -> dict[str, tuple[list[str], list[dict]]]:
    return {"results": accepted_summary(None, round_), "verdicts": summary_rows(round_, user=None)}
