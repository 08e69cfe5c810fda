"""Interpreter of the official MLCommons compliance rule configs (training rulesets 0.6.0 ... 6.1.0).

The rules are the YAML files shipped in the installed `mlperf-logging` package
(`compliance_checker/training_<version>/*.yaml`), interpreted with the semantics of its engine
`mlp_compliance.py` (see /work/shared/notes/official_mlperf_tools.md section c.1):

* A config is a list of BEGIN / KEY / END records. Checking a log starts with
  `training_<version>/common.yaml`; rule code calls `enqueue_config(name)` to add more configs
  (<division>_common, then <division>_<benchmark>, then for closed ResNet closed_resnet_<opt_name>).
  Each config is a separate pass over every record with its own state `s`.
* Per record whose key has a KEY rule: PRE (exec), CHECK (each expression must be true), POST
  (exec) - for keys containing "submission_" only on their first occurrence - then FIRST_CHECK on
  the first occurrence and ATLEAST_ONE_CHECK on every occurrence (one must pass: quality targets).
* After the pass: REQ (EXACTLY_ONE, AT_LEAST_ONE, AT_LEAST(n), AT_LEAST_ONE_OR(..), OPTIONAL),
  then the END block. EXACTLY_ONE duplicates with one value are a warning, different values an error.
* A later config that defines a key erases what earlier configs reported about that key.

The rule code comes from the installed package (trusted), never from an upload: every expression
is compiled once per config with compile() and evaluated against a fixed namespace (`s`, `v`,
`ll`, `is_integer`, `math`, `enqueue_config`). Config names that rule code builds from log values
are validated against the shipped files: an unknown division or benchmark is a finding.

Where the official tool needs the whole file in memory, a RuleSession streams it: every active
config pass sees each record as it arrives. A config enqueued at record i must first see records
0..i, so records whose key any config of the ruleset has a rule for are kept in a bounded replay
buffer; past its bounds, a late config re-reads the file through `reopen` instead.

Where the official engine crashes (a config name with no file, an ATLEAST_ONE_CHECK, BEGIN or END
code that raises) there is a finding instead. Findings cite the physical line and keep up to
MAX_FINDINGS_PER_KEY failures per key and code, where the official engine keeps the last message
per key. The verdict is the same: compliant when no error remains.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache, partial
from types import CodeType, MappingProxyType
from typing import Any, NamedTuple, Protocol

import orjson
import yaml

from mlperf_check.parsing.formats import short_repr
from mlperf_check.report import ERROR, INFO, WARNING, Finding, Record
from mlperf_check.rules import overrides
from mlperf_check.rules.catalog import BENCHMARK_INFO, COMPLIANCE_DIR

CHECKER = "compliance"
CHECKER_VERSION = 1

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
# rule-relevant records of a whole real log take a few hundred KB. Past either bound the buffer is
# dropped and a late config re-reads the file.
MAX_REPLAY_RECORDS = 20_000
MAX_REPLAY_BYTES = 16 << 20  # JSON size of the buffered values and metadata
MAX_PASSES = 32  # real chains are 3-4 configs long; guards against a config enqueuing itself
MAX_FINDINGS_PER_KEY = 10  # per config pass, key and code; the rest are counted in one note
MAX_AGGREGATED_POINTS = 10_000  # Stable Diffusion eval points (real logs have a few dozen)
MAX_DISTINCT_VALUES = 10  # kept per EXACTLY_ONE key, for the "different values" message

CONFIG_NAME = re.compile(r"training_(\d+\.\d+\.\d+)/([A-Za-z0-9_]+)\.yaml")
STATE_NAME = re.compile(r"""\bs\[['"](\w+)['"]\]""")
EVAL_KEYS = ("eval_accuracy", "aggregated_eval_accuracy")  # where ATLEAST_ONE_CHECK is a quality target
# The Stable Diffusion BEGIN block rewrites the record list (loglines); it is run natively, see
# ConfigRules.aggregate_by. This finds the metadata field it groups eval lines by.
AGGREGATE_FIELD = re.compile(r"(\w+) = line\.value\['metadata'\]\['(\w+)'\]")

# Rule text made readable in messages: v['value'] -> value, s['x'] -> state.x, ll.timestamp -> time.
READABLE = (
    (re.compile(r"""v\[['"]value['"]\]\[['"](\w+)['"]\]"""), r"value.\1"),
    (re.compile(r"""v\[['"]value['"]\]"""), "value"),
    (re.compile(r"""v\[['"]metadata['"]\]\[['"](\w+)['"]\]"""), r"metadata.\1"),
    (re.compile(r"""v\[['"]metadata['"]\]"""), "metadata"),
    (STATE_NAME, r"state.\1"),
    (re.compile(r"\bll\.timestamp\b"), "time"),
    (re.compile(r"\s+"), " "),
)
MAX_RULE_TEXT = 300


class UnsupportedRule(Exception):
    """A shipped config uses a construct this interpreter does not implement (our bug)."""


def is_integer(value: Any) -> bool:
    """The helper the official engine gives rule code."""
    return abs(round(value) - value) < 0.00001


def readable_rule(text: str) -> str:
    for pattern, replacement in READABLE:
        text = pattern.sub(replacement, text)
    text = text.strip()
    return text if len(text) <= MAX_RULE_TEXT else text[: MAX_RULE_TEXT - 1] + "…"


# ---------------------------------------------------------------------------------------------
# Compiled configs


@dataclass(frozen=True)
class Rule:
    text: str  # as written in the config
    code: CodeType


@dataclass(frozen=True)
class KeyRule:
    name: str
    req: str  # "" when the KEY record has none
    at_least: int  # n of AT_LEAST(n)
    alternatives: tuple[str, ...]  # of AT_LEAST_ONE_OR(..)
    pre: Rule | None
    checks: tuple[Rule, ...]
    post: Rule | None
    first_checks: tuple[Rule, ...]
    atleast_one: Rule | None


@dataclass(frozen=True)
class ConfigRules:
    name: str  # "training_1.0.0/closed_common.yaml"
    begin: Rule | None
    aggregate_by: str  # metadata field of the Stable Diffusion eval aggregation, "" when none
    keys: Mapping[str, KeyRule]
    end_pre: Rule | None
    end_checks: tuple[Rule, ...]
    enqueue_templates: tuple[str, ...]  # 'training_x/closed_{}.yaml' strings in the rule code

    @property
    def ruleset(self) -> str:
        return self.name.split("/")[0].removeprefix("training_")


@dataclass(frozen=True)
class OfficialRules:
    version: str
    entry: str  # the config every log starts with
    relevant_keys: frozenset[str]  # keys some config of the ruleset has a KEY rule for
    timestamp_scale: float  # ll.timestamp = time_ms * scale (the 0.6 configs count in seconds)


@cache
def shipped_configs() -> frozenset[str]:
    """Every 'training_<version>/<name>.yaml' the installed package ships."""
    names = set()
    for path in COMPLIANCE_DIR.glob("training_*/*.yaml"):
        name = f"{path.parent.name}/{path.name}"
        if CONFIG_NAME.fullmatch(name):
            names.add(name)
    return frozenset(names)


def _compile(text: Any, where: str, mode: str) -> Rule:
    if not isinstance(text, str):
        raise UnsupportedRule(f"{where}: expected a string of code, found {type(text).__name__}")
    return Rule(text.strip(), compile(text.strip(), where, mode))


def _compile_all(value: Any, where: str) -> tuple[Rule, ...]:
    texts = value if isinstance(value, list) else [value]
    return tuple(_compile(text, where, "eval") for text in texts)


def _key_rule(config: str, record: dict) -> KeyRule:
    name = record["NAME"]
    req = record.get("REQ", "")
    at_least = 0
    alternatives: tuple[str, ...] = ()
    if req.startswith("AT_LEAST("):
        at_least = int(req[len("AT_LEAST(") : -1])
    elif req.startswith("AT_LEAST_ONE_OR"):
        alternatives = tuple(part.strip() for part in req[len("AT_LEAST_ONE_OR(") : -1].split(","))
    where = f"{config}:{name}"
    return KeyRule(
        name=name,
        req=req,
        at_least=at_least,
        alternatives=alternatives,
        pre=_compile(record["PRE"], f"{where}:PRE", "exec") if "PRE" in record else None,
        checks=_compile_all(record["CHECK"], f"{where}:CHECK") if "CHECK" in record else (),
        post=_compile(record["POST"], f"{where}:POST", "exec") if "POST" in record else None,
        first_checks=_compile_all(record["FIRST_CHECK"], f"{where}:FIRST_CHECK")
        if "FIRST_CHECK" in record
        else (),
        atleast_one=_compile(record["ATLEAST_ONE_CHECK"], f"{where}:ATLEAST_ONE_CHECK", "eval")
        if "ATLEAST_ONE_CHECK" in record
        else None,
    )


@cache
def load_config(name: str) -> ConfigRules:
    """The compiled config; `name` must be one of shipped_configs(). Our historical overrides
    (mlperf_check.rules.overrides) are applied to the records before compiling."""
    if name not in shipped_configs():
        raise KeyError(f"no shipped compliance config {name!r}")
    ruleset, stem = CONFIG_NAME.fullmatch(name).groups()
    with open(COMPLIANCE_DIR / name, encoding="utf-8") as stream:
        # BaseLoader, like the official engine: every scalar stays a string. The libyaml build of
        # the same loader is ten times faster and reads the same documents.
        records = yaml.load(stream, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader)) or []
    return compile_config(name, overrides.apply(ruleset, f"{stem}.yaml", records))


