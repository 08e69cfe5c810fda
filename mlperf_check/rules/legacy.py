"""Rules the mlperf-logging package does not ship: round 0.5 as data, and the 0.6 quality targets.

Round 0.5 (`:::MLPv0.5.0` logs) was checked with the mlperf_compliance tag checker of its time
(training_policies issue #126: "L1 - run_start, run_stop and evaluation" plus the reference's
tags), which the package does not carry. The rules below are what every v0.5 log of the corpus
(190 files: Google resnet/ssd/gnmt, Intel resnet/ncf) shows and scoring relies on:

* run_start, run_stop and run_final exactly once; run_clear_caches, eval_target and eval_accuracy
  at least once; run_stop after run_start.
* eval_accuracy values are {"epoch": N, "value": X} (a bare number is accepted too); at least one
  must meet the quality target of V05_BENCHMARKS, which the logs' own eval_target lines
  confirm (resnet 0.749, ssd 0.212, gnmt 21.8, ncf 0.635). GNMT and Transformer log BLEU in points
  (gnmt: 22.25 against eval_target 21.8); a value of at most 1 is read as a fraction (0.218).
* run_stop's value {"success": true|false} is the run's status, scored by mlperf_check.runlog like the
  status of later rounds: not a compliance matter.

Round 0.6: the package's 0.6.0 configs check no quality target. The published targets
(V06_TARGETS) are checked here as a stricter rule (COMPLIANCE_TARGET_NOT_REACHED). v0.6
logs log BLEU in points (Google gnmt 24.1, transformer 25.08) and Mask R-CNN as [BBOX, SEGM].
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any

from mlperf_check.finding_sources import checker_version
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.parsing.formats import short_repr
from mlperf_check.report import ERROR, Finding, Record
from mlperf_check.rules.engine import (
    CHECKER,
    COMPLIANCE_CHECK_FAILED,
    COMPLIANCE_NO_EVENTS,
    COMPLIANCE_TARGET_NOT_REACHED,
    COMPLIANCE_UNKNOWN_CONFIG,
    KeyCount,
    Problem,
    requirement_problem,
)

# Round 0.5: not covered by mlperf-logging. Targets from the v0.5 rules (fractions, as logged).
V05_BENCHMARKS: dict[str, dict] = {
    "resnet": {"runs": 5, "target": 0.749},
    "ssd": {"runs": 5, "target": 0.212},
    "maskrcnn": {"runs": 5, "targets": {"BBOX": 0.377, "SEGM": 0.339}},
    "gnmt": {"runs": 10, "target": 21.8},
    "transformer": {"runs": 10, "target": 25.0},
    "ncf": {"runs": 10, "target": 0.635},
    "minigo": {"runs": 10, "target": 0.40},
}

# Round 0.6: the package's 0.6 configs check no quality target; these are the published targets.
V06_TARGETS: dict[str, dict] = {
    "resnet": {"target": 0.759},
    "ssd": {"target": 0.230},
    "maskrcnn": {"targets": {"BBOX": 0.377, "SEGM": 0.339}},
    "gnmt": {"target": 24.0},
    "transformer": {"target": 25.0},
}

V05_RULES = "v0.5 rules"
V05_RULESET = "0.5.0"  # the ruleset these rules-as-data are (the package ships none for it)
BLEU_BENCHMARKS = frozenset({"gnmt", "transformer"})  # targets in BLEU points
MASK_COMPONENTS = ("BBOX", "SEGM")

V05_REQUIRED: tuple[tuple[str, str], ...] = (
    ("run_clear_caches", "AT_LEAST_ONE"),
    ("run_start", "EXACTLY_ONE"),
    ("run_stop", "EXACTLY_ONE"),
    ("run_final", "EXACTLY_ONE"),
    ("eval_target", "AT_LEAST_ONE"),
    ("eval_accuracy", "AT_LEAST_ONE"),
)


@dataclass(frozen=True)
class ThresholdTarget:
    """A quality target as a threshold (higher is better for every 0.5 / 0.6 benchmark)."""

    text: str
    target: float | None
    targets: Mapping[str, float] = field(default_factory=dict)
    direction: str = "higher"
    key: str = "eval_accuracy"
    bleu_points: bool = False  # the target is in BLEU points; values <= 1 are fractions

    def met(self, record: Record, hyperparameters: Mapping[str, Any] | None = None) -> bool:
        value = eval_value(record.value)
        if self.targets:
            parts = mask_components(value)
            return parts is not None and all(
                self.meets(parts[name], threshold) for name, threshold in self.targets.items()
            )
        return self.target is not None and self.meets(value, self.target)

    def meets(self, value: Any, threshold: float) -> bool:
        if type(value) not in (int, float) or not math.isfinite(value):
            return False
        if self.bleu_points:
            if 0 <= value <= 1:
                value *= 100
            return threshold <= value <= 100
        return threshold <= value < 1.0  # fractions; the sanity bound of the later official rules


def eval_value(value: Any) -> Any:
    """v0.5 logs wrap the number: {"epoch": N, "value": X}."""
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def mask_components(value: Any) -> dict[str, Any] | None:
    """Mask R-CNN results: {"BBOX": x, "SEGM": y} or, in Google's v0.6 logs, [x, y]."""
    if isinstance(value, dict) and all(name in value for name in MASK_COMPONENTS):
        return {name: value[name] for name in MASK_COMPONENTS}
    if isinstance(value, list) and len(value) == 2:
        return dict(zip(MASK_COMPONENTS, value, strict=True))
    return None


