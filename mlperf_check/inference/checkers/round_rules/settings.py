"""The LoadGen settings of one run against the round's rules: the result's performance run
(performance_run.py) or a compliance test's own run (compliance.py)."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.inference.logs import to_number
from mlperf_check.inference.rules import OFFLINE
from mlperf_check.report import ERROR, WARNING, Finding


def settings_findings(
    checker: InferenceChecker, context: ResultContext, detail, file: str, seeds: dict
) -> list[Finding]:
    """The effective settings of a run's detail log: performance sample count, seeds, the Offline
    minimum, min_duration and (under early stopping) the latency LoadGen targeted."""
    result, model, rules = context.result, context.model, context.rules
    table = rules.table
    out = []

    def setting(key: str):
        return detail.effective.get(key)

    def wrong(rule: str, code: str, message: str, key: str, expected, actual) -> None:
        # Some rounds' checkers only log some of these (settings_reject lists those that reject).
        severity = ERROR if rule in table["settings_reject"] or rule == "performance_sample_count" else WARNING
        out.append(
            checker.finding(
                severity,
                code,
                message,
                file=file,
                line=detail.lines.get(f"effective_{key}"),
                key=key,
                expected=str(expected),
                actual=str(actual),
            )
        )

    count = to_number(setting("performance_sample_count"))
    if count is not None and count < model.performance_sample_count:
        wrong(
            "performance_sample_count",
            "performance_sample_count",
            f"performance_sample_count below {model.name}'s {model.performance_sample_count}",
            "performance_sample_count",
            f">= {model.performance_sample_count}",
            f"{count:.0f}",
        )
    for seed, value in seeds.items():
        logged = setting(seed)
        if logged is not None and str(logged) != str(value):
            wrong("seeds", "wrong_seed", f"{seed} is not the {rules.version} seed", seed, value, logged)
    ran = str(setting("scenario") or "")
    binds = result.division != "open" or not table["offline_min_closed_only"]
    samples = to_number(setting("samples_per_query"))
    if ran == OFFLINE and binds and samples is not None and samples < model.offline_min_samples:
        wrong(
            "offline_min_samples",
            "too_few_samples",
            f"the Offline query holds {samples:.0f} samples; {model.name} needs at least {model.offline_min_samples}",
            "samples_per_query",
            f">= {model.offline_min_samples}",
            f"{samples:.0f}",
        )
    min_duration = to_number(setting("min_duration_ms"))
    if min_duration is not None and min_duration < rules.min_duration_ms:
        wrong(
            "min_duration",
            "min_duration_setting",
            "min_duration below the round's 600 s",
            "min_duration_ms",
            f">= {rules.min_duration_ms}",
            f"{min_duration:.0f}",
        )
    # Server runs under early stopping: the latency LoadGen targeted must be within the bound
    # (the observed percentile is LoadGen's own early-stopping verdict).
    bound = model.latency_constraint_ns.get(ran)
    target = to_number(setting("target_latency_ns"))
    if bound and target is not None and target > bound:
        wrong(
            "latency_target",
            "latency_target_too_loose",
            f"LoadGen targeted {target / 1e6:g} ms; the {ran} bound of {model.name} is {bound / 1e6:g} ms",
            "target_latency_ns",
            f"<= {bound}",
            f"{target:.0f}",
        )
    return out
