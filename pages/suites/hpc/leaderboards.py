"""MLPerf HPC results as plain rows: one per result (a system on a benchmark, strong or weak
scaling), the leaderboards per benchmark and score, and their CSV; the page, its downloads and
the summary are the same rows."""

from __future__ import annotations

from pages.normalised import View, models_per_minute_normalised, time_normalised
from pages.suites.time_to_train.filters import ResultFilters
from pages.system_groups import SYSTEM_VALUES, system_fields_of_row
from results.constants import Scaling
from results.models import Result, Round

COLUMNS = [
    "result_id",
    "benchmark",
    "scaling",
    "division",
    "availability",
    "submitter",
    "system",
    "system_id",
    "number_of_nodes",
    "accelerator_model_name",
    "accelerators_count",
    "framework",
    "time_to_solution_minutes",
    "number_of_models",
    "instance_scale",
    "time_to_train_all_minutes",
    "models_per_minute_derived",
    "energy_joules",
    "score_note",
]


def hpc_points(user, round_: Round, benchmark: str | None = None, filters: ResultFilters | None = None) -> list[dict]:
    """Every current result of the round `user` may see (one benchmark's where named) that the
    `filters` keep (all where none). Read as rows, not model instances: cheap at any size."""
    results = Result.objects.visible_to(user).current().for_round(round_)
    if benchmark:
        results = results.filter(benchmark__name=benchmark)
    if filters is not None:
        results = filters.apply(results)
    rows = results.values(
        "result_id", "benchmark__name", "scaling", *SYSTEM_VALUES, "system__framework", "score_minutes",
        "number_of_models", "instance_scale", "time_to_train_all_minutes", "models_per_minute", "energy_joules",
        "score_note",
    )
    return [
        {
            "result_id": row["result_id"],
            "benchmark": row["benchmark__name"],
            "scaling": row["scaling"],
            **system_fields_of_row(row),
            "framework": row["system__framework"],
            "minutes": row["score_minutes"] if row["scaling"] == Scaling.STRONG else None,
            "number_of_models": row["number_of_models"],
            "instance_scale": row["instance_scale"],
            "time_to_train_all": row["time_to_train_all_minutes"],
            "models_per_minute": row["models_per_minute"],
            "energy": row["energy_joules"],
            "note": row["score_note"],
        }
        for row in rows
    ]


def ranked(points: list[dict], scaling: str, view: View | None = None) -> list[dict]:
    """One score's leaderboard: time to solution fastest first, throughput highest first (each by
    its normalised figure in a normalised `view`); closed before open, results without a score
    last (unranked)."""
    key = "minutes" if scaling == Scaling.STRONG else "models_per_minute"
    sign = 1 if scaling == Scaling.STRONG else -1
    if view is not None and view.normalised:
        normalised = time_normalised if scaling == Scaling.STRONG else models_per_minute_normalised
        points = [{**p, "normalised": normalised(p, view.per)} for p in points]
        key = "normalised"
    rows = sorted(
        (dict(p) for p in points if p["scaling"] == scaling),
        key=lambda p: (p["division"] != "closed", p["division"], p[key] is None, sign * (p[key] or 0), p["system"]),
    )
    ranks: dict[str, int] = {}
    for row in rows:
        if row[key] is not None:
            ranks[row["division"]] = ranks.get(row["division"], 0) + 1
            row["rank"] = ranks[row["division"]]
        else:
            row["rank"] = None
    return rows


def leaderboards(points: list[dict], view: View | None = None) -> list[dict]:
    """Per benchmark (by name): its time-to-solution and throughput leaderboards (each ranked by
    its normalised figure in a normalised `view`)."""
    return [
        {
            "benchmark": name,
            "strong": ranked([p for p in points if p["benchmark"] == name], Scaling.STRONG, view),
            "weak": ranked([p for p in points if p["benchmark"] == name], Scaling.WEAK, view),
            "has_energy": any(p["energy"] is not None for p in points if p["benchmark"] == name),
        }
        for name in sorted({p["benchmark"] for p in points})
    ]


def export_rows(points: list[dict]) -> tuple[list[str], list[dict]]:
    """The CSV/JSON rows: strong then weak per benchmark, each in leaderboard order."""
    rows = []
    for board in leaderboards(points):
        for row in board["strong"] + board["weak"]:
            rows.append({
                "result_id": row["result_id"],
                "benchmark": row["benchmark"],
                "scaling": row["scaling"],
                "division": row["division"],
                "availability": row["category"],
                "submitter": row["submitter"],
                "system": row["system"],
                "system_id": row["system_id"],
                "number_of_nodes": row["nodes"],
                "accelerator_model_name": row["accelerator"],
                "accelerators_count": row["accelerators"],
                "framework": row["framework"],
                "time_to_solution_minutes": row["minutes"],
                "number_of_models": row["number_of_models"],
                "instance_scale": row["instance_scale"],
                "time_to_train_all_minutes": row["time_to_train_all"],
                "models_per_minute_derived": row["models_per_minute"],
                "energy_joules": row["energy"],
                "score_note": row["note"],
            })
    return COLUMNS, rows
