"""Scoring of the rounds whose rules come from the official tables (v2.1 on).

The figure is read from the reported run's detail log (`:::MLLOG`), under the key the round's
table names for the model and the scenario LoadGen ran (tokens per second for the LLMs, completed
samples per second for Server from v4.1, the early-stopping latency estimate for SingleStream and
MultiStream, in ms). A result folder whose scenario differs from the run's is inferred from it as
the official checker does (Offline from SingleStream or MultiStream, MultiStream from
SingleStream). Power results (`performance/power/`) get their power figure and efficiency here
too (power.py). Model-level rule: each benchmark of a system has the scenarios its category needs.
"""

from __future__ import annotations

from functools import partial

from mlperf_check.finding_sources import checker_version
from mlperf_check.inference.logs import to_number
from mlperf_check.inference.power import measure_power
from mlperf_check.inference.report import InferenceResult
from mlperf_check.inference.rules import (
    INTERACTIVE,
    MULTI_STREAM,
    OFFLINE,
    SERVER,
    SINGLE_STREAM,
    InferenceRound,
    ModelRule,
)
from mlperf_check.report import ERROR, INFO, WARNING, Finding
from mlperf_check.rules.facts import version_key

_finding = partial(Finding, checker="inference_scoring", checker_version=checker_version("inference_scoring"))

NS_PER_MS = 1e6
# A MultiStream query holds 8 samples (the figure inferred from a SingleStream run uses it).
MULTISTREAM_SAMPLES = 8
LATENCY_SCENARIOS = (SINGLE_STREAM, MULTI_STREAM)
# The first round whose checker requires one of Server and Interactive where a model may have both.
ONE_OF_SERVER_OR_INTERACTIVE_FROM = "v5.1"
# The first round whose checker counts the scenario folders a model has, not its accepted results.
SCENARIOS_BY_FOLDER_FROM = "v6.0"


def score_from_tables(result: InferenceResult, rules: InferenceRound, model: ModelRule | None) -> None:
    run = result.first_run
    result.min_duration_ms = rules.min_duration_ms
    if run is None or run.detail is None or not run.detail.results:
        return  # the layout checker reports the missing log, the parser an unreadable one
    detail = run.detail
    ran = _ran_scenario(detail, result.scenario)
    table = rules.table
    keys = model.result_keys if model else table["result_fields"]
    key = keys.get(ran) or table["result_fields"].get(ran, "")
    value = to_number(detail.results.get(key))
    result.metric_name = key
    unit_model = result.model_folder if table["units_keyed_by"] == "folder" else result.model
    units = {**table["default_units"], **table["units"].get(unit_model, {})}
    result.metric_unit = units.get(result.scenario, "")
    result.metric_direction = "lower" if result.scenario in LATENCY_SCENARIOS else "higher"
    if value is None:
        run.findings.append(
            _finding(
                ERROR,
                "metric_missing",
                f"no '{key}' figure in the detail log",
                f"{run.folder}/mlperf_log_detail.txt",
                expected=key,
            )
        )
        return
    if ran in LATENCY_SCENARIOS:
        value /= NS_PER_MS
    if ran != result.scenario and not (result.scenario == INTERACTIVE and ran == SERVER):
        value = inferred_figure(result, ran, value, detail)
    result.metric_value = value
    if ran == OFFLINE:
        samples = to_number(detail.effective.get("samples_per_query"))
        result.query_count = None if samples is None else int(samples)
        result.min_query_count = model.offline_min_samples if model else None
    else:
        count = to_number(detail.results.get("result_query_count"))
        result.query_count = None if count is None else int(count)
    if detail.first_ts_ms is not None and detail.last_ts_ms is not None:
        result.duration_ms = detail.last_ts_ms - detail.first_ts_ms
    if model is not None:
        latency = model.latency_constraint_ns.get(ran)
        if latency:
            result.latency_bound_ms, result.latency_percentile = latency / NS_PER_MS, 0.99
        limits = rules.token_limits(model, result.scenario, ran)
        ttft = to_number(detail.results.get("result_first_token_99.00_percentile_latency_ns"))
        tpot = to_number(detail.results.get("result_time_per_output_token_99.00_percentile_ns"))
        if ttft is not None or tpot is not None:
            result.token_latency = {
                "ttft_p99_ms": None if ttft is None else ttft / NS_PER_MS,
                "tpot_p99_ms": None if tpot is None else tpot / NS_PER_MS,
                "ttft_limit_ms": limits["ttft_ns"] / NS_PER_MS if limits else None,
                "tpot_limit_ms": limits["tpot_ns"] / NS_PER_MS if limits else None,
            }
    _power(result, rules, run)


