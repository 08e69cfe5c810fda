"""Number of result files per folder, and how many runs failed.

The official package checker requires exactly the benchmark's run count and accepts up to the
olympic drop (1, unet3d 4) failing runs. A run fails here when it is not converged (see
mlperf_check.scoring.failure_reason), which includes aborted runs the official checker lets through.
An HPC weak-scaling folder needs at least the run count (one file per model instance); the
official checker rejects it, like any folder, when more than the olympic drop of its files fail.
"""

from __future__ import annotations

from mlperf_check.checkers.base import ERROR, INFO, Finding, PackageChecker, PackageContext
from mlperf_check.report import BenchmarkResult, RunLog
from mlperf_check.scoring import failure_reason


class RunCountChecker(PackageChecker):
    name = "run_count"
    description = "Each result folder has the required number of runs and few enough failures."

    def run(self, context: PackageContext) -> list[Finding]:
        findings: list[Finding] = []
        ruleset = context.ruleset
        for result in context.report.results:
            spec = ruleset.benchmark(result.benchmark)
            if spec is None:  # the layout checker reports benchmarks the ruleset does not know
                continue
            count = len(result.runs)
            if result.scaling == "weak":
                if count < spec.required_runs:
                    findings.append(
                        self.finding(
                            ERROR,
                            "RUN_COUNT_TOO_FEW",
                            f"found {count} result_*.txt files in {result.folder}; weak scaling in "
                            f"{ruleset.label} needs at least {spec.required_runs} models of {result.benchmark}",
                            file=result.folder,
                            expected=f"at least {spec.required_runs}",
                            actual=str(count),
                        )
                    )
            elif count != spec.required_runs:
                findings.append(
                    self.finding(
                        ERROR,
                        "RUN_COUNT_WRONG",
                        f"found {count} result_*.txt files in {result.folder}; {ruleset.label} "
                        f"requires exactly {spec.required_runs} for {result.benchmark}",
                        file=result.folder,
                        expected=str(spec.required_runs),
                        actual=str(count),
                    )
                )
            failed = [(run, reason) for run in result.runs if (reason := failure_reason(run))]
            if not failed:
                continue
            listing = "; ".join(f"{_name(result, run)} ({reason})" for run, reason in failed)
            if len(failed) > spec.olympic_drop:
                findings.append(
                    self.finding(
                        ERROR,
                        "TOO_MANY_FAILED_RUNS",
                        f"{len(failed)} of {count} runs in {result.folder} failed; olympic scoring of "
                        f"{result.benchmark} accepts at most {spec.olympic_drop}: {listing}",
                        file=result.folder,
                        expected=f"at most {spec.olympic_drop}",
                        actual=str(len(failed)),
                    )
                )
            else:
                findings.append(
                    self.finding(
                        INFO,
                        "ACCEPTED_UNDER_OLYMPIC",
                        f"{len(failed)} of {count} runs in {result.folder} failed and count as the slowest "
                        f"dropped runs (olympic scoring of {result.benchmark} accepts up to "
                        f"{spec.olympic_drop}): {listing}",
                        file=result.folder,
                    )
                )
        return findings


def _name(result: BenchmarkResult, run: RunLog) -> str:
    prefix = result.folder + "/"
    return run.file[len(prefix) :] if run.file.startswith(prefix) else run.file
