"""Inference results as plain rows: what the leaderboards, their exports and the charts read.

Every query starts from `visible_to(user)`; a leaderboard is one model and scenario, ranked by
the scenario metric in its own direction (valid results first).
"""

from __future__ import annotations

import re

from django.db.models.fields.json import KT, KeyTransform

from mlperf_check.inference.report import verdict_text
from mlperf_check.inference.summary_export import AcceptedResult, round_scenarios, summary_records
from pages.caching import rows_seen_by
from pages.normalised import View, mixing_warning, throughput_normalised
from pages.system_groups import SYSTEM_VALUES, accelerator_key, system_fields_of_row
from results.models import Result, Round

from .charts import scenario_rank

FILTERS = ("division", "system_type", "category", "submitter", "accelerator", "power", "model", "scenario", "q")
# What the search text (`q`) looks in: a result matches when one of them contains it (any case).
SEARCHED = ("result_id", "submitter", "system", "system_id", "accelerator", "model")
# Every figure's unit is in its column (the metric's in `unit`, the power's in `power_unit`).
EXPORT_COLUMNS = [
    "result_id", "division", "system_type", "category", "submitter", "system", "accelerator", "accelerators",
    "model", "scenario", "metric", "value", "unit", "direction", "valid", "official_valid", "stricter_rules",
    "ttft_p99_ms", "ttft_limit_ms", "tpot_p99_ms", "tpot_limit_ms", "power", "power_unit", "samples_per_joule",
]
# v2.1+ systems say where they run (`system_type`); "datacenter,edge" systems are in both.
SYSTEM_TYPES = [("datacenter", "Datacenter"), ("edge", "Edge")]
POWER_CHOICES = [("yes", "Measured"), ("no", "Not measured")]
# The round tables' own columns before one per model and scenario (the figure, then its verdict).
# How a round table's rows may be ordered (`sort` in the URL): the first is the default.
TABLE_SORTS = {
    "system": ("System", lambda r: (r["division"], r["submitter"].lower(), r["system"].lower())),
    "accelerators": ("Most accelerators", lambda r: (-(r["accelerators"] or 0), r["submitter"].lower(), r["system"].lower())),
    "accelerator": ("Accelerator", lambda r: ((r["accelerator"] or "").lower(), r["accelerators"] or 0, r["system"].lower())),
    "availability": ("Availability", lambda r: (r["availability"], r["submitter"].lower(), r["system"].lower())),
}
ROUND_TABLE_COLUMNS = ["table", "division", "submitter", "system", "system_id", "accelerator", "accelerators",
                       "availability"]


# What a point reads of a result, its system and organization and model, as rows (a round's page
# reads 1,000-1,500): not the columns it does not show (a result's LoadGen settings, a system's
# description); of the `inference` details only four keys, extracted by the database.
POINT_VALUES = (
    "result_id", "scenario", "metric_value", "metric_unit", "metric_direction", "valid", "official_valid",
    "stricter_rules", "benchmark__name", *SYSTEM_VALUES,
)


def inference_points(user, round_: Round) -> list[dict]:
    """A point per result of the round `user` may see, kept for the views many users share (the
    round's version keys them: pages.caching.rows_seen_by)."""
    return rows_seen_by(user, round_, "inference-points", lambda viewer: _points(viewer, round_))


def _points(user, round_: Round) -> list[dict]:
    rows = (
        Result.objects.visible_to(user).current().for_round(round_).order_by("result_id")
        .values(*POINT_VALUES, point_system_type=KT("inference__system_type"),
                point_metric_name=KT("inference__metric_name"),
                point_tokens=KeyTransform("token_latency", "inference"), point_power=KeyTransform("power", "inference"))
    )
    points = []
    for row in rows:
        tokens = row["point_tokens"] or {}
        power = row["point_power"] or {}
        points.append({
            "result_id": row["result_id"],
            **system_fields_of_row(row),
            "system_type": row["point_system_type"] or "",
            "model": row["benchmark__name"],
            "scenario": row["scenario"],
            "metric": metric_label(row["point_metric_name"] or ""),
            "value": row["metric_value"],
            "unit": row["metric_unit"],
            "direction": row["metric_direction"],
            "valid": row["valid"],
            # The round's official verdict beside ours, and what makes ours stricter.
            "official_valid": row["official_valid"],
            "stricter_rules": " ".join(row["stricter_rules"]),
            "verdict": verdict_text(row["official_valid"], row["valid"], row["stricter_rules"]),
            "ttft_p99_ms": tokens.get("ttft_p99_ms"),
            "ttft_limit_ms": tokens.get("ttft_limit_ms"),
            "tpot_p99_ms": tokens.get("tpot_p99_ms"),
            "tpot_limit_ms": tokens.get("tpot_limit_ms"),
            "power": power.get("value"),
            "power_unit": power.get("unit", ""),
            "samples_per_joule": power.get("efficiency"),
        })
    return points


