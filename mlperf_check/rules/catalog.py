"""What each training or HPC ruleset contains: benchmarks, run counts, olympic drops, time limits.

An HPC ruleset is named "hpc-<version>" (`get_ruleset("hpc-1.0.0")`, also "hpc 1.0.0",
"hpc_1.0.0", "hpc-v1.0"); a bare version is a training ruleset. HPC rulesets take their
benchmarks, run counts, rule configs and RCP tables from the `hpc` entries of the same package.

Rulesets 0.6 and later come from the data files of the installed `mlperf-logging` package
(`benchmark_meta`, compliance configs, RCP tables), so a new ruleset arrives with a package
upgrade. Round 0.5 predates that package and is described here as data.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import field
from datetime import date
from functools import cache
from pathlib import Path

from mlperf_check.errors import UnknownRules
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.rules.benchmarks import BENCHMARK_INFO
from mlperf_check.rules.configs import COMPLIANCE_DIR, PACKAGE_DIR, load_config, shipped_configs
from mlperf_check.rules.facts import (
    HPC_PREFIX,
    config_folder,
    is_hpc,
    ruleset_facts,
    ruleset_label,
    version_key,
)
from mlperf_check.rules.legacy import V05_BENCHMARKS, V05_RULESET
from mlperf_check.rules.targets import quality_rule_text, quality_target

RCP_DIR = PACKAGE_DIR / "rcp_checker"


class UnknownRuleset(UnknownRules):
    """A training or HPC ruleset the installed package ships no rules for."""


# Publication dates of the training rounds (MLCommons press releases; the last two are
# approximate). Every log of a round was written before its results were published, so a log is
# attributed to the earliest round published on or after its run_start; logs newer than every
# listed round fall back to the newest ruleset the package ships.
ROUND_PUBLISHED: dict[str, date] = {
    "0.5": date(2018, 12, 12),
    "0.6": date(2019, 7, 10),
    "0.7": date(2020, 7, 29),
    "1.0": date(2021, 6, 30),
    "1.1": date(2021, 12, 1),
    "2.0": date(2022, 6, 29),
    "2.1": date(2022, 11, 9),
    "3.0": date(2023, 6, 27),
    "3.1": date(2023, 11, 8),
    "4.0": date(2024, 6, 12),
    "4.1": date(2024, 11, 13),
    "5.0": date(2025, 6, 4),
    "5.1": date(2025, 11, 12),
    "6.0": date(2026, 6, 3),
    "6.1": date(2026, 11, 11),
}
# The HPC rounds (MLCommons press releases; v0.7 predates the package's HPC rule configs).
HPC_ROUND_PUBLISHED: dict[str, date] = {
    "1.0": date(2021, 11, 17),
    "2.0": date(2022, 11, 9),
    "3.0": date(2023, 11, 8),
}

@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark of a ruleset: required runs, olympic drop, display facts and quality target."""

    name: str
    required_runs: int
    olympic_drop: int
    area: str = ""
    model: str = ""
    dataset: str = ""
    metric: str = ""
    direction: str = "higher"
    target: float | None = None  # display target; the official predicate is what is checked
    targets: dict = field(default_factory=dict)
    quality_rule: str = ""  # the quality target predicate as readable text, "" when none