def system_info(system: dict | None) -> dict:
    """What per-accelerator and per-category views need from a system description."""
    if not system:
        return {}

    def whole(key: str) -> int | None:
        value = to_number(system.get(key))
        return int(value) if value is not None and value == int(value) and value > 0 else None

    nodes, per_node = whole("number_of_nodes"), whole("accelerators_per_node")
    return {
        "availability": str(system.get("status", "")).strip().lower(),
        "nodes": nodes,
        "accelerators_per_node": per_node,
        "accelerators": nodes * per_node if nodes and per_node else None,
        "accelerator": str(system.get("accelerator_model_name", "")).strip(),
    }


def _ran_scenario(detail, folder_scenario: str) -> str:
    from mlperf_check.inference.detect import normalize_scenario

    return normalize_scenario(str(detail.effective.get("scenario", ""))) or folder_scenario


def inferred_figure(result: InferenceResult, ran: str, value: float, detail) -> float:
    result.inferred_from = ran
    result.findings.append(
        _finding(INFO, "inferred", f"{result.scenario} figure inferred from a {ran} run", result.folder)
    )
    if result.scenario == OFFLINE and ran == SINGLE_STREAM:
        return to_number(detail.results.get("result_qps_without_loadgen_overhead")) or 0.0
    if result.scenario == OFFLINE and ran == MULTI_STREAM:
        samples = to_number(detail.effective.get("samples_per_query")) or 0.0
        mean = to_number(detail.results.get("result_mean_query_latency_ns")) or 0.0
        return samples * 1000 / (mean / NS_PER_MS) if mean else 0.0
    if result.scenario == MULTI_STREAM and ran == SINGLE_STREAM:
        return (
            (to_number(detail.results.get("early_stopping_latency_ms")) or 0.0)
            * MULTISTREAM_SAMPLES
            / NS_PER_MS
        )
    result.findings.append(
        _finding(
            ERROR,
            "scenario_mismatch",
            f"a {result.scenario} result cannot be inferred from a {ran} run",
            result.folder,
            expected=result.scenario,
            actual=ran,
        )
    )
    return value


def _power(result: InferenceResult, rules: InferenceRound, run) -> None:
    """A result with performance/power/: the power figure of its timed run (power.py)."""
    perf_dir = _performance_dir(result, run)
    if perf_dir is None or not (perf_dir / "power").is_dir():
        return
    measured = measure_power(
        run.path_on_disk, run.detail, result.scenario, result.inferred_from, rules.table["power_check"]
    )
    folder = run.folder.rsplit("/", 1)[0]  # performance/
    result.findings.extend(
        _finding(ERROR, code, message, f"{folder}/{file}") for code, message, file in measured.errors
    )
    result.findings.extend(
        _finding(WARNING, code, message, f"{folder}/{file}") for code, message, file in measured.warnings
    )
    if measured.value is None or result.metric_value is None:
        return
    result.power_value = measured.value
    result.power_unit = rules.table["power_units"][result.scenario]
    if result.scenario in (OFFLINE, SERVER, INTERACTIVE):
        result.power_efficiency = result.metric_value / measured.value  # samples (or tokens) per joule
    else:
        samples = 1 if result.scenario == SINGLE_STREAM else MULTISTREAM_SAMPLES
        result.power_efficiency = samples * 1000 / measured.value  # samples per joule from mJ per query


