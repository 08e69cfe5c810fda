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

from mlperf_check.inference.report import PERCENTILES
from mlperf_check.inference.summary_export import SUMMARY_COLUMNS
from pages import suites
from pages.changelog import public_changes
from pages.suites.inference.tables import inference_export_rows, summary_results
from pages.tables import rows_to_csv
from results.constants import Suite
from results.models import Result, Round, Run, Snapshot, System
from results.services.snapshots import store_snapshot

LICENCE = "MLPerf results are published by MLCommons under the Apache License 2.0 (https://www.apache.org/licenses/LICENSE-2.0)."
SYSTEM_COLUMNS = ["organization", "system_id", "name", "submitter", "division", "availability", "deployment",
                  "number_of_nodes", "host_processor_model_name", "host_processors_count", "accelerator_model_name",
                  "accelerators_count", "framework", "notes"]
RUN_COLUMNS = ["result_id", "file", "sha256", "time_to_train_minutes", "run_stop_status", "compliant", "scoring",
               "scoring_reason", "seed", "global_batch_size", "epochs_to_target", "samples_to_target"]
# An inference result's performance run as LoadGen reported it (the figures of the run its score
# comes from) and the folders of all its runs (v0.5/v0.7 Server results have five).
INFERENCE_LATENCIES = {f"latency_p{float(p):g}_ms": p for p in PERCENTILES}  # "99.00" -> latency_p99_ms
INFERENCE_RUN_COLUMNS = ["result_id", "run_folders", "scenario", "loadgen_verdict", "metric", "metric_value",
                         "metric_unit", "query_count", "min_query_count", "duration_ms", "min_duration_ms",
                         "latency_percentile", "latency_bound_ms", *INFERENCE_LATENCIES]


def take_snapshot(round_: Round) -> Snapshot | None:
    """A new snapshot of a published round when a public change is newer than its newest one."""
    if not round_.is_published:
        return None
    newest = public_changes(round_, limit=1)
    if not newest:
        return None
    return store_snapshot(round_, snapshot_files(round_, newest[0].pk), covers_event=newest[0].pk)


def snapshot_files(round_: Round, covers_event: int) -> dict[str, bytes]:
    tables = {"results": results_table(round_), "systems": systems_table(round_), "runs": runs_table(round_)}
    if round_.suite == Suite.INFERENCE:
        tables["verdicts"] = inference_export_rows(None, round_, {})
    files: dict[str, bytes] = {}
    for name, (columns, rows) in tables.items():
        files[f"{name}.json"] = json.dumps(rows, indent=1, ensure_ascii=False, default=str).encode()
        files[f"{name}.csv"] = rows_to_csv(columns, rows).encode()
        files[f"{name}.parquet"] = _parquet(columns, rows)
    files["README.md"] = _readme(round_, covers_event, {n: len(rows) for n, (_, rows) in tables.items()}).encode()
    return files


def results_table(round_: Round) -> tuple[list[str], list[dict]]:
    if round_.suite != Suite.INFERENCE:
        return suites.of_round(round_).summary_rows(round_, user=None)
    return SUMMARY_COLUMNS, summary_results(None, round_)


def systems_table(round_: Round) -> tuple[list[str], list[dict]]:
    systems = (System.objects.visible_to(None).current().filter(submission__round=round_)
               .select_related("submission__organization").order_by("submission__organization__slug", "system_id"))
    rows = [{**{c: getattr(s, c) for c in SYSTEM_COLUMNS[1:]}, "organization": s.submission.organization.slug}
            for s in systems]
    return SYSTEM_COLUMNS, rows


def runs_table(round_: Round) -> tuple[list[str], list[dict]]:
    if round_.suite == Suite.INFERENCE:
        return inference_runs_table(round_)
    runs = (Run.objects.visible_to(None).current().filter(result__submission__round=round_)
            .select_related("result").order_by("result__result_id", "file"))
    return RUN_COLUMNS, [{**{c: getattr(r, c) for c in RUN_COLUMNS[1:]}, "result_id": r.result.result_id} for r in runs]


def inference_runs_table(round_: Round) -> tuple[list[str], list[dict]]:
    """One row per public result: its LoadGen performance run (an inference result keeps no Run
    rows; what the logs said is in Result.inference)."""
    rows = []
    for result in Result.objects.visible_to(None).current().for_round(round_).order_by("result_id"):
        details = result.inference or {}
        latencies = details.get("latency_ms") or {}
        rows.append({
            "result_id": result.result_id, "run_folders": " ".join(details.get("runs") or []),
            "scenario": result.scenario, "loadgen_verdict": details.get("loadgen_verdict"),
            "metric": details.get("metric_name"), "metric_value": result.metric_value, "metric_unit": result.metric_unit,
            **{name: details.get(name) for name in ("query_count", "min_query_count", "duration_ms", "min_duration_ms",
                                                    "latency_percentile", "latency_bound_ms")},
            **{column: latencies.get(percentile) for column, percentile in INFERENCE_LATENCIES.items()},
        })
    return INFERENCE_RUN_COLUMNS, rows


def _parquet(columns: list[str], rows: list[dict]) -> bytes:
    # Every column as text where its values mix types (a score or "", a count or None).
    table = pa.Table.from_pylist(
        [{c: (None if row.get(c) in (None, "") else str(row.get(c))) for c in columns} for row in rows],
        schema=pa.schema([(c, pa.string()) for c in columns]),
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _readme(round_: Round, covers_event: int, counts: dict[str, int]) -> str:
    shape = ("MLCommons' summary_results.json of the results the round's official verdict accepts (ID: the "
             "system's entry, official where MLCommons published one)" if round_.suite == Suite.INFERENCE
             else "the official result summarizer's table")
    verdicts = (f"- verdicts.json / .csv / .parquet ({counts['verdicts']} rows): every public result with both "
                "verdicts: `official_valid` (the round's official checker's), `valid` (ours) and `stricter_rules` "
                "(our rules that reject what the official checker accepts, docs/differences.md)\n"
                if "verdicts" in counts else "")
    runs = ("each result's LoadGen performance run: its folders, LoadGen's verdict, the scenario metric, "
            "query count, duration and latency percentiles (ms)" if round_.suite == Suite.INFERENCE
            else "each run's file, digest and time to train")
    return (
        f"# {round_.get_suite_display()} v{round_.version}: snapshot\n\n"
        f"Taken {timezone.now():%Y-%m-%d %H:%M} UTC, after public change {covers_event} of the round's change log.\n"
        "A snapshot is frozen: a later change makes a new one; every snapshot stays downloadable.\n\n"
        f"- results.json / .csv / .parquet ({counts['results']} rows): {shape}\n"
        f"- systems.json / .csv / .parquet ({counts['systems']} rows): the systems of the public results\n"
        f"- runs.json / .csv / .parquet ({counts['runs']} rows): {runs}\n"
        f"{verdicts}"
        "- SHA256SUMS: the SHA-256 of every file, by the name each file downloads under\n\n"
        "To check a download, run `sha256sum -c SHA256SUMS` in the folder the files are in: the one the "
        f"snapshot's archive unpacks into (`{round_.slug}-snapshot-<number>/`), or the one you saved them in "
        "(add `--ignore-missing` when you saved only some; on macOS `shasum -a 256 -c SHA256SUMS`).\n\n"
        "Parquet columns are text, as the CSV (a score, or empty).\n\n"
        f"Licence: {LICENCE}\n"
    )
