"""The streaming engine: the compiled official rules (mlperf_check.rules.configs) applied to one
log, record by record, with the semantics of the official engine `mlp_compliance.py`
(docs/official-tools.md section c.1):

* Checking a log starts with `training_<version>/common.yaml`; rule code calls
  `enqueue_config(name)` to add more configs (<division>_common, then <division>_<benchmark>,
  then for closed ResNet closed_resnet_<opt_name>). Each config is a separate pass over every
  record with its own state `s`.
* Per record whose key has a KEY rule: PRE (exec), CHECK (each expression must be true), POST
  (exec) - for keys containing "submission_" only on their first occurrence - then FIRST_CHECK on
  the first occurrence and ATLEAST_ONE_CHECK on every occurrence (one must pass: quality targets).
* After the pass: REQ (EXACTLY_ONE, AT_LEAST_ONE, AT_LEAST(n), AT_LEAST_ONE_OR(..), OPTIONAL),
  then the END block. EXACTLY_ONE duplicates with one value are a warning, different values an error.
* A later config that defines a key erases what earlier configs reported about that key.

Where the official tool needs the whole file in memory, a RuleSession streams it: every active
config pass sees each record as it arrives (the parser's blocks, a list of records each). A config
enqueued at record i must first see records 0..i, so the blocks read so far are kept in a bounded
replay buffer; past its bounds, a late config re-reads the file through `reopen` instead.

Where the official engine crashes (a config name with no file, an ATLEAST_ONE_CHECK, BEGIN or END
code that raises) there is a finding instead. Findings cite the physical line and keep up to
MAX_FINDINGS_PER_KEY failures per key and code, where the official engine keeps the last message
per key. The verdict is the same: compliant when no error remains.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import field
from functools import partial
from typing import Any, NamedTuple

from mlperf_check.finding_sources import checker_version
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.parsing import ParseStats
from mlperf_check.parsing.formats import short_repr
from mlperf_check.report import ERROR, INFO, WARNING, Finding, Record
from mlperf_check.rules.configs import (
    STATE_NAME,
    ConfigRules,
    OfficialRules,
    PlainRule,
    Rule,
    load_config,
    rule_namespace,
    shipped_configs,
)
from mlperf_check.rules.display import readable_rule
from mlperf_check.rules.facts import ruleset_label

CHECKER = "compliance"  # the registry entry (mlperf_check.checkers) these findings belong to

COMPLIANCE_CHECK_FAILED = "COMPLIANCE_CHECK_FAILED"
COMPLIANCE_REQUIRED_KEY_MISSING = "COMPLIANCE_REQUIRED_KEY_MISSING"
COMPLIANCE_DUPLICATE_KEY = "COMPLIANCE_DUPLICATE_KEY"
COMPLIANCE_TARGET_NOT_REACHED = "COMPLIANCE_TARGET_NOT_REACHED"
COMPLIANCE_RULE_ERROR = "COMPLIANCE_RULE_ERROR"
COMPLIANCE_UNKNOWN_CONFIG = "COMPLIANCE_UNKNOWN_CONFIG"
COMPLIANCE_NO_EVENTS = "COMPLIANCE_NO_EVENTS"
COMPLIANCE_CONFIG_NOT_APPLIED = "COMPLIANCE_CONFIG_NOT_APPLIED"
COMPLIANCE_MORE_FINDINGS = "COMPLIANCE_MORE_FINDINGS"

# Replay buffer bounds: enqueues happen within the first few dozen records of real logs, and the
# records of a whole real log take a few MB at most. Past either bound the buffer is dropped and a
# late config re-reads the file.
MAX_REPLAY_RECORDS = 20_000
MAX_REPLAY_BYTES = 4 << 20  # of the log read (RuleSession's stats): bounds the buffer's memory
MAX_PASSES = 32  # real chains are 3-4 configs long; guards against a config enqueuing itself
MAX_FINDINGS_PER_KEY = 10  # per config pass, key and code; the rest are counted in one note
MAX_AGGREGATED_POINTS = 10_000  # Stable Diffusion eval points (real logs have a few dozen)
MAX_DISTINCT_VALUES = 10  # kept per EXACTLY_ONE key, for the "different values" message
# Where ATLEAST_ONE_CHECK is a quality target (HPC cosmoflow and oc20 target an eval_error).
EVAL_KEYS = ("eval_accuracy", "aggregated_eval_accuracy", "eval_error")


class LogLine(NamedTuple):
    """What rule code sees as `ll`: the official parser's LogLine, a named tuple too. full_string
    is left empty: no rule reads it, and messages cite the physical line instead."""

    full_string: str
    timestamp: float
    key: str
    value: dict  # {"value": ..., "metadata": {...}}, what rule code sees as `v`
    lineno: int  # 0-based index among log events, the official "line"


# A LogLine per rule-relevant record, built without the NamedTuple's Python-level __new__.
new_log_line = partial(tuple.__new__, LogLine)


@dataclass(slots=True)
class KeyCount:
    """Occurrences of one key with its first lines and distinct values, in bounded memory: what
    an EXACTLY_ONE requirement reports. Other keys are only counted (ConfigPass.counts)."""

    count: int = 0
    first_value: Any = None
    first_line: int = 0
    second_line: int = 0
    all_same: bool = True  # every value equal to the first (the official all_same)
    values: list[str] = field(default_factory=list)  # distinct values as text, bounded

    def add(self, record: Record) -> None:
        value = record.value
        self.count += 1
        if self.count == 1:  # the usual case: nothing to compare or describe yet
            self.first_value = value
            self.first_line = record.line
            return
        if self.count == 2:
            self.second_line = record.line
            self.values.append(short_repr(self.first_value))
        if not (value is self.first_value or safe_equal(value, self.first_value)):
            self.all_same = False
        if len(self.values) < MAX_DISTINCT_VALUES:
            text = short_repr(value)
            if text not in self.values:
                self.values.append(text)


@dataclass(frozen=True)
class Problem:
    """A finding before it has a file: severity, code, message and where."""

    severity: str
    code: str
    message: str
    line: int | None = None
    expected: str = ""
    actual: str = ""


def requirement_problem(
    name: str, req: str, at_least: int, found: int, counted: KeyCount | None, where: str
) -> Problem | None:
    """The REQ rules of the official engine (alternatives excepted) for one key seen `found`
    times; `counted` holds its first lines and values (for EXACTLY_ONE). `where` names the rule
    set in the message. None when the requirement holds."""
    if req == "EXACTLY_ONE" and found != 1:
        if found == 0:
            return Problem(
                ERROR,
                COMPLIANCE_REQUIRED_KEY_MISSING,
                f"Required EXACTLY_ONE occurrence of '{name}' but found 0 ({where})",
                None,
                "exactly 1",
                "0",
            )
        if counted.all_same:
            more = " and more" if found > 2 else ""
            return Problem(
                WARNING,
                COMPLIANCE_DUPLICATE_KEY,
                f"Required EXACTLY_ONE occurrence of '{name}' but found {found}, all with value {counted.values[0]} "
                f"(lines {counted.first_line} and {counted.second_line}{more}) ({where})",
                counted.second_line,
                "exactly 1",
                f"{found} occurrences",
            )
        listed = ", ".join(counted.values) + (", ..." if len(counted.values) >= MAX_DISTINCT_VALUES else "")
        return Problem(
            ERROR,
            COMPLIANCE_DUPLICATE_KEY,
            f"Required EXACTLY_ONE occurrence of '{name}' but found {found} with different values: [{listed}] "
            f"(first on lines {counted.first_line} and {counted.second_line}) ({where})",
            counted.second_line,
            "exactly 1",
            f"{found} occurrences with different values",
        )
    if req == "AT_LEAST_ONE" and found < 1:
        return Problem(
            ERROR,
            COMPLIANCE_REQUIRED_KEY_MISSING,
            f"Required AT_LEAST_ONE occurrence of '{name}' but found 0 ({where})",
            None,
            "at least 1",
            "0",
        )
    if req.startswith("AT_LEAST(") and found < at_least:
        return Problem(
            ERROR,
            COMPLIANCE_REQUIRED_KEY_MISSING,
            f"Required AT_LEAST({at_least}) occurrence of '{name}' but found {found} ({where})",
            None,
            f"at least {at_least}",
            str(found),
        )
    return None


@dataclass(slots=True)
class AggregatedPoint:
    """A Stable Diffusion eval point: the merged FID / CLIP lines of one step."""

    line: int  # of its first line
    time_ms: float  # of its latest line
    value: dict  # {<step field>: step, "FID": x, "CLIP": y}


@dataclass(slots=True)
class AtLeastOne:
    """The count of an ATLEAST_ONE_CHECK over one key's records: seen, satisfied, the last one."""

    rule: Rule
    seen: int = 0
    satisfied: int = 0
    last: Record | None = None