def compile_config(name: str, records: list[dict]) -> ConfigRules:
    """Compile the records of one config (as PyYAML's BaseLoader reads them)."""
    begin = None
    aggregate_by = ""
    keys: dict[str, KeyRule] = {}  # a name defined twice keeps the last, as in the official engine
    end_pre = None
    end_checks: tuple[Rule, ...] = ()
    code_texts: list[str] = []
    for record in records:
        kind = next(iter(record))
        body = record[kind]
        if kind == "BEGIN":
            code = body["CODE"]
            code_texts.append(code)
            if "loglines" in code:
                aggregate_by = _aggregation_field(name, code)
            else:
                begin = _compile(code, f"{name}:BEGIN", "exec")
        elif kind == "KEY":
            rule = _key_rule(name, body)
            keys[rule.name] = rule
            code_texts.extend(str(body.get(part, "")) for part in ("PRE", "POST"))
        elif kind == "END":
            end_pre = _compile(body["PRE"], f"{name}:END:PRE", "exec") if "PRE" in body else None
            end_checks = _compile_all(body["CHECK"], f"{name}:END:CHECK") if "CHECK" in body else ()
        else:
            raise UnsupportedRule(f"{name}: unknown record type {kind!r}")
    templates = tuple(
        match.group(1) for text in code_texts for match in re.finditer(r"enqueue_config\(\s*'([^']+)'", text)
    )
    return ConfigRules(
        name=name,
        begin=begin,
        aggregate_by=aggregate_by,
        keys=MappingProxyType(keys),
        end_pre=end_pre,
        end_checks=end_checks,
        enqueue_templates=templates,
    )


