"""Compiling the official MLCommons compliance rule configs (training rulesets 0.6.0 ... 6.1.0,
HPC rulesets hpc_1.0.0 ... 3.0.0).

The rules are the YAML files shipped in the installed `mlperf-logging` package
(`compliance_checker/training_<version>/*.yaml`); how the official engine reads them is in
docs/official-tools.md section c.1. Each config is read once (PyYAML's BaseLoader, like the
official engine; from its stored copy when that was read from the same bytes, see
mlperf_check.rules.stored), our historical overrides (mlperf_check.rules.overrides) are applied, and every
piece of rule code is compiled once: a code object for eval()/exec(), and where it behaves the
same, a plain function (as_function). mlperf_check.rules.engine runs them over a log.

The rule code comes from the installed package (trusted), never from an upload. Config names
that rule code builds from log values are checked against shipped_configs() by the engine.
"""

from __future__ import annotations

import ast
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache, cached_property
from pathlib import Path
from types import CodeType, FunctionType, MappingProxyType
from typing import Any

import mlperf_logging

from mlperf_check.lean_dataclass import dataclass
from mlperf_check.rules import overrides
from mlperf_check.rules.facts import config_folder, ruleset_facts, ruleset_label, ruleset_of_config_folder
from mlperf_check.rules.stored import stored_entry

PACKAGE_DIR = Path(mlperf_logging.__file__).resolve().parent
COMPLIANCE_DIR = PACKAGE_DIR / "compliance_checker"

CONFIG_NAME = re.compile(r"((?:training|hpc)_\d+\.\d+\.\d+)/([A-Za-z0-9_]+)\.yaml")
STATE_NAME = re.compile(r"""\bs\[['"](\w+)['"]\]""")
# The Stable Diffusion BEGIN block rewrites the record list (loglines); it is run natively, see
# ConfigRules.aggregate_by. This finds the metadata field it groups eval lines by.
AGGREGATE_FIELD = re.compile(r"(\w+) = line\.value\['metadata'\]\['(\w+)'\]")


class UnsupportedRule(Exception):
    """A shipped config uses a construct this interpreter does not implement (our bug)."""


def is_integer(value: Any) -> bool:
    """The helper the official engine gives rule code."""
    return abs(round(value) - value) < 0.00001


@dataclass(frozen=True)
class Rule:
    """One piece of rule code from a config (a CHECK expression, PRE/POST/BEGIN code), compiled."""

    text: str  # as written in the config
    where: str  # "<config>:<key>:<field>", the code's file name in a traceback
    mode: str  # "eval" (an expression) or "exec" (statements)
    function: Callable | None  # the same code as a function (ll, v, s, enqueue_config), see as_function()
    pure: bool  # an expression that calls nothing but PURE_CALLS: it cannot change `s` or enqueue

    @cached_property
    def code(self) -> CodeType:
        """The code for eval()/exec(): BEGIN and END code, and a rule without a function form.
        Compiled on first use: most rules only ever run as their function."""
        return compile(self.text, self.where, self.mode)

    def run(self, ll: Any, v: dict, namespace: dict[str, Any]) -> Any:
        """The official engine's eval() of the code with `namespace` (rule_namespace) as globals
        and the locals {"ll": ll, "v": v}; through `function` where there is one, which behaves
        the same at a quarter of the cost."""
        if self.function is not None:
            return self.function(ll, v, namespace["s"], namespace["enqueue_config"])
        return eval(self.code, namespace, {"ll": ll, "v": v})  # noqa: S307 - trusted config code


@dataclass(frozen=True)
class KeyRule:
    """The rules a config gives one key: its requirement (EXACTLY_ONE, ...) and its code."""

    name: str
    req: str  # "" when the KEY record has none
    at_least: int  # n of AT_LEAST(n)
    alternatives: tuple[str, ...]  # of AT_LEAST_ONE_OR(..)
    pre: Rule | None
    checks: tuple[Rule, ...]
    post: Rule | None
    first_checks: tuple[Rule, ...]
    atleast_one: Rule | None

    @property
    def plain(self) -> bool:
        """A record of this key is counted (with its value for EXACTLY_ONE), its CHECK expressions
        and ATLEAST_ONE_CHECK run, and nothing else: no PRE or POST code, no first-occurrence
        check, not a submission_* key (those run once), and every expression a function without
        side effects. The engine runs such a rule on its fast path (most records) when
        its expressions also read the record only as v['value'] and v['metadata'] (PlainRule)."""
        expressions = (*self.checks, self.atleast_one) if self.atleast_one else self.checks
        return (
            self.pre is None
            and self.post is None
            and not self.first_checks
            and "submission_" not in self.name
            and all(rule.function is not None and rule.pure for rule in expressions)
        )