class ConfigPass:
    """One config applied to the whole log, with its own state `s`."""

    def __init__(self, session: RuleSession, config: ConfigRules) -> None:
        self.session = session
        self.config = config
        self.keys = config.keys
        self.aggregate_by = config.aggregate_by
        self.children: list[ConfigPass] = []
        self.s: dict[str, Any] = {}
        self.namespace = rule_namespace(self.s, self.enqueue_config)
        self.counts: dict[str, int] = {}  # occurrences per key
        self.distinct: dict[str, KeyCount] = {}  # first lines and values of EXACTLY_ONE keys
        self.executed: set[str] = set()  # submission_* keys whose PRE/CHECK/POST ran
        self.first_checked: set[str] = set()
        self.at_least_one: dict[str, AtLeastOne] = {}
        self.findings: list[tuple[str | None, Finding]] = []  # (key it is about, finding)
        self.findings_per_key: dict[tuple[str | None, str], int] = {}
        self.current: Record | None = None  # the record being evaluated, for enqueue_config
        self.aggregated: dict[Any, AggregatedPoint] = {}  # Stable Diffusion eval points by step
        self.aggregate_error = False
        self.ended = False
        if config.begin is not None:
            try:
                exec(config.begin.code, self.namespace, {})
            except Exception as exc:  # noqa: BLE001 - rule code failing is a finding, not a crash
                self.report(
                    None,
                    ERROR,
                    COMPLIANCE_RULE_ERROR,
                    f"the BEGIN block of {config.name} raised {describe(exc)}",
                )

    # -- called by rule code
    def enqueue_config(self, name: Any) -> None:
        self.session.enqueue(self, name, self.current)

    # -- per record
    def feed(self, ll: LogLine, record: Record) -> None:
        """Any record; feed_plain() is the shorter way for a plain rule (most records)."""
        key = ll.key
        if self.aggregate_by and key == "eval_accuracy":
            self.aggregate(record)
        rule = self.keys.get(key)
        if rule is None:
            return
        self.current = record
        counts = self.counts
        counts[key] = counts.get(key, 0) + 1
        if rule.req == "EXACTLY_ONE":
            self.keep_distinct(key, record)
        if key not in self.executed:
            if rule.pre is not None:
                self.run_exec(rule.pre, "PRE", ll, record)
            for check in rule.checks:
                self.run_check(check, ll, record)
            if rule.post is not None:
                self.run_exec(rule.post, "POST", ll, record)
        if rule.first_checks and key not in self.first_checked:
            self.first_checked.add(key)
            for check in rule.first_checks:
                self.run_check(check, ll, record)
        if rule.atleast_one is not None:
            self.check_at_least_one(rule.atleast_one, ll, record)
        if "submission_" in key:
            self.executed.add(key)
        self.current = None

    def feed_plain(self, plain: PlainRule, record: Record) -> None:
        """feed() for a record whose key has a plain rule in this config (PlainRule): its
        expressions run on the record's value and metadata; a LogLine is built only to report."""
        key, value, metadata = record[0], record[1], record[2]
        counts = self.counts
        counts[key] = counts.get(key, 0) + 1
        if plain.exactly_one:
            self.keep_distinct(key, record)
        try:
            passed = plain.all_pass(value, metadata, self.s)
        except Exception:  # noqa: BLE001 - run_check says which check failed and why
            passed = False
        if not passed:
            ll = self.session.log_line(record)
            for check in plain.checks:
                self.run_check(check, ll, record)
        if plain.target_met is not None:
            try:
                met = plain.target_met(value, metadata, self.s)
            except Exception as exc:  # noqa: BLE001 - the official engine crashes here
                self.report_rule_error(plain.atleast_one, record, exc)
                met = False
            self.count_at_least_one(plain.atleast_one, record, met)

    def keep_distinct(self, key: str, record: Record) -> None:
        """The lines and values of an EXACTLY_ONE key, for its requirement's report."""
        counted = self.distinct.get(key)
        if counted is None:
            counted = self.distinct[key] = KeyCount()
        counted.add(record)

    def run_check(self, rule: Rule, ll: LogLine, record: Record) -> None:
        try:
            passed = rule.run(ll, ll.value, self.namespace)
        except Exception as exc:  # noqa: BLE001 - rule code failing on a value is a finding
            self.report_rule_error(rule, record, exc)
            return
        if not passed:
            self.check_failed(rule, ll, record)

    def check_failed(self, rule: Rule, ll: LogLine, record: Record) -> None:
        if self.keeps(ll.key, COMPLIANCE_CHECK_FAILED):
            self.add(
                ll.key,
                ERROR,
                COMPLIANCE_CHECK_FAILED,
                f"{ll.key} on line {record.line} breaks the rule `{readable_rule(rule.text)}` of "
                f"{self.config.name}: value {short_repr(record.value)}{self.rule_context(rule.text, ll)}",
                line=record.line,
                key=ll.key,
                expected=readable_rule(rule.text),
                actual=short_repr(record.value),
            )

    def report_rule_error(self, rule: Rule, record: Record, exc: Exception) -> None:
        """The official "Failed executing CHECK code": typically a value of the wrong type."""
        if not self.keeps(record.key, COMPLIANCE_RULE_ERROR):
            return
        self.add(
            record.key,
            ERROR,
            COMPLIANCE_RULE_ERROR,
            f"{record.key} on line {record.line}: the rule `{readable_rule(rule.text)}` of {self.config.name} "
            f"cannot be evaluated on value {short_repr(record.value)}: {describe(exc)}",
            line=record.line,
            key=record.key,
            expected=readable_rule(rule.text),
            actual=short_repr(record.value),
        )

    def run_exec(self, rule: Rule, part: str, ll: LogLine, record: Record) -> None:
        try:
            rule.run(ll, ll.value, self.namespace)
        except Exception as exc:  # noqa: BLE001
            if not self.keeps(ll.key, COMPLIANCE_RULE_ERROR):
                return
            self.add(
                ll.key,
                ERROR,
                COMPLIANCE_RULE_ERROR,
                f"{ll.key} on line {record.line}: the {part} code `{readable_rule(rule.text)}` of "
                f"{self.config.name} failed on value {short_repr(record.value)}: {describe(exc)}",
                line=record.line,
                key=ll.key,
                actual=short_repr(record.value),
            )

    def check_at_least_one(self, rule: Rule, ll: LogLine, record: Record) -> None:
        try:
            met = rule.run(ll, ll.value, self.namespace)
        except Exception as exc:  # noqa: BLE001 - the official engine crashes here
            self.report_rule_error(rule, record, exc)
            met = False
        self.count_at_least_one(rule, record, met)

    def count_at_least_one(self, rule: Rule, record: Record, met: Any) -> None:
        """One more record of an ATLEAST_ONE_CHECK key; `met`: whether it passed the check."""
        state = self.at_least_one.get(record.key)
        if state is None:
            state = self.at_least_one[record.key] = AtLeastOne(rule)
        state.seen += 1
        state.last = record
        if met:
            state.satisfied += 1

    def rule_context(self, text: str, ll: LogLine) -> str:
        """The state, metadata and time a failed rule looked at, for the message."""
        parts = []
        if "metadata" in text:
            parts.append(f"metadata {short_repr(ll.value.get('metadata'))}")
        if "ll.timestamp" in text:
            parts.append(f"time {ll.timestamp:.0f}")
        for name in dict.fromkeys(STATE_NAME.findall(text)):
            parts.append(f"state.{name} = {short_repr(self.s.get(name, '<unset>'))}")
        return f" ({'; '.join(parts)})" if parts else ""

    def aggregate(self, record: Record) -> None:
        """Native version of the Stable Diffusion BEGIN block: one virtual record per eval point,
        value {<group field>: point, <metric>: value, ...}, time the latest of its lines."""
        metadata = record.metadata
        if "metric" not in metadata:
            return
        group = self.config.aggregate_by
        point = metadata.get(group)
        try:
            merged = self.aggregated.get(point)
        except TypeError:  # an unhashable point (a list): the official BEGIN block crashes
            point = merged = None
        if point is None or (merged is None and len(self.aggregated) >= MAX_AGGREGATED_POINTS):
            if not self.aggregate_error:
                self.aggregate_error = True
                self.report(
                    None,
                    ERROR,
                    COMPLIANCE_RULE_ERROR,
                    f"eval_accuracy on line {record.line} carries metadata.metric but no usable "
                    f"metadata.{group} ({short_repr(metadata.get(group))}); {self.config.name} merges "
                    f"the FID and CLIP lines of one eval point by it",
                    line=record.line,
                    key="eval_accuracy",
                    expected=f"metadata.{group}: a number",
                    actual=short_repr(metadata.get(group)),
                )
            return
        if merged is None:
            merged = self.aggregated[point] = AggregatedPoint(record.line, record.time_ms, {group: point})
        merged.time_ms = max(merged.time_ms, record.time_ms)
        try:
            merged.value[metadata["metric"]] = record.value
        except TypeError:  # an unhashable metric name
            pass

    # -- after the last record
    def end(self) -> None:
        """The virtual Stable Diffusion records (after every real one, as in the official engine),
        then ATLEAST_ONE_CHECK, REQ and the END block."""
        self.ended = True
        for point in self.aggregated.values():
            record = Record("aggregated_eval_accuracy", point.value, {}, point.time_ms, point.line, -1)
            self.feed(self.session.log_line(record), record)
        self.aggregated.clear()
        for key, state in self.at_least_one.items():
            if state.satisfied == 0:
                self.report_not_reached(key, state)
        self.check_requirements()
        self.run_end_block()

    def report_not_reached(self, key: str, state: AtLeastOne) -> None:
        readable = readable_rule(state.rule.text)
        last = state.last
        lines = f"{state.seen} {key} line{'s' if state.seen != 1 else ''}"
        message = (
            f"none of the {lines} meets `{readable}` ({self.config.name}); "
            f"the last, on line {last.line}, has value {short_repr(last.value)}"
        )
        if key in EVAL_KEYS:
            self.report(
                None,
                ERROR,
                COMPLIANCE_TARGET_NOT_REACHED,
                f"quality target not reached: {message}",
                line=last.line,
                key=key,
                expected=readable,
                actual=short_repr(last.value),
            )
        else:
            self.report(
                None,
                ERROR,
                COMPLIANCE_CHECK_FAILED,
                message,
                line=last.line,
                key=key,
                expected=readable,
                actual=short_repr(last.value),
            )

    def check_requirements(self) -> None:
        counts = self.counts
        for rule in self.config.requirements:
            name = rule.name
            found = counts.get(name, 0)
            if found == 1 and rule.at_least <= 1:
                continue  # the usual case, met whatever the requirement
            problem = requirement_problem(
                name, rule.req, rule.at_least, found, self.distinct.get(name), self.config.name
            )
            if problem is not None:
                self.report(
                    name,
                    problem.severity,
                    problem.code,
                    problem.message,
                    line=problem.line,
                    key=name,
                    expected=problem.expected,
                    actual=problem.actual,
                )
        for names in self.config.alternative_groups:
            if not any(self.counts.get(name) for name in names):
                listed = " or ".join(f"'{name}'" for name in names)
                # Not tied to one key: a later config cannot erase it (as in the official engine).
                self.report(
                    None,
                    ERROR,
                    COMPLIANCE_REQUIRED_KEY_MISSING,
                    f"Required AT_LEAST_ONE occurrence of {listed} ({self.config.name})",
                    key=names[0],
                    expected="at least 1",
                    actual="0",
                )

    def run_end_block(self) -> None:
        config = self.config
        if config.end_pre is not None:
            try:
                exec(config.end_pre.code, self.namespace)  # noqa: S102 - trusted config code
            except Exception as exc:  # noqa: BLE001
                self.report(
                    None,
                    ERROR,
                    COMPLIANCE_RULE_ERROR,
                    f"the END code of {config.name} raised {describe(exc)}",
                )
                return
        for check in config.end_checks:
            readable = readable_rule(check.text)
            try:
                passed = eval(check.code, self.namespace)  # noqa: S307 - trusted config code
            except Exception as exc:  # noqa: BLE001
                self.report(
                    None,
                    ERROR,
                    COMPLIANCE_RULE_ERROR,
                    f"the end-of-log rule `{readable}` of {config.name} cannot be evaluated: {describe(exc)}",
                    expected=readable,
                )
                continue
            if not passed:
                self.report(
                    None,
                    ERROR,
                    COMPLIANCE_CHECK_FAILED,
                    f"the end-of-log rule `{readable}` of {config.name} fails"
                    f"{explain_comparison(check.text, self.namespace)}",
                    expected=readable,
                )

    # -- findings
    def report(self, about: str | None, severity: str, code: str, message: str, **where: Any) -> None:
        """`about`: the key a later config may redefine (its findings are then erased), None for
        findings no later config erases. At most MAX_FINDINGS_PER_KEY per (about, code)."""
        if self.keeps(about, code):
            self.add(about, severity, code, message, **where)

    def keeps(self, about: str | None, code: str) -> bool:
        """Counts one more finding of (about, code); True while it is among the first
        MAX_FINDINGS_PER_KEY, which are kept (overflow_notes counts the rest). Per-record rules
        ask before building a message: a log failing a rule on every line builds ten."""
        count = self.findings_per_key.get((about, code), 0) + 1
        self.findings_per_key[(about, code)] = count
        return count <= MAX_FINDINGS_PER_KEY

    def add(self, about: str | None, severity: str, code: str, message: str, **where: Any) -> None:
        self.findings.append((about, self.session.finding(severity, code, message, **where)))

    def overflow_notes(self) -> list[tuple[str | None, Finding]]:
        notes = []
        for (about, code), count in self.findings_per_key.items():
            if count > MAX_FINDINGS_PER_KEY:
                subject = f"{code} findings about {about}" if about else f"{code} findings"
                message = (
                    f"{count - MAX_FINDINGS_PER_KEY} more {subject} from {self.config.name} are not listed"
                )
                notes.append(
                    (about, self.session.finding(INFO, COMPLIANCE_MORE_FINDINGS, message, key=about or ""))
                )
        return notes


