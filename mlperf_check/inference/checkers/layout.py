"""Files a result must hold: a system description for its system, both LoadGen logs in every
performance run (and, where the round asked for it, the run's accuracy log)."""

from __future__ import annotations

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.inference.discovery import ACCURACY_LOG, DETAIL, ENDPOINTS, LOADGEN, SUMMARY
from mlperf_check.report import ERROR, WARNING, Finding


class InferenceLayoutChecker(InferenceChecker):
    name = "inference_layout"
    readings = (LOADGEN, ENDPOINTS)
    description = "system description present; summary, detail (and v0.5 accuracy) logs in every run"

    def check(self, context: ResultContext) -> list[Finding]:
        findings = []
        folder = context.folder
        system_file = folder.submitter_root / "systems" / f"{folder.system}.json"
        if not system_file.is_file():
            findings.append(
                self.finding(
                    ERROR,
                    "no_system_description",
                    f"no systems/{folder.system}.json for the results of system '{folder.system}'",
                    file=context.rel(folder.rel),
                    expected=f"systems/{folder.system}.json",
                )
            )
        for run in folder.runs:
            wanted = [SUMMARY, DETAIL]
            if context.rules.accuracy_log_in_performance_runs:
                wanted.append(ACCURACY_LOG)
            for name in wanted:
                if not (run.path / name).is_file():
                    findings.append(
                        self.finding(
                            ERROR,
                            "missing_run_file",
                            f"{name} missing from the performance run",
                            file=context.rel(run.rel),
                            expected=name,
                        )
                    )
        if folder.accuracy_dir is not None and folder.reading == LOADGEN:
            for name in (SUMMARY, DETAIL):
                if not (folder.accuracy_dir / name).is_file():
                    findings.append(
                        self.finding(
                            WARNING,
                            "missing_accuracy_log",
                            f"{name} of the accuracy-mode run is missing",
                            file=context.rel(folder.accuracy_dir),
                            expected=name,
                        )
                    )
        return findings
