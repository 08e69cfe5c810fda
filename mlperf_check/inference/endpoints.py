"""Results measured by the MLCommons Endpoints client (Inference v6.1 on), in place of LoadGen.

Such a scenario folder has no `performance/run_1/` LoadGen logs but the client's own files:
`performance/result_summary.json` (counts, duration, samples and tokens per second, latency, TTFT
and TPOT percentiles), `accuracy/accuracy_results.json` (the accuracy score and the samples scored)
and `config.yaml` (the load type, the seeds, the minimum duration). The round's official checker
(mlcommons/inference b66003e, parsers/endpoints_parser.py) maps these onto LoadGen's keys and runs
most of its LoadGen checks on them; this module reads the same facts under their own names and
applies the same rules (docs/differences.md "Endpoints-client results"). Never raises on input:
an unreadable file is an error finding.
"""

from __future__ import annotations

import json
from dataclasses import field
from functools import partial
from pathlib import Path
from typing import Any

from mlperf_check.finding_sources import checker_version
from mlperf_check.inference.detect import SUMMARY
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
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import ERROR, INFO, Finding

_finding = partial(
    Finding, checker="inference_endpoints", checker_version=checker_version("inference_endpoints")
)

RESULT_SUMMARY = "result_summary.json"
ACCURACY_RESULTS = "accuracy_results.json"
CONFIG_FILES = ("config.yaml", "config.yml")
NS_PER_MS = 1e6

# config.yaml `type` -> the scenario it measures (the client's "online" load is LoadGen's Server;
# a Server run in an Interactive folder is the Interactive result, as with LoadGen).
_LOAD_TYPES = {
    "offline": OFFLINE,
    "online": SERVER,
    "server": SERVER,
    "interactive": INTERACTIVE,
    "singlestream": SINGLE_STREAM,
    "multistream": MULTI_STREAM,
}
# The figures an endpoints result can have, by the client's own names. Which one a scenario has is
# the round's data: `endpoints_result_fields` (the checker's RESULT_FIELD_ENDPOINTS, by LoadGen key),
# or the model's own key of the LoadGen table (RESULT_FIELD_BENCHMARK_OVERWRITE), which the official
# checker applies only where the scenario it compares is spelled as the table spells it: never for
# Offline (it compares config.yaml's lower-case `offline`).
SAMPLES_PER_SECOND = "samples_per_second"  # n_samples_issued / duration (Offline)
COMPLETED_SAMPLES_PER_SECOND = "completed_samples_per_second"  # the client's `qps`
TOKENS_PER_SECOND = "tokens_per_second"  # the client's `tps`
MEAN_LATENCY = "mean_latency"
# LoadGen key -> the figure of the client's files it stands for.
_LOADGEN_KEYS = {
    "result_tokens_per_second": TOKENS_PER_SECOND,
    "result_completed_tokens_per_second": TOKENS_PER_SECOND,
    "result_samples_per_second": SAMPLES_PER_SECOND,
    "result_completed_samples_per_sec": COMPLETED_SAMPLES_PER_SECOND,
    "result_mean_latency_ns": MEAN_LATENCY,
}
_UNITS = {
    SAMPLES_PER_SECOND: "samples/s",
    COMPLETED_SAMPLES_PER_SECOND: "samples/s",
    TOKENS_PER_SECOND: "tokens/s",
    MEAN_LATENCY: "ms",
}
# The official checker compares the endpoints accuracy score with its target for this model only
# (accuracy_check.py); for the others it only asks that there is a score. Ours compares every model.
OFFICIALLY_SCORED = frozenset({"qwen3-vl-235b-a22b"})
# The finding codes our verdict counts and the official one does not (pipeline.official_verdict):
# an accuracy the official checker does not compare, and failed samples (its LoadGen-error check
# counts the parser's error messages, of which an endpoints log has none).
STRICTER_ONLY = frozenset({"endpoints_accuracy_unchecked", "endpoints_failed_samples"})
# The e2e-rag workloads run one pass over their dataset: no minimum duration (performance_check.py).
NO_MIN_DURATION = frozenset({"e2e-rag-qna", "e2e-rag-db"})
PERCENTILE_KEYS = ("50.0", "90.0", "95.0", "99.0", "99.9")


