"""An automotive round's rows: its results as points, the leaderboards per model and scenario
(latency in ms, lower is better), the CSV/JSON export and MLCommons' summary_results.json of the
results its official verdict accepts (mlperf_check/automotive/summary.py, as the offline command
writes it)."""

from __future__ import annotations

from mlperf_check.automotive.rules import SUMMARY_REPOSITORY, rules_for
from mlperf_check.automotive.summary import checker_row, summary_results
from pages.system_groups import system_fields
from results.models import Result, Round

SCENARIO_ORDER = ("SingleStream", "ConstantStream")
# What each scenario's figure is (the official checker's RESULT_FIELD_NEW), in words.
FIGURES = {
    "SingleStream": "99th-percentile latency, early-stopping estimate",
    "ConstantStream": "99.9th-percentile latency at a constant query rate",
}
EXPORT_COLUMNS = [
    "result_id", "division", "submitter", "system", "system_id", "status", "accelerator", "accelerators", "model",
    "scenario", "latency_ms", "figure", "accuracy", "accuracy_target", "official_verdict", "our_verdict",
    "stricter_rules",
]


def automotive_points(user, round_: Round, benchmark: str = "") -> list[dict]:
    results = Result.objects.visible_to(user).current().for_round(round_).with_related().order_by("result_id")
    if benchmark:
        results = results.filter(benchmark__name=benchmark)
    points = []
    for result in results:
        details = result.inference or {}
        accuracy = details.get("accuracy") or {}
        points.append({
            "result_id": result.result_id,
            **system_fields(result),
            "status": result.system.status_raw,
            "model": result.benchmark.name,
            "scenario": result.scenario,
            "value": result.metric_value,
            "unit": result.metric_unit,
            "figure": FIGURES.get(result.scenario, details.get("metric_name", "")),
            "accuracy": accuracy.get("value"),
            "accuracy_kind": accuracy.get("kind", ""),
            "accuracy_target": accuracy.get("target"),
            "accuracy_printed": details.get("accuracy_printed", ""),
            "valid": result.valid,
            "official_valid": result.official_valid,
            "stricter_rules": " ".join(result.stricter_rules),
            "verdict": result.verdict,
        })
    return points


def leaderboards(points: list[dict]) -> list[dict]:
    """One board per model and scenario, each division apart, fastest first; results without a
    figure last."""
    boards: dict[tuple[str, str], list[dict]] = {}
    for point in points:
        boards.setdefault((point["model"], point["scenario"]), []).append(point)
    out = []
    for (model, scenario), rows in sorted(
        boards.items(), key=lambda item: (item[0][0], _scenario_rank(item[0][1]))
    ):
        rows.sort(key=lambda p: (p["division"], p["value"] is None, p["value"] or 0, p["system"]))
        out.append({"model": model, "scenario": scenario, "figure": FIGURES.get(scenario, ""), "rows": rows})
    return out


def _scenario_rank(scenario: str) -> int:
    return SCENARIO_ORDER.index(scenario) if scenario in SCENARIO_ORDER else len(SCENARIO_ORDER)


def export_rows(points: list[dict]) -> tuple[list[str], list[dict]]:
    rows = [{
        "result_id": p["result_id"], "division": p["division"], "submitter": p["submitter"], "system": p["system"],
        "system_id": p["system_id"], "status": p["status"], "accelerator": p["accelerator"],
        "accelerators": p["accelerators"], "model": p["model"], "scenario": p["scenario"], "latency_ms": p["value"],
        "figure": p["figure"], "accuracy": p["accuracy_printed"], "accuracy_target": p["accuracy_target"],
        "official_verdict": "VALID" if p["official_valid"] is not False else "INVALID",
        "our_verdict": "VALID" if p["valid"] else "INVALID", "stricter_rules": p["stricter_rules"],
    } for board in leaderboards(points) for p in board["rows"]]
    return EXPORT_COLUMNS, rows


def accepted_summary(user, round_: Round) -> tuple[list[str], list[dict]]:
    """summary_results.json of the results `user` may see that the official verdict accepts."""
    rules = rules_for(round_.ruleset_version or round_.version)
    results = (Result.objects.visible_to(user).current().for_round(round_).with_related()
               .filter(official_valid=True, metric_value__isnull=False).order_by("result_id"))
    rows = []
    for result in results:
        details = result.inference or {}
        rows.append(checker_row(
            submitter=_submitter_folder(result),
            division=result.division, system=result.system.system_id.removesuffix(f".{result.division}"),
            description=result.system.description or {}, model_folder=details.get("model_folder", result.benchmark.name),
            model=result.benchmark.name, scenario=result.scenario, figure=result.metric_value,
            unit=rules.table["units"].get(result.scenario, ""), accuracy=details.get("accuracy_printed", ""),
            location=_location(result), weight_data_types=(details.get("weight_data_types") or ""), version=rules.version,
        ))
    records = summary_results(rows, version=rules.version.lstrip("v"),
                              repository=SUMMARY_REPOSITORY.get(rules.version, ""))
    columns = list(records[0]) if records else []
    return columns, records


def _submitter_folder(result: Result) -> str:
    """The submitter folder the result came from: named by its package folder
    (<division>/<submitter>/results/...), else by the folder import_results read (Submission.source),
    else (an upload) its organization's name."""
    parts = result.folder.split("/")
    if "results" in parts and parts.index("results") > 0:
        return parts[parts.index("results") - 1]
    source = result.submission.source
    if source and not source.startswith("upload:"):
        return source.split(", ")[0].rstrip("/").rsplit("/", 1)[-1]
    return result.submission.organization.name


def _location(result: Result) -> str:
    """The result's folder from the top of the round, as the official checker names it."""
    if result.folder.startswith("results/"):
        return f"{result.division}/{_submitter_folder(result)}/{result.folder}"
    return result.folder
