"""Findings for the RCP outcome the pipeline computed for each result folder (mlperf_check.rules.rcp)."""

from __future__ import annotations

from mlperf_check.checkers.base import ERROR, INFO, WARNING, Finding, PackageChecker, PackageContext
from mlperf_check.rules import rcp

# status -> (severity, code)
FINDINGS_BY_STATUS: dict[str, tuple[str, str]] = {
    rcp.FAIL: (ERROR, "RCP_FAIL"),
    rcp.FAIL_INTERPOLATED: (ERROR, "RCP_FAIL"),
    rcp.MISSING: (ERROR, "RCP_MISSING"),
    rcp.INSUFFICIENT: (ERROR, "RCP_INSUFFICIENT_CONVERGENCE"),
    # No reference data to compare with is a gap of the RCP tables, not the submitter's error.
    rcp.NO_RCP: (WARNING, "RCP_NOT_AVAILABLE"),
    rcp.BYPASSED: (INFO, "RCP_BYPASSED"),
}
PASSING = frozenset({rcp.PASS, rcp.PASS_INTERPOLATED, rcp.PASS_SMALLER_BATCH})


class RcpChecker(PackageChecker):
    name = "rcp"
    description = "Closed-division results converge no faster than the reference allows."

    def run(self, context: PackageContext) -> list[Finding]:
        findings: list[Finding] = []
        for result in context.report.results:
            if context.ruleset.benchmark(result.benchmark) is None:
                continue  # the layout checker reports benchmarks the ruleset does not know
            outcome = result.rcp
            where = f"{result.folder}: "
            if outcome.status in FINDINGS_BY_STATUS:
                severity, code = FINDINGS_BY_STATUS[outcome.status]
                findings.append(
                    self.finding(
                        severity, code, where + outcome.message, file=result.folder, actual=outcome.status
                    )
                )
            elif outcome.status in PASSING and outcome.scaling_factor > 1.0:
                findings.append(
                    self.finding(
                        INFO,
                        "RCP_SCALED",
                        f"{where}score multiplied by {outcome.scaling_factor:.4f}: the runs converged faster "
                        f"than the RCP mean ({outcome.message})",
                        file=result.folder,
                        expected="1.0",
                        actual=repr(outcome.scaling_factor),
                    )
                )
        return findings