def _aggregation_field(name: str, code: str) -> str:
    """The Stable Diffusion BEGIN block (3.1.0 ... 5.0.0) merges the FID and CLIP eval_accuracy
    lines of one eval point into a virtual 'aggregated_eval_accuracy' record appended after the
    log. It edits the record list, which a stream does not have, so RuleSession does the same
    natively; this recognises the block and returns the field it groups by."""
    match = AGGREGATE_FIELD.search(code)
    if match is None or "aggregated_eval_accuracy" not in code or "'metric'" not in code:
        raise UnsupportedRule(f"{name}: BEGIN code edits the record list in an unknown way")
    return match.group(2)


@cache
def get_official_rules(ruleset_version: str) -> OfficialRules:
    """The rules of one shipped training ruleset ('1.0.0'); raises KeyError when none is shipped."""
    entry = f"training_{ruleset_version}/common.yaml"
    if entry not in shipped_configs():
        raise KeyError(f"the installed mlperf-logging ships no training {ruleset_version} rules")
    relevant: set[str] = set()
    pending = [ruleset_version]
    seen_rulesets: set[str] = set()
    while pending:  # the configs of this ruleset and of rulesets they enqueue (4.0.0 -> 3.1.0)
        version = pending.pop()
        if version in seen_rulesets:
            continue
        seen_rulesets.add(version)
        for name in sorted(shipped_configs()):
            if not name.startswith(f"training_{version}/"):
                continue
            config = load_config(name)
            for rule in config.keys.values():
                relevant.add(rule.name)
                relevant.update(rule.alternatives)
            if config.aggregate_by:
                relevant.add("eval_accuracy")
            for template in config.enqueue_templates:
                match = re.match(r"training_(\d+\.\d+\.\d+)/", template)
                if match:
                    pending.append(match.group(1))
    return OfficialRules(
        version=ruleset_version,
        entry=entry,
        relevant_keys=frozenset(relevant),
        timestamp_scale=0.001 if ruleset_version == "0.6.0" else 1.0,
    )


