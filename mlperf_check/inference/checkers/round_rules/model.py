"""The benchmark a result folder stands for, and what measured it: a model the round knows (an
open model through model_mapping.json), with LoadGen's logs, or the MLCommons Endpoints client
where the round allows it for that model."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.inference.discovery import ENDPOINTS, LOADGEN
from mlperf_check.report import ERROR, Finding


class RoundModelChecker(InferenceChecker):
    name = "inference_round_model"
    readings = (LOADGEN, ENDPOINTS)
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
        if context.folder.reading == ENDPOINTS:
            return self._endpoints_result(context)
        return []

    def _endpoints_result(self, context: ResultContext) -> list[Finding]:
        """A result of the MLCommons Endpoints client (performance/result_summary.json, no LoadGen
        logs): read for the models the round allows it for (mlperf_check.inference.endpoints),
        refused for the others with the round's reason."""
        allowed = context.rules.table["endpoints_models"]
        if context.model.name in allowed:
            return []
        if allowed:
            reason = (f"{context.rules.version} takes Endpoints-client results only for {', '.join(allowed)}, "
                      f"not {context.model.name}")
        else:
            reason = f"{context.rules.version} takes LoadGen logs only (Endpoints-client results arrive in v6.1)"
        file = context.rel(context.result_dir / "performance" / "result_summary.json")
        return [self.finding(ERROR, "endpoints_result", f"an Endpoints-client result: {reason}", file=file)]
