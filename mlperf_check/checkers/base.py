"""The checker contract.

Two scopes, both fed from one streaming pass per log file:

* `RunChecker`: one instance per result file. `feed_records(records)` is called with the log
  events in file order, a list per block the parser read (a checker loops over them itself, so
  that one wanting few records costs nothing per record), then `finish(run)` once, with the
  RunLog the parser summary filled in. It returns findings for that file. It must keep
  O(1)-ish state (a 1 GB log must not blow memory).
* `PackageChecker`: runs once after every file is parsed, over the whole PackageContext, and
  returns findings (package level, per result folder, or per file).

A checker that finds a problem in the submission returns findings. A checker that crashes raises,
and the pipeline reports that as a system error (our bug), never as the submitter's fault.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field
from typing import TYPE_CHECKING, ClassVar

from mlperf_check.finding_sources import checker_version, reported_as
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import ERROR, INFO, WARNING, Finding, Record, RunLog

if TYPE_CHECKING:
    from mlperf_check.package import Package
    from mlperf_check.parsing import ParseStats
    from mlperf_check.report import BenchmarkResult, PackageReport, SystemReport
    from mlperf_check.rules.catalog import RulesetSpec

__all__ = [
    "ERROR",
    "INFO",
    "WARNING",
    "Finding",
    "PackageChecker",
    "PackageContext",
    "RunChecker",
    "RunContext",
]


@dataclass
class RunContext:
    """What a per-run checker knows before reading the file."""

    file: str  # path relative to the package root
    ruleset: RulesetSpec
    system_id: str  # folder under results/
    benchmark: str  # benchmark folder name
    system: SystemReport | None  # None when systems/<id>.json is missing
    submitter: str  # submitter folder name
    division: str  # from the system JSON ("" when unknown)
    # Streams the file's records again from the start, a list per block read (like feed_records).
    # Only for the rare case where a checker learns late that it must look at earlier records it
    # did not keep (bounded memory).
    reopen: Callable[[], Iterator[list[Record]]] | None = None
    # The parser's counters for the stream being fed (bytes read so far): lets a checker that
    # keeps records bound them by the bytes they came from.
    parse_stats: ParseStats | None = None
    # Whether the parser computes the file's SHA-256 (RunLog.sha256). The server stores every
    # log's; the offline command shows none and asks only for files whose size another result
    # file of the package shares, the only ones that can be copies (checkers/duplicate_files.py).
    digest: bool = True


@dataclass
class PackageContext:
    """What a package checker sees: the package, its ruleset and the report so far."""

    package: Package
    ruleset: RulesetSpec
    report: PackageReport  # systems and results (with parsed runs) already filled
    waivers: frozenset[tuple[str, str, str]] = field(default_factory=frozenset)  # (system, benchmark, kind)

    def result_for(self, system_id: str, benchmark: str) -> BenchmarkResult | None:
        for result in self.report.results:
            if result.system_id == system_id and result.benchmark == benchmark:
                return result
        return None


class _Checker:
    # Its entry in the table of finding sources, which holds the source name and version its
    # findings carry (its own name, or that of the source it is one concern of).
    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def finding(self, severity: str, code: str, message: str, **where) -> Finding:
        return Finding(
            severity,
            code,
            message,
            checker=reported_as(self.name),
            checker_version=checker_version(self.name),
            **where,
        )


class RunChecker(_Checker):
    scope: ClassVar[str] = "run"

    def __init__(self, context: RunContext) -> None:
        self.context = context

    @classmethod
    def applies_to(cls, context: RunContext) -> bool:
        return True

    def feed_records(self, records: list[Record]) -> None:
        """The next records of the log in file order, one parser block at a time. The default
        wants none."""

    def finish(self, run: RunLog) -> list[Finding]:
        raise NotImplementedError


class PackageChecker(_Checker):
    scope: ClassVar[str] = "package"

    @classmethod
    def applies_to(cls, context: PackageContext) -> bool:
        return True

    def run(self, context: PackageContext) -> list[Finding]:
        raise NotImplementedError