# ---------------------------------------------------------------------------------------------
# Streaming evaluation


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
    """Occurrences of one key: what the REQ rules need, in bounded memory. Only an EXACTLY_ONE
    requirement reads more than the count, so only such a key (`distinct`) keeps its first lines
    and distinct values: the others are counted and nothing else (a cost per record)."""

    distinct: bool = True
    count: int = 0
    first_value: Any = None
    first_line: int = 0
    second_line: int = 0
    all_same: bool = True  # every value equal to the first (the official all_same)
    values: list[str] = field(default_factory=list)  # distinct values as text, bounded

    def add(self, record: Record) -> None:
        if not self.distinct:
            self.count += 1
            return
        if self.count == 0:
            self.first_value = record.value
            self.first_line = record.line
        elif self.count == 1:
            self.second_line = record.line
        self.count += 1
        if self.count > 1 and not (
            record.value is self.first_value or safe_equal(record.value, self.first_value)
        ):
            self.all_same = False
        if len(self.values) < MAX_DISTINCT_VALUES:
            text = short_repr(record.value)
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
    name: str, req: str, at_least: int, counted: KeyCount | None, where: str
) -> Problem | None:
    """The REQ rules of the official engine (alternatives excepted) for one key; `where` names
    the rule set in the message. None when the requirement holds."""
    found = counted.count if counted else 0
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
    rule: Rule
    seen: int = 0
    satisfied: int = 0
    last: Record | None = None


