"""LLM token latencies: an LLM's performance run measures them (use_token_latencies), and a Server
or Interactive run keeps TTFT and TPOT at the 99th percentile below the round's limits."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.base import RoundRuleChecker, performance_run
from mlperf_check.inference.discovery import DETAIL
from mlperf_check.inference.logs import to_number
from mlperf_check.inference.rules import INTERACTIVE, SERVER
from mlperf_check.report import ERROR, Finding


class RoundTokenLatencyChecker(RoundRuleChecker):
    name = "inference_round_token_latency"
    description = "v2.1+: LLM runs measure token latencies; TTFT and TPOT p99 within the round's limits"

    def check_result(self, context: ResultContext) -> list[Finding]:
        model, result = context.model, context.result
        run = performance_run(context)
        if run is None or model.name not in context.rules.table["llm_models"]:
            return []
        file = f"{run.folder}/{DETAIL}"
        detail = run.detail
        if not detail.requested.get("use_token_latencies"):
            return [
                self.finding(
                    ERROR,
                    "token_latencies_off",
                    f"{model.name} is measured with use_token_latencies enabled; this run did not enable it",
                    file=file,
                )
            ]
        if result.scenario not in (SERVER, INTERACTIVE):
            return []
        ran = str(detail.effective.get("scenario") or "")
        limits = context.rules.token_limits(model, result.scenario, ran)
        if not limits:
            return []
        which = ran if context.rules.table["token_limits_by"] == "loadgen" else result.scenario
        out = []
        for key, limit_key, name in (
            ("result_first_token_99.00_percentile_latency_ns", "ttft_ns", "TTFT"),
            ("result_time_per_output_token_99.00_percentile_ns", "tpot_ns", "TPOT"),
        ):
            value = to_number(detail.results.get(key))
            limit = limits[limit_key]
            if value is None:
                out.append(
                    self.finding(ERROR, "token_latency_missing", f"no {key} in the detail log", file=file)
                )
            elif value >= limit:
                out.append(
                    self.finding(
                        ERROR,
                        "token_latency_over_limit",
                        f"{name} 99th percentile {value / 1e6:.3f} ms is not below the {which} limit {limit / 1e6:g} ms",
                        file=file,
                        line=detail.lines.get(key),
                        key=key,
                        expected=f"< {limit}",
                        actual=f"{value:.0f}",
                    )
                )
        return out