class ReplayStream:
    """Feeds one pass over the records to a set of config passes. Passes enqueued while it runs
    first replay the kept records; when those were dropped, they wait for a re-read.

    A record goes only to the passes whose config has a rule for its key (`routes`, in the order
    the passes became active): most records concern one config of the three or four running.
    A route skips a pass whose rule for the key is plain (KeyRule.plain) without an
    ATLEAST_ONE_CHECK, not EXACTLY_ONE (a duplicate's warning is kept) and cannot count for an
    AT_LEAST_ONE_OR requirement when a config processed later defines the same key: the official
    engine erases that pass's findings about the key (RuleSession.finish), and without side
    effects its checks change nothing else."""

    def __init__(
        self, session: RuleSession, passes: list[ConfigPass], stats: ParseStats | None = None
    ) -> None:
        self.session = session
        self.stats = stats
        self.events = 0
        # Per key: (config pass, its PlainRule for the key or None) for each active pass that
        # needs the record. Keys no active pass needs are absent.
        self.routes: dict[str, tuple[tuple[ConfigPass, PlainRule | None], ...]] = {}
        self.definers: dict[str, list[tuple[ConfigPass, PlainRule | None]]] = {}  # unpruned routes
        self.pending: list[ConfigPass] = []
        self.deferred: list[ConfigPass] = []
        # The blocks of records fed so far, as the parser made them: keeping a block costs one
        # append. A replay rebuilds the LogLines it needs (session.log_line).
        self.buffer: list[list[Record]] | None = []
        self.kept = 0  # records in the buffer
        for config_pass in passes:
            self.activate(config_pass)

    def activate(self, config_pass: ConfigPass) -> None:
        config = config_pass.config
        position: dict[int, int] | None = None  # of each pass in the processing order
        for key in config.routed_keys:
            route = (config_pass, config.plain_rules.get(key))
            definers = self.definers.get(key)
            if definers is None:
                self.definers[key] = [route]
                self.routes[key] = (route,)
                continue
            definers.append(route)
            if position is None:
                position = {id(p): i for i, p in enumerate(self.session.processing_order())}
            # The last pass in processing order whose config defines the key: the official engine
            # erases the findings of earlier passes about it. A config that only routes the key
            # (the Stable Diffusion aggregation of eval_accuracy) defines nothing and erases nothing.
            last = max((position[id(p)] for p, _ in definers if key in p.config.keys), default=-1)
            self.routes[key] = tuple(
                (p, plain)
                for p, plain in definers
                if plain is None
                or plain.atleast_one is not None
                or plain.exactly_one  # a duplicate's warning stays, whichever config defines the key later
                or key in p.config.alternative_keys
                or position[id(p)] == last
            )

    def feed_records(self, records: list[Record]) -> None:
        """The next records in file order: the hot loop of checking (bench/parse.py)."""
        self.events += len(records)
        self.keep(records)
        routes_get = self.routes.get  # activate() updates the same dict
        for record in records:
            routes = routes_get(record[0])
            if routes is None:
                continue  # no active config has a rule for it
            for config_pass, plain in routes:
                if plain is None:
                    config_pass.feed(self.session.log_line(record), record)
                else:
                    config_pass.feed_plain(plain, record)
            if self.pending:
                self.catch_up(until=record)

    def keep(self, records: list[Record]) -> None:
        if self.buffer is None:
            return
        self.kept += len(records)
        if self.kept > MAX_REPLAY_RECORDS or (self.stats is not None and self.stats.size_bytes > MAX_REPLAY_BYTES):
            self.buffer = None  # free it: a later enqueue re-reads the file
        else:
            self.buffer.append(records)

    def catch_up(self, until: Record | None = None) -> None:
        """Each pending pass replays the kept records, up to `until` (the record being fed when
        it was enqueued; None: all of them), and becomes active."""
        while self.pending:
            config_pass = self.pending.pop(0)
            if self.buffer is None:
                self.deferred.append(config_pass)
                continue
            self.replay(config_pass, until)
            self.activate(config_pass)

    def replay(self, config_pass: ConfigPass, until: Record | None) -> None:
        log_line = self.session.log_line
        routed = config_pass.config.routed_keys
        plain_rules = config_pass.config.plain_rules
        for records in self.buffer:
            for record in records:
                if record[0] in routed:
                    plain = plain_rules.get(record[0])
                    if plain is None:
                        config_pass.feed(log_line(record), record)
                    else:
                        config_pass.feed_plain(plain, record)
                if record is until:
                    return


