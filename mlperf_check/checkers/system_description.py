"""The rules for system-description files, per ruleset.

What the official tools enforce (mlperf_logging.system_desc_checker, called by the package
checker for every systems/*.json from training 1.0 on): the 33 fields are present (any value),
and from 4.0 on `status` is one of four exact values. Rounds 0.5 to 0.7 had no such check, so
what the official tools accepted there is only a warning here.

Reading problems (invalid JSON, encodings, misspellings, numbers that do not parse, divisions and
statuses that need normalising) are found by mlperf_check.systems.load_system, also under this checker's
name. The pipeline keeps them on SystemReport.findings (PackageReport.all_findings collects them
from there), so this checker returns only the rule findings below: returning the load findings
again would attach them to the system twice.
"""

from __future__ import annotations

from mlperf_check.checkers.base import ERROR, WARNING, Finding, PackageChecker, PackageContext
from mlperf_check.report import SystemReport
from mlperf_check.rules.catalog import RulesetSpec
from mlperf_check.systems import (
    CHECKER,
    ENTRY_REQUIRED_FIELDS,
    MISSPELLED,
    REQUIRED_FIELDS,
    STATUS_OPTIONS,
    is_entry_schema,
    was_unreadable,
)


class SystemDescriptionChecker(PackageChecker):
    name = CHECKER
    description = "Required fields and allowed status values of every system description."

    def run(self, context: PackageContext) -> list[Finding]:
        ruleset = context.ruleset
        findings: list[Finding] = []
        for system in context.report.systems:
            if was_unreadable(system):
                continue
            if is_entry_schema(system.description):
                findings += self._entry_schema(system, ruleset)
            else:
                findings += self._required_fields(system, ruleset)
            if ruleset.system_status_checked:
                findings += self._status(system, ruleset.label)
        return findings

    def _required_fields(self, system: SystemReport, ruleset: RulesetSpec) -> list[Finding]:
        enforced = ruleset.system_fields_enforced
        version = ruleset.label
        spellings = {f.expected: f.actual for f in system.findings if f.code == MISSPELLED}
        findings = []
        for field in REQUIRED_FIELDS:
            if field in system.description:
                continue
            if field in spellings:
                if not enforced:
                    continue  # the misspelling warning says it all; its value was used
                message = (
                    f'{system.file} has no field "{field}" (it is spelled "{spellings[field]}"); the '
                    f"system-description checker of {version} requires the exact name"
                )
            elif enforced:
                message = f'{system.file} has no field "{field}", which {version} requires'
            else:
                message = (
                    f'{system.file} has no field "{field}"; {version} did not check system '
                    "descriptions, but every round from 1.0 on requires it"
                )
            findings.append(
                self.finding(
                    ERROR if enforced else WARNING,
                    "SYSTEM_FIELD_MISSING",
                    message,
                    file=system.file,
                    key=field,
                    expected=field,
                    actual=spellings.get(field, ""),
                )
            )
        return findings

    def _entry_schema(self, system: SystemReport, ruleset: RulesetSpec) -> list[Finding]:
        version = ruleset.label
        if ruleset.system_schema_current:
            return [
                self.finding(
                    ERROR if ruleset.system_fields_enforced else WARNING,
                    "SYSTEM_SCHEMA_OUTDATED",
                    f"{system.file} uses the v0.5 entry.json schema (hardware, nodes[...]); "
                    f"{version} expects the system-description fields ({', '.join(REQUIRED_FIELDS[:5])}, ...)",
                    file=system.file,
                    expected="system-description fields",
                    actual="entry.json schema",
                )
            ]
        return [
            self.finding(
                WARNING,
                "SYSTEM_FIELD_MISSING",
                f'{system.file} has no field "{field}" of the v0.5 entry.json schema',
                file=system.file,
                key=field,
                expected=field,
            )
            for field in ENTRY_REQUIRED_FIELDS
            if field not in system.description
        ]

    def _status(self, system: SystemReport, version: str) -> list[Finding]:
        # As the official checker: only a present status is checked (a missing one is reported above).
        if "status" not in system.description or system.description["status"] in STATUS_OPTIONS:
            return []
        status = system.description["status"]
        return [
            self.finding(
                ERROR,
                "SYSTEM_STATUS_INVALID",
                f"status {status!r} of {system.file} is not allowed in {version}; expected one of: "
                + "; ".join(STATUS_OPTIONS),
                file=system.file,
                key="status",
                expected=" | ".join(STATUS_OPTIONS),
                actual=str(status),
            )
        ]
