"""The facts that vary by training ruleset, in one table (see catalog.RulesetSpec, whose fields
they become, for what each means). A module of its own, importing nothing of the project, so
that the modules catalog imports (configs, targets, legacy) read the facts too instead of
comparing version numbers.
"""

from __future__ import annotations

import re

# What varies by ruleset, by the first round it applies to: each row holds from its round until
# the next row's. The only place these facts are written (see RulesetSpec for their sources).
RULESET_FACTS: tuple[tuple[tuple[int, int], dict], ...] = (
    (
        (0, 5),
        {
            "log_format": "mlp05",  # ':::MLPv0.5.0 ...' lines
            "rule_times_in_seconds": False,  # the 0.6 configs compare ll.timestamp in seconds
            "init_limit_closed_s": None,
            "init_limit_open_s": None,
            "seeds_checked": False,
            "rcp_normalizes": False,
            "compliance_advisory": False,
            "legacy_quality_target": True,
            "system_schema_current": False,
            "system_fields_enforced": False,
            "system_status_checked": False,
            "rcp_llama31_405b_allowance": False,
        },
    ),
    (
        (0, 6),
        {
            "log_format": "mll",  # ':::MLL <seconds> <key>: {...}' lines
            "rule_times_in_seconds": True,
            "init_limit_closed_s": 20 * 60.0,
            "init_limit_open_s": 20 * 60.0,
            "compliance_advisory": True,
        },
    ),
    (
        (0, 7),
        {
            "log_format": "mllog",  # ':::MLLOG {json}' lines
            "rule_times_in_seconds": False,
            "compliance_advisory": False,
            "legacy_quality_target": False,
            "system_schema_current": True,
        },
    ),
    (
        (1, 0),
        {
            "init_limit_closed_s": 30 * 60.0,
            "init_limit_open_s": 30 * 60.0,
            "seeds_checked": True,
            "system_fields_enforced": True,
        },
    ),
    ((2, 0), {"init_limit_open_s": 240 * 60.0}),
    ((2, 1), {"rcp_normalizes": True}),
    ((4, 0), {"system_status_checked": True}),
    ((5, 0), {"rcp_llama31_405b_allowance": True}),
)


def ruleset_facts(version: str) -> dict:
    """The facts of a ruleset version ('1.0.0', '1.0')."""
    major_minor = version_key(version)[:2]
    facts: dict = {}
    for since, changes in RULESET_FACTS:
        if major_minor >= since:
            facts.update(changes)
    return facts


def version_key(version: str) -> tuple[int, ...]:
    """'1.0' / '1.0.0' as numbers, so that versions sort as versions ('10.0' after '2.0')."""
    return tuple(int(part) for part in re.findall(r"\d+", version))