@dataclass(frozen=True)
class PlainRule:
    """What the engine runs for a record of a KeyRule.plain key, on the record's value and
    metadata without building `ll` and `v` (see on_fields): `all_pass(value, metadata, s)`, the
    CHECK expressions joined with `and`, and `target_met(value, metadata, s)`, the
    ATLEAST_ONE_CHECK. When all_pass is true every check passed; otherwise the engine evaluates
    the checks one by one for the findings, which it may since they have no side effects."""

    checks: tuple[Rule, ...]
    all_pass: Callable
    atleast_one: Rule | None
    target_met: Callable | None
    exactly_one: bool  # the key's requirement is EXACTLY_ONE: its lines and values are kept (KeyCount)


@dataclass(frozen=True)
class ConfigRules:
    """One rule config (a YAML file of the official compliance checker), compiled for the engine."""

    name: str  # "training_1.0.0/closed_common.yaml"
    begin: Rule | None
    aggregate_by: str  # metadata field of the Stable Diffusion eval aggregation, "" when none
    keys: Mapping[str, KeyRule]
    # Keys named in an AT_LEAST_ONE_OR(..) requirement: their counts decide a finding that no later
    # config erases (mlperf_check.rules.engine), so they are always counted.
    alternative_keys: frozenset[str]
    # What the engine checks after the log: the rules with an EXACTLY_ONE, AT_LEAST_ONE or
    # AT_LEAST(n) requirement, and each AT_LEAST_ONE_OR group (sorted names, once).
    requirements: tuple[KeyRule, ...]
    alternative_groups: tuple[tuple[str, ...], ...]
    # The keys whose records the engine routes to this config (its KEY rules, and eval_accuracy
    # where it aggregates), and the plain rules among them (KeyRule.plain; never the aggregated
    # eval_accuracy).
    routed_keys: frozenset[str]
    plain_rules: Mapping[str, PlainRule]
    end_pre: Rule | None
    end_checks: tuple[Rule, ...]

    @property
    def ruleset(self) -> str:
        """The ruleset the config belongs to: '1.0.0' (training) or 'hpc-1.0.0'."""
        return ruleset_of_config_folder(self.name.split("/")[0])


@dataclass(frozen=True)
class OfficialRules:
    """The official rule configs of one ruleset: the config every log starts with, and its time unit."""

    version: str
    entry: str  # the config every log starts with
    timestamp_scale: float  # ll.timestamp = time_ms * scale (the 0.6 configs count in seconds)


@cache
def shipped_configs() -> frozenset[str]:
    """Every 'training_<version>/<name>.yaml' and 'hpc_<version>/<name>.yaml' the installed
    package ships."""
    names = set()
    for folder in os.scandir(COMPLIANCE_DIR):  # not Path.glob: a tenth of its cost (2 ms per process)
        if folder.is_dir():
            for file_name in os.listdir(folder.path):
                name = f"{folder.name}/{file_name}"
                if CONFIG_NAME.fullmatch(name):
                    names.add(name)
    return frozenset(names)


def _compile(text: Any, where: str, mode: str) -> Rule:
    if not isinstance(text, str):
        raise UnsupportedRule(f"{where}: expected a string of code, found {type(text).__name__}")
    text = text.strip()
    tree = ast.parse(text, where, mode)
    nodes = list(ast.walk(tree))  # walked once for both questions below (ast.walk is pure Python)
    return Rule(text, where, mode, as_function(tree, where, nodes=nodes), mode == "eval" and is_pure(nodes))


# The calls of the shipped CHECK expressions, none of which changes anything.
PURE_CALLS = frozenset(
    {"is_integer", "len", "float", "int", "abs", "isinstance", "type", "min", "max", "round", "str", "bool"}
    | {"math.log2", "math.ceil", "math.floor", "math.log", "math.sqrt", "s.get"}
)


def is_pure(nodes: Iterable[ast.AST]) -> bool:
    """Whether evaluating the expression (all its nodes) can have no effect besides its value: it
    calls only PURE_CALLS (an assignment expression is not a plain expression: as_function
    refuses it)."""
    for node in nodes:
        if isinstance(node, ast.Call) and dotted_name(node.func) not in PURE_CALLS:
            return False
        if isinstance(node, ast.NamedExpr):
            return False
    return True


