"""Where a review decision waives a finding: the one rule, for the server and for
`mlperf-check PATH --waivers FILE` alike (plain data in, decision out: the offline command
imports no Django).

A decision is taken during review and lives on the server (results.models.Waiver, written by
review/services/waivers.py). It belongs to one organization in one round, and to one scope: a
result's (system, benchmark), or PACKAGE_SCOPE ("", "") for the findings no result carries
(layout, system descriptions, archive). In its scope it waives (`Waiver.covers`):

* a bypass (rcp_bypass, seed_bypass) every finding of its checker (BYPASSED_CHECKER);
* a known false positive every finding of its code.

A decision of another kind (a published scaling factor) waives no finding: it sets the score
(results/services/factors.py). A waived finding is marked with the decision that waived it (the
first, by id) and counts nowhere: no total, badge, job summary or exit status. A bypass also
reaches the server's checks themselves (`check_bypasses`: the RCP verdict passes, the seeds
checker's errors become notes); offline, the decisions only mark findings.

Who applies it: the server in SQL, FindingQuerySet.covering_waivers (results/querysets.py: every
count, badge, the review and upload pages and the recount of a job's errors read it;
review/tests/test_waiver_rule.py proves it equal to `waiver_covering` on the same cases); the
server's export of a version's decisions in the file format below (review/findings.py
waivers_document, GET /api/v1/review/versions/<id>/waivers/); `apply_waivers` on a report offline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import PackageReport

FORMAT = "mlperf-check-waivers/1"
# The decision kinds (values of results.constants.WaiverKind) that waive findings.
RCP_BYPASS = "rcp_bypass"
SEED_BYPASS = "seed_bypass"
KNOWN_FALSE_POSITIVE = "false_positive"
BYPASSED_CHECKER = {RCP_BYPASS: "rcp", SEED_BYPASS: "seeds"}  # the checker whose findings each bypass waives
FINDING_WAIVER_KINDS = (*BYPASSED_CHECKER, KNOWN_FALSE_POSITIVE)
# The scope of the findings no result carries.
PACKAGE_SCOPE = ("", "")


class WaiversError(Exception):
    """The waivers file cannot be read: says which file and what was expected."""


@dataclass(frozen=True, slots=True)
class Waiver:
    """One review decision as the server exports it: the findings of `checker` (a bypass) or of
    `code` (a known false positive) in the scope (`system`, `benchmark`)."""

    id: int
    label: str
    checker: str  # a bypass: every finding of this checker
    code: str  # a known false positive: every finding of this code
    system: str
    benchmark: str
    reason: str

    def covers(self, checker: str, code: str) -> bool:
        return (bool(self.checker) and checker == self.checker) or (bool(self.code) and code == self.code)

    def describe(self) -> str:
        return f"decision {self.id}: {self.label}{f' {self.code}' if self.code else ''}, {self.reason}"


def waived_checker_and_code(kind: str, code: str) -> tuple[str, str]:
    """What a server decision of `kind` waives, as the export writes it: (the checker whose
    findings a bypass waives, the code a known false positive waives); ("", "") for a decision
    that waives no finding."""
    return BYPASSED_CHECKER.get(kind, ""), code if kind == KNOWN_FALSE_POSITIVE else ""


def waiver_covering(waivers: Iterable[Waiver], scope: tuple[str, str], checker: str, code: str) -> Waiver | None:
    """The decision that waives a finding of `checker` and `code` in `scope`: the first of
    `waivers` (the server's order, by id) that covers it; None when none does."""
    return next((w for w in waivers if (w.system, w.benchmark) == scope and w.covers(checker, code)), None)


def check_bypasses(decisions: Iterable[tuple[str, str, str]]) -> frozenset[tuple[str, str, str]]:
    """Of a round's decisions for one organization, (system, benchmark, kind), the bypasses that
    the checks themselves take (the pipeline's `waivers`)."""
    return frozenset(decision for decision in decisions if decision[2] in BYPASSED_CHECKER)


def load_waivers(path: Path) -> list[Waiver]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise WaiversError(f"{path}: cannot read it ({exc.strerror})") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise WaiversError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise WaiversError(f"{path}: expected the server's waivers export (\"format\": \"{FORMAT}\")")
    waivers = []
    for index, entry in enumerate(document.get("waivers") or []):
        try:
            waivers.append(Waiver(
                id=int(entry["id"]), label=str(entry["label"]), checker=str(entry.get("checker") or ""),
                code=str(entry.get("code") or ""), system=str(entry.get("system") or ""),
                benchmark=str(entry.get("benchmark") or ""), reason=str(entry.get("reason") or ""),
            ))
        except (KeyError, TypeError, ValueError) as exc:
            raise WaiversError(f"{path}: waivers[{index}] needs an id and a label ({exc!r})") from exc
    return waivers


def apply_waivers(report: PackageReport, waivers: list[Waiver]) -> int:
    """Mark each finding a decision covers (`Finding.waived_by`); returns how many."""
    scoped = [(PACKAGE_SCOPE, report.findings), *((PACKAGE_SCOPE, system.findings) for system in report.systems)]
    described = {system.system_id for system in report.systems}
    for result in report.results:
        # As the server stores them: a result without a system description has no result row,
        # its findings are the package's (so are those of a benchmark the round lacks, which
        # only the server knows).
        scope = (result.system_id, result.benchmark) if result.system_id in described else PACKAGE_SCOPE
        scoped.append((scope, result.findings))
        scoped.extend((scope, run.findings) for run in result.runs)
    marked = 0
    for scope, findings in scoped:
        for finding in findings:
            waiver = waiver_covering(waivers, scope, finding.checker, finding.code)
            if waiver is not None:
                finding.waived_by = waiver.describe()
                marked += 1
    return marked
