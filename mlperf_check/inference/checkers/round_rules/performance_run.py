"""The reported performance run (performance/run_1) of a result: its files, its LoadGen settings,
and equal-issue mode where the round requires it."""

from __future__ import annotations

from pathlib import Path

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.base import (
    RoundRuleChecker,
    file_set,
    has_power,
    performance_run,
    place,
)
from mlperf_check.inference.checkers.round_rules.settings import settings_findings
from mlperf_check.inference.discovery import ACCURACY_LOG, DETAIL, SUMMARY
from mlperf_check.inference.logs import decode_lines
from mlperf_check.report import ERROR, Finding


class RoundPerformanceRunChecker(RoundRuleChecker):
    name = "inference_round_performance_run"
    description = "v2.1+: performance/run_1's files, its LoadGen settings, equal-issue mode"

    def check_result(self, context: ResultContext) -> list[Finding]:
        result, rules = context.result, context.rules
        run = performance_run(context)
        if run is None:
            return []
        file = f"{run.folder}/{DETAIL}"
        out = []
        problem = file_set(
            run.path_on_disk,
            (
                SUMMARY,
                DETAIL,
                *(("spl.txt",) if result.power_value is not None or has_power(context) else ()),
            ),
            (ACCURACY_LOG,),
        )
        if problem:
            out.append(self.finding(ERROR, "run_files", f"performance/run_1 {problem}", file=run.folder))
        out.extend(settings_findings(self, context, run.detail, file, rules.seeds))
        out.extend(self._equal_issue(context, run.detail, file))
        return out

    def _equal_issue(self, context: ResultContext, detail, file: str) -> list[Finding]:
        """Equal-issue mode (sample_concatenate_permutation) where the round requires it: in the
        run's detail log, or (v4.1) in the measurements' mlperf.conf / user.conf."""
        rule, model, folder = context.rules.table["equal_issue"], context.model, context.folder
        if model.name not in rule["models"] or (rule["closed_only"] and context.result.division == "open"):
            return []
        if rule["source"] == "conf":
            measurements = place(context.rules.table["layout"]["measurements"], folder)
            used = conf_equal_issue(measurements, model.name, folder.scenario_folder)
        else:
            used = detail.effective.get("sample_concatenate_permutation") is True
        if used:
            return []
        return [
            self.finding(
                ERROR,
                "equal_issue_off",
                f"{model.name} runs in equal-issue mode (sample_concatenate_permutation = 1) in {context.rules.version}",
                file=file,
                key="sample_concatenate_permutation",
                expected="true",
            )
        ]


def conf_equal_issue(measurements: Path, model: str, scenario: str) -> bool:
    """`<model>.<scenario>.sample_concatenate_permutation = 1` (model without -99/-99.9, or `*`;
    scenario as the folder spells it, or `*`) in mlperf.conf, then user.conf (which overrides)."""
    reference = model.replace("-99.9", "").replace("-99", "")
    used = False
    for name in ("mlperf.conf", "user.conf"):
        path = measurements / name
        if not path.is_file():
            continue
        for raw in decode_lines(path.read_bytes()):
            line = raw.replace(" ", "")
            if not line or line.startswith("#") or line.count("=") != 1:
                continue
            key, value = line.split("=")
            parts = key.split(".")
            if len(parts) != 3 or parts[2] != "sample_concatenate_permutation":
                continue
            if parts[0] in (reference, "*") and parts[1] in (scenario, "*") and value.isnumeric():
                used = int(value) == 1
                break
    return used