def _performance_dir(result: InferenceResult, run):
    return None if run.path_on_disk is None else run.path_on_disk.parent


def submitter_findings(
    rules: InferenceRound, submitter, results: list[InferenceResult], systems: dict
) -> list[Finding]:
    """The rules about a submitter folder as a whole: each benchmark's required scenarios (in the
    closed division they reject the benchmark's results too); in v5.1 the calibration document and
    no system description or measurements folder without results (they reject no single result)."""
    out = required_scenarios(rules, results, systems, submitter.rel)
    root = submitter.root
    if rules.table["calibration_doc"] and submitter.division != "open":
        if (
            not (root / "calibration.md").is_file()
            and not (root / "documentation" / "calibration.md").is_file()
        ):
            out.append(
                _finding(
                    ERROR,
                    "calibration_doc",
                    "a closed submission documents its calibration in calibration.md or documentation/calibration.md",
                    submitter.rel,
                )
            )
    if rules.table["all_systems_with_results"]:
        with_results = {p.name for p in (root / "results").iterdir() if p.is_dir()}
        described = {p.stem for p in (root / "systems").glob("*.json")}
        measured = (
            {p.name for p in (root / "measurements").iterdir() if p.is_dir()}
            if (root / "measurements").is_dir()
            else set()
        )
        for kind, names in (("systems", described), ("measurements", measured)):
            idle = sorted(names - with_results)
            if idle:
                out.append(
                    _finding(
                        ERROR,
                        "system_without_results",
                        f"{kind}/ names systems with no results: {', '.join(idle)}",
                        f"{submitter.rel}/{kind}" if submitter.rel else kind,
                    )
                )
    return out


def required_scenarios(
    rules: InferenceRound, results: list[InferenceResult], systems: dict, prefix: str
) -> list[Finding]:
    """Each benchmark of a system has the scenarios its category (system_type) requires, among its
    accepted results (closed: an error on the model and on each of its results, which the official
    checker rejects with the model; open: a warning)."""
    groups: dict[tuple[str, str, str], list[InferenceResult]] = {}
    for result in results:
        if result.model:
            groups.setdefault((result.division, result.system, result.model_folder), []).append(result)
    out = []
    for (division, system, folder), members in groups.items():
        model = members[0].model
        system_type = str((systems.get(system) or {}).get("system_type", ""))
        required = rules.required_scenarios(model, system_type)
        where = f"{prefix}/results/{system}/{folder}" if prefix else f"results/{system}/{folder}"
        if required is None:
            continue  # the result checker reports a model the category does not have
        if version_key(rules.version) >= version_key(SCENARIOS_BY_FOLDER_FROM):
            present = {r.scenario for r in members}  # the folders there (loader.check_scenarios)
        else:
            present = {r.scenario for r in members if r.valid}  # the results it accepted
        if (
            division != "open"
            and SERVER in required | rules.optional_scenarios(model, system_type)
            and INTERACTIVE in required | rules.optional_scenarios(model, system_type)
        ):
            # Where a model has both, the closed division needs one of Server and Interactive (v5.1 on).
            if present & {SERVER, INTERACTIVE}:
                present |= {SERVER, INTERACTIVE}
            elif version_key(rules.version) >= version_key(ONE_OF_SERVER_OR_INTERACTIVE_FROM):
                required = required | {f"{SERVER} or {INTERACTIVE}"}
        missing = sorted(required - present)
        if missing:
            finding = partial(
                _finding,
                ERROR if division != "open" else WARNING,
                "required_scenarios",
                f"{model} on a '{system_type}' system needs {', '.join(sorted(required))}; "
                f"no accepted result for {', '.join(missing)}",
                expected=", ".join(sorted(required)),
                actual=", ".join(sorted(present)),
            )
            out.append(finding(where))
            if division != "open":
                # The official checker rejects the model, and with it each of its results (one it
                # refused already keeps its own reason).
                for result in [r for r in members if r.valid]:
                    result.findings.append(finding(result.folder))
    return out
