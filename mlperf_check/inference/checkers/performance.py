"""Per performance run: LoadGen's own verdict, and our recomputation of it from the logs.

LoadGen says VALID or INVALID; we do not take its word alone. From the summary and the detail
log we recompute what the round's rules ask of the scenario: the run lasted the minimum
duration, issued the minimum queries (Offline: samples in its one query), kept the latency bound
(Server: the bound at the task's percentile; MultiStream: at most 1 % of queries over the
interval, i.e. the 99th-percentile per-query latency within it), and logged no error other than
the known harmless ones.
"""

from __future__ import annotations

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.inference.report import InferenceRun
from mlperf_check.inference.rules import HIGHER, INTERACTIVE, MULTI_STREAM, OFFLINE, SERVER, SINGLE_STREAM
from mlperf_check.report import ERROR, INFO, WARNING, Finding

# Detail-log ERROR messages that do not invalidate a run: the first is LoadGen's note about its
# own build; the second is how an Offline run's single query ends (its duration and sample count
# are recomputed below instead).
UNCOMMITTED = "Loadgen built with uncommitted changes"
RAN_OUT = "Ran out of generated queries"
# LoadGen's note of a failed compare-and-swap in its logging: an error of its own making, which
# the v0.5 and v0.7 checkers ignore (rules.CAS_FAILED); we count it.
CAS_FAILED = "CAS failed"
LOADGEN_FLAGS = {
    "Min duration satisfied": "min_duration_not_met",
    "Min queries satisfied": "min_queries_not_met",
    "Performance constraints satisfied": "constraints_not_met",
    "Early stopping satisfied": "early_stopping_not_met",
}
# v0.5's "Submission" mode ran the accuracy pass and then the timed performance pass.
PERFORMANCE_MODES = ("performance", "performanceonly", "submission")


