"""`mlperf-check PATH --waivers FILE`: the review's decisions on a version's findings, as a results
server exports them (GET /api/v1/review/versions/<id>/waivers/, review/findings.py), so that a
submitter's shell shows what the server shows. The checker itself knows no decisions: they are
taken during review and live on the server.

A decision covers the findings of one organization's (system, benchmark), or of the package
itself (system and benchmark ""): a bypass every finding of its checker, a known false positive
every finding of its code. A covered finding is marked with the decision and counts nowhere: not
in the totals, not in the exit status.
"""

from __future__ import annotations

import json
from pathlib import Path

from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import PackageReport

FORMAT = "mlperf-check-waivers/1"


class WaiversError(Exception):
    """The waivers file cannot be read: says which file and what was expected."""


@dataclass(frozen=True, slots=True)
class Waiver:
    """One review decision from a results server's waivers export."""

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
    by_scope: dict[tuple[str, str], list[Waiver]] = {}
    for waiver in waivers:
        by_scope.setdefault((waiver.system, waiver.benchmark), []).append(waiver)
    scoped = [(("", ""), report.findings), *((("", ""), system.findings) for system in report.systems)]
    described = {system.system_id for system in report.systems}
    for result in report.results:
        # As the server stores them: a result without a system description has no result row,
        # its findings are the package's (so are those of a benchmark the round lacks, which
        # only the server knows).
        scope = (result.system_id, result.benchmark) if result.system_id in described else ("", "")
        scoped.append((scope, result.findings))
        scoped.extend((scope, run.findings) for run in result.runs)
    marked = 0
    for scope, findings in scoped:
        for finding in findings:
            waiver = next((w for w in by_scope.get(scope, ()) if w.covers(finding.checker, finding.code)), None)
            if waiver is not None:
                finding.waived_by = waiver.describe()
                marked += 1
    return marked
