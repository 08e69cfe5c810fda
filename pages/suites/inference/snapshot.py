"""An inference round's snapshot tables (pages/snapshots.py adds the systems): MLCommons'
summary_results.json of the results the round's official verdict accepts, each result's LoadGen
performance run, and every public result with both verdicts."""

from __future__ import annotations

from django.http import QueryDict

from mlperf_check.inference.report import PERCENTILES
from mlperf_check.inference.summary_export import SUMMARY_COLUMNS
from results.models import Result, Round

from .leaderboards import inference_export_rows, summary_results

# An inference result's performance run as LoadGen reported it (the figures of the run its score
# comes from) and the folders of all its runs (v0.5/v0.7 Server results have five).
INFERENCE_LATENCIES = {f"latency_p{float(p):g}_ms": p for p in PERCENTILES}  # "99.00" -> latency_p99_ms
INFERENCE_RUN_COLUMNS = ["result_id", "run_folders", "scenario", "loadgen_verdict", "metric", "metric_value",
                         "metric_unit", "query_count", "min_query_count", "duration_ms", "min_duration_ms",
                         "latency_percentile", "latency_bound_ms", *INFERENCE_LATENCIES]
# What the snapshot's README says of each table.
SNAPSHOT_TABLES = {
    "results": "MLCommons' summary_results.json of the results the round's official verdict accepts (ID: the "
               "system's entry, official where MLCommons published one)",
    "runs": "each result's LoadGen performance run: its folders, LoadGen's verdict, the scenario metric, "
            "query count, duration and latency percentiles (ms)",
    "verdicts": "every public result with both verdicts: `official_valid` (the round's official checker's), "
                "`valid` (ours) and `stricter_rules` (our rules that reject what the official checker accepts, "
                "docs/differences.md)",
}


def snapshot_tables(round_: Round) -> dict[str, tuple[list[str], list[dict]]]:
    return {
        "results": (SUMMARY_COLUMNS, summary_results(None, round_)),
        "runs": inference_runs_table(round_),
        "verdicts": inference_export_rows(None, round_, QueryDict()),
    }


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