@dataclass(frozen=True)
class RulesetSpec:
    """A training ruleset: what its rounds contain and which rules apply. Every fact that varies
    by ruleset is a field, set in get_ruleset() (one table, facts.RULESET_FACTS): checkers read
    the field, they do not compare version numbers."""

    version: str  # "1.0.0" (training) or "hpc-1.0.0"
    round: str  # "1.0"
    log_format: str  # "mllog" | "mll" | "mlp05": the line format of its logs
    rule_times_in_seconds: bool  # its configs compare ll.timestamp in seconds (0.6), not ms
    benchmarks: dict[str, BenchmarkSpec]
    published: date | None
    config_dir: Path | None  # official compliance configs, None for 0.5 (rules as data: legacy)
    rcp_dir: Path | None  # official RCP tables, None before 1.0
    init_limit_closed_s: float | None
    init_limit_open_s: float | None
    seeds_checked: bool
    # Scores faster than the RCP mean are scaled up to it from round 2.1 on (training_policies
    # PR 503, approved for v2.1; docs/differences.md "Rules of a round's own time").
    rcp_normalizes: bool
    # Passing the official per-run rules became mandatory with round 0.7 (training_policies #293);
    # in 0.6 they were advisory (checkers/compliance.py).
    compliance_advisory: bool
    # The quality target comes from our data (mlperf_check.rules.legacy), not the official configs.
    legacy_quality_target: bool
    system_schema_current: bool  # system JSONs use today's field names (from 0.7)
    system_fields_enforced: bool  # a missing required system field is an error (from 1.0)
    # The metadata field that numbers Stable Diffusion eval steps: what the official closed config's
    # BEGIN block groups FID and CLIP lines by (step_num in 3.1.0, samples_count later).
    sd_eval_step_key: str
    # The official RCP checker widens the Llama 3.1 405B threshold by an allowance from 5.0 on.
    rcp_llama31_405b_allowance: bool
    system_status_checked: bool  # the system status value is checked (from 4.0)
    usage: str = "training"  # "training" | "hpc": the suite, as the official tools name it

    @property
    def major_minor(self) -> tuple[int, int]:
        major, minor = version_key(self.version)[:2]
        return major, minor

    @property
    def label(self) -> str:
        """The ruleset as messages name it: 'training 1.0.0', 'HPC 1.0.0'."""
        return ruleset_label(self.version)

    @property
    def is_hpc(self) -> bool:
        return self.usage == "hpc"

    @property
    def rcp_checked(self) -> bool:
        return self.rcp_dir is not None

    def benchmark(self, name: str) -> BenchmarkSpec | None:
        return self.benchmarks.get(name)

    def init_limit_s(self, division: str) -> float | None:
        return self.init_limit_open_s if division == "open" else self.init_limit_closed_s


def _meta(usage: str = "training"):
    from mlperf_logging import benchmark_meta

    return benchmark_meta._ALL_RESULT_FILE_COUNTS[usage], benchmark_meta._ALL_ALLOWED_BENCHMARKS[usage]


def _spec(name: str, runs: int, extra: dict | None = None) -> BenchmarkSpec:
    info = BENCHMARK_INFO.get(name, {})
    extra = extra or {}
    return BenchmarkSpec(
        name=name,
        required_runs=runs,
        olympic_drop=4 if name == "unet3d" else 1,
        area=info.get("area", ""),
        model=info.get("model", name),
        dataset=info.get("dataset", ""),
        metric=info.get("metric", ""),
        direction=info.get("direction", "higher"),
        target=extra.get("target"),
        targets=extra.get("targets", {}),
    )


def _with_quality_targets(version: str, benchmarks: dict[str, BenchmarkSpec]) -> dict[str, BenchmarkSpec]:
    """Display targets and the readable target rule, from the rule configs of the ruleset
    (0.5 and 0.6 from V05_BENCHMARKS / V06_TARGETS, through mlperf_check.rules.legacy)."""
    completed = {}
    for name, spec in benchmarks.items():
        target = quality_target(version, name)
        changes: dict = {"quality_rule": quality_rule_text(version, name)}
        if target is not None:
            changes.update(target=target.target, targets=dict(target.targets))
        completed[name] = dataclasses.replace(spec, **changes)
    return completed


