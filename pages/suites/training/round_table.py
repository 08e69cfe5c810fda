"""The training round table: one row per system, one column per benchmark, with its filters and
sorting; plain data, so that the page, its CSV and JSON downloads and the summary are one table."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pages.normalised import DECIDED
from pages.suites.time_to_train.filters import ResultFilters, filter_options
from pages.system_groups import CATEGORY_LABELS, CATEGORY_ORDER, DIVISION_ORDER, category_of
from results.constants import FactorSource
from results.models import Finding, Result, Round

SYSTEM_COLUMNS = [
    ("division", "Division"),
    ("category", "Category"),
    ("submitter", "Submitter"),
    ("system", "System"),
    ("system_id", "System id"),
    ("number_of_nodes", "Nodes"),
    ("host_processor_model_name", "Host processor"),
    ("host_processors_count", "Host processors"),
    ("accelerator_model_name", "Accelerator"),
    ("accelerators_count", "Accelerators"),
    ("framework", "Framework"),
    ("notes", "Notes"),
]


SORT_KEYS = {"submitter", "system", "number_of_nodes", "accelerators_count", "accelerator_model_name", "framework"}


@dataclass
class RoundFilters(ResultFilters):
    """The round page's filters (those every training and HPC page offers, and the benchmarks
    shown) and sort order, as read from (and written back to) the query string."""

    benchmarks: list[str] = field(default_factory=list)
    sort: str = ""

    @classmethod
    def from_query(cls, query, benchmark_names: list[str]) -> RoundFilters:
        sort = query.get("sort", "")
        sort_key = sort.lstrip("-")
        return cls(
            **ResultFilters.values_of(query),
            benchmarks=[name for name in query.getlist("benchmark") if name in benchmark_names],
            sort=sort if sort_key in SORT_KEYS or sort_key in benchmark_names else "",
        )

    def apply(self, results):
        results = super().apply(results)
        return results.filter(benchmark__name__in=self.benchmarks) if self.benchmarks else results

    @property
    def active(self) -> bool:
        return super().active or bool(self.benchmarks)


@dataclass
class RoundTable:
    benchmarks: list[str]
    rows: list[dict]
    filters: RoundFilters
    options: dict
    # The benchmarks with a result among the rows: the page's columns (the exports keep every
    # benchmark's). A benchmark nobody entered is named above the table, not given an empty column.
    shown_benchmarks: list[str] = field(default_factory=list)
    # The benchmarks with an energy to train among the rows (training v4.0+ power results): each
    # gets an energy column beside its time, on the page and in the exports; the others none.
    energy_benchmarks: list[str] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        return (
            [key for key, _ in SYSTEM_COLUMNS]
            + self.benchmarks
            + [f"{name}_energy_joules" for name in self.energy_benchmarks]
            + [f"{name}_result_id" for name in self.benchmarks]
            + [f"{name}_factor_source" for name in self.benchmarks]
        )

    def groups(self, start: int = 0, stop: int | None = None) -> list[dict]:
        """The rows [start:stop] (a page of the table) grouped by (division, category), in the
        MLCommons order; each group with its number of rows in the whole table, and whether it
        began on an earlier page."""
        sizes = Counter((row["division"], row["category"]) for row in self.rows)
        groups: list[dict] = []
        for index, row in enumerate(self.rows[start:stop], start=start):
            key = (row["division"], row["category"])
            if not groups or groups[-1]["key"] != key:
                before = self.rows[index - 1] if index else None
                continued = before is not None and (before["division"], before["category"]) == key
                groups.append({"key": key, "division": row["division"], "category": row["category_label"],
                               "size": sizes[key], "continued": continued, "rows": []})
            groups[-1]["rows"].append(row)
        return groups

    def export_rows(self) -> list[dict]:
        return [{key: row[key] for key in self.columns} for row in self.rows]


def round_table(round_: Round, user, query, factors: str = DECIDED) -> RoundTable:
    """The round's results table for `user`: three queries (benchmarks, options, results).
    `factors`: DECIDED scores (what the pages show) or COMPUTED ones (every factor from the logs)."""
    all_benchmarks = list(round_.benchmarks.order_by("name").values_list("name", flat=True))
    filters = RoundFilters.from_query(query, all_benchmarks)
    benchmarks = filters.benchmarks or all_benchmarks
    visible = Result.objects.visible_to(user).current().for_round(round_)
    system_fields = (
        "system_id", "name", "submitter", "division", "availability", "deployment", "number_of_nodes",
        "host_processor_model_name", "host_processors_count", "accelerator_model_name",
        "accelerators_count", "framework", "notes",
    )
    # Plain values, not model instances: a 500-system round is ~2,000 results, and building five
    # model objects per result cost more than the query.
    # Error findings of each result: a published result with errors carries a visible marker.
    with_errors = filters.apply(visible).annotate(error_count=Finding.objects.unwaived_errors_of())
    results = with_errors.values(
        "system_id", "result_id", "division", "score_minutes", "computed_score_minutes", "factor_source",
        "scaling_factor", "score_note", "energy_joules", "benchmark__name", "error_count", "citable__entry",
        "citable__local",
        "submission__organization__name", "submission__organization__slug",
        *[f"system__{name}" for name in system_fields],
    )
    rows: dict[int, dict] = {}
    for result in results:
        row = rows.get(result["system_id"])
        if row is None:
            division = result["division"] or result["system__division"]
            category = category_of(result["system__availability"], result["system__deployment"])
            row = rows[result["system_id"]] = {
                "division": division,
                "category": category,
                "category_label": CATEGORY_LABELS[category],
                "submitter": result["system__submitter"] or result["submission__organization__name"],
                "organization": result["submission__organization__slug"],
                "system": result["system__name"],
                "system_id": result["system__system_id"],
                "number_of_nodes": result["system__number_of_nodes"],
                "host_processor_model_name": result["system__host_processor_model_name"],
                "host_processors_count": result["system__host_processors_count"],
                "accelerator_model_name": result["system__accelerator_model_name"],
                "accelerators_count": result["system__accelerators_count"],
                "framework": result["system__framework"],
                "notes": result["system__notes"],
                "entry": result["citable__entry"],
                "entry_local": result["citable__local"],
                "cells": {},
            }
        decided = factors == DECIDED and result["factor_source"] == FactorSource.DECISION
        minutes = result["score_minutes"] if factors == DECIDED else result["computed_score_minutes"]
        row["cells"][result["benchmark__name"]] = {
            "minutes": minutes,
            "display": "" if minutes is None else f"{minutes:.2f}",
            "result_id": result["result_id"],
            "note": result["score_note"],
            "factor_source": FactorSource.DECISION if decided else FactorSource.COMPUTED,
            "decided_factor": result["scaling_factor"] if decided else None,
            "errors": result["error_count"],
            "energy": result["energy_joules"],
        }
    table_rows = list(rows.values())
    shown_benchmarks = [name for name in benchmarks if any(name in row["cells"] for row in table_rows)]
    energy_benchmarks = [name for name in benchmarks
                         if any(row["cells"].get(name, {}).get("energy") is not None for row in table_rows)]
    for row in table_rows:
        for name in benchmarks:
            cell = row["cells"].get(name) or {"minutes": None, "result_id": "", "note": "", "factor_source": "",
                                              "energy": None}
            row[name] = cell["minutes"]
            row[f"{name}_energy_joules"] = cell["energy"]
            row[f"{name}_result_id"] = cell["result_id"]
            row[f"{name}_factor_source"] = cell["factor_source"]
        # One entry per benchmark column of the page ({} where the system has no result), each
        # saying whether an energy column follows it.
        row["cell_list"] = [{**row["cells"].get(name, {}), "energy_column": name in energy_benchmarks}
                            for name in shown_benchmarks]
    _sort_rows(table_rows, filters.sort)
    return RoundTable(benchmarks=benchmarks, rows=table_rows, filters=filters, options=filter_options(round_, user),
                      shown_benchmarks=shown_benchmarks, energy_benchmarks=energy_benchmarks)


def _sort_rows(rows: list[dict], sort: str) -> None:
    """Sort inside each (division, category) group; empty values always last."""
    key = sort.lstrip("-") or "submitter"
    descending = sort.startswith("-")

    def value(row):
        item = row.get(key)
        if isinstance(item, str):
            item = item.lower()
        return item

    present = [row for row in rows if value(row) not in (None, "")]
    missing = [row for row in rows if value(row) in (None, "")]
    present.sort(key=lambda row: (value(row), row["system"].lower()), reverse=descending)
    missing.sort(key=lambda row: row["system"].lower())
    ordered = present + missing
    ordered.sort(key=lambda row: (DIVISION_ORDER.get(row["division"], 9), CATEGORY_ORDER[row["category"]]))
    rows[:] = ordered