def holds_endpoints_result(scenario_dir: Path) -> bool:
    """A scenario folder the Endpoints client measured: its result summary, and no LoadGen log
    (the official loader reads the client's files only where LoadGen's are absent)."""
    performance = scenario_dir / "performance"
    if not (performance / RESULT_SUMMARY).is_file():
        return False
    return not (performance / SUMMARY).is_file() and not any(performance.glob(f"run_*/{SUMMARY}"))


@dataclass
class EndpointsRun:
    folder: str  # the scenario folder, relative to the checked path
    summary: dict[str, Any] = field(default_factory=dict)  # performance/result_summary.json
    accuracy: dict[str, Any] = field(default_factory=dict)  # accuracy/accuracy_results.json
    config: dict[str, Any] = field(default_factory=dict)  # config.yaml
    findings: list[Finding] = field(default_factory=list)

    def setting(self, *path: str) -> Any:
        """A value of config.yaml (`settings`, `runtime`, `min_duration_ms`), None when absent."""
        value: Any = self.config
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        return value

    def early_stopping(self, metric: str, percentile: str = "99.0") -> float | None:
        """A percentile of `latency`, `ttft` or `tpot` as the official checker reads it: the
        early-stopping estimate, in ns."""
        return _number((self.summary.get(metric) or {}).get("early_stopping_percentiles", {}).get(percentile))

    def figure(self, name: str) -> float | None:
        summary = self.summary
        issued, duration = _number(summary.get("n_samples_issued")), _number(summary.get("duration_ns"))
        if name == SAMPLES_PER_SECOND:
            return issued / (duration / 1e9) if issued and duration else None
        if name == COMPLETED_SAMPLES_PER_SECOND:
            qps = _number(summary.get("qps"))
            return qps if qps is not None else (issued / (duration / 1e9) if issued and duration else None)
        if name == TOKENS_PER_SECOND:
            return _number(summary.get("tps"))
        mean = _number((summary.get("latency") or {}).get("avg"))
        return None if mean is None else mean / NS_PER_MS

    @property
    def accuracy_scores(self) -> list[dict]:
        scores = self.accuracy.get("accuracy_scores")
        return [s for s in scores if isinstance(s, dict)] if isinstance(scores, list) else []

    @property
    def accuracy_sample_count(self) -> int | None:
        """The samples scored by the accuracy run (summed over its datasets, as gpt-oss has three)."""
        counts = []
        for score in self.accuracy_scores:
            if score.get("dataset_type") not in (None, "accuracy"):
                continue
            count = _number(score.get("total_samples"))
            if count is None:
                count = _number((score.get("response_counts") or {}).get("issued"))
            if count is not None:
                counts.append(int(count))
        return sum(counts) if counts else None

    def metrics(self) -> dict[str, Any]:
        """What the result page shows of the run: throughput, per-user token rate, TTFT and TPOT."""
        summary = self.summary

        def percentiles(metric: str) -> dict[str, float]:
            values = (summary.get(metric) or {}).get("percentiles") or {}
            return {
                key: values[key] / NS_PER_MS
                for key in PERCENTILE_KEYS
                if _number(values.get(key)) is not None
            }

        tpot_mean = _number((summary.get("tpot") or {}).get("avg"))
        return {
            "client_version": str(self.config.get("version") or summary.get("version") or ""),
            "samples_issued": _number(summary.get("n_samples_issued")),
            "samples_failed": _number(summary.get("n_samples_failed")),
            "duration_s": (_number(summary.get("duration_ns")) or 0) / 1e9 or None,
            "samples_per_second": self.figure(COMPLETED_SAMPLES_PER_SECOND),
            "tokens_per_second": self.figure(TOKENS_PER_SECOND),
            # One user's token rate: the inverse of the mean time per output token.
            "tokens_per_second_per_user": 1e9 / tpot_mean if tpot_mean else None,
            "ttft_ms": percentiles("ttft"),
            "tpot_ms": percentiles("tpot"),
            "latency_ms": percentiles("latency"),
        }


