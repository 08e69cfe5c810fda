"""The training round table: one row per system, one column per benchmark, with its filters and
sorting; plain data, so that the page, its CSV and JSON downloads and the summary are one table."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from django.db.models import QuerySet

from pages.caching import rows_seen_by, view_name
from pages.normalised import DECIDED
from pages.suites.time_to_train.filters import ResultFilters
from pages.system_groups import CATEGORY_LABELS, CATEGORY_ORDER, DIVISION_ORDER, category_of
from results.constants import FactorSource
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


# What places a system's row in the table: its group and the values it sorts by (a query of the
# round's systems), and its results' benchmarks, scores and energies (a narrow query of them).
PLACING_SYSTEM_VALUES = (
    "pk", "division", "availability", "deployment", "submitter", "submission__organization__name", "name",
    "number_of_nodes", "accelerators_count", "accelerator_model_name", "framework",
)
# The rest of a row, read for the rows shown (a page) or downloaded (all of them).
FILLING_VALUES = (
    "id", "system_id", "result_id", "score_minutes", "computed_score_minutes", "factor_source", "scaling_factor",
    "score_note", "energy_joules", "benchmark__name", "citable__entry", "citable__local",
    "submission__organization__slug", "system__system_id", "system__host_processor_model_name",
    "system__host_processors_count", "system__notes",
)


@dataclass
class RoundTable:
    benchmarks: list[str]
    rows: list[dict]
    filters: RoundFilters
    # The benchmarks with a result among the rows: the page's columns (the exports keep every
    # benchmark's). A benchmark nobody entered is named above the table, not given an empty column.
    shown_benchmarks: list[str] = field(default_factory=list)
    # The benchmarks with an energy to train among the rows (training v4.0+ power results): each
    # gets an energy column beside its time, on the page and in the exports; the others none.
    energy_benchmarks: list[str] = field(default_factory=list)
    # What fill() reads: the round, the results the rows are of (filtered), and which factors their
    # scores take.
    round_: Round | None = None
    results: QuerySet | None = None
    factors: str = DECIDED

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
        columns = self.columns
        return [{key: row[key] for key in columns} for row in self.rows]

    def fill(self, rows: list[dict]) -> None:
        """Complete `rows` (placed rows of this table, e.g. a page of them) in place: the system's
        other fields, and per benchmark its result (id, score, note, factor, errors)."""
        if not rows:
            return
        by_system = {row["pk"]: row for row in rows}
        for row in rows:
            row["cells"] = {}
        whole = len(rows) == len(self.rows)
        results = list((self.results if whole else self.results.filter(system_id__in=by_system)).values(*FILLING_VALUES))
        # Error findings of each result: a published result with errors carries a visible marker.
        findings = Finding.objects.filter(submission__round=self.round_)
        error_counts = (findings if whole else findings.filter(result__in=[r["id"] for r in results])).unwaived_error_counts()
        decided_scores = self.factors == DECIDED
        for result in results:
            row = by_system[result["system_id"]]
            if "system_id" not in row:
                row.update({
                    "organization": result["submission__organization__slug"],
                    "system_id": result["system__system_id"],
                    "host_processor_model_name": result["system__host_processor_model_name"],
                    "host_processors_count": result["system__host_processors_count"],
                    "notes": result["system__notes"],
                    "entry": result["citable__entry"],
                    "entry_local": result["citable__local"],
                })
            decided = decided_scores and result["factor_source"] == FactorSource.DECISION
            minutes = result["score_minutes"] if decided_scores else result["computed_score_minutes"]
            row["cells"][result["benchmark__name"]] = {
                "minutes": minutes,
                "display": "" if minutes is None else f"{minutes:.2f}",
                "result_id": result["result_id"],
                "note": result["score_note"],
                "factor_source": FactorSource.DECISION if decided else FactorSource.COMPUTED,
                "decided_factor": result["scaling_factor"] if decided else None,
                "errors": error_counts.get(result["id"], 0),
                "energy": result["energy_joules"],
            }
        for row in rows:
            for name in self.benchmarks:
                cell = row["cells"].get(name) or {"minutes": None, "result_id": "", "note": "", "factor_source": "",
                                                  "energy": None}
                row[name] = cell["minutes"]
                row[f"{name}_energy_joules"] = cell["energy"]
                row[f"{name}_result_id"] = cell["result_id"]
                row[f"{name}_factor_source"] = cell["factor_source"]


def round_table(round_: Round, user, query, factors: str = DECIDED, placed_only: bool = False) -> RoundTable:
    """The round's results table for `user`: a row per system, every row in full (the downloads).
    `factors`: DECIDED scores (what the pages show) or COMPUTED ones (every factor from the logs).
    `placed_only`: each row with only what places it (its group, order and benchmarks), for a page
    of them to be filled (RoundTable.fill): a large round's page reads 100 rows in full, not 2,000."""
    benchmark_names = dict(round_.benchmarks.values_list("pk", "name"))
    all_benchmarks = sorted(benchmark_names.values())
    filters = RoundFilters.from_query(query, all_benchmarks)
    benchmarks = filters.benchmarks or all_benchmarks

    def visible(viewer):
        return filters.apply(Result.objects.visible_to(viewer).current().for_round(round_))

    # The rows placed are kept for the views many users share under the round's version, the
    # filters, the order and the factors: another page of the same view, or its download, starts
    # from them.
    placed = rows_seen_by(user, round_, view_name("training-placed", [asdict(filters), factors]),
                          lambda viewer: _placed(round_, visible(viewer), benchmark_names, benchmarks, factors,
                                                 filters.sort))
    results = visible(user)
    table = RoundTable(
        benchmarks=benchmarks, rows=placed["rows"], filters=filters,
        shown_benchmarks=placed["shown_benchmarks"], energy_benchmarks=placed["energy_benchmarks"],
        round_=round_, results=results, factors=factors,
    )
    if not placed_only:
        table.fill(table.rows)
    return table


