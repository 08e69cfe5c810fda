"""The benchmark a result folder stands for, and what measured it: a model the round knows (an
open model through model_mapping.json), with LoadGen's logs rather than a Loadgen++ (endpoints)
result."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.report import ERROR, Finding


class RoundModelChecker(InferenceChecker):
    name = "inference_round_model"
    description = "v2.1+: the folder names a benchmark of the round; results measured by LoadGen"

    def check(self, context: ResultContext) -> list[Finding]:
        if not context.rules.from_tables:
            return []
        result = context.result
        if context.model is None:
            if result.division == "open":  # closed: the division checker's unknown_model
                return [
                    self.finding(
                        ERROR,
                        "model_without_rules",
                        f"'{context.folder.model_folder}' maps to no {context.rules.version} benchmark "
                        "(model_mapping.json names the benchmark an open model stands for)",
                        file=context.rel(context.folder.rel),
                    )
                ]
            return []
        endpoints = context.result_dir / "performance" / "result_summary.json"
        if not result.runs and endpoints.is_file():
            return [self._endpoints_result(context, context.rel(endpoints))]
        return []

    def _endpoints_result(self, context: ResultContext, file: str) -> Finding:
        """A Loadgen++ result: measured by the MLCommons endpoints harness, which writes
        performance/result_summary.json (and accuracy/accuracy_results.json, config.yaml) instead of
        LoadGen's logs. The v6.1 checker reads it with its own parser for the models it allows; this
        tool does not, so the result is refused with this reason rather than judged on a guess."""
        allowed = context.rules.table["endpoints_models"]
        if context.model.name in allowed:
            reason = (f"{context.rules.version} takes Loadgen++ (endpoints) results for {context.model.name}, "
                      "but this checker does not read them yet: check it with the official checker")
        elif allowed:
            reason = f"{context.rules.version} takes Loadgen++ (endpoints) results only for {', '.join(allowed)}"
        else:
            reason = f"{context.rules.version} takes LoadGen logs only (Loadgen++ endpoints results arrive in v6.1)"
        return self.finding(ERROR, "endpoints_result", f"a Loadgen++ (endpoints) result: {reason}", file=file)
