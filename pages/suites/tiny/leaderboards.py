"""Tiny results as plain rows: what the leaderboards, their exports, the charts and the snapshots
read. Every query starts from `visible_to(user)`; a leaderboard is one benchmark, ranked by median
throughput (inf./sec., higher is better), valid results first."""

from __future__ import annotations

from pages.system_groups import system_fields
from results.models import Result, Round

# Every figure's unit is in its column name or beside it.
EXPORT_COLUMNS = [
    "result_id", "division", "category", "submitter", "system", "system_id", "benchmark", "throughput_inf_per_s",
    "latency_ms", "accuracy_metric", "accuracy", "accuracy_target", "energy", "energy_unit", "false_positives",
    "false_negatives", "duty_cycle", "runner", "valid", "official_valid", "stricter_rules", "processor",
    "accelerator", "framework",
]
# What each accuracy kind is called on the pages.
ACCURACY_LABELS = {"top-1": "Top-1 (%)", "auc": "AUC", "fps_fns": "F1"}


def tiny_points(user, round_: Round, benchmark: str = "") -> list[dict]:
    results = Result.objects.visible_to(user).current().for_round(round_).with_related().order_by("result_id")
    if benchmark:
        results = results.filter(benchmark__name=benchmark)
    points = []
    for result in results:
        details = result.inference or {}
        accuracy = details.get("accuracy") or {}
        energy = details.get("energy") or {}
        streaming = details.get("streaming") or {}
        throughput = result.metric_value
        target = accuracy.get("target")
        points.append({
            "result_id": result.result_id,
            **system_fields(result),
            "benchmark": result.benchmark.name,
            "throughput": throughput,
            # The final report's figure: the latency of one inference, 1000 / throughput.
            "latency_ms": 1000 / throughput if throughput else None,
            "accuracy_kind": accuracy.get("kind", ""),
            "accuracy_metric": ACCURACY_LABELS.get(accuracy.get("kind", ""), ""),
            "accuracy": accuracy.get("value"),
            # As the results file prints it (Top-1 "86.0", AUC "0.862"); F1 to three decimals.
            "accuracy_shown": (f"{accuracy['value']:.3f}" if accuracy.get("kind") == "fps_fns"
                               and accuracy.get("value") is not None else accuracy.get("printed", "")),
            "accuracy_target": (f"FP ≤ {target[0]}, FN ≤ {target[1]}" if isinstance(target, list)
                                else (f"≥ {target:g}" if target is not None else "")),
            "energy": energy.get("value"),
            "energy_unit": energy.get("unit", ""),
            "false_positives": streaming.get("false_positives"),
            "false_negatives": streaming.get("false_negatives"),
            "duty_cycle": streaming.get("duty_cycle"),
            "runner": details.get("runner", ""),
            "valid": result.valid,
            "official_valid": result.official_valid,
            "stricter_rules": " ".join(result.stricter_rules),
            "verdict": result.verdict,
            "processor": result.system.host_processor_model_name,
            "framework": result.system.framework,
        })
    return points


def ranked(points: list[dict]) -> list[dict]:
    """Valid first, then by throughput, highest first (none last)."""
    return sorted(points, key=lambda p: (not p["valid"], p["throughput"] is None, -(p["throughput"] or 0)))


def leaderboards(points: list[dict], benchmarks: list[str]) -> list[dict]:
    """One board per benchmark (in the round's order), each row with its rank among the valid ones."""
    boards = []
    for name in benchmarks:
        rows = ranked([p for p in points if p["benchmark"] == name])
        rank = 0
        for row in rows:
            rank += row["valid"] and row["throughput"] is not None
            row["rank"] = rank if row["valid"] and row["throughput"] is not None else None
        boards.append({"benchmark": name, "rows": rows, "has_energy": any(p["energy"] is not None for p in rows),
                       "streaming": any(p["accuracy_kind"] == "fps_fns" for p in rows)})
    return boards


def export_rows(points: list[dict]) -> tuple[list[str], list[dict]]:
    rows = [{column: point.get(column) for column in EXPORT_COLUMNS}
            | {"throughput_inf_per_s": point["throughput"]} for point in ranked(points)]
    return EXPORT_COLUMNS, sorted(rows, key=lambda r: r["benchmark"])
