"""The training round table: one row per system, one column per benchmark, with its filters and
sorting; plain data, so that the page, its CSV and JSON downloads and the summary are one table."""

from __future__ import annotations

from dataclasses import dataclass, field

from pages.normalised import DECIDED
from pages.system_groups import (
    CATEGORIES,
    CATEGORY_LABELS,
    CATEGORY_ORDER,
    DIVISION_ORDER,
    accelerator_choices,
    accelerator_key,
    category_of,
    category_q,
    with_accelerator,
)
from results.constants import Deployment, FactorSource
from results.models import Finding, Result, Round, System

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


def _positive_int(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


@dataclass
class RoundFilters:
    """The round page's filters and sort order, as read from (and written back to) the query string."""

    division: str = ""
    category: str = ""
    deployment: str = ""
    submitter: str = ""  # organization slug
    accelerator: str = ""
    acc_min: int | None = None
    acc_max: int | None = None
    benchmarks: list[str] = field(default_factory=list)
    verified: bool = False  # only results a verification reproduced (verify/)
    sort: str = ""

    @classmethod
    def from_query(cls, query, benchmark_names: list[str]) -> RoundFilters:
        division = query.get("division", "")
        category = query.get("category", "")
        deployment = query.get("deployment", "")
        sort = query.get("sort", "")
        sort_key = sort.lstrip("-")
        return cls(
            division=division if division in DIVISION_ORDER else "",
            category=category if category in CATEGORY_LABELS else "",
            deployment=deployment if deployment in (Deployment.ON_PREMISE, Deployment.CLOUD) else "",
            submitter=query.get("submitter", "").strip(),
            accelerator=query.get("accelerator", "").strip(),
            acc_min=_positive_int(query.get("acc_min")),
            acc_max=_positive_int(query.get("acc_max")),
            benchmarks=[name for name in query.getlist("benchmark") if name in benchmark_names],
            verified=query.get("verified") == "1",
            sort=sort if sort_key in SORT_KEYS or sort_key in benchmark_names else "",
        )

    def apply(self, results):
        if self.division:
            results = results.filter(division=self.division)
        if self.category:
            results = results.filter(category_q(self.category))
        if self.deployment:
            results = results.filter(system__deployment=self.deployment)
        if self.submitter:
            results = results.filter(submission__organization__slug=self.submitter)
        if self.accelerator:
            results = with_accelerator(results, self.accelerator)
        if self.acc_min is not None:
            results = results.filter(system__accelerators_count__gte=self.acc_min)
        if self.acc_max is not None:
            results = results.filter(system__accelerators_count__lte=self.acc_max)
        if self.benchmarks:
            results = results.filter(benchmark__name__in=self.benchmarks)
        if self.verified:
            results = results.filter(verification_jobs__outcome="reproduced").distinct()
        return results

    @property
    def accelerator_key(self) -> str:
        return accelerator_key(self.accelerator)

    @property
    def active(self) -> bool:
        return any([self.division, self.category, self.deployment, self.submitter, self.accelerator,
                    self.acc_min is not None, self.acc_max is not None, self.benchmarks, self.verified])


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

    def groups(self) -> list[dict]:
        """Rows grouped by (division, category), in the MLCommons order."""
        groups: list[dict] = []
        for row in self.rows:
            if not groups or groups[-1]["key"] != (row["division"], row["category"]):
                groups.append({"key": (row["division"], row["category"]), "division": row["division"],
                               "category": row["category_label"], "rows": []})
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
    return RoundTable(benchmarks=benchmarks, rows=table_rows, filters=filters, options=_options(round_, user),
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


def _options(round_: Round, user) -> dict:
    """Choices for the filter form: what the visible systems of the round hold."""
    systems = (
        System.objects.visible_to(user)
        .current()
        .filter(submission__round=round_)
        .values_list("submission__organization__slug", "submission__organization__name", "accelerator_model_name")
    )
    submitters: dict[str, str] = {}
    accelerators: list[str] = []
    for slug, name, accelerator in systems:
        submitters[slug] = name
        accelerators.append(accelerator)
    return {
        "divisions": [("closed", "Closed"), ("open", "Open")],
        "categories": CATEGORIES,
        "deployments": [(Deployment.ON_PREMISE.value, "On-premise"), (Deployment.CLOUD.value, "Cloud")],
        "submitters": sorted(submitters.items(), key=lambda item: item[1].lower()),
        "accelerators": accelerator_choices(accelerators),
    }