def metric_label(name: str) -> str:
    """The metric's LoadGen name without LoadGen's nanosecond marker ("90th percentile latency
    (ns)", "..._latency_ns"): the stored value is converted (latencies in ms) and its unit is the
    `unit` column, so the marker would mislabel it."""
    return re.sub(r"(\s*\(ns\)|_ns)$", "", name)


def filtered(points: list[dict], query) -> tuple[list[dict], dict[str, str]]:
    chosen = {name: query.get(name, "").strip() for name in FILTERS}

    def matches(point: dict, name: str, value: str) -> bool:
        if name == "system_type":
            return value in point["system_type"].split(",")
        if name == "accelerator":
            return accelerator_key(point["accelerator"]) == value
        if name == "power":
            return (point["power"] is not None) == (value == "yes")
        if name == "q":
            return any(value.lower() in str(point[field]).lower() for field in SEARCHED)
        return point["category_key" if name == "category" else name] == value

    kept = [p for p in points if all(not value or matches(p, name, value) for name, value in chosen.items())]
    return kept, chosen


def ranked(points: list[dict], figure: str = "value") -> list[dict]:
    """Valid results first, best first in the metric's own direction (by `figure`: the value or
    the normalised one); then those without the figure, then invalid ones."""

    def key(p):
        value = p[figure]
        missing = value is None
        value = 0 if missing else value
        return (not p["valid"], missing, value if p["direction"] == "lower" and figure == "value" else -value)

    return sorted(points, key=key)


def leaderboards(points: list[dict], view: View | None = None) -> list[dict]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in points:
        groups.setdefault((p["model"], p["scenario"]), []).append(p)
    boards = []
    for (model, scenario), mine in sorted(groups.items(), key=lambda kv: (kv[0][0], scenario_rank(kv[0][1]))):
        normalised = view is not None and view.normalised
        if normalised:
            for p in mine:
                p["normalised"] = throughput_normalised(p, view.per)
        # A board no result of which has the figure (a latency per accelerator) keeps its order.
        by_figure = normalised and any(p["normalised"] is not None for p in mine)
        rows = ranked(mine, "normalised" if by_figure else "value")
        first = rows[0]
        boards.append({
            "warning": mixing_warning(mine),
            "model": model, "scenario": scenario, "rows": rows, "unit": first["unit"],
            "direction": first["direction"], "metric": first["metric"],
            "token_latency": any(p["ttft_p99_ms"] is not None or p["tpot_p99_ms"] is not None for p in mine),
            "power": any(p["power"] is not None for p in mine),
        })
    return boards


def round_tables(points: list[dict], sort: str = "system", models: set[str] | None = None) -> list[dict]:
    """The round as MLCommons' results tables: one per system type (datacenter, edge) and one for
    the network division, a row per system, a column per model and scenario. A "datacenter,edge"
    system is in both tables; a system without a type (before v2.1) in neither type but its own
    "Results" table. Each cell is that system's result (its figure, verdicts and power). Rows in
    the order `sort` names (TABLE_SORTS; an unknown one gives the default).
    With `models` (the round's own), a result of another model (an open division's own: Krai
    ran hundreds on one system) is no column but counted in its row's `other` (results, models)
    and the table's `other_models` says some row has one: a column per such model left 100 rows
    of mostly empty cells at 350-700 KB."""
    grouped: dict[str, list[dict]] = {}
    for p in points:
        if p["division"] == "network":
            keys = ["network"]
        else:
            keys = [t for t, _ in SYSTEM_TYPES if t in p["system_type"].split(",")] or ["all"]
        for key in keys:
            grouped.setdefault(key, []).append(p)
    labels = {**dict(SYSTEM_TYPES), "network": "Network division", "all": "Results"}
    tables = []
    for key in [t for t, _ in SYSTEM_TYPES] + ["network", "all"]:
        mine = grouped.get(key)
        if not mine:
            continue
        columns = sorted({(p["model"], p["scenario"]) for p in mine if models is None or p["model"] in models},
                         key=lambda c: (c[0], scenario_rank(c[1])))
        units = {}
        for p in mine:
            units.setdefault((p["model"], p["scenario"]), p["unit"])
        rows: dict[tuple, dict] = {}
        for p in mine:
            row = rows.setdefault((p["division"], p["organization"], p["system_id"]), {
                "division": p["division"], "submitter": p["submitter"], "organization": p["organization"],
                "system": p["system"], "system_id": p["system_id"], "accelerator": p["accelerator"],
                "accelerators": p["accelerators"], "availability": p["category"], "cells": {},
                "other": {"results": 0, "models": set()},
            })
            if models is None or p["model"] in models:
                row["cells"][(p["model"], p["scenario"])] = p
            else:
                row["other"]["results"] += 1
                row["other"]["models"].add(p["model"])
        ordered = sorted(rows.values(), key=TABLE_SORTS.get(sort, TABLE_SORTS["system"])[1])
        for row in ordered:
            row["cells"] = [row["cells"].get(column) for column in columns]
        tables.append({
            "key": key, "label": labels[key], "rows": ordered,
            "columns": [{"model": m, "scenario": s, "unit": units[(m, s)]} for m, s in columns],
            "other_models": any(row["other"]["results"] for row in ordered),
        })
    return tables