def read_endpoints_run(scenario_dir: Path, rel: str) -> EndpointsRun:
    run = EndpointsRun(folder=rel)
    run.summary = _read_json(
        scenario_dir / "performance" / RESULT_SUMMARY, f"{rel}/performance/{RESULT_SUMMARY}", run
    )
    run.accuracy = _read_json(
        scenario_dir / "accuracy" / ACCURACY_RESULTS, f"{rel}/accuracy/{ACCURACY_RESULTS}", run
    )
    config = next((scenario_dir / name for name in CONFIG_FILES if (scenario_dir / name).is_file()), None)
    if config is None:
        run.findings.append(_finding(ERROR, "endpoints_file", "no config.yaml (the client's settings)", rel))
        return run
    import yaml  # here: a LoadGen check never needs it

    try:
        data = yaml.safe_load(config.read_bytes().decode("utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        run.findings.append(_finding(ERROR, "endpoints_file", f"not YAML: {exc}", f"{rel}/{config.name}"))
        return run
    if isinstance(data, dict):
        run.config = data
    else:
        run.findings.append(_finding(ERROR, "endpoints_file", "not a YAML mapping", f"{rel}/{config.name}"))
    return run


def _read_json(path: Path, rel: str, run: EndpointsRun) -> dict[str, Any]:
    if not path.is_file():
        run.findings.append(_finding(ERROR, "endpoints_file", f"no {path.name}", rel))
        return {}
    try:
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except ValueError as exc:
        run.findings.append(_finding(ERROR, "endpoints_file", f"not JSON: {exc}", rel))
        return {}
    if not isinstance(data, dict):
        run.findings.append(_finding(ERROR, "endpoints_file", "not a JSON object", rel))
        return {}
    if not data:
        run.findings.append(_finding(ERROR, "endpoints_file", "holds no figures", rel))
    return data


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def round_of_endpoints_run(scenario_dir: Path) -> InferenceRound | None:
    """The round whose sample-index and schedule seeds config.yaml names (the client has no QSL
    seed, by which a LoadGen log tells its round), among the rounds that take such results."""
    from mlperf_check.inference.rules import ROUNDS

    run = read_endpoints_run(scenario_dir, "")
    seeds = (
        run.setting("settings", "runtime", "dataloader_random_seed"),
        run.setting("settings", "runtime", "scheduler_random_seed"),
    )
    for rules in ROUNDS.values():
        if rules.from_tables and rules.table["endpoints_models"]:
            if seeds == (rules.seeds.get("sample_index_rng_seed"), rules.seeds.get("schedule_rng_seed")):
                return rules
    return None


def measured_scenario(run: EndpointsRun, folder_scenario: str) -> str:
    """The scenario the client ran, as the official checker names it (map_endpoints_scenario)."""
    if folder_scenario == INTERACTIVE:
        return INTERACTIVE
    load = str(run.config.get("type") or "").strip().lower()
    return _LOAD_TYPES.get(load, "")


def score_endpoints(
    result: InferenceResult, rules: InferenceRound, model: ModelRule | None, run: EndpointsRun
) -> None:
    """The result's figure and its checks, from the client's files (the official checker's
    performance and accuracy checks of an endpoints result, in its order)."""
    result.endpoints = run.metrics()
    result.findings.extend(run.findings)
    result.min_duration_ms = rules.min_duration_ms
    if not run.summary:
        return  # the missing or unreadable file is the finding
    ran = measured_scenario(run, result.scenario)
    folder = run.folder
    perf_file = f"{folder}/performance/{RESULT_SUMMARY}"
    if not ran:
        result.findings.append(
            _finding(
                ERROR,
                "endpoints_scenario",
                f"config.yaml names no known load type ({run.config.get('type')!r})",
                folder,
            )
        )
        return
    if ran != result.scenario:
        result.findings.append(
            _finding(
                ERROR,
                "scenario_mismatch",
                f"a {result.scenario} result cannot come from a {ran} run of the Endpoints client",
                folder,
                expected=result.scenario,
                actual=ran,
            )
        )
    _figure(result, rules, model, run, ran)
    failed = _number(run.summary.get("n_samples_failed")) or 0
    if failed:
        result.findings.append(
            _finding(
                ERROR,
                "endpoints_failed_samples",
                f"{int(failed)} samples failed",
                perf_file,
                actual=str(int(failed)),
            )
        )
    _seeds(result, rules, run)
    min_duration = _number(run.setting("settings", "runtime", "min_duration_ms"))
    if (
        model is not None
        and model.name not in NO_MIN_DURATION
        and (min_duration or 0) < rules.min_duration_ms
    ):
        result.findings.append(
            _finding(
                ERROR,
                "min_duration",
                f"config.yaml asks for a minimum duration of {min_duration} ms; the round requires {rules.min_duration_ms} ms",
                f"{folder}/config.yaml",
                expected=str(rules.min_duration_ms),
                actual=str(min_duration),
            )
        )
    if model is not None:
        _latency(result, rules, model, run, ran)
        _accuracy(result, rules, model, run)


def _figure(
    result: InferenceResult, rules: InferenceRound, model: ModelRule | None, run: EndpointsRun, ran: str
) -> None:
    key = rules.table["endpoints_result_fields"].get(ran.lower(), "")
    if (
        ran != OFFLINE
        and model is not None
        and model.result_keys.get(ran) != rules.table["result_fields"].get(ran)
    ):
        key = model.result_keys[ran]  # the model's own figure (tokens per second)
    name = _LOADGEN_KEYS.get(key)
    if name is None:
        result.findings.append(
            _finding(
                ERROR, "metric_missing", f"{rules.version} names no endpoints figure for {ran}", run.folder
            )
        )
        return
    result.metric_name = name
    result.metric_unit = _UNITS[name]
    result.metric_direction = "lower" if name == MEAN_LATENCY else "higher"
    result.metric_value = run.figure(name)
    completed = _number(run.summary.get("n_samples_completed"))
    result.query_count = None if completed is None else int(completed)
    duration = _number(run.summary.get("duration_ns"))
    result.duration_ms = None if duration is None else duration / NS_PER_MS
    if result.metric_value is None:
        result.findings.append(
            _finding(
                ERROR,
                "metric_missing",
                f"no {name.replace('_', ' ')} in the result summary",
                f"{run.folder}/performance/{RESULT_SUMMARY}",
            )
        )


def _seeds(result: InferenceResult, rules: InferenceRound, run: EndpointsRun) -> None:
    """The sample-index and schedule seeds are the round's (the client has no QSL seed)."""
    pairs = (
        ("sample_index_rng_seed", "dataloader_random_seed"),
        ("schedule_rng_seed", "scheduler_random_seed"),
    )
    for loadgen_name, client_name in pairs:
        found = run.setting("settings", "runtime", client_name)
        expected = rules.seeds.get(loadgen_name)
        if found != expected:
            result.findings.append(
                _finding(
                    ERROR,
                    "wrong_seed",
                    f"{client_name} is {found}, the round's {loadgen_name} is {expected}",
                    f"{run.folder}/config.yaml",
                    expected=str(expected),
                    actual=str(found),
                )
            )


def _latency(
    result: InferenceResult, rules: InferenceRound, model: ModelRule, run: EndpointsRun, ran: str
) -> None:
    """LLMs: TTFT and TPOT p99 (early-stopping estimates) strictly under the round's limits in
    Server and Interactive; other models: the p99 latency under the scenario's constraint."""
    perf_file = f"{run.folder}/performance/{RESULT_SUMMARY}"
    if model.name in rules.table["llm_models"]:
        if result.scenario not in (SERVER, INTERACTIVE):
            return
        limits = rules.token_limits(model, result.scenario, ran)
        ttft, tpot = run.early_stopping("ttft"), run.early_stopping("tpot")
        result.token_latency = {
            "ttft_p99_ms": None if ttft is None else ttft / NS_PER_MS,
            "tpot_p99_ms": None if tpot is None else tpot / NS_PER_MS,
            "ttft_limit_ms": limits["ttft_ns"] / NS_PER_MS if limits else None,
            "tpot_limit_ms": limits["tpot_ns"] / NS_PER_MS if limits else None,
        }
        if limits is None:
            result.findings.append(
                _finding(
                    ERROR,
                    "token_latency_limits",
                    f"no TTFT/TPOT limits for {model.name} {result.scenario}",
                    perf_file,
                )
            )
        elif ttft is None or tpot is None:
            result.findings.append(
                _finding(
                    ERROR, "token_latency_missing", "no TTFT or TPOT p99 in the result summary", perf_file
                )
            )
        elif not (ttft < limits["ttft_ns"] and tpot < limits["tpot_ns"]):
            result.findings.append(
                _finding(
                    ERROR,
                    "token_latency",
                    f"TTFT p99 {ttft / NS_PER_MS:.1f} ms, TPOT p99 {tpot / NS_PER_MS:.2f} ms; "
                    f"the limits are {limits['ttft_ns'] / NS_PER_MS:.0f} ms and {limits['tpot_ns'] / NS_PER_MS:.0f} ms",
                    perf_file,
                )
            )
        return
    bound = model.latency_constraint_ns.get(result.scenario)
    latency = run.early_stopping("latency")
    if bound:
        result.latency_bound_ms, result.latency_percentile = bound / NS_PER_MS, 0.99
    if bound and latency is not None and latency > bound:
        result.findings.append(
            _finding(
                ERROR,
                "latency_bound",
                f"p99 latency {latency / NS_PER_MS:.1f} ms is over the {result.scenario} bound of {bound / NS_PER_MS:.0f} ms",
                perf_file,
                expected=str(bound),
                actual=str(latency),
            )
        )


def _accuracy(result: InferenceResult, rules: InferenceRound, model: ModelRule, run: EndpointsRun) -> None:
    """A score, over the whole accuracy dataset; at or above the target (officially for the models
    of OFFICIALLY_SCORED only: elsewhere ours alone, `endpoints_accuracy_unchecked`)."""
    acc_file = f"{run.folder}/accuracy/{ACCURACY_RESULTS}"
    scores = [s.get("score") for s in run.accuracy_scores if s.get("score") is not None]
    if not run.accuracy:
        return  # the missing file is the finding
    if not scores:
        result.findings.append(_finding(ERROR, "accuracy_missing", "no accuracy score", acc_file))
        return
    score = _number(scores[0])
    result.accuracy_printed = str(scores[0])  # the official summary prints the client's score as is
    targets = model.scenario_accuracy.get(result.scenario) or model.accuracy_targets
    if targets and score is not None:
        kind, target = targets[0]
        result.accuracy_kind, result.accuracy_value, result.accuracy_target = kind, score, target
        result.accuracy_figures = {kind: score}
        if score < target and result.division != "open":
            code = "accuracy_target" if model.name in OFFICIALLY_SCORED else "endpoints_accuracy_unchecked"
            result.findings.append(
                _finding(
                    ERROR,
                    code,
                    f"{kind} {score} is below the target {target}",
                    acc_file,
                    expected=str(target),
                    actual=str(score),
                )
            )
    expected = _accuracy_sample_count(rules, model, result.scenario)
    found = run.accuracy_sample_count
    if expected is not None and found != expected:
        result.findings.append(
            _finding(
                ERROR,
                "accuracy_coverage",
                f"the accuracy run scored {found} samples; the dataset has {expected}",
                acc_file,
                expected=str(expected),
                actual=str(found),
            )
        )
    if model.name not in OFFICIALLY_SCORED and not targets:
        result.findings.append(
            _finding(
                INFO, "accuracy_unscored", "the round gives no accuracy target to compare with", acc_file
            )
        )


def _accuracy_sample_count(rules: InferenceRound, model: ModelRule, scenario: str) -> int | None:
    counts = rules.table["accuracy_sample_count"].get(model.name)
    if isinstance(counts, dict):
        return counts.get(scenario)
    if counts is not None:
        return counts
    return None


# The compliance tests of an endpoints result: the client's audit files (b66003e
# ENDPOINTS_COMPLIANCE_MAPPING), in <scenario>/audit/audit_<name>.json.
AUDIT_NAMES = {
    "TEST01": "accuracy_in_performance_test",
    "TEST04": "output_caching_test",
    "TEST06": "consistency_output_test",
    "TEST07": "accuracy_in_performance_full_test",
    "TEST08": "accuracy_in_performance_dlrmv3_test",
}


def check_endpoints_compliance(
    result: InferenceResult, rules: InferenceRound, model: ModelRule, scenario_dir: Path
) -> None:
    """Each of the model's compliance tests that the client audits: where its audit file is there,
    it names the test and says it passed; it must be there only for TEST04 of the models the round
    runs TEST04 on (the official checker's rule: only TEST04 is audited by the client yet)."""
    for test in model.compliance_tests:
        name = AUDIT_NAMES.get(test)
        if name is None:
            continue
        path = scenario_dir / "audit" / f"audit_{name}.json"
        rel = f"{result.folder}/audit/{path.name}"
        if not path.is_file():
            if test == "TEST04":
                result.findings.append(_finding(ERROR, "compliance_missing", f"{test}: no {path.name}", rel))
            continue
        try:
            audit = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
        except ValueError:
            audit = None
        if not isinstance(audit, dict):
            result.findings.append(
                _finding(ERROR, "compliance_failed", f"{test}: {path.name} cannot be read", rel)
            )
        elif audit.get("test") != name:
            result.findings.append(
                _finding(
                    ERROR,
                    "compliance_failed",
                    f"{test}: {path.name} is for test {audit.get('test')!r}",
                    rel,
                    expected=name,
                )
            )
        elif not audit.get("passed"):
            result.findings.append(
                _finding(ERROR, "compliance_failed", f"{test}: the audit did not pass", rel)
            )