class RuleSession:
    """The official rules of one ruleset applied to one log, record by record.

    feed_records() the records in file order, then finish() once. Memory stays bounded: per config pass
    the rule state and counts, plus the bounded replay buffer."""

    def __init__(
        self,
        rules: OfficialRules,
        *,
        file: str,
        reopen: Callable[[], Iterator[list[Record]]] | None,
        stats: ParseStats | None = None,
    ) -> None:
        """`reopen` reads the records again for a config asked for after the replay buffer was
        dropped; `stats` are the parser's of the stream being fed, whose bytes read so far bound
        the buffer (without them, only the record count does)."""
        self.rules = rules
        self.timestamp_scale = rules.timestamp_scale
        self.file = file
        self.reopen = reopen
        self.passes: list[ConfigPass] = []  # in creation order
        self.root = self.new_pass(load_config(rules.entry), parent=None)
        self.stream = ReplayStream(self, [self.root], stats)
        # The stream's own method: feed_records(records) with the next records in file order.
        self.feed_records: Callable[[list[Record]], None] = self.stream.feed_records

    def finding(self, severity: str, code: str, message: str, **where: Any) -> Finding:
        return Finding(
            severity, code, message, file=self.file, checker=CHECKER, checker_version=checker_version(CHECKER), **where
        )

    def new_pass(self, config: ConfigRules, parent: ConfigPass | None) -> ConfigPass:
        config_pass = ConfigPass(self, config)
        self.passes.append(config_pass)
        if parent is not None:
            parent.children.append(config_pass)
        return config_pass

    def enqueue(self, parent: ConfigPass, name: Any, record: Record | None) -> None:
        """enqueue_config() from rule code: `name` is built from a log value, so it is only
        accepted when it names a shipped config."""
        if not (isinstance(name, str) and name in shipped_configs()):
            parent.report(
                None,
                ERROR,
                COMPLIANCE_UNKNOWN_CONFIG,
                self.unknown_config_message(parent, name, record),
                line=record.line if record else None,
                key=record.key if record else "",
                actual=short_repr(record.value) if record else short_repr(name),
            )
            return
        if any(child.config.name == name for child in parent.children):
            # A repeated opt_name asks again; the official engine reruns the same config over the
            # same log, which yields the same findings and erases the first run's.
            return
        if len(self.passes) >= MAX_PASSES:
            parent.report(
                None,
                ERROR,
                COMPLIANCE_RULE_ERROR,
                f"{parent.config.name} asks for {name} after {MAX_PASSES} rule sets; not applied",
            )
            return
        self.stream.pending.append(self.new_pass(load_config(name), parent))

    def unknown_config_message(self, parent: ConfigPass, name: Any, record: Record | None) -> str:
        ruleset = ruleset_label(parent.config.ruleset)
        if record is None or not isinstance(name, str):
            return f"{parent.config.name} asks for the rule set {short_repr(name)}, which {ruleset} does not ship"
        expected = expected_values(parent.config, record, name)
        listed = f"; expected one of {', '.join(expected)}" if expected else ""
        return f"{record.key} {short_repr(record.value)} on line {record.line} has no rule set in {ruleset}{listed}"

    def log_line(self, record: Record) -> LogLine:
        """What rule code sees as `ll` (and `ll.value` as `v`) for one record. No shipped rule
        writes into `v` or `ll`, so a replay may build them again."""
        key, value, metadata, time_ms, _, index = record
        return new_log_line(("", time_ms * self.timestamp_scale, key, {"value": value, "metadata": metadata}, index))

    def finish(self) -> tuple[bool, list[Finding]]:
        """(compliant, findings). Findings about a key come only from the last config (in the
        official processing order) that defines that key."""
        if self.stream.events == 0:
            finding = self.finding(
                ERROR,
                COMPLIANCE_NO_EVENTS,
                "no MLPerf log events: the official checker fails a log without any",
            )
            return False, [finding]
        not_applied: list[Finding] = []
        while True:
            while self.stream.deferred:
                self.replay_deferred(not_applied)
            unfinished = [p for p in self.passes if not p.ended]
            if not unfinished:
                break
            for config_pass in unfinished:
                config_pass.end()  # a config enqueued from an END block joins through the stream
                self.stream.catch_up()
        findings = self.ordered_findings() + not_applied
        compliant = not any(f.severity == ERROR for f in findings)
        self.release()
        return compliant, findings

    def release(self) -> None:
        """Break the session <-> pass <-> namespace cycles, so that reference counting frees the
        rule state at once: a worker checking thousands of logs must not wait for the cyclic
        garbage collector (it held ~10 KB per log until a full collection)."""
        for config_pass in self.passes:
            config_pass.namespace.clear()
            config_pass.children.clear()
        self.passes = []
        self.stream = None
        self.feed_records = None
        self.root = None

    def replay_deferred(self, not_applied: list[Finding]) -> None:
        """Configs enqueued after the replay buffer was dropped read the file again."""
        deferred = self.stream.deferred
        if self.reopen is None:
            for config_pass in deferred:
                config_pass.ended = True
                config_pass.findings.clear()
                not_applied.append(
                    self.finding(
                        ERROR,
                        COMPLIANCE_CONFIG_NOT_APPLIED,
                        f"{config_pass.config.name} was asked for after more than {MAX_REPLAY_RECORDS} log events "
                        f"or {MAX_REPLAY_BYTES >> 20} MiB of log and the log cannot be read again: its rules were not applied",
                    )
                )
            self.stream.deferred = []
            return
        live = self.stream
        self.stream = ReplayStream(self, deferred)
        self.stream.buffer = None  # a config asked for during the re-read waits for the next one
        for records in self.reopen():
            self.stream.feed_records(records)
        leftover = self.stream.deferred
        self.stream = live
        self.stream.deferred = leftover  # enqueued late during the re-read: read again

    def ordered_findings(self) -> list[Finding]:
        order = self.processing_order()
        findings: list[Finding] = []
        warnings: dict[str, Finding] = {}  # the official engine keeps one warning per key
        for i, config_pass in enumerate(order):
            for about, finding in config_pass.findings + config_pass.overflow_notes():
                if finding.severity == WARNING and finding.code == COMPLIANCE_DUPLICATE_KEY:
                    warnings.pop(finding.key, None)  # kept even when a later config redefines the key
                    warnings[finding.key] = finding
                elif about is None or not any(about in later.config.keys for later in order[i + 1 :]):
                    findings.append(finding)  # else a later config redefines this key
        return findings + list(warnings.values())

    def processing_order(self) -> list[ConfigPass]:
        """The order the official engine runs configs in: a FIFO queue, each config's enqueues
        appended when it runs."""
        order = []
        queue = [self.root]
        while queue:
            config_pass = queue.pop(0)
            order.append(config_pass)
            queue.extend(config_pass.children)
        return order