def dotted_name(node: ast.AST) -> str | None:
    """'len', 'math.log2': what a call names as the source writes it; None for any other callee
    (PURE_CALLS holds only names and name.attribute)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


# Constructs that behave differently in a function than under eval()/exec() with a locals dict:
# a nested scope sees `v` and `ll` as closure variables in a function, not under eval(); a bound
# name is a function local (read-before-write raises) but a locals-dict key under exec().
NOT_AS_FUNCTION = (
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Global,
    ast.Nonlocal,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
)
FRAME_INSPECTION = frozenset({"locals", "vars", "dir", "eval", "exec", "globals"})
# What rule code sees besides ll, v, s and enqueue_config (the official engine's namespace).
RULE_GLOBALS = {"math": math, "is_integer": is_integer}


def rule_namespace(s: dict[str, Any], enqueue_config: Callable[[Any], None]) -> dict[str, Any]:
    """The globals the official engine runs rule code in: RULE_GLOBALS, the state `s` and
    enqueue_config."""
    return {**RULE_GLOBALS, "s": s, "enqueue_config": enqueue_config}


def as_function(
    tree: ast.Expression | ast.Module,
    where: str,
    parameters: str = "ll, v, s, enqueue_config",
    nodes: Iterable[ast.AST] | None = None,
) -> Callable | None:
    """The rule as a function `rule(ll, v, s, enqueue_config)` that behaves exactly as the
    official engine's eval()/exec() of it with the pass namespace as globals and the locals
    {"ll": ll, "v": v}: a call costs a quarter of eval() with a fresh locals dict, and runs once
    per rule per record. None where it would not behave the same (NOT_AS_FUNCTION, a bound
    name, frame inspection); every rule of the shipped configs qualifies. `s` and
    `enqueue_config` are arguments because no rule can rebind them (a bound name or `global`
    disqualifies it, and compile_config refuses BEGIN code with `global`). `nodes`: the tree's
    nodes where the caller has walked it already."""
    for node in ast.walk(tree) if nodes is None else nodes:
        if isinstance(node, NOT_AS_FUNCTION):
            return None
        if isinstance(node, ast.Name) and (not isinstance(node.ctx, ast.Load) or node.id in FRAME_INSPECTION):
            return None
    signature = _signature(parameters)
    if isinstance(tree, ast.Expression):
        value = _located(tree.body, signature)
        body = [ast.copy_location(ast.Return(value), value)]
    else:
        body = tree.body or [_located(ast.Pass(), signature)]
    function = ast.copy_location(ast.FunctionDef("rule", signature.args, body, [], None, None), signature)
    module = compile(ast.Module([function], []), where, "exec")
    code = next(const for const in module.co_consts if isinstance(const, CodeType))
    return FunctionType(code, RULE_GLOBALS)


@cache
def _signature(parameters: str) -> ast.FunctionDef:
    """`def rule(<parameters>): pass`, parsed once: every rule's function shares its arguments
    node (compile() only reads the tree)."""
    return ast.parse(f"def rule({parameters}):\n    pass").body[0]


def _located(node: ast.AST, parent: ast.AST) -> ast.AST:
    """`node` with the location of `parent` where it has none: what ast.fix_missing_locations
    would give the only nodes built here (the rest come from ast.parse with theirs), without
    walking every node of the rule."""
    if not hasattr(node, "lineno"):
        ast.copy_location(node, parent)
    return node


class _RecordFields(ast.NodeTransformer):
    """v['value'] -> value, v['metadata'] -> metadata: what they are, since the official `v` is
    exactly {"value": <the value>, "metadata": <the metadata>}."""

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if (
            isinstance(node.value, ast.Name)
            and node.value.id == "v"
            and isinstance(node.slice, ast.Constant)
            and node.slice.value in ("value", "metadata")
        ):
            return ast.copy_location(ast.Name(node.slice.value, ast.Load()), node)
        return self.generic_visit(node)


def on_fields(rules: tuple[Rule, ...], where: str) -> Callable | None:
    """The expressions as one function `(value, metadata, s)`: joined with `and`, v['value'] and
    v['metadata'] read as the arguments, so the engine builds no `v` dict nor LogLine per
    record. None when an expression reads `v` otherwise or names ll, value or metadata."""
    expressions = [ast.parse(rule.text, where, "eval").body for rule in rules]
    names = {node.id for expression in expressions for node in ast.walk(expression) if isinstance(node, ast.Name)}
    if names & {"ll", "value", "metadata", "enqueue_config"}:
        return None
    rewritten = [_RecordFields().visit(expression) for expression in expressions]
    nodes = [node for expression in rewritten for node in ast.walk(expression)]
    if any(isinstance(node, ast.Name) and node.id == "v" for node in nodes):
        return None
    if not rewritten:
        body: ast.expr = ast.Constant(True)
    elif len(rewritten) == 1:
        body = rewritten[0]
    else:
        body = ast.BoolOp(ast.And(), rewritten)
    return as_function(ast.Expression(body), where, "value, metadata, s", nodes=nodes)


def plain_rule(config: str, rule: KeyRule) -> PlainRule | None:
    """The PlainRule of a KeyRule.plain rule, None when its expressions cannot run on fields."""
    all_pass = on_fields(rule.checks, f"{config}:{rule.name}:CHECK")
    target_met = None
    if rule.atleast_one is not None:
        target_met = on_fields((rule.atleast_one,), f"{config}:{rule.name}:ATLEAST_ONE_CHECK")
        if target_met is None:
            return None
    if all_pass is None:
        return None
    return PlainRule(rule.checks, all_pass, rule.atleast_one, target_met, exactly_one=rule.req == "EXACTLY_ONE")


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
    folder, stem = CONFIG_NAME.fullmatch(name).groups()
    ruleset = ruleset_of_config_folder(folder)
    return compile_config(name, overrides.apply(ruleset, f"{stem}.yaml", config_records(name)))


def config_records(name: str) -> list[dict]:
    """The records of a shipped config as PyYAML's BaseLoader reads them: the stored copy when it
    was read from these very bytes (the same SHA-256), else the YAML itself (another version of
    mlperf-logging). The stored copy spares a check the import of PyYAML and the parse (~20 ms of
    CPU, most of it the import)."""
    data = (COMPLIANCE_DIR / name).read_bytes()
    folder, _, file_name = name.partition("/")
    stored = stored_entry("configs", folder, file_name, data)
    return parse_yaml_records(data) if stored is None else stored["records"]


def parse_yaml_records(data: bytes) -> list[dict]:
    """BaseLoader, like the official engine: every scalar stays a string. The libyaml build of
    the same loader is ten times faster and reads the same documents."""
    import yaml  # here: a check whose configs are all stored never imports it

    return yaml.load(data.decode("utf-8"), Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader)) or []


def compile_config(name: str, records: list[dict]) -> ConfigRules:
    """Compile the records of one config (as PyYAML's BaseLoader reads them)."""
    begin = None
    aggregate_by = ""
    keys: dict[str, KeyRule] = {}  # a name defined twice keeps the last, as in the official engine
    end_pre = None
    end_checks: tuple[Rule, ...] = ()
    for record in records:
        kind = next(iter(record))
        body = record[kind]
        if kind == "BEGIN":
            code = body["CODE"]
            if "loglines" in code:
                aggregate_by = _aggregation_field(name, code)
            else:
                begin = _compile(code, f"{name}:BEGIN", "exec")
                if any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in ast.walk(ast.parse(begin.text))):
                    raise UnsupportedRule(f"{name}: BEGIN code with a global statement (see as_function)")
        elif kind == "KEY":
            rule = _key_rule(name, body)
            keys[rule.name] = rule
        elif kind == "END":
            end_pre = _compile(body["PRE"], f"{name}:END:PRE", "exec") if "PRE" in body else None
            end_checks = _compile_all(body["CHECK"], f"{name}:END:CHECK") if "CHECK" in body else ()
        else:
            raise UnsupportedRule(f"{name}: unknown record type {kind!r}")
    plain_rules: dict[str, PlainRule] = {}
    for key, rule in keys.items():
        if rule.plain and not (aggregate_by and key == "eval_accuracy"):  # the aggregation is not plain
            plain = plain_rule(name, rule)
            if plain is not None:
                plain_rules[key] = plain
    alternative_groups = tuple(
        dict.fromkeys(tuple(sorted({rule.name, *rule.alternatives})) for rule in keys.values() if rule.alternatives)
    )
    return ConfigRules(
        name=name,
        begin=begin,
        aggregate_by=aggregate_by,
        keys=MappingProxyType(keys),
        alternative_keys=frozenset(key for group in alternative_groups for key in group),
        requirements=tuple(
            rule
            for rule in keys.values()
            if rule.req == "EXACTLY_ONE" or (rule.req.startswith("AT_LEAST") and not rule.alternatives)
        ),
        alternative_groups=alternative_groups,
        routed_keys=frozenset((*keys, "eval_accuracy") if aggregate_by else keys),
        plain_rules=MappingProxyType(plain_rules),
        end_pre=end_pre,
        end_checks=end_checks,
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
    """The rules of one shipped ruleset ('1.0.0', 'hpc-1.0.0'); raises KeyError when none is shipped."""
    entry = f"{config_folder(ruleset_version)}/common.yaml"
    if entry not in shipped_configs():
        raise KeyError(f"the installed mlperf-logging ships no {ruleset_label(ruleset_version)} rules")
    return OfficialRules(
        version=ruleset_version,
        entry=entry,
        timestamp_scale=0.001 if ruleset_facts(ruleset_version)["rule_times_in_seconds"] else 1.0,
    )
