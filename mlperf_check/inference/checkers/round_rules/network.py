"""A system over the network (network division) names itself so in LoadGen's SUT name ("Network SUT")."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.base import RoundRuleChecker
from mlperf_check.report import ERROR, Finding


class RoundNetworkChecker(RoundRuleChecker):
    name = "inference_round_network"
    description = "v2.1+: a network system's LoadGen SUT name says it runs over the network"

    def check_result(self, context: ResultContext) -> list[Finding]:
        system, table = context.system_description or {}, context.rules.table
        flag = system.get(table["network_flag"])
        if flag is None or str(flag).lower() != "true":
            return []
        out = []
        for run in context.result.runs:
            if run.summary is not None and table["network_sut_name"] not in run.summary.sut_name:
                out.append(
                    self.finding(
                        ERROR,
                        "network_sut_name",
                        f"a network system's SUT name must contain '{table['network_sut_name']}'",
                        file=f"{run.folder}/mlperf_log_summary.txt",
                        expected=table["network_sut_name"],
                        actual=run.summary.sut_name,
                    )
                )
        return out
