"""Seeds of the runs of one closed-division result folder (rulesets 1.0 and later).

The official seed checker's rules: every run logs at least one `seed` convertible by int(), and
no two runs log the same seed from the same source line (metadata file:lineno), which would mean
the "random" seed was fixed in the code. More than one seed in a run is only a warning. A
`seed_bypass` decision for the folder turns the errors into notes.
"""

from __future__ import annotations

from mlperf_check.checkers.base import ERROR, INFO, WARNING, Finding, PackageChecker, PackageContext
from mlperf_check.report import BenchmarkResult

SEED_BYPASS = "seed_bypass"  # results.constants.WaiverKind.SEED_BYPASS


class SeedChecker(PackageChecker):
    name = "seeds"
    description = "Closed-division runs log their own integer seed."

    @classmethod
    def applies_to(cls, context: PackageContext) -> bool:
        return context.ruleset.seeds_checked

    def run(self, context: PackageContext) -> list[Finding]:
        findings: list[Finding] = []
        for result in context.report.results:
            if result.division.strip().lower() != "closed":
                continue
            folder_findings = self._check_folder(result, context.ruleset.label)
            if (result.system_id, result.benchmark, SEED_BYPASS) in context.waivers:
                for finding in folder_findings:
                    if finding.severity == ERROR:
                        finding.severity = INFO
                        finding.message = f"seed_bypass decision applied: {finding.message}"
            findings.extend(folder_findings)
        return findings

    def _check_folder(self, result: BenchmarkResult, ruleset: str) -> list[Finding]:
        findings: list[Finding] = []
        # (source, seed) -> (file, line) of the first run that logged it
        first_use: dict[tuple[str, int], tuple[str, int]] = {}
        for run in result.runs:
            if not run.seeds:
                findings.append(
                    self.finding(
                        ERROR,
                        "SEED_MISSING",
                        f"{run.file} logs no seed; closed-division runs of {ruleset} must log "
                        "at least one `seed` through mllog",
                        file=run.file,
                        key="seed",
                    )
                )
                continue
            if len(run.seeds) > 1:
                lines = ", ".join(str(seed.line) for seed in run.seeds)
                findings.append(
                    self.finding(
                        WARNING,
                        "SEED_MULTIPLE",
                        f"{run.file} logs {len(run.seeds)} seeds (lines {lines}); one is expected",
                        file=run.file,
                        line=run.seeds[1].line,
                        key="seed",
                        expected="1 seed",
                        actual=f"{len(run.seeds)} seeds",
                    )
                )
            for seed in run.seeds:
                try:
                    value = int(seed.value)
                except (TypeError, ValueError, OverflowError):
                    findings.append(
                        self.finding(
                            ERROR,
                            "SEED_NOT_INTEGER",
                            f"seed value {seed.value!r} is not an integer",
                            file=run.file,
                            line=seed.line,
                            key="seed",
                            expected="an integer",
                            actual=repr(seed.value)[:100],
                        )
                    )
                    continue
                used = first_use.setdefault((seed.source, value), (run.file, seed.line))
                if used[0] != run.file:
                    source = seed.source or "a logging call without file/lineno metadata"
                    findings.append(
                        self.finding(
                            ERROR,
                            "SEED_REUSED",
                            f"{run.file} logs seed {value} from {source}, the same seed from the same "
                            f"source line as {used[0]} (line {used[1]}); every run must use its own seed",
                            file=run.file,
                            line=seed.line,
                            key="seed",
                            expected="a seed no other run logged from this source line",
                            actual=str(value),
                        )
                    )
        return findings
