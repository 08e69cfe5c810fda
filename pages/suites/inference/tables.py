"""Inference results as plain rows: what the leaderboards, their exports and the charts read.

Every query starts from `visible_to(user)`; a leaderboard is one model and scenario, ranked by
the scenario metric in its own direction (valid results first).
"""

from __future__ import annotations

import re

from pages.tables import CATEGORY_LABELS, category_of
from results.models import Result, Round

from .charts import scenario_rank

FILTERS = ("division", "category", "model", "scenario")
EXPORT_COLUMNS = [
    "result_id", "division", "category", "submitter", "system", "accelerator", "model", "scenario",
    "metric", "value", "unit", "direction", "valid",
]


def metric_label(result) -> str:
    """The metric's name as LoadGen writes it, less a unit the value no longer has: latencies are
    logged in ns ("90th percentile latency (ns)") and stored in ms (the `unit` beside it)."""
    name = (result.inference or {}).get("metric_name", "")
    unit = re.search(r"\s*\((\w+)\)$", name)
    if unit and unit.group(1) != result.metric_unit:
        return name[: unit.start()]
    return name


def inference_points(user, round_: Round) -> list[dict]:
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
            "metric": metric_label(result),
            "value": result.metric_value,
            "unit": result.metric_unit,
            "direction": result.metric_direction,
            "valid": result.valid,
        })
    return points


def filtered(points: list[dict], query) -> tuple[list[dict], dict[str, str]]:
    chosen = {name: query.get(name, "") for name in FILTERS}
    keys = {"division": "division", "category": "category_key", "model": "model", "scenario": "scenario"}
    kept = [p for p in points if all(not value or p[keys[name]] == value for name, value in chosen.items())]
    return kept, chosen


def ranked(points: list[dict]) -> list[dict]:
    """Valid results first, best first in the metric's own direction; then invalid ones."""

    def key(p):
        value = p["value"] if p["value"] is not None else float("inf")
        return (not p["valid"], value if p["direction"] == "lower" else -value)

    return sorted(points, key=key)


def leaderboards(points: list[dict]) -> list[dict]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in points:
        groups.setdefault((p["model"], p["scenario"]), []).append(p)
    boards = []
    for (model, scenario), mine in sorted(groups.items(), key=lambda kv: (kv[0][0], scenario_rank(kv[0][1]))):
        rows = ranked(mine)
        first = rows[0]
        boards.append({
            "model": model, "scenario": scenario, "rows": rows, "unit": first["unit"],
            "direction": first["direction"], "metric": first["metric"],
        })
    return boards


def inference_export_rows(user, round_: Round, query) -> tuple[list[str], list[dict]]:
    """The round's leaderboards (filtered by `query`) as one export: columns and rows."""
    kept, _ = filtered(inference_points(user, round_), query)
    return EXPORT_COLUMNS, [row for board in leaderboards(kept) for row in board["rows"]]
