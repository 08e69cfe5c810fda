"""Did the re-runs reproduce the claim? Parsing with the checker package and the decision, in pure Python.

A re-run's log is parsed by mlperf_check.runlog.analyze_run, the same code as ingestion, so time to
train and the eval curve are taken exactly as for the claimed runs. A re-run reached the target when
its run_stop says success and an eval met the quality target: the official predicate where the
ruleset has one (what ingestion checks), else the benchmark's recorded target and direction (the
fixture benchmark and any benchmark the official configs do not know). Compliance findings are
counted and shown, not decisive: the claimed result already passed them at ingestion, and a
verification asks whether the same code reaches the same quality in the same time.

Outcome (verify.constants.Outcome): reproduced when every re-run reached the target and the re-runs'
olympic mean is within the tolerance of the claimed olympic mean; otherwise not reproduced, with
both numbers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mlperf_check.checkers.base import RunContext
from mlperf_check.report import ERROR
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.runlog import analyze_run

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not_reproduced"


@dataclass
class Rerun:
    """One re-run as the job page and the outcome need it (JSON-serialisable)."""

    number: int
    seed: int
    minutes: float | None = None
    reached_target: bool = False
    run_stop_status: str = ""
    final_quality: float | None = None
    error_findings: int = 0
    eval_curve: list[list] = field(default_factory=list)  # [[epoch, value, minutes since run_start], ...]
    wall_seconds: float = 0.0

    def as_json(self) -> dict:
        return asdict(self)


def finite_or_text(value):
    """Eval values come from an untrusted log: NaN and infinities become text (JSON and PostgreSQL
    refuse them), anything else that is not a number is kept as its shortened text."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None if value is None else str(value)[:100]
    return value if math.isfinite(value) else str(value)


def meets(value, target: float, direction: str) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return False
    return value <= target if direction == "lower" else value >= target


def parse_rerun(log_path: Path, spec: dict, number: int, seed: int) -> Rerun:
    """Parse one re-run log with the checker package (ruleset, benchmark and system of the claim)."""
    context = RunContext(
        file=log_path.name,
        ruleset=get_ruleset(spec["ruleset"]),
        system_id=spec["system_id"],
        benchmark=spec["benchmark"],
        system=None,
        submitter=spec["organization"],
        division=spec["division"],
    )
    run = analyze_run(lambda: log_path.open("rb"), context)
    start = run.run_start_ms
    curve = [
        [point.epoch, finite_or_text(point.value), None if start is None else round((point.time_ms - start) / 60000, 6)]
        for point in run.eval_curve
    ]
    final = finite_or_text(run.eval_curve[-1].value) if run.eval_curve else None
    target = spec.get("quality_target")
    if run.target_reached_ms is not None:
        reached_quality = True
    else:
        reached_quality = target is not None and any(
            meets(point.value, target, spec.get("direction", "higher")) for point in run.eval_curve
        )
    return Rerun(
        number=number,
        seed=seed,
        minutes=run.time_to_train_minutes,
        reached_target=reached_quality and run.run_stop_status == "success" and run.time_to_train_ms is not None,
        run_stop_status=run.run_stop_status,
        final_quality=final if isinstance(final, int | float) else None,
        error_findings=sum(1 for finding in run.findings if finding.severity == ERROR),
        eval_curve=curve,
    )


def olympic_mean(minutes: list[float], drop: int) -> float:
    """Mean after dropping the `drop` fastest and slowest runs, when there are enough runs to drop
    them (a verification may ask for fewer runs than the benchmark requires)."""
    ordered = sorted(minutes)
    if len(ordered) > 2 * drop:
        ordered = ordered[drop : len(ordered) - drop]
    return sum(ordered) / len(ordered)


@dataclass
class Decision:
    outcome: str
    rerun_minutes: float | None
    message: str


def decide(spec: dict, reruns: list[Rerun]) -> Decision:
    missed = [rerun for rerun in reruns if not rerun.reached_target]
    if missed:
        first = missed[0]
        why = f"run_stop status {first.run_stop_status or 'missing'}"
        if first.final_quality is not None:
            why += f", last eval {first.final_quality:g}"
        return Decision(
            NOT_REPRODUCED,
            None,
            f"{len(missed)} of {len(reruns)} re-runs did not reach the quality target "
            f"(re-run {first.number}: {why}; target {spec.get('quality_target')})",
        )
    rerun_minutes = olympic_mean([rerun.minutes for rerun in reruns], spec["olympic_drop"])
    claimed = spec["claimed_minutes"]
    tolerance = spec["tolerance"]
    if claimed is None or claimed <= 0:
        return Decision(NOT_REPRODUCED, rerun_minutes, "the claimed result has no score to compare with")
    deviation = (rerun_minutes - claimed) / claimed
    numbers = (
        f"re-run score {rerun_minutes:.4f} min vs claimed {claimed:.4f} min "
        f"({deviation:+.1%}, tolerance ±{tolerance:.0%})"
    )
    if abs(deviation) <= tolerance:
        return Decision(REPRODUCED, rerun_minutes, f"every re-run reached the target; {numbers}")
    return Decision(NOT_REPRODUCED, rerun_minutes, numbers)