def round_tables_export(points: list[dict]) -> tuple[list[str], list[dict]]:
    """The round tables as one CSV: a row per table and system, per model and scenario its figure
    and both verdicts ("valid", "invalid", or "official: VALID, ours: INVALID (rules)")."""
    columns = list(ROUND_TABLE_COLUMNS)
    rows = []
    for table in round_tables(points):
        names = [f"{c['model']} {c['scenario']} ({c['unit']})" for c in table["columns"]]
        for name in names:
            if name not in columns:
                columns += [name, f"{name} verdict"]
        for row in table["rows"]:
            out = {"table": table["key"], **{c: row[c] for c in ROUND_TABLE_COLUMNS[1:]}}
            for name, cell in zip(names, row["cells"], strict=True):
                if cell is not None:
                    out[name] = cell["value"]
                    out[f"{name} verdict"] = cell_verdict(cell)
            rows.append(out)
    return columns, rows


def cell_verdict(point: dict) -> str:
    if point["official_valid"] != point["valid"]:
        return point["verdict"]
    return "valid" if point["valid"] else "invalid"


def power_boards(points: list[dict]) -> list[dict]:
    """Performance per watt: per model and scenario, the results with power, most samples (or
    tokens, queries) per joule first; invalid ones last."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in points:
        if p["power"] is not None:
            groups.setdefault((p["model"], p["scenario"]), []).append(p)
    boards = []
    for (model, scenario), mine in sorted(groups.items(), key=lambda kv: (kv[0][0], scenario_rank(kv[0][1]))):
        rows = sorted(mine, key=lambda p: (not p["valid"], -(p["samples_per_joule"] or 0)))
        boards.append({"model": model, "scenario": scenario, "rows": rows, "unit": rows[0]["unit"],
                       "power_unit": rows[0]["power_unit"]})
    return boards


def inference_export_rows(user, round_: Round, query) -> tuple[list[str], list[dict]]:
    """The round's leaderboards (filtered by `query`) as one export: columns and rows."""
    kept, _ = filtered(inference_points(user, round_), query)
    return EXPORT_COLUMNS, [row for board in leaderboards(kept) for row in board["rows"]]


def summary_results(user, round_: Round) -> list[dict]:
    """The round's accepted results visible to `user` as MLCommons publishes a round
    (summary_results.json's records, mlperf_check.inference.summary_export), each system under its
    citable entry ID: the round page's and the API's download and the snapshot's results. Accepted
    is the round's official verdict, as MLCommons publishes it."""
    version = f"v{round_.version}"
    # Read as rows, not model instances: a round is up to 13,000 results, and building seven model
    # objects per result (the result and its relations) took most of the download's time.
    results = (Result.objects.visible_to(user).current().for_round(round_).filter(official_valid=True)
               .exclude(metric_value=None).order_by("result_id")
               .values("folder", "division", "submission__organization__name", "inference", "benchmark__name",
                       "scenario", "system__description", "metric_value", "metric_unit", "citable__entry"))
    accepted = []
    for result in results:
        details, benchmark = result["inference"] or {}, result["benchmark__name"]
        power = details.get("power") or {}
        # Checked per submitter folder, a result's folder starts at results/; MLCommons' Location
        # starts at the division and the submitter's folder (the organization's name).
        location = result["folder"]
        if location.startswith("results/"):
            location = f"{result['division']}/{result['submission__organization__name']}/{location}"
        accepted.append(AcceptedResult(
            location=location, model_folder=details.get("model_folder") or benchmark,
            model=details.get("mlperf_model") or benchmark, scenario=result["scenario"],
            description=result["system__description"] or {}, value=result["metric_value"],
            unit=result["metric_unit"], accuracy=details.get("accuracy_printed", ""),
            inferred=bool(details.get("inferred_from")), power=power.get("value"), power_unit=power.get("unit", ""),
            entry=result["citable__entry"],
        ))
    return summary_records(accepted, version=version, scenarios=round_scenarios(version))
