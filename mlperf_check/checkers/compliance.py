"""The official MLCommons per-run compliance rules (mlperf_check.rules.configs and .engine), for every ruleset.

Rulesets 0.6.0 and later run the rule configs of the installed mlperf-logging package (with our
historical overrides); 0.5.0 runs the rules-as-data of mlperf_check.rules.legacy; 0.6.0 also gets the
published quality target the package's 0.6 configs leave out. Like the official tool, a log with
parse errors is not compliant (the parser's findings say why).
"""

from __future__ import annotations

from typing import Protocol

from mlperf_check.checkers.base import ERROR, WARNING, Finding, RunChecker, RunContext
from mlperf_check.report import Record, RunLog
from mlperf_check.rules.configs import get_official_rules
from mlperf_check.rules.engine import CHECKER, RuleSession
from mlperf_check.rules.legacy import TargetSession, V05Session

PARSER = "parser"
# Passing the compliance checker became mandatory with round 0.7 (training_policies #293). In 0.6
# its rules were advisory (RulesetSpec.compliance_advisory): no published v0.6 log passes them all
# (most lack submission_poc_name, submission_entry or epoch_stop), so there they are reported as
# warnings and only the quality target (mlperf_check.rules.legacy) decides.
ADVISORY_NOTE = " (advisory: the official rules were not yet binding in this round)"


class Session(Protocol):
    def feed_records(self, records: list[Record]) -> None: ...

    def finish(self) -> tuple[bool, list[Finding]]: ...


def sessions_for(context: RunContext) -> list[Session]:
    ruleset = context.ruleset
    if ruleset.config_dir is None:  # 0.5: no official configs, the rules are data
        return [V05Session(file=context.file)]
    sessions: list[Session] = [
        RuleSession(
            get_official_rules(ruleset.version), file=context.file, reopen=context.reopen, stats=context.parse_stats
        )
    ]
    if ruleset.legacy_quality_target:
        sessions.append(TargetSession(ruleset.version, file=context.file, benchmark=context.benchmark))
    return sessions


class ComplianceChecker(RunChecker):
    name = CHECKER
    description = (
        "The official per-run rules of the round (mlperf-logging compliance configs; v0.5 rules as "
        "data): required keys, hyperparameter rules, init time limit, quality target."
    )

    def __init__(self, context: RunContext) -> None:
        super().__init__(context)
        self.sessions = sessions_for(context)

    def feed_records(self, records: list[Record]) -> None:
        for session in self.sessions:
            session.feed_records(records)

    def finish(self, run: RunLog) -> list[Finding]:
        compliant = True
        findings: list[Finding] = []
        advisory = self.context.ruleset.compliance_advisory
        for session in self.sessions:
            passed, session_findings = session.finish()
            if advisory and isinstance(session, RuleSession):
                session_findings = [_advisory(f) for f in session_findings]
            else:
                compliant = compliant and passed
            findings.extend(session_findings)
        parse_errors = any(f.checker == PARSER and f.severity == ERROR for f in run.findings)
        run.compliant = compliant and not parse_errors
        return findings


def _advisory(finding: Finding) -> Finding:
    if finding.severity != ERROR:
        return finding
    finding.severity = WARNING
    finding.message += ADVISORY_NOTE
    return finding