class ConfigPass:
    """One config applied to the whole log, with its own state `s`."""

    def __init__(self, session: RuleSession, config: ConfigRules) -> None:
        self.session = session
        self.config = config
        self.children: list[ConfigPass] = []
        self.s: dict[str, Any] = {}
        self.namespace: dict[str, Any] = {
            "enqueue_config": self.enqueue_config,
            "s": self.s,
            "is_integer": is_integer,
            "math": math,
        }
        self.counts: dict[str, KeyCount] = {}
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
        key = ll.key
        if self.config.aggregate_by and key == "eval_accuracy":
            self.aggregate(record)
        rule = self.config.keys.get(key)
        if rule is None:
            return
        self.current = record
        counted = self.counts.get(key)
        if counted is None:
            counted = self.counts[key] = KeyCount(distinct=rule.req == "EXACTLY_ONE")
        counted.add(record)
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

    def run_check(self, rule: Rule, ll: LogLine, record: Record) -> None:
        try:
            passed = eval(rule.code, self.namespace, {"ll": ll, "v": ll.value})  # noqa: S307 - trusted config code
        except Exception as exc:  # noqa: BLE001 - rule code failing on a value is a finding
            self.report_rule_error(rule, ll, record, exc)
            return
        if not passed:
            self.report(
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

    def report_rule_error(self, rule: Rule, ll: LogLine, record: Record, exc: Exception) -> None:
        """The official "Failed executing CHECK code": typically a value of the wrong type."""
        self.report(
            ll.key,
            ERROR,
            COMPLIANCE_RULE_ERROR,
            f"{ll.key} on line {record.line}: the rule `{readable_rule(rule.text)}` of {self.config.name} "
            f"cannot be evaluated on value {short_repr(record.value)}: {describe(exc)}",
            line=record.line,
            key=ll.key,
            expected=readable_rule(rule.text),
            actual=short_repr(record.value),
        )

    def run_exec(self, rule: Rule, part: str, ll: LogLine, record: Record) -> None:
        try:
            exec(rule.code, self.namespace, {"ll": ll, "v": ll.value})  # noqa: S102 - trusted config code
        except Exception as exc:  # noqa: BLE001
            self.report(
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
        state = self.at_least_one.get(ll.key)
        if state is None:
            state = self.at_least_one[ll.key] = AtLeastOne(rule)
        state.seen += 1
        state.last = record
        try:
            if eval(rule.code, self.namespace, {"ll": ll, "v": ll.value}):  # noqa: S307 - trusted config code
                state.satisfied += 1
        except Exception as exc:  # noqa: BLE001 - the official engine crashes here
            self.report_rule_error(rule, ll, record, exc)

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
            value = {"value": point.value, "metadata": {}}
            self.feed(
                LogLine("", point.time_ms * self.session.rules.timestamp_scale, record.key, value, -1), record
            )
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
        alternatives: dict[tuple[str, ...], None] = {}
        for name, rule in self.config.keys.items():
            if rule.req.startswith("AT_LEAST_ONE_OR"):
                alternatives[tuple(sorted({name, *rule.alternatives}))] = None
                continue
            problem = requirement_problem(
                name, rule.req, rule.at_least, self.counts.get(name), self.config.name
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
        for names in alternatives:
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
        count = self.findings_per_key.get((about, code), 0) + 1
        self.findings_per_key[(about, code)] = count
        if count <= MAX_FINDINGS_PER_KEY:
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
    the passes became active): most records concern one config of the three or four running."""

    def __init__(self, session: RuleSession, passes: list[ConfigPass]) -> None:
        self.session = session
        self.routes: dict[str, list[ConfigPass]] = {}
        self.pending: list[ConfigPass] = []
        self.deferred: list[ConfigPass] = []
        self.buffer: list[tuple[LogLine, Record]] | None = []
        self.buffered_bytes = 0
        for config_pass in passes:
            self.activate(config_pass)

    def activate(self, config_pass: ConfigPass) -> None:
        config = config_pass.config
        for key in (*config.keys, "eval_accuracy") if config.aggregate_by else config.keys:
            passes = self.routes.setdefault(key, [])
            if config_pass not in passes:
                passes.append(config_pass)

    def feed(self, ll: LogLine, record: Record) -> None:
        buffer = self.buffer
        if buffer is not None:
            self.buffered_bytes += json_size(record)
            if len(buffer) >= MAX_REPLAY_RECORDS or self.buffered_bytes > MAX_REPLAY_BYTES:
                self.buffer = None  # free it: a later enqueue re-reads the file
            else:
                buffer.append((ll, record))
        for config_pass in self.routes.get(ll.key, ()):
            config_pass.feed(ll, record)
        if self.pending:
            self.catch_up()

    def catch_up(self) -> None:
        while self.pending:
            config_pass = self.pending.pop(0)
            if self.buffer is None:
                self.deferred.append(config_pass)
                continue
            for ll, record in self.buffer:
                config_pass.feed(ll, record)
            self.activate(config_pass)


class RuleSession:
    """The official rules of one ruleset applied to one log, record by record.

    feed() every record in file order, then finish() once. Memory stays bounded: per config pass
    the rule state and counts, plus the bounded replay buffer."""

    def __init__(
        self, rules: OfficialRules, *, file: str, reopen: Callable[[], Iterator[Record]] | None
    ) -> None:
        self.rules = rules
        self.relevant_keys = rules.relevant_keys
        self.timestamp_scale = rules.timestamp_scale
        self.file = file
        self.reopen = reopen
        self.events = 0
        self.passes: list[ConfigPass] = []  # in creation order
        self.stream = ReplayStream(self, [])
        self.root = self.new_pass(load_config(rules.entry), parent=None)
        self.stream.activate(self.root)

    def finding(self, severity: str, code: str, message: str, **where: Any) -> Finding:
        return Finding(
            severity, code, message, file=self.file, checker=CHECKER, checker_version=CHECKER_VERSION, **where
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
        version = parent.config.ruleset
        if record is None or not isinstance(name, str):
            return f"{parent.config.name} asks for the rule set {short_repr(name)}, which training {version} does not ship"
        expected = expected_values(parent.config, record, name)
        listed = f"; expected one of {', '.join(expected)}" if expected else ""
        return f"{record.key} {short_repr(record.value)} on line {record.line} has no rule set in training {version}{listed}"

    def feed(self, record: Record) -> None:
        self.events += 1
        key, value, metadata, time_ms, _, index = record
        if key not in self.relevant_keys:
            return  # no config of the ruleset has a rule for it: it changes nothing
        ll = new_log_line(("", time_ms * self.timestamp_scale, key, {"value": value, "metadata": metadata}, index))
        self.stream.feed(ll, record)

    def finish(self) -> tuple[bool, list[Finding]]:
        """(compliant, findings). Findings about a key come only from the last config (in the
        official processing order) that defines that key."""
        if self.events == 0:
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
                        f"{config_pass.config.name} was asked for after more than {MAX_REPLAY_RECORDS} rule records "
                        "and the log cannot be read again: its rules were not applied",
                    )
                )
            self.stream.deferred = []
            return
        live = self.stream
        self.stream = ReplayStream(self, deferred)
        for record in self.reopen():
            if record.key in self.relevant_keys:
                key, value, metadata, time_ms, _, index = record
                value = {"value": value, "metadata": metadata}
                self.stream.feed(new_log_line(("", time_ms * self.timestamp_scale, key, value, index)), record)
        leftover = self.stream.deferred
        self.stream = live
        self.stream.deferred = leftover  # enqueued late during the re-read: read again

    def ordered_findings(self) -> list[Finding]:
        order = self.processing_order()
        position = {id(p): i for i, p in enumerate(order)}
        last_definer: dict[str, int] = {}
        for i, config_pass in enumerate(order):
            for key in config_pass.config.keys:
                last_definer[key] = i
        findings: list[Finding] = []
        warnings: dict[str, Finding] = {}  # the official engine keeps one warning per key
        for config_pass in order:
            i = position[id(config_pass)]
            for about, finding in config_pass.findings + config_pass.overflow_notes():
                if finding.severity == WARNING and finding.code == COMPLIANCE_DUPLICATE_KEY:
                    warnings.pop(finding.key, None)  # kept even when a later config redefines the key
                    warnings[finding.key] = finding
                elif about is None or last_definer.get(about, i) <= i:
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


def json_size(record: Record) -> int:
    try:
        return len(orjson.dumps((record.value, record.metadata)))
    except (orjson.JSONEncodeError, TypeError):  # integers beyond 64 bits, very deep nesting
        return MAX_REPLAY_BYTES // 1000


def describe(exc: BaseException) -> str:
    text = str(exc)
    if len(text) > 200:
        text = text[:199] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---------------------------------------------------------------------------------------------
# Quality targets


class TargetPredicate(Protocol):
    """Whether one eval_accuracy record meets a benchmark's quality target."""

    text: str  # readable, e.g. "eval_accuracy >= 0.759 and eval_accuracy < 1.0"
    target: float | None  # the threshold, for display
    targets: Mapping[str, float]  # per component (Mask R-CNN BBOX / SEGM)
    direction: str  # "higher" | "lower"

    def met(self, record: Record, hyperparameters: Mapping[str, Any] | None = None) -> bool: ...


@dataclass(frozen=True)
class OfficialTarget:
    """The ATLEAST_ONE_CHECK of a closed config's eval_accuracy rule.

    Some targets read the pass state: BERT 0.7 relaxes its target to 0.706 when
    s['global_batch_size'] >= 8192. Such names (listed in `state_names`) are taken from
    `hyperparameters` (the logged value of the key of that name); without them met() is False.
    State set by the config's BEGIN block (dlrmv4, qwen 6.1 target_accuracy) is built in."""

    text: str
    target: float | None
    targets: Mapping[str, float]
    direction: str
    rule: Rule
    initial_state: Mapping[str, Any]
    state_names: tuple[str, ...]

    def met(self, record: Record, hyperparameters: Mapping[str, Any] | None = None) -> bool:
        state = dict(self.initial_state)
        for name in self.state_names:
            if hyperparameters is not None and name in hyperparameters:
                state[name] = hyperparameters[name]
        namespace = {"s": state, "is_integer": is_integer, "math": math, "enqueue_config": ignore_enqueue}
        value = {"value": record.value, "metadata": record.metadata}
        ll = LogLine("", record.time_ms, record.key, value, record.index)
        try:
            return bool(eval(self.rule.code, namespace, {"ll": ll, "v": value}))  # noqa: S307 - trusted config code
        except Exception:  # noqa: BLE001 - a value of the wrong type does not meet the target
            return False


def ignore_enqueue(name: Any) -> None:
    pass


@lru_cache(maxsize=256)  # benchmark names come from logs: bounded
def quality_target(ruleset_version: str, benchmark: str) -> TargetPredicate | None:
    """The quality target of a benchmark in a ruleset: the closed config's ATLEAST_ONE_CHECK on
    eval_accuracy (0.5 and 0.6 from mlperf_check.rules.legacy). None when the ruleset has no target for
    the benchmark, and for Stable Diffusion, whose target is checked on virtual records that merge
    the FID and CLIP lines of an eval point (mlperf_check.runlog evaluates those itself)."""
    # legacy imports this module, so it is imported here.
    from mlperf_check.rules import legacy

    if ruleset_version in legacy.LEGACY_TARGET_RULESETS:
        return legacy.legacy_target(ruleset_version, benchmark)
    if not isinstance(benchmark, str) or not re.fullmatch(r"[A-Za-z0-9_]+", benchmark):
        return None
    name = f"training_{ruleset_version}/closed_{benchmark}.yaml"
    if name not in shipped_configs():
        return None
    config = load_config(name)
    rule = config.keys.get("eval_accuracy")
    if rule is None or rule.atleast_one is None:
        return None
    initial_state: dict[str, Any] = {}
    if config.begin is not None:
        exec(
            config.begin.code,
            {
                "s": initial_state,
                "math": math,
                "is_integer": is_integer,  # noqa: S102
                "enqueue_config": ignore_enqueue,
            },
            {},
        )
    text = rule.atleast_one.text
    state_names = tuple(
        name for name in dict.fromkeys(STATE_NAME.findall(text)) if initial_state.get(name) is None
    )
    direction = BENCHMARK_INFO.get(benchmark, {}).get("direction", "higher")
    target, targets = target_numbers(text, initial_state, direction)
    return OfficialTarget(
        text=target_text(text, initial_state),
        target=target,
        targets=MappingProxyType(targets),
        direction=direction,
        rule=rule.atleast_one,
        initial_state=MappingProxyType(initial_state),
        state_names=state_names,
    )


def quality_rule_text(ruleset_version: str, benchmark: str) -> str:
    """The quality target as readable text, for display ("" when the ruleset has none). Unlike
    quality_target() it also covers Stable Diffusion: FID and CLIP of one eval point."""
    target = quality_target(ruleset_version, benchmark)
    if target is not None:
        return target.text
    name = f"training_{ruleset_version}/closed_{benchmark}.yaml"
    if name not in shipped_configs():
        return ""
    rule = load_config(name).keys.get("aggregated_eval_accuracy")
    if rule is None or rule.atleast_one is None:
        return ""
    return f"{target_text(rule.atleast_one.text, {})} at one eval point"


def target_text(text: str, initial_state: Mapping[str, Any]) -> str:
    """'v['value'] >= 0.7590 and v['value'] < 1.0' -> 'eval_accuracy >= 0.7590 and eval_accuracy < 1.0'."""
    text = re.sub(r"""v\[['"]value['"]\]\[['"](\w+)['"]\]""", r"eval_accuracy.\1", text)
    text = re.sub(r"""v\[['"]value['"]\]""", "eval_accuracy", text)
    text = STATE_NAME.sub(
        lambda m: (
            repr(initial_state[m.group(1)]) if initial_state.get(m.group(1)) is not None else m.group(1)
        ),
        text,
    )
    return re.sub(r"\s+", " ", text).strip()


def target_numbers(
    text: str, initial_state: Mapping[str, Any], direction: str
) -> tuple[float | None, dict[str, float]]:
    """The thresholds of a target expression for display: for "higher" benchmarks the lower
    bounds (>=, >), for "lower" ones the upper bounds; sanity bounds on the other side are left
    out. Returns (target, {component: target}) - components for v['value']['BBOX'] style rules."""
    bounds: dict[str, list[float]] = {}
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None, {}
    wanted = (ast.GtE, ast.Gt) if direction == "higher" else (ast.LtE, ast.Lt)
    flipped = {ast.GtE: ast.LtE, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.Lt: ast.Gt}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for left, op, right in zip(operands[:-1], node.ops, operands[1:], strict=True):
            subject, number = value_subject(left), constant(right, initial_state)
            op_type = type(op)
            if subject is None:
                subject, number = value_subject(right), constant(left, initial_state)
                op_type = flipped.get(op_type, op_type)
            if subject is not None and number is not None and op_type in wanted:
                bounds.setdefault(subject, []).append(number)
    if "" in bounds:
        return bounds[""][0], {}
    return None, {subject: numbers[0] for subject, numbers in bounds.items()}


def value_subject(node: ast.AST) -> str | None:
    """'' for v['value'], 'BBOX' for v['value']['BBOX'], None for anything else."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        inner = node.value
        if isinstance(inner, ast.Name) and inner.id == "v" and node.slice.value == "value":
            return ""
        if value_subject(inner) == "" and isinstance(node.slice.value, str):
            return node.slice.value
    return None


def constant(node: ast.AST, initial_state: Mapping[str, Any]) -> float | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "s"
        and isinstance(node.slice, ast.Constant)
    ):
        value = initial_state.get(node.slice.value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


# Keys the closed configs require that are run structure, not hyperparameters.
STRUCTURAL_KEYS = frozenset({"eval_accuracy", "submission_benchmark", "submission_division", "weights_initialization"})


def closed_hyperparameter_rules(ruleset_version: str, benchmark: str) -> list[dict[str, Any]]:
    """The closed-division hyperparameter rules of a benchmark, for display: one entry per key of
    closed_<benchmark>.yaml (and its optimizer sub-configs such as closed_resnet_lars.yaml), with
    the requirement and the checks as readable text."""
    prefix = f"training_{ruleset_version}/closed_{benchmark}"
    names = sorted(n for n in shipped_configs() if n == f"{prefix}.yaml" or n.startswith(f"{prefix}_"))
    rules = []
    for name in names:
        variant = name.removeprefix(f"{prefix}").removesuffix(".yaml").lstrip("_")
        for key, rule in load_config(name).keys.items():
            if key in STRUCTURAL_KEYS:
                continue
            rules.append(
                {
                    "key": key,
                    "when": f"opt_name = {variant}" if variant else "",
                    "requirement": rule.req or "OPTIONAL",
                    "checks": [readable_rule(check.text) for check in rule.checks + rule.first_checks],
                }
            )
    return rules
