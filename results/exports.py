"""The official-style summary table of a round: one row per system, one column per benchmark."""

from __future__ import annotations

import csv
import io

from .models import Result, Round

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


def summary_rows(round_: Round, user=None) -> tuple[list[str], list[dict]]:
    """Columns and rows of the summary, for the results `user` may see (None: public only)."""
    benchmarks = list(round_.benchmarks.order_by("name").values_list("name", flat=True))
    results = (
        Result.objects.visible_to(user)
        .current()
        .filter(submission__round=round_)
        .select_related("system", "benchmark", "submission__organization")
        .order_by("division", "system__availability", "submission__organization__name", "system__name", "system_id")
    )
    rows: dict[int, dict] = {}
    for result in results:
        system = result.system
        row = rows.get(system.pk)
        if row is None:
            row = rows[system.pk] = {
                "division": result.division or system.division,
                "availability": system.availability,
                "submitter": system.submitter or result.submission.organization.name,
                "system": system.name,
                "system_id": system.system_id,
                "number_of_nodes": system.number_of_nodes,
                "host_processor_model_name": system.host_processor_model_name,
                "host_processors_count": system.host_processors_count,
                "accelerator_model_name": system.accelerator_model_name,
                "accelerators_count": system.accelerators_count,
                "framework": system.framework,
                "notes": system.notes,
                **{name: None for name in benchmarks},
                **{f"{name}_result_id": "" for name in benchmarks},
            }
        row[result.benchmark.name] = result.score_minutes
        row[f"{result.benchmark.name}_result_id"] = result.result_id
    columns = SUMMARY_COLUMNS + ["system_id"] + benchmarks + [f"{name}_result_id" for name in benchmarks]
    return columns, list(rows.values())


def rows_to_csv(columns: list[str], rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})
    return buffer.getvalue()
