"""Inference pages: the round's leaderboards per model and scenario, its charts, and a result page.

Thin, like views.py: every query starts from `visible_to(request.user)`; round_detail,
round_export and result_detail hand inference rounds and results to these functions.
"""

from __future__ import annotations

from django.shortcuts import render

from . import inference_charts
from .constants import Division, Scenario, Severity
from .inference_tables import filtered, inference_points, leaderboards
from .models import Finding, Result, Round
from .tables import CATEGORIES, CATEGORY_LABELS, category_of


def _charts(points: list[dict]) -> list:
    return [
        inference_charts.server_offline_ratio(points),
        inference_charts.relative_performance(points),
        inference_charts.coverage(points),
    ]


def round_page(request, round_: Round):
    points = inference_points(request.user, round_)
    kept, chosen = filtered(points, request.GET)
    context = {
        "round": round_,
        "leaderboards": leaderboards(kept),
        "charts": _charts(kept),
        "chosen": chosen,
        "choices": {
            "division": Division.choices,
            "category": [(k, v) for k, v in CATEGORIES if any(p["category_key"] == k for p in points)],
            "model": [(m, m) for m in sorted({p["model"] for p in points})],
            "scenario": [(s.value, s.label) for s in Scenario if any(p["scenario"] == s.value for p in points)],
        },
        "query": request.GET.urlencode(),
        "result_count": len(kept),
    }
    return render(request, "results/inference_round.html", context)


def round_chart(user, round_: Round, query, name: str):
    """The named chart of an inference round, or None."""
    kept, _ = filtered(inference_points(user, round_), query)
    return next((chart for chart in _charts(kept) if chart.name == name), None)


def result_page(request, result: Result):
    details = result.inference or {}
    findings = list(Finding.objects.filter(result=result).order_by("severity", "file", "line", "pk"))
    by_severity = [
        {"severity": label, "key": value, "findings": [f for f in findings if f.severity == value]}
        for value, label in Severity.choices
    ]
    accuracy = details.get("accuracy") or {}
    latency = result_chart(result, "latency")
    checks = []
    bound, percentile = details.get("latency_bound_ms"), details.get("latency_percentile")
    if bound and percentile:
        observed = (details.get("latency_ms") or {}).get(f"{percentile * 100:.2f}")
        checks.append(("Latency bound", f"p{percentile * 100:g} {observed:.3f} ms" if observed is not None else "—",
                       f"≤ {bound:g} ms", observed is not None and observed <= bound))
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
        "result": result,
        "system": result.system,
        "round": result.submission.round,
        "benchmark": result.benchmark,
        "details": details,
        "checks": checks,
        "settings": sorted((details.get("settings") or {}).items()),
        "findings": by_severity,
        "finding_count": len(findings),
        "latency_chart": latency,
        "category": CATEGORY_LABELS[category_of(result.system.availability, result.system.deployment)],
    }
    return render(request, "results/inference_result.html", context)


def result_chart(result: Result, name: str):
    """The named chart of an inference result, or None."""
    if name != "latency":
        return None
    details = result.inference or {}
    return inference_charts.latency_percentiles(
        details.get("latency_ms") or {}, details.get("latency_bound_ms"), details.get("latency_percentile")
    )