def normalize_version(text: str) -> str:
    """'1.0', 'v1.0', '1.0.0', 'training-v1.0' -> '1.0.0'; 'hpc-1.0', 'hpc 1.0.0', 'hpc_1.0.0',
    'hpc-v1.0' -> 'hpc-1.0.0'."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not match:
        raise UnknownRuleset(f"not a ruleset version: {text!r}")
    version = f"{match.group(1)}.{match.group(2)}.{match.group(3) or 0}"
    if (text or "").strip().lower().startswith("hpc"):
        return HPC_PREFIX + version
    return version


@cache
def known_rulesets() -> tuple[str, ...]:
    versions = {V05_RULESET}  # ours: the package ships no 0.5 configs
    for path in COMPLIANCE_DIR.glob("training_*"):
        match = re.fullmatch(r"training_(\d+\.\d+\.\d+)", path.name)
        if match:
            versions.add(match.group(1))
    return tuple(sorted(versions, key=version_key))


@cache
def known_hpc_rulesets() -> tuple[str, ...]:
    """'hpc-1.0.0', ...: every HPC ruleset whose rule configs the installed package ships."""
    versions = set()
    for path in COMPLIANCE_DIR.glob("hpc_*"):
        match = re.fullmatch(r"hpc_(\d+\.\d+\.\d+)", path.name)
        if match:
            versions.add(HPC_PREFIX + match.group(1))
    return tuple(sorted(versions, key=version_key))


@cache
def get_ruleset(text: str) -> RulesetSpec:
    version = normalize_version(text)
    if is_hpc(version):
        return _hpc_ruleset(version)
    if version not in known_rulesets():
        raise UnknownRuleset(
            f"unknown training ruleset {version}; known: {', '.join(known_rulesets())}"
        )
    round_ = ".".join(version.split(".")[:2])
    published = ROUND_PUBLISHED.get(round_)
    if version == V05_RULESET:  # rules as data (mlperf_check.rules.legacy)
        benchmarks = {name: _spec(name, data["runs"], data) for name, data in V05_BENCHMARKS.items()}
        benchmarks = _with_quality_targets(version, benchmarks)
        return RulesetSpec(
            version=version,
            round=round_,
            benchmarks=benchmarks,
            published=published,
            config_dir=None,
            rcp_dir=None,
            sd_eval_step_key="samples_count",
            **ruleset_facts(version),
        )
    counts, allowed = _meta()
    names = allowed.get(round_, [])
    benchmarks = _with_quality_targets(version, {name: _spec(name, counts[name]) for name in names})
    rcp_dir = RCP_DIR / f"training_{version}"
    return RulesetSpec(
        version=version,
        round=round_,
        benchmarks=benchmarks,
        published=published,
        config_dir=COMPLIANCE_DIR / f"training_{version}",
        rcp_dir=rcp_dir if rcp_dir.is_dir() else None,
        sd_eval_step_key=sd_eval_step_key(version),
        **ruleset_facts(version),
    )


def _hpc_ruleset(version: str) -> RulesetSpec:
    if version not in known_hpc_rulesets():
        raise UnknownRuleset(f"unknown HPC ruleset {version}; known: {', '.join(known_hpc_rulesets())}")
    round_ = ".".join(str(part) for part in version_key(version)[:2])
    counts, allowed = _meta("hpc")
    names = allowed.get(round_, [])
    benchmarks = _with_quality_targets(version, {name: _spec(name, counts[name]) for name in names})
    rcp_dir = RCP_DIR / config_folder(version)
    return RulesetSpec(
        version=version,
        round=round_,
        benchmarks=benchmarks,
        published=HPC_ROUND_PUBLISHED.get(round_),
        config_dir=COMPLIANCE_DIR / config_folder(version),
        rcp_dir=rcp_dir if rcp_dir.is_dir() else None,
        sd_eval_step_key="samples_count",
        usage="hpc",
        **ruleset_facts(version),
    )


def hpc_ruleset_for_timestamp(time_ms: float) -> str:
    """The HPC ruleset of the earliest HPC round published on or after the given log time (the
    newest shipped one for later logs)."""
    from datetime import UTC, datetime

    day = datetime.fromtimestamp(time_ms / 1000.0, UTC).date()
    available = set(known_hpc_rulesets())
    for round_, published in sorted(HPC_ROUND_PUBLISHED.items(), key=lambda item: item[1]):
        if day <= published and f"{HPC_PREFIX}{round_}.0" in available:
            return f"{HPC_PREFIX}{round_}.0"
    return known_hpc_rulesets()[-1]


def sd_eval_step_key(version: str) -> str:
    name = f"training_{version}/closed_stable_diffusion.yaml"
    if name in shipped_configs():
        return load_config(name).aggregate_by or "samples_count"
    return "samples_count"


@cache
def ruleset_of_log_format(log_format: str) -> str | None:
    """The ruleset whose logs alone use this line format (0.5's, 0.6's), None when several do."""
    versions = [v for v in known_rulesets() if ruleset_facts(v)["log_format"] == log_format]
    return versions[0] if len(versions) == 1 else None


def ruleset_for_timestamp(time_ms: float) -> str:
    """The ruleset of the earliest round published on or after the given log time."""
    from datetime import UTC, datetime

    day = datetime.fromtimestamp(time_ms / 1000.0, UTC).date()
    available = set(known_rulesets())
    candidates = [r for r, d in sorted(ROUND_PUBLISHED.items(), key=lambda x: x[1]) if f"{r}.0" in available]
    for round_ in candidates:
        if day <= ROUND_PUBLISHED[round_]:
            return f"{round_}.0"
    return known_rulesets()[-1]