def _placed(round_: Round, results, benchmark_names: dict[int, str], benchmarks: list[str], factors: str,
            sort: str) -> dict:
    """Every row of the table placed (PLACING_SYSTEM_VALUES) and sorted (by a system's value, or its
    score in a benchmark); the benchmarks with a result (`shown_benchmarks`) and with an energy
    (`energy_benchmarks`) among them. Plain data (JSON), as small as it can be: it may be kept in
    the cache, and each page of a view reads it."""
    minutes = "score_minutes" if factors == DECIDED else "computed_score_minutes"
    # Plain tuples, not model instances or dicts: a large round has 12,000 results (2,000 systems).
    rows: dict[int, dict] = {}
    entered: set[str] = set()  # the benchmarks with a result among the rows
    with_energy: set[str] = set()
    for system, benchmark, division, score, energy in results.values_list(
            "system_id", "benchmark_id", "division", minutes, "energy_joules"):
        row = rows.get(system)
        if row is None:
            row = rows[system] = {"pk": system, "division": division}
        name = benchmark_names[benchmark]
        row[name] = score  # to sort by
        entered.add(name)
        if energy is not None:
            with_energy.add(name)
    systems = System.objects.filter(submission__round=round_).order_by().values_list(*PLACING_SYSTEM_VALUES)
    for (pk, division, availability, deployment, submitter, organization, system_name, nodes, accelerators,
         accelerator, framework) in systems:
        row = rows.get(pk)
        if row is None:
            continue  # no visible result in the table
        category = category_of(availability, deployment)
        row.update({
            "division": row["division"] or division,
            "category": category,
            "category_label": CATEGORY_LABELS[category],
            "submitter": submitter or organization,
            "system": system_name,
            "number_of_nodes": nodes,
            "accelerator_model_name": accelerator,
            "accelerators_count": accelerators,
            "framework": framework,
        })
    placed = list(rows.values())
    _sort_rows(placed, sort)
    for row in placed:  # sorted: the scores are filled again with the rest of a row (RoundTable.fill)
        for name in entered:
            row.pop(name, None)
    return {
        "rows": placed,
        "shown_benchmarks": [name for name in benchmarks if name in entered],
        "energy_benchmarks": [name for name in benchmarks if name in with_energy],
    }


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