class InferencePerformanceChecker(InferenceChecker):
    name = "inference_performance"
    description = (
        "LoadGen verdict VALID and recomputed: duration, query count, latency bound, detail-log errors"
    )

    def check(self, context: ResultContext) -> list[Finding]:
        findings: list[Finding] = []
        for run in context.result.runs:
            findings.extend(self._run(context, run))
        return findings

    def _run(self, context: ResultContext, run: InferenceRun) -> list[Finding]:
        summary = run.summary
        if summary is None or summary.valid is None:
            return []  # missing or unreadable: reported by the layout checker and the parser
        file = f"{run.folder}/mlperf_log_summary.txt"
        out = []
        if summary.mode.lower() not in PERFORMANCE_MODES:
            out.append(
                self.finding(
                    ERROR,
                    "not_performance_mode",
                    f"the run is in mode '{summary.mode}', not a performance run",
                    file=file,
                    line=summary.line_of("Mode"),
                )
            )
        scenario = summary.scenario
        expected = context.result.inferred_from or context.result.scenario
        if expected == INTERACTIVE:
            expected = SERVER  # an Interactive result is a LoadGen Server run under tighter limits
        if scenario != expected:
            out.append(
                self.finding(
                    ERROR,
                    "scenario_mismatch",
                    f"the summary says scenario '{summary.get('Scenario')}' in a {context.result.scenario} folder",
                    file=file,
                    line=summary.line_of("Scenario"),
                    expected=expected,
                    actual=scenario,
                )
            )
            return out
        if not summary.valid:
            out.append(
                self.finding(
                    ERROR,
                    "loadgen_invalid",
                    "LoadGen judged the run INVALID",
                    file=file,
                    line=summary.line_of("Result is"),
                    expected="VALID",
                    actual=summary.get("Result is") or "",
                )
            )
        for key, code in LOADGEN_FLAGS.items():
            if summary.flag(key) is False:
                out.append(
                    self.finding(ERROR, code, f"LoadGen: {key}: No", file=file, line=summary.line_of(key))
                )
        out.extend(self._recompute(context, run, scenario, file))
        out.extend(self._inferred_offline_samples(context, run, file))
        return out

    def _inferred_offline_samples(self, context: ResultContext, run: InferenceRun, file: str) -> list[Finding]:
        """An Offline result holds at least the round's Offline samples in its one query. One
        inferred from a SingleStream run holds one: the round's checker accepts it, our stricter
        verdict does not where the round asks for it (offline_inferred_samples)."""
        rules, result = context.rules, context.result
        if not rules.offline_inferred_samples or result.inferred_from != SINGLE_STREAM or context.model is None:
            return []
        minimum = rules.min_query_count(context.model, OFFLINE)
        samples = run.summary.number("samples_per_query")
        if samples is None or samples >= minimum:
            return []
        return [
            self.finding(
                ERROR,
                "offline_samples_inferred",
                f"an Offline result needs at least {minimum} samples in its query; this one is inferred from a "
                f"SingleStream run of {samples:.0f} sample per query",
                file=file,
                line=run.summary.line_of("samples_per_query"),
                expected=f">= {minimum}",
                actual=f"{samples:.0f}",
            )
        ]

    def _recompute(
        self, context: ResultContext, run: InferenceRun, scenario: str, file: str
    ) -> list[Finding]:
        rules, model, summary, detail = context.rules, context.model, run.summary, run.detail
        out = []
        detail_file = f"{run.folder}/mlperf_log_detail.txt"
        if detail is not None and detail.log_format and detail.log_format != rules.detail_format:
            out.append(
                self.finding(
                    WARNING,
                    "detail_format",
                    f"the detail log is in the {detail.log_format} format; {rules.version}'s LoadGen writes "
                    f"{rules.detail_format} (a LoadGen of another round?)",
                    file=detail_file,
                    expected=rules.detail_format,
                    actual=detail.log_format,
                )
            )
        if detail is not None:
            for message in detail.errors:
                if UNCOMMITTED in message.text:
                    out.append(
                        self.finding(
                            INFO, "loadgen_uncommitted", message.text, file=detail_file, line=message.line
                        )
                    )
                elif RAN_OUT in message.text and scenario == OFFLINE:
                    continue  # an Offline run's one query always ends this way in these LoadGen versions
                elif CAS_FAILED in message.text:
                    out.append(
                        self.finding(
                            ERROR,
                            "detail_cas_failed",
                            f"LoadGen error: {message.text}",
                            file=detail_file,
                            line=message.line,
                        )
                    )
                elif RAN_OUT in message.text:
                    out.append(
                        self.finding(
                            ERROR,
                            "ran_out_of_queries",
                            "LoadGen ran out of queries before the minimum query count and duration were reached",
                            file=detail_file,
                            line=message.line,
                        )
                    )
                else:
                    out.append(
                        self.finding(
                            ERROR,
                            "detail_error",
                            f"LoadGen error: {message.text}",
                            file=detail_file,
                            line=message.line,
                        )
                    )
            if rules.from_tables:
                return out  # v2.1+: inference_round_rules applies the round's own settings rules
            if detail.first_ts_ms is not None and detail.last_ts_ms is not None:
                duration = detail.last_ts_ms - detail.first_ts_ms
                if duration < rules.min_duration_ms:
                    out.append(
                        self.finding(
                            ERROR,
                            "run_too_short",
                            f"the run lasted {duration / 1000:.1f} s; the round asks for at least "
                            f"{rules.min_duration_ms / 1000:g} s",
                            file=detail_file,
                            expected=f">= {rules.min_duration_ms} ms",
                            actual=f"{duration:.0f} ms",
                        )
                    )
        if model is None:
            return out
        minimum = rules.min_query_count(model, scenario)
        if scenario == OFFLINE:
            samples = summary.number("samples_per_query")
            if samples is not None and samples < minimum:
                out.append(
                    self.finding(
                        ERROR,
                        "too_few_samples",
                        f"the Offline query holds {samples:.0f} samples; at least {minimum} are required",
                        file=file,
                        line=summary.line_of("samples_per_query"),
                        expected=f">= {minimum}",
                        actual=f"{samples:.0f}",
                    )
                )
        elif detail is not None and scenario not in rules.early_stopping:
            # Under early stopping LoadGen's own "Early stopping satisfied" replaces the minimum.
            count = detail.results.get("result_query_count")
            if isinstance(count, int | float) and count < minimum:
                out.append(
                    self.finding(
                        ERROR,
                        "too_few_queries",
                        f"{count:.0f} queries were issued; the {scenario} scenario needs at least {minimum}",
                        file=detail_file,
                        line=detail.lines.get("result_query_count"),
                        expected=f">= {minimum}",
                        actual=f"{count:.0f}",
                    )
                )
        if scenario == SERVER and model.server_latency_ms is not None:
            out.extend(
                self._latency(
                    run,
                    file,
                    model.server_latency_ms,
                    model.server_percentile,
                    "server",
                    observed=scenario not in rules.early_stopping,
                )
            )
        metric = rules.metrics[MULTI_STREAM]
        if (
            scenario == MULTI_STREAM
            and metric.direction == HIGHER
            and model.multistream_interval_ms is not None
        ):
            out.extend(
                self._latency(
                    run,
                    file,
                    model.multistream_interval_ms,
                    1 - rules.multistream_skip_fraction,
                    "multistream",
                )
            )
        return out

    def _latency(
        self,
        run: InferenceRun,
        file: str,
        bound_ms: float,
        percentile: float,
        kind: str,
        observed: bool = True,
    ) -> list[Finding]:
        """The target LoadGen ran with is within the bound, and (without early stopping, where
        LoadGen judges its estimate instead) so is the observed percentile."""
        summary = run.summary
        out = []
        target = summary.number("target_latency (ns)")
        if target is not None and target > bound_ms * 1e6:
            out.append(
                self.finding(
                    ERROR,
                    "latency_target_too_loose",
                    f"LoadGen ran with a latency target of {target / 1e6:g} ms; the {kind} bound is {bound_ms:g} ms",
                    file=file,
                    line=summary.line_of("target_latency (ns)"),
                    expected=f"<= {bound_ms * 1e6:.0f}",
                    actual=f"{target:.0f}",
                )
            )
        if not observed:
            return out
        # LoadGen judges against the target it ran with; the rules against the task's bound.
        if target is not None and target < bound_ms * 1e6:
            bound_ms = target / 1e6
        key = f"{percentile * 100:.2f} percentile latency (ns)"
        observed = summary.number(key)
        if observed is not None and observed > bound_ms * 1e6:
            what = (
                f"more than {100 - percentile * 100:g} % of queries skipped an interval"
                if kind == "multistream"
                else f"more than {100 - percentile * 100:g} % of queries exceeded the bound"
            )
            out.append(
                self.finding(
                    ERROR,
                    "latency_bound_missed",
                    f"{what}: {percentile * 100:g}th-percentile latency {observed / 1e6:.3f} ms > {bound_ms:g} ms",
                    file=file,
                    line=summary.line_of(key),
                    expected=f"<= {bound_ms * 1e6:.0f} ns",
                    actual=f"{observed:.0f} ns",
                )
            )
        return out
