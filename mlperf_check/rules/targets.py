"""Quality targets: whether an eval_accuracy record meets a benchmark's target, and the target as
numbers and text for display.

From 0.7 on the target is the ATLEAST_ONE_CHECK of the closed config's eval_accuracy rule
(mlperf_check.rules.configs), or its eval_error rule where the metric is an error to minimise
(HPC cosmoflow and oc20); 0.5 and 0.6 targets are data (mlperf_check.rules.legacy).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Protocol

from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import Record
from mlperf_check.rules import legacy
from mlperf_check.rules.benchmarks import BENCHMARK_INFO
from mlperf_check.rules.configs import (
    STATE_NAME,
    Rule,
    load_config,
    rule_namespace,
    shipped_configs,
)
from mlperf_check.rules.engine import LogLine
from mlperf_check.rules.facts import config_folder, ruleset_facts

# Keys a closed config may put the quality target on, in the order they are looked for.
TARGET_KEYS = ("eval_accuracy", "eval_error")


class TargetPredicate(Protocol):
    """Whether one eval_accuracy record meets a benchmark's quality target."""

    text: str  # readable, e.g. "eval_accuracy >= 0.759 and eval_accuracy < 1.0"
    target: float | None  # the threshold, for display
    targets: Mapping[str, float]  # per component (Mask R-CNN BBOX / SEGM)
    direction: str  # "higher" | "lower"
    key: str  # the key of the records it judges: eval_accuracy, or eval_error

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
    key: str  # the key the target is on: eval_accuracy, or eval_error (HPC cosmoflow, oc20)
    rule: Rule
    initial_state: Mapping[str, Any]
    state_names: tuple[str, ...]
    # The same check as a function of (value, metadata, s), where the config's rule engine has one
    # (PlainRule.target_met): no `v` dict, LogLine or namespace to build per evaluation.
    met_on_fields: Callable | None = None

    def met(self, record: Record, hyperparameters: Mapping[str, Any] | None = None) -> bool:
        state = dict(self.initial_state)
        for name in self.state_names:
            if hyperparameters is not None and name in hyperparameters:
                state[name] = hyperparameters[name]
        try:
            if self.met_on_fields is not None:
                return bool(self.met_on_fields(record.value, record.metadata, state))
            value = {"value": record.value, "metadata": record.metadata}
            ll = LogLine("", record.time_ms, record.key, value, record.index)
            return bool(self.rule.run(ll, value, rule_namespace(state, ignore_enqueue)))
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
    if ruleset_facts(ruleset_version)["legacy_quality_target"]:
        return legacy.legacy_target(ruleset_version, benchmark)
    if not isinstance(benchmark, str) or not re.fullmatch(r"[A-Za-z0-9_]+", benchmark):
        return None
    name = f"{config_folder(ruleset_version)}/closed_{benchmark}.yaml"
    if name not in shipped_configs():
        return None
    config = load_config(name)
    rule = _target_rule(config)
    if rule is None:
        return None
    initial_state: dict[str, Any] = {}
    if config.begin is not None:
        exec(config.begin.code, rule_namespace(initial_state, ignore_enqueue), {})  # noqa: S102 - trusted config code
    text = rule.atleast_one.text
    state_names = tuple(
        name for name in dict.fromkeys(STATE_NAME.findall(text)) if initial_state.get(name) is None
    )
    direction = BENCHMARK_INFO.get(benchmark, {}).get("direction", "higher")
    target, targets = target_numbers(text, initial_state, direction)
    plain = config.plain_rules.get(rule.name)
    return OfficialTarget(
        text=target_text(text, initial_state, rule.name),
        target=target,
        targets=MappingProxyType(targets),
        direction=direction,
        key=rule.name,
        rule=rule.atleast_one,
        initial_state=MappingProxyType(initial_state),
        state_names=state_names,
        met_on_fields=plain.target_met if plain is not None else None,
    )


def _target_rule(config):
    """The rule whose ATLEAST_ONE_CHECK is the target: on eval_accuracy, else on eval_error (an
    error to minimise: HPC cosmoflow and oc20)."""
    for key in TARGET_KEYS:
        rule = config.keys.get(key)
        if rule is not None and rule.atleast_one is not None:
            return rule
    return None


def quality_rule_text(ruleset_version: str, benchmark: str) -> str:
    """The quality target as readable text, for display ("" when the ruleset has none). Unlike
    quality_target() it also covers Stable Diffusion: FID and CLIP of one eval point."""
    target = quality_target(ruleset_version, benchmark)
    if target is not None:
        return target.text
    name = f"{config_folder(ruleset_version)}/closed_{benchmark}.yaml"
    if name not in shipped_configs():
        return ""
    rule = load_config(name).keys.get("aggregated_eval_accuracy")
    if rule is None or rule.atleast_one is None:
        return ""
    return f"{target_text(rule.atleast_one.text, {})} at one eval point"


def target_text(text: str, initial_state: Mapping[str, Any], key: str = "eval_accuracy") -> str:
    """'v['value'] >= 0.7590 and v['value'] < 1.0' -> 'eval_accuracy >= 0.7590 and eval_accuracy < 1.0'."""
    text = re.sub(r"""v\[['"]value['"]\]\[['"](\w+)['"]\]""", rf"{key}.\1", text)
    text = re.sub(r"""v\[['"]value['"]\]""", key, text)
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
