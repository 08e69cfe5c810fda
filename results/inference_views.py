"""Inference pages: the round's leaderboards per model and scenario, its charts, and a result page.

Thin, like views.py: every query starts from `visible_to(request.user)`; round_detail,
round_export and result_detail hand inference rounds and results to these functions.
"""

from __future__ import annotations

from django.shortcuts import render

from . import inference_charts
from .constants import Division, Scenario, Severity
from .models import Finding, Result, Round
from .tables import CATEGORIES, CATEGORY_LABELS, category_of

FILTERS = ("division", "category", "model", "scenario")
EXPORT_COLUMNS = [
    "result_id", "division", "category", "submitter", "system", "accelerator", "model", "scenario",
    "metric", "value", "unit", "direction", "valid",
]


def _points(user, round_: Round) -> list[dict]:
    results = Result.objects.visible_to(user).current().for_round(round_).with_related().order_by("result_id")
    points = []
    for result in results:
        system = result.system
        category_key = category_of(system.availability, system.deployment)
        points.append({
            "result_id": result.result_id,
            "division": result.division or system.division,
            "category": CATEGORY_LABELS[category_key],
            "category_key": category_key,
            "submitter": system.submitter or result.submission.organization.name,
            "organization": result.submission.organization.slug,
            "system": system.name,
            "system_id": system.system_id,
            "accelerator": system.accelerator_model_name,
            "model": result.benchmark.name,
            "scenario": result.scenario,
            "metric": (result.inference or {}).get("metric_name", ""),
            "value": result.metric_value,
            "unit": result.metric_unit,
            "direction": result.metric_direction,
            "valid": result.valid,
        })
    return points


def _filtered(points: list[dict], query) -> tuple[list[dict], dict[str, str]]:
    chosen = {name: query.get(name, "") for name in FILTERS}
    keys = {"division": "division", "category": "category_key", "model": "model", "scenario": "scenario"}
    kept = [p for p in points if all(not value or p[keys[name]] == value for name, value in chosen.items())]
    return kept, chosen


def _ranked(points: list[dict]) -> list[dict]:
    """Valid results first, best first in the metric's own direction; then invalid ones."""

    def key(p):
        value = p["value"] if p["value"] is not None else float("inf")
        return (not p["valid"], value if p["direction"] == "lower" else -value)

    return sorted(points, key=key)


def _leaderboards(points: list[dict]) -> list[dict]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in points:
        groups.setdefault((p["model"], p["scenario"]), []).append(p)
    order = inference_charts.SCENARIO_ORDER
    boards = []
    for (model, scenario), mine in sorted(groups.items(), key=lambda kv: (kv[0][0], order.index(kv[0][1]) if kv[0][1] in order else 9)):
        ranked = _ranked(mine)
        first = ranked[0]
        boards.append({
            "model": model, "scenario": scenario, "rows": ranked, "unit": first["unit"],
            "direction": first["direction"], "metric": first["metric"],
        })
    return boards


def _charts(points: list[dict]) -> list:
    return [
        inference_charts.server_offline_ratio(points),
        inference_charts.relative_performance(points),
        inference_charts.coverage(points),
    ]


def round_page(request, round_: Round):
    points = _points(request.user, round_)
    kept, chosen = _filtered(points, request.GET)
    context = {
        "round": round_,
        "leaderboards": _leaderboards(kept),
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


def round_export_rows(user, round_: Round, query) -> tuple[list[str], list[dict]]:
    kept, _ = _filtered(_points(user, round_), query)
    rows = [row for board in _leaderboards(kept) for row in board["rows"]]
    return EXPORT_COLUMNS, rows


def round_chart(user, round_: Round, query, name: str):
    """The named chart of an inference round, or None."""
    kept, _ = _filtered(_points(user, round_), query)
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
