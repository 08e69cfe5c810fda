"""Snapshots of a published round: the public results, systems and runs as JSON, CSV and Parquet,
with a README naming the licence, stored numbered and checksummed by results/services/snapshots.py.

A snapshot is taken after the round's publication and after each later public change (the change
log, pages/changelog.py): `take_snapshot(round_)` is a no-op while the newest snapshot covers the
newest change. The results JSON of a training round is the official summarizer's table (the
round's summary, `summary_rows`); that of an inference round is MLCommons' summary_results.json
of the results the round's official verdict accepts (`summary_results`, the same function as the
round page's download), and an inference round adds `verdicts`: every public result with both
verdicts (`valid` ours, `official_valid`, `stricter_rules`), the round page's leaderboard export."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
from django.utils import timezone

from pages import suites
from pages.changelog import Change, public_changes
from pages.csv_rows import rows_to_csv
from pages.licence import LICENCE
from results.models import Round, Snapshot, System
from results.services.snapshots import store_snapshot

SYSTEM_COLUMNS = ["organization", "system_id", "name", "submitter", "division", "availability", "deployment",
                  "number_of_nodes", "host_processor_model_name", "host_processors_count", "accelerator_model_name",
                  "accelerators_count", "framework", "notes"]
SYSTEMS_TABLE = "the systems of the public results"


def take_snapshot(round_: Round) -> Snapshot | None:
    """A new snapshot of a published round when a public change is newer than its newest one."""
    if not round_.is_published:
        return None
    newest = public_changes(round_, limit=1)
    if not newest:
        return None
    return store_snapshot(round_, snapshot_files(round_, newest[0]), covers_event=newest[0].pk)


def snapshot_files(round_: Round, covers: Change) -> dict[str, bytes]:
    suite = suites.of_round(round_)
    own = suite.snapshot_tables(round_)
    # The results first, then the systems (every suite's), then the suite's other tables.
    tables = {"results": own.pop("results"), "systems": systems_table(round_), **own}
    descriptions = {**suite.SNAPSHOT_TABLES, "systems": SYSTEMS_TABLE}
    files: dict[str, bytes] = {}
    for name, (columns, rows) in tables.items():
        files[f"{name}.json"] = json.dumps(rows, indent=1, ensure_ascii=False, default=str).encode()
        files[f"{name}.csv"] = rows_to_csv(columns, rows).encode()
        files[f"{name}.parquet"] = _parquet(columns, rows)
    listed = {name: (descriptions[name], len(rows)) for name, (_, rows) in tables.items()}
    files["README.md"] = _readme(round_, covers, listed).encode()
    return files


def systems_table(round_: Round) -> tuple[list[str], list[dict]]:
    systems = (System.objects.visible_to(None).current().filter(submission__round=round_)
               .select_related("submission__organization").order_by("submission__organization__slug", "system_id"))
    rows = [{**{c: getattr(s, c) for c in SYSTEM_COLUMNS[1:]}, "organization": s.submission.organization.slug}
            for s in systems]
    return SYSTEM_COLUMNS, rows


def _parquet(columns: list[str], rows: list[dict]) -> bytes:
    # Every column as text where its values mix types (a score or "", a count or None).
    table = pa.Table.from_pylist(
        [{c: (None if row.get(c) in (None, "") else str(row.get(c))) for c in columns} for row in rows],
        schema=pa.schema([(c, pa.string()) for c in columns]),
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _readme(round_: Round, covers: Change, tables: dict[str, tuple[str, int]]) -> str:
    """`tables`: each table's name -> what it holds and its number of rows."""
    listing = "".join(f"- {name}.json / .csv / .parquet ({count} rows): {description}\n"
                      for name, (description, count) in tables.items())
    return (
        f"# {round_.get_suite_display()} v{round_.version}: snapshot\n\n"
        f"Taken {timezone.now():%Y-%m-%d %H:%M} UTC. It includes every public change up to the one of "
        f"{covers.date:%Y-%m-%d %H:%M} UTC ({covers.label}; `change-{covers.public_id}` in the round's "
        "change log).\n"
        "A snapshot is frozen: a later change makes a new one; every snapshot stays downloadable.\n\n"
        f"{listing}"
        "- SHA256SUMS: the SHA-256 of every file, by the name each file downloads under\n\n"
        "To check a download, run `sha256sum -c SHA256SUMS` in the folder the files are in: the one the "
        f"snapshot's archive unpacks into (`{round_.slug}-snapshot-<number>/`), or the one you saved them in "
        "(add `--ignore-missing` when you saved only some; on macOS `shasum -a 256 -c SHA256SUMS`).\n\n"
        "Parquet columns are text, as the CSV (a score, or empty).\n\n"
        f"Licence: {LICENCE}\n"
    )
