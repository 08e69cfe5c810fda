"""The benchmark and its system category: the model is a benchmark of the system's category
(datacenter, edge) in the round, and the scenario is one the category requires or allows."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.base import RoundRuleChecker
from mlperf_check.inference.discovery import ENDPOINTS, LOADGEN
from mlperf_check.report import ERROR, Finding


class RoundCategoryChecker(RoundRuleChecker):
    name = "inference_round_category"
    readings = (LOADGEN, ENDPOINTS)
    description = "v2.1+: the benchmark is in the system's category, the scenario required or optional there"

    def check_result(self, context: ResultContext) -> list[Finding]:
        rules, model, result = context.rules, context.model, context.result
        where = context.rel(context.folder.rel)
        system_type = result.system_type
        required = rules.required_scenarios(model.name, system_type)
        if required is None:
            return [
                self.finding(
                    ERROR,
                    "model_not_in_category",
                    f"{model.name} is not a benchmark of the '{system_type}' category in {rules.version}",
                    file=where,
                    actual=system_type,
                )
            ]
        allowed = required | rules.optional_scenarios(model.name, system_type)
        if result.division != "open" and result.scenario not in allowed:
            return [
                self.finding(
                    ERROR,
                    "scenario_not_allowed",
                    f"{result.scenario} is neither required nor optional for {model.name} on a '{system_type}' system",
                    file=where,
                    expected=", ".join(sorted(allowed)),
                    actual=result.scenario,
                )
            ]
        return []
