"""MLPerf Tiny pages: a round's leaderboards per benchmark (median throughput in inf./sec., with
accuracy and energy in uJ/inf., sww's average power in mW), a benchmark's leaderboard with its
energy and accuracy charts, a result page with its measurement windows, the downloads (CSV, JSON,
the official checker's summary, the final report's table). Every query starts from
`visible_to(request.user)`. This module is the suite's PageSuite (pages/suites/__init__.py)."""

from __future__ import annotations

from urllib.parse import quote

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render

from mlperf_check.tiny.report import TinyResult
from mlperf_check.tiny.summary import SUMMARY_COLUMNS, final_report_csv
from mlperf_check.tiny.summary import summary_rows as official_summary_rows
from pages.common import (
    chart_response,
    csv_response,
    draws,
    published_package,
    result_page_context,
    waived_findings,
)
from pages.system_groups import CATEGORY_LABELS, category_of
from results.models import Benchmark, Result, Round, System

from . import charts
from .leaderboards import ACCURACY_LABELS, export_rows, leaderboards, tiny_points

# How the shared pages (home, progress, compare) speak of this suite: pages/suites/__init__.py.
HOME_TAGLINE = ("Machine learning on microcontrollers and tiny accelerators: median throughput (inf./sec.), "
                "accuracy and energy per inference (uJ/inf.) for five benchmarks, as the round's runner measures them.")
PROGRESS_NOTE = "MLPerf Tiny rounds are compared benchmark by benchmark on each round's pages."
SYSTEM_RESULTS_TEMPLATE = "results/_system_results_tiny.html"
SNAPSHOT_TABLES = {
    "results": "every public result: median throughput (inf./sec.), its latency (1000 / throughput, ms, the final "
               "report's figure), accuracy against its target, energy (uJ/inf.; sww: average power, mW), the "
               "streaming wakeword's false positives and negatives, both verdicts (`official_valid`, `valid`, "
               "`stricter_rules`: docs/differences.md)",
    "summary": "the official checker's --csv summary of the results its verdict accepts (tools/submission/"
               "submission_checker.py of github.com/mlcommons/tiny)",
}


def _benchmarks(round_: Round) -> list[str]:
    return list(round_.benchmarks.order_by("pk").values_list("name", flat=True))


def round_page(request, round_: Round):
    points = tiny_points(request.user, round_)
    context = {
        "round": round_,
        "boards": [b for b in leaderboards(points, _benchmarks(round_)) if b["rows"]],
        "benchmark_rows": round_.benchmarks.order_by("pk"),
        "result_count": len(points),
    }
    return render(request, "results/tiny_round.html", context)


def round_export(request, round_: Round, fmt: str):
    points = tiny_points(request.user, round_, request.GET.get("benchmark", ""))
    columns, rows = export_rows(points)
    if fmt == "csv":
        return csv_response(columns, rows, f"{round_.slug}-results.csv")
    return JsonResponse({"round": round_.slug, "columns": columns, "rows": rows})


def round_chart(request, round_: Round, chart: str, fmt: str):
    raise Http404("no such chart")  # a Tiny round's charts are on its benchmarks' pages


def _checked(user, round_: Round) -> list[TinyResult]:
    """The visible results the official verdict accepts, as the checker's report holds them: what
    its summary and final report are made of."""
    out = []
    results = (Result.objects.visible_to(user).current().for_round(round_).with_related()
               .filter(official_valid=True).order_by("result_id"))
    for result in results:
        details = result.inference or {}
        streaming = details.get("streaming") or {}
        energy = details.get("energy") or {}
        accuracy = details.get("accuracy") or {}
        out.append(TinyResult(
            division=result.division, submitter=details.get("submitter_folder") or result.submission.organization.slug,
            system=details.get("system_folder") or result.system.system_id, benchmark=details.get("benchmark_folder") or result.benchmark.name,
            folder=result.folder, path=result.folder, mlperf_model=details.get("mlperf_model", result.benchmark.name),
            scenario=details.get("scenario", ""), runner=details.get("runner", ""),
            availability=details.get("availability", ""), system_fields=details.get("system_fields") or {},
            throughput=result.metric_value, accuracy_text=accuracy.get("printed", ""),
            energy=energy.get("value"), energy_unit=energy.get("unit", ""),
            false_positives=streaming.get("false_positives"), false_negatives=streaming.get("false_negatives"),
            duty_cycle=streaming.get("duty_cycle"),
        ))
    return out