def expected_values(config: ConfigRules, record: Record, requested: str) -> list[str]:
    """The values of `record.key` that would have named a shipped config: the key's CHECK
    whitelist (`v['value'] in [...]`) where it has one, else every value that fits the name."""
    value = record.value
    if not isinstance(value, str) or not value or value not in requested:
        return []
    prefix, _, suffix = requested.rpartition(value)
    fits = [
        name[len(prefix) : len(name) - len(suffix)]
        for name in sorted(shipped_configs())
        if name.startswith(prefix) and name.endswith(suffix) and len(name) > len(prefix) + len(suffix)
    ]
    rule = config.keys.get(record.key)
    whitelist = whitelisted_values(rule.checks) if rule else []
    if whitelist:
        return [candidate for candidate in whitelist if candidate in fits]
    return [candidate for candidate in fits if candidate != "common"]


def whitelisted_values(checks: tuple[Rule, ...]) -> list[str]:
    for check in checks:
        try:
            tree = ast.parse(check.text, mode="eval")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In):
                container = node.comparators[0]
                if isinstance(container, (ast.List, ast.Tuple, ast.Set)):
                    values = [
                        e.value
                        for e in container.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    ]
                    if values:
                        return values
    return []


def explain_comparison(text: str, namespace: dict) -> str:
    """For an END rule `A == B` over lists (the weights_initialization tensor lists): what is
    missing and what is extra. Evaluated again only when the rule failed."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return ""
    node = tree.body
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return ""
    try:
        found = eval(compile(ast.Expression(node.left), "<end>", "eval"), namespace)  # noqa: S307 - trusted config code
        expected = eval(compile(ast.Expression(node.comparators[0]), "<end>", "eval"), namespace)  # noqa: S307
    except Exception:  # noqa: BLE001
        return ""
    if not (isinstance(found, list) and isinstance(expected, list)):
        return f": found {short_repr(found)}, expected {short_repr(expected)}"
    missing = [item for item in dict.fromkeys(expected) if expected.count(item) > found.count(item)]
    extra = [item for item in dict.fromkeys(found) if found.count(item) > expected.count(item)]
    parts = [f"{len(found)} entries logged, {len(expected)} expected"]
    if missing:
        parts.append(f"missing {short_repr(missing)}")
    if extra:
        parts.append(f"not expected {short_repr(extra)}")
    return ": " + "; ".join(parts)


def safe_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - comparing deeply nested values can overflow the stack
        return False


def describe(exc: BaseException) -> str:
    text = str(exc)
    if len(text) > 200:
        text = text[:199] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
