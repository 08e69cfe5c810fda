"""The official-style summary table of a round: one row per system, one column per benchmark.

It is the dashboard's round table (results/tables.py) without filters, in the column layout of
the MLCommons result summarizer, plus our citable result ids and where each score's scaling
factor comes from ("computed" from the logs, or a recorded "decision").
"""

from __future__ import annotations

from django.http import QueryDict

from .models import Round
from .tables import DECIDED, round_table

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


def summary_rows(round_: Round, user=None, factors: str = DECIDED) -> tuple[list[str], list[dict]]:
    """Columns and rows of the summary, for the results `user` may see (None: public only), with
    the decided scores or the ones the logs give (`factors`, see results.tables.FACTOR_VIEWS)."""
    table = round_table(round_, user, QueryDict(), factors=factors)
    benchmarks = table.benchmarks
    columns = (
        SUMMARY_COLUMNS
        + ["system_id"]
        + benchmarks
        + [f"{name}_result_id" for name in benchmarks]
        + [f"{name}_factor_source" for name in benchmarks]
    )
    rows = [{**row, "availability": row["category_label"]} for row in table.rows]
    return columns, rows