def round_tables_csv(request, round_: Round):
    """The round's final report (generate_final_report.py's closed sheet: a row per system, latency
    and energy per benchmark) of the visible results the official verdict accepts."""
    response = HttpResponse(final_report_csv(_checked(request.user, round_), version=round_.version),
                            content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{round_.slug}-final-report.csv"'
    return response


def summary_rows(round_: Round, user=None, query=None, factors: str | None = None) -> tuple[list[str], list[dict]]:
    """The official checker's --csv summary of the results its verdict accepts."""
    return SUMMARY_COLUMNS, official_summary_rows(_checked(user, round_))


def summary_results(user, round_: Round) -> tuple[list[str], list[dict]]:
    raise Http404("summary_results is the inference suite's round summary")


def _benchmark_charts(points: list[dict], benchmark: Benchmark) -> list:
    built = [charts.accuracy(points, benchmark.name)]
    if any(p["energy"] is not None for p in points):
        built.insert(0, charts.energy_vs_throughput(points, benchmark.name))
    return built


def benchmark_page(request, round_: Round, benchmark: Benchmark):
    points = tiny_points(request.user, round_, benchmark.name)
    (board,) = leaderboards(points, [benchmark.name])
    built = _benchmark_charts(points, benchmark)
    context = {
        "round": round_,
        "benchmark": benchmark,
        "board": board,
        "charts": built,
        "draws_charts": draws(built),
        "accuracy_metric": board["rows"][0]["accuracy_metric"] if board["rows"] else benchmark.quality_metric,
    }
    return render(request, "results/tiny_benchmark.html", context)


def benchmark_chart(request, round_: Round, benchmark: Benchmark, chart: str, fmt: str):
    for built in _benchmark_charts(tiny_points(request.user, round_, benchmark.name), benchmark):
        if built.name == chart:
            return chart_response(built, fmt, f"{round_.slug}-{benchmark.name}")
    raise Http404("no such chart")


def _checks(details: dict) -> list[tuple]:
    """(check, measured, required, met) of a result against its round's closed-division rules."""
    accuracy = details.get("accuracy") or {}
    target, value = accuracy.get("target"), accuracy.get("value")
    streaming = details.get("streaming")
    if streaming:
        fp, fn, tp = streaming.get("false_positives"), streaming.get("false_negatives"), streaming.get("true_positives")
        limits = target if isinstance(target, list) else [None, None]
        return [
            ("False positives", fp, f"≤ {limits[0]}", None if fp is None or limits[0] is None else fp <= limits[0]),
            ("False negatives", fn, f"≤ {limits[1]}", None if fn is None or limits[1] is None else fn <= limits[1]),
            ("Wake words (true positives + false negatives)", None if tp is None or fn is None else tp + fn, "= 50",
             None if tp is None or fn is None else tp + fn == 50),
        ]
    if target is None:
        return []
    name = ACCURACY_LABELS.get(accuracy.get("kind", ""), "Accuracy")
    return [(name, accuracy.get("printed") or "—", f"≥ {target:g}", None if value is None else value >= target)]


def result_page(request, result: Result):
    details = result.inference or {}
    findings = waived_findings(result)
    window_chart = charts.windows(details, result.metric_value)
    throughput = result.metric_value
    context = {
        **result_page_context(request, result, findings),
        "details": details,
        "latency_ms": 1000 / throughput if throughput else None,
        "checks": _checks(details),
        "system_fields": [(k, v) for k, v in (details.get("system_fields") or {}).items() if v],
        "windows_chart": window_chart,
        "draws_charts": not window_chart.empty,
        "category": CATEGORY_LABELS[category_of(result.system.availability, result.system.deployment)],
        "accuracy_metric": ACCURACY_LABELS.get((details.get("accuracy") or {}).get("kind", ""), "Accuracy"),
    }
    return render(request, "results/tiny_result.html", context)


def result_chart(request, result: Result, chart: str, fmt: str):
    if chart != "windows":
        raise Http404("no such chart")
    return chart_response(charts.windows(result.inference or {}, result.metric_value), fmt, result.result_id)


def progress_charts(user) -> list:
    return []  # one round so far: its benchmarks' pages compare its systems


def home_charts(user) -> list[dict]:
    return []  # the home page plots training's progress


def compare_rows() -> list[tuple[str, object]]:
    """The compare page's rows of a Tiny result: throughput, then accuracy and energy, each with its unit."""
    def figure(key: str, name: str):
        return lambda r: ((r.inference or {}).get(key) or {}).get(name)

    def energy(r):
        found = (r.inference or {}).get("energy") or {}
        return f"{found['value']:g} {found['unit']}" if found.get("value") is not None else None

    return [
        ("Benchmark", lambda r: r.benchmark.name),
        ("Median throughput (inf./sec.)", lambda r: f"{r.metric_value:.4g}" if r.metric_value is not None else "n/a"),
        ("Latency (ms, 1000 / throughput)", lambda r: f"{1000 / r.metric_value:.4g}" if r.metric_value else None),
        ("Accuracy", figure("accuracy", "printed")),
        ("Energy", energy),
        ("Runner", lambda r: (r.inference or {}).get("runner") or None),
    ]


def official_links(submission, system_id: str, division: str = "") -> dict[str, str]:
    """The submitter's results and code in the round's public repository, as the final report
    links them (its Details and Code columns)."""
    package = published_package(submission)
    if package is None:
        return {}
    base, folder = package
    division = quote(division or "closed")
    return {"details_url": f"{base}/tree/main/{division}/{quote(folder)}/results",
            "code_url": f"{base}/tree/main/{division}/{quote(folder)}/code"}


def system_type(system: System) -> str:
    return ""  # Tiny systems are not typed (inference's datacenter and edge)


def snapshot_tables(round_: Round) -> dict[str, tuple[list[str], list[dict]]]:
    return {"results": export_rows(tiny_points(None, round_)), "summary": summary_rows(round_, user=None)}
