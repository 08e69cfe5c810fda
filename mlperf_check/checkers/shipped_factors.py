"""What a package ships to set its own score: `scaling.json` and `package_checker_params`.

Both are files the official tools obey without asking where they came from: the result
summarizer multiplies the olympic mean by the `scaling.json` it finds in a result folder (1.0
when there is none), and the package checker bypasses the RCP or seed checks a
`package_checker_params` file names. Here they are reported and never obeyed: the score uses the
factor computed from the logs and the RCP tables, unless a recorded decision (a `Waiver` of kind
"published scaling factor", see results/services.py) says otherwise.

A shipped factor is compared with the computed one:

* smaller: it claims a better time than the rules give -> error;
* larger: a decision of the review of the time the logs do not show (an RCP bypass, RCP data
  changed since) -> warning, for a reviewer to accept or reject;
* equal within FACTOR_TOLERANCE -> info;
* unreadable or malformed -> error.

A result folder without `scaling.json` whose computed factor is not 1.0 gets an info finding: the
official summarizer would have used 1.0 there.
"""

from __future__ import annotations

from mlperf_check.checkers.base import ERROR, INFO, WARNING, Finding, PackageChecker, PackageContext
from mlperf_check.package import STANDARD
from mlperf_check.report import BenchmarkResult

FACTOR_TOLERANCE = 1e-9
PARAMS_FILE = "package_checker_params"
PARAMS_MAX_BYTES = 4096
# The lines the official package checker (and its verify_for_v*.sh wrapper) turns into flags.
KNOWN_PARAMS = ("rcp-bypass", "seed-checker-bypass", "rcp-bert-train-samples")


class ShippedFactorsChecker(PackageChecker):
    name = "shipped_factors"
    version = 1
    description = "Scaling factors and checker bypasses shipped in the package are reported, never obeyed."

    def run(self, context: PackageContext) -> list[Finding]:
        findings = []
        for result in context.report.results:
            finding = self._factor_finding(result)
            if finding is not None:
                findings.append(finding)
        if context.package.layout == STANDARD:
            findings += [self._params_finding(context, rel) for rel in params_files(context.package.files)]
        return findings

    # -- scaling.json ----------------------------------------------------------------------------

    def _factor_finding(self, result: BenchmarkResult) -> Finding | None:
        shipped = result.shipped_factor
        computed = result.rcp.scaling_factor
        logs = (
            f"the factor computed from the logs is {computed:.10g} (RCP {result.rcp.status}"
            + (f": {result.rcp.message})" if result.rcp.message else ")")
        )
        if shipped is None:
            if abs(computed - 1.0) <= FACTOR_TOLERANCE:
                return None
            return self.finding(
                INFO,
                "SHIPPED_FACTOR_ABSENT",
                f"{result.folder}/ ships no scaling.json: the official summarizer, run without the package "
                f"checker first, uses 1.0 there and gives {_minutes(result.mean_minutes)}; {logs}, giving "
                f"{_minutes(result.score_minutes)}",
                file=result.folder,
                expected=repr(computed),
                actual="1.0",
            )
        if shipped.factor is None:
            return self.finding(
                ERROR,
                "SHIPPED_FACTOR_MALFORMED",
                f"{shipped.file} {shipped.problem}: expected {{\"scaling_factor\": <positive number>}}; "
                f"it is ignored, and {logs}, giving {_minutes(result.score_minutes)}",
                file=shipped.file,
                expected='{"scaling_factor": <positive number>}',
            )
        shipped_score = None if result.mean_minutes is None else result.mean_minutes * shipped.factor
        comparison = (
            f"{shipped.file} ships the scaling factor {shipped.factor:.10g}; {logs}. "
            f"Score with the shipped factor {_minutes(shipped_score)}, from the logs {_minutes(result.score_minutes)}"
        )
        if abs(shipped.factor - computed) <= FACTOR_TOLERANCE:
            severity, code, verdict = INFO, "SHIPPED_FACTOR_EQUAL", "the shipped factor agrees with the logs"
        elif shipped.factor < computed:
            severity, code, verdict = (
                ERROR,
                "SHIPPED_FACTOR_SMALLER",
                "the shipped factor claims a better time than the rules give; the score uses the factor "
                "from the logs",
            )
        else:
            severity, code, verdict = (
                WARNING,
                "SHIPPED_FACTOR_LARGER",
                "the shipped factor is a decision the logs do not show (an RCP bypass, or RCP data changed "
                "since it was written); the score uses the factor from the logs unless a reviewer records "
                "the shipped factor as a decision",
            )
        return self.finding(
            severity,
            code,
            f"{comparison}: {verdict}",
            file=shipped.file,
            expected=repr(computed),
            actual=repr(shipped.factor),
        )

    # -- package_checker_params ------------------------------------------------------------------

    def _params_finding(self, context: PackageContext, rel: str) -> Finding:
        try:
            with context.package.open(rel) as stream:
                text = stream.read(PARAMS_MAX_BYTES).decode("utf-8", "replace")
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            asked = [line for line in lines if line in KNOWN_PARAMS]
            other = [line for line in lines if line not in KNOWN_PARAMS]
            what = f"asks for {', '.join(asked)}" if asked else "names no bypass the official checker knows"
            if other:
                what += f" (other lines: {', '.join(repr(line[:40]) for line in other[:5])})"
        except (OSError, ValueError) as exc:
            what, asked = f"cannot be read ({exc})", []
        return self.finding(
            WARNING,
            "PACKAGE_CHECKER_PARAMS_IGNORED",
            f"{rel} {what}; files in the upload are never obeyed: a bypass is a decision a reviewer "
            "records (a waiver), so every check ran in full",
            file=rel,
            actual=", ".join(asked),
        )


def params_files(files: list[str]) -> list[str]:
    """`package_checker_params` where the official tools read it: the package root,
    results/<system>/ and results/<system>/<benchmark>/."""
    found = []
    for rel in files:
        parts = rel.split("/")
        if parts[-1] != PARAMS_FILE:
            continue
        if len(parts) == 1 or (parts[0] == "results" and len(parts) in (3, 4)):
            found.append(rel)
    return found


def _minutes(value: float | None) -> str:
    return "no score" if value is None else f"{value:.6g} min"