# The quality targets of the rulesets whose targets are ours (facts: legacy_quality_target).
LEGACY_TARGETS: dict[str, dict[str, dict]] = {V05_RULESET: V05_BENCHMARKS, "0.6.0": V06_TARGETS}


def legacy_target(ruleset_version: str, benchmark: str) -> ThresholdTarget | None:
    data = LEGACY_TARGETS.get(ruleset_version, {}).get(benchmark)
    if not data:
        return None
    if "targets" in data:
        targets = dict(data["targets"])
        text = " and ".join(f"eval_accuracy.{name} >= {threshold}" for name, threshold in targets.items())
        return ThresholdTarget(text=text, target=None, targets=MappingProxyType(targets))
    target = float(data["target"])
    if benchmark in BLEU_BENCHMARKS:
        text = (
            f"eval_accuracy >= {target:g} BLEU (a value of at most 1 is read as a fraction: {target / 100:g})"
        )
        return ThresholdTarget(text=text, target=target, bleu_points=True)
    return ThresholdTarget(text=f"eval_accuracy >= {target:g}", target=target)


class TargetCheck:
    """At least one eval_accuracy record must meet the target (the official ATLEAST_ONE_CHECK
    semantics: a log without eval_accuracy is the required-key rule's finding, not this one's)."""

    def __init__(self, target: ThresholdTarget) -> None:
        self.target = target
        self.seen = 0
        self.met = False
        self.last: Record | None = None

    def feed(self, record: Record) -> None:
        self.seen += 1
        self.last = record
        if not self.met and self.target.met(record):
            self.met = True

    def problem(self, where: str) -> Problem | None:
        if self.seen == 0 or self.met:
            return None
        lines = f"{self.seen} eval_accuracy line{'s' if self.seen != 1 else ''}"
        last = self.last
        return Problem(
            ERROR,
            COMPLIANCE_TARGET_NOT_REACHED,
            f"quality target not reached: none of the {lines} meets `{self.target.text}` ({where}); "
            f"the last, on line {last.line}, has value {short_repr(last.value)}",
            last.line,
            self.target.text,
            short_repr(last.value),
        )


class SessionBase:
    def __init__(self, file: str) -> None:
        self.file = file
        self.events = 0

    def feed_records(self, records: list[Record]) -> None:
        for record in records:
            self.feed(record)

    def feed(self, record: Record) -> None:  # one record: the session's own rules
        raise NotImplementedError

    def finding(self, problem: Problem, key: str = "") -> Finding:
        return Finding(
            problem.severity,
            problem.code,
            problem.message,
            file=self.file,
            line=problem.line,
            key=key,
            expected=problem.expected,
            actual=problem.actual,
            checker=CHECKER,
            checker_version=checker_version(CHECKER),
        )

    def no_events(self) -> tuple[bool, list[Finding]]:
        problem = Problem(
            ERROR, COMPLIANCE_NO_EVENTS, "no MLPerf log events: a log without any fails the rules"
        )
        return False, [self.finding(problem)]


