"""LoadGen settings of each performance run against the round's rules: the official seeds, the
performance sample count, the minimum duration and query count, and no compliance-test mode."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.inference.logs import yes
from mlperf_check.inference.rules import OFFLINE
from mlperf_check.report import ERROR, Finding

# Settings that only compliance tests may turn on.
TEST_ONLY = ("performance_issue_unique", "performance_issue_same")


class InferenceSettingsChecker(InferenceChecker):
    name = "inference_settings"
    description = "LoadGen settings in the summary match the round's rules (seeds, sample count, minimums)"

    def check(self, context: ResultContext) -> list[Finding]:
        out: list[Finding] = []
        if context.rules.from_tables:
            return out  # v2.1+: inference_round_rules reads the effective settings of the detail log
        for run in context.result.runs:
            if run.summary is not None and run.summary.valid is not None:
                out.extend(self._run(context, run.summary, f"{run.folder}/mlperf_log_summary.txt"))
        return out

    def _run(self, context: ResultContext, summary, file: str) -> list[Finding]:
        rules, model = context.rules, context.model
        out = []

        def wrong(code: str, key: str, message: str, expected: str) -> None:
            out.append(
                self.finding(
                    ERROR,
                    code,
                    message,
                    file=file,
                    line=summary.line_of(key),
                    key=key,
                    expected=expected,
                    actual=summary.get(key) or "",
                )
            )

        for seed, value in rules.seeds.items():
            logged = summary.get(seed)
            if logged is not None and logged.strip() != str(value):
                wrong("wrong_seed", seed, f"{seed} is not the {rules.version} seed", str(value))
        for key in TEST_ONLY:
            if yes(summary.get(key) or "false"):
                wrong("compliance_mode_setting", key, f"{key} is a compliance-test setting", "false")
        min_duration = summary.number("min_duration (ms)")
        if min_duration is not None and min_duration < rules.min_duration_ms:
            wrong(
                "min_duration_setting",
                "min_duration (ms)",
                "min_duration below the round's minimum",
                f">= {rules.min_duration_ms}",
            )
        max_duration = summary.number("max_duration (ms)")
        if max_duration and max_duration < rules.min_duration_ms:
            wrong(
                "max_duration_setting",
                "max_duration (ms)",
                "max_duration cuts the run below the round's minimum duration",
                f"0 or >= {rules.min_duration_ms}",
            )
        if model is None:
            return out
        count = summary.number("performance_sample_count")
        if count is not None and count < model.performance_sample_count:
            wrong(
                "performance_sample_count",
                "performance_sample_count",
                f"performance_sample_count below {model.name}'s {model.performance_sample_count}",
                f">= {model.performance_sample_count}",
            )
        scenario = summary.scenario
        min_queries = summary.number("min_query_count")
        # Under early stopping the official checker skips the minimum (LoadGen judges the run).
        if scenario != OFFLINE and scenario not in rules.early_stopping and min_queries is not None:
            required = rules.min_query_count(model, scenario)
            if min_queries < required:
                wrong(
                    "min_query_count_setting",
                    "min_query_count",
                    f"min_query_count below the {scenario} minimum of {required}",
                    f">= {required}",
                )
            max_queries = summary.number("max_query_count")
            if max_queries and max_queries < required:
                wrong(
                    "max_query_count_setting",
                    "max_query_count",
                    f"max_query_count stops the run below the {scenario} minimum of {required}",
                    f"0 or >= {required}",
                )
        return out
