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


# MLPerf HPC rulesets are named "hpc-<version>" ("hpc-1.0.0"); a bare version is a training one.
# Their rule configs and RCP tables sit beside training's in the mlperf-logging package, in
# folders named hpc_<version> instead of training_<version>.
HPC_PREFIX = "hpc-"

# What HPC rulesets differ in from the training table: the same log format, init limit (30 min in
# every hpc_*/common.yaml) and system-description fields as training 1.0 (the official
# system-description checker checks `status` values for training only). Seeds and RCPs are
# checked in every HPC round (the package checker's ruleset lists are version strings that
# include 1.0.0, 2.0.0 and 3.0.0). RCP normalisation: the published v1.0 and v2.0 repositories
# ship no scaling.json (their scores are unscaled); v3.0 ships scaling.json files.
HPC_FACTS: tuple[tuple[tuple[int, int], dict], ...] = (
    (
        (1, 0),
        {
            "log_format": "mllog",
            "rule_times_in_seconds": False,
            "init_limit_closed_s": 30 * 60.0,
            "init_limit_open_s": 30 * 60.0,
            "seeds_checked": True,
            "rcp_normalizes": False,
            "compliance_advisory": False,
            "legacy_quality_target": False,
            "system_schema_current": True,
            "system_fields_enforced": True,
            "system_status_checked": False,
            "rcp_llama31_405b_allowance": False,
        },
    ),
    ((3, 0), {"rcp_normalizes": True}),
)


def is_hpc(version: str) -> bool:
    return version.startswith(HPC_PREFIX)


def config_folder(version: str) -> str:
    """The mlperf-logging folder of a ruleset's configs and RCPs: '1.0.0' -> 'training_1.0.0',
    'hpc-1.0.0' -> 'hpc_1.0.0'."""
    if is_hpc(version):
        return "hpc_" + version.removeprefix(HPC_PREFIX)
    return f"training_{version}"


def ruleset_of_config_folder(folder: str) -> str:
    """The inverse of config_folder: 'hpc_1.0.0' -> 'hpc-1.0.0', 'training_1.0.0' -> '1.0.0'."""
    if folder.startswith("hpc_"):
        return HPC_PREFIX + folder.removeprefix("hpc_")
    return folder.removeprefix("training_")


def ruleset_label(version: str) -> str:
    """How messages name a ruleset: 'training 1.0.0', 'HPC 1.0.0'."""
    if is_hpc(version):
        return "HPC " + version.removeprefix(HPC_PREFIX)
    return f"training {version}"


def ruleset_facts(version: str) -> dict:
    """The facts of a ruleset version ('1.0.0', '1.0', 'hpc-1.0.0')."""
    major_minor = version_key(version)[:2]
    facts: dict = {}
    for since, changes in HPC_FACTS if is_hpc(version) else RULESET_FACTS:
        if major_minor >= since:
            facts.update(changes)
    return facts


def version_key(version: str) -> tuple[int, ...]:
    """'1.0' / '1.0.0' as numbers, so that versions sort as versions ('10.0' after '2.0')."""
    return tuple(int(part) for part in re.findall(r"\d+", version))
