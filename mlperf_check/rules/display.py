"""Rule text for people: the official rule code made readable (messages, the benchmark page).

The rule code reads `v['value']`, `s['name']` and `ll.timestamp`; messages and pages say
`value`, `state.name` and `time`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from mlperf_check.rules.configs import STATE_NAME, load_config, shipped_configs
from mlperf_check.rules.facts import config_folder

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


@lru_cache(maxsize=4096)  # rule texts come from the shipped configs: a bounded set
def readable_rule(text: str) -> str:
    for pattern, replacement in READABLE:
        text = pattern.sub(replacement, text)
    text = text.strip()
    return text if len(text) <= MAX_RULE_TEXT else text[: MAX_RULE_TEXT - 1] + "…"


# Keys the closed configs require that are run structure, not hyperparameters.
STRUCTURAL_KEYS = frozenset({"eval_accuracy", "submission_benchmark", "submission_division", "weights_initialization"})


def closed_hyperparameter_rules(ruleset_version: str, benchmark: str) -> list[dict[str, Any]]:
    """The closed-division hyperparameter rules of a benchmark, for display: one entry per key of
    closed_<benchmark>.yaml (and its optimizer sub-configs such as closed_resnet_lars.yaml), with
    the requirement and the checks as readable text."""
    prefix = f"{config_folder(ruleset_version)}/closed_{benchmark}"
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