class V05Session(SessionBase):
    """The round 0.5 rules, with the RuleSession interface (feed_records, finish)."""

    def __init__(self, *, file: str) -> None:
        super().__init__(file)
        self.counts: dict[str, KeyCount] = {name: KeyCount() for name, _ in V05_REQUIRED}
        self.benchmark: str | None = None  # from the first record (every v0.5 line names it)
        self.target_check: TargetCheck | None = None
        self.run_started = False
        self.problems: list[tuple[str, Problem]] = []

    def feed(self, record: Record) -> None:
        self.events += 1
        if self.benchmark is None:
            self.start(record)
        key = record.key
        counted = self.counts.get(key)
        if counted is not None:
            counted.add(record)
        if key == "run_start":
            self.run_started = True
        elif key == "run_stop" and not self.run_started and self.counts["run_stop"].count == 1:
            self.problems.append(
                (
                    key,
                    Problem(
                        ERROR,
                        COMPLIANCE_CHECK_FAILED,
                        f"run_stop on line {record.line} comes before any run_start ({V05_RULES})",
                        record.line,
                        "run_start logged before run_stop",
                        "no run_start before it",
                    ),
                )
            )
        elif key == "eval_accuracy":
            self.check_eval(record)

    def start(self, record: Record) -> None:
        self.benchmark = str(record.metadata.get("benchmark", ""))
        target = legacy_target(V05_RULESET, self.benchmark)
        if self.benchmark not in V05_BENCHMARKS:
            self.problems.append(
                (
                    "",
                    Problem(
                        ERROR,
                        COMPLIANCE_UNKNOWN_CONFIG,
                        f"benchmark {short_repr(self.benchmark)} on line {record.line} has no rule set in training 0.5.0; "
                        f"expected one of {', '.join(sorted(V05_BENCHMARKS))}",
                        record.line,
                        "one of " + ", ".join(sorted(V05_BENCHMARKS)),
                        short_repr(self.benchmark),
                    ),
                )
            )
        elif target is not None:
            self.target_check = TargetCheck(target)

    def check_eval(self, record: Record) -> None:
        value = eval_value(record.value)
        if self.benchmark == "maskrcnn":
            readable = mask_components(value) is not None
            shape = '{"epoch": N, "value": {"BBOX": x, "SEGM": y}}'
        else:
            readable = type(value) in (int, float)
            shape = '{"epoch": N, "value": number}'
        if not readable and sum(1 for key, _ in self.problems if key == "eval_accuracy") < 10:
            self.problems.append(
                (
                    "eval_accuracy",
                    Problem(
                        ERROR,
                        COMPLIANCE_CHECK_FAILED,
                        f"eval_accuracy on line {record.line} has value {short_repr(record.value)}; expected {shape} ({V05_RULES})",
                        record.line,
                        shape,
                        short_repr(record.value),
                    ),
                )
            )
        if self.target_check is not None:
            self.target_check.feed(record)

    def finish(self) -> tuple[bool, list[Finding]]:
        if self.events == 0:
            return self.no_events()
        problems = list(self.problems)
        for name, req in V05_REQUIRED:
            problem = requirement_problem(name, req, 0, self.counts[name].count, self.counts[name], V05_RULES)
            if problem is not None:
                problems.append((name, problem))
        if self.target_check is not None:
            problem = self.target_check.problem(f"{self.benchmark} in training 0.5.0")
            if problem is not None:
                problems.append(("eval_accuracy", problem))
        findings = [self.finding(problem, key) for key, problem in problems]
        return not any(f.severity == ERROR for f in findings), findings


class TargetSession(SessionBase):
    """Round 0.6: the published quality target, which the official 0.6.0 configs do not check.
    The benchmark is the logged submission_benchmark when it has a target, else `benchmark`
    (the result folder's)."""

    def __init__(self, ruleset_version: str, *, file: str, benchmark: str) -> None:
        super().__init__(file)
        self.ruleset_version = ruleset_version
        self.folder_benchmark = benchmark
        self.logged_benchmark: str | None = None
        self.target_check: TargetCheck | None = None
        self.benchmark = ""
        self.resolved = False

    def feed(self, record: Record) -> None:
        self.events += 1
        key = record.key
        if key == "submission_benchmark" and self.logged_benchmark is None and isinstance(record.value, str):
            self.logged_benchmark = record.value
        elif key == "eval_accuracy":
            if not self.resolved:
                self.resolve()
            if self.target_check is not None:
                self.target_check.feed(record)

    def resolve(self) -> None:
        self.resolved = True
        for benchmark in (self.logged_benchmark, self.folder_benchmark):
            target = legacy_target(self.ruleset_version, benchmark) if benchmark else None
            if target is not None:
                self.benchmark = benchmark
                self.target_check = TargetCheck(target)
                return

    def finish(self) -> tuple[bool, list[Finding]]:
        if self.target_check is None:
            return True, []
        where = (
            f"{self.benchmark} in training {self.ruleset_version}; a stricter rule than the official "
            f"{self.ruleset_version} checker, which checks no quality target"
        )
        problem = self.target_check.problem(where)
        if problem is None:
            return True, []
        return False, [self.finding(problem, "eval_accuracy")]
