"""Does the log say what the package around it says? (docs/official-tools.md §h item 12)

The official tools never compare a log's submission_benchmark, submission_division and
submission_org with the benchmark folder, the system JSON and the submitter folder. These
findings describe the package; they do not fail the run (see RUN_VERDICT_CHECKERS).
"""

from __future__ import annotations

import re

from mlperf_check.checkers.base import ERROR, Finding, RunChecker, RunContext
from mlperf_check.parsing.formats import short_repr
from mlperf_check.report import Record, RunLog

LOG_BENCHMARK_MISMATCH = "LOG_BENCHMARK_MISMATCH"
LOG_DIVISION_MISMATCH = "LOG_DIVISION_MISMATCH"
LOG_ORG_MISMATCH = "LOG_ORG_MISMATCH"

CHECKED_KEYS = ("submission_benchmark", "submission_division", "submission_org")
# Spellings of the divisions seen in real packages ("Closed", "close" in v0.7 Fujitsu, v1.0 PCL).
DIVISION_SPELLINGS = {"closed": "closed", "close": "closed", "open": "open"}
NOT_ALPHANUMERIC = re.compile(r"[^0-9a-z]+")
MAX_ACTUAL_CHARS = 200  # of a logged value, in Finding.actual


class ConsistencyChecker(RunChecker):
    name = "consistency"
    description = "submission_benchmark/division/org of the log against folder names and the system JSON."

    def __init__(self, context: RunContext) -> None:
        super().__init__(context)
        self.first: dict[str, Record] = {}  # only the first value counts, as in the official rules

    def feed_records(self, records: list[Record]) -> None:
        first = self.first
        if len(first) == len(CHECKED_KEYS):
            return  # all three seen (at the head of most logs): later values do not count
        for record in records:
            key = record.key
            if key in CHECKED_KEYS and key not in first:
                first[key] = record
                if len(first) == len(CHECKED_KEYS):
                    return

    def finish(self, run: RunLog) -> list[Finding]:
        findings = []
        for key, check in (
            ("submission_benchmark", self.check_benchmark),
            ("submission_division", self.check_division),
            ("submission_org", self.check_org),
        ):
            record = self.first.get(key)
            logged = "" if record is None else text_of(record.value).strip()
            if logged:  # a missing or empty value is the compliance checker's finding
                finding = check(record, logged)
                if finding is not None:
                    findings.append(finding)
        return findings

    def check_benchmark(self, record: Record, logged: str) -> Finding | None:
        folder = self.context.benchmark
        if not folder or logged == folder:
            return None
        return self.mismatch(
            LOG_BENCHMARK_MISMATCH,
            record,
            f"the log says submission_benchmark {short_repr(logged)} but it is in the benchmark folder {folder!r}",
            expected=folder,
            actual=logged[:MAX_ACTUAL_CHARS],
        )

    def check_division(self, record: Record, logged: str) -> Finding | None:
        declared = self.context.division
        if not declared or normalize_division(logged) == normalize_division(declared):
            return None
        return self.mismatch(
            LOG_DIVISION_MISMATCH,
            record,
            f"the log says submission_division {short_repr(logged)} but the system description "
            f"systems/{self.context.system_id}.json says {declared!r}",
            expected=declared,
            actual=logged[:MAX_ACTUAL_CHARS],
        )

    def check_org(self, record: Record, logged: str) -> Finding | None:
        references = [("the submitter folder", self.context.submitter)]
        system = self.context.system
        json_submitter = system.description.get("submitter") if system is not None else None
        if isinstance(json_submitter, str):
            references.append((f"the 'submitter' of systems/{self.context.system_id}.json", json_submitter))
        disagreeing = [(where, name) for where, name in references if name and not same_org(logged, name)]
        if not disagreeing:
            return None
        return self.mismatch(
            LOG_ORG_MISMATCH,
            record,
            f"the log says submission_org {short_repr(logged)} but "
            + " and ".join(f"{where} is {name!r}" for where, name in disagreeing),
            expected=" / ".join(name for _, name in disagreeing),
            actual=logged[:MAX_ACTUAL_CHARS],
        )

    def mismatch(self, code: str, record: Record, message: str, *, expected: str, actual: str) -> Finding:
        return self.finding(
            ERROR,
            code,
            message,
            file=self.context.file,
            line=record.line,
            key=record.key,
            expected=expected,
            actual=actual,
        )


def text_of(value: object) -> str:
    return value if isinstance(value, str) else short_repr(value)


def normalize_division(text: str) -> str:
    folded = text.strip().casefold()
    return DIVISION_SPELLINGS.get(folded, folded)


def normalize_org(text: str) -> str:
    return NOT_ALPHANUMERIC.sub("", text.casefold())


def same_org(a: str, b: str) -> bool:
    """Organisation names agree when, compared without case, spaces and punctuation, one contains
    the other: DellEMC / "Dell EMC", Habana / "HabanaLabs", PCL / "PCL & PKU"."""
    a, b = normalize_org(a), normalize_org(b)
    return bool(a) and bool(b) and (a in b or b in a)
