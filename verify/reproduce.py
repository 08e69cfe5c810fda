"""Did the re-runs reproduce the claim? Parsing with the checker package and the decision, in pure Python.

A re-run's log is parsed by mlperf_check.runlog.analyze_run, the same code as ingestion, so time to
train and the eval curve are taken exactly as for the claimed runs. A re-run reached the target when
its run_stop says success and an eval met the quality target: the official predicate where the
ruleset has one (what ingestion checks), else the benchmark's recorded target and direction (the
fixture benchmark and any benchmark the official configs do not know). Compliance findings are
counted and shown, not decisive: the claimed result already passed them at ingestion, and a
verification asks whether the same code reaches the same quality in the same time.

A re-run's figures come from what the worker measured, not from what the log says about itself:
the log is only text the submitted code printed, and code that prints a claimed log (`cat log.txt`)
writes whatever timestamps it likes. The worker notes when each line of output reached it
(ArrivalClock); measure() then establishes
- the time to train as the worker's clock between the arrival of run_start and of run_stop; the
  log's own figure must agree with it, and may not exceed the run's measured wall time;
- the seed as the SEED the worker gave the run; the log's seed event must equal it;
- that the log was written while the run ran: every timed line arrived when its own timestamp says
  (a log printed at the end, after a sleep or all at once, arrives long after its timestamps).
Each disagreement beyond the slack (spec "timing_slack_seconds" plus "timing_slack_fraction" of the
elapsed time) is a violation, and a re-run with a violation is not reproduced.

Outcome (verify.constants.Outcome): reproduced when every re-run reached the target with no
violation and the re-runs' olympic mean (of measured times) is within the tolerance of the claimed
olympic mean; otherwise not reproduced, with the reason and both numbers.
"""

from __future__ import annotations

import math
import time
from array import array
from bisect import bisect_left
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mlperf_check.checkers.base import RunContext
from mlperf_check.parsing import iter_records
from mlperf_check.report import ERROR
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.runlog import analyze_run

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not_reproduced"
CANNOT_COMPARE = "cannot_compare"  # the re-runs finished, but the claim has no score to hold them to
ARRIVAL_RESOLUTION_SECONDS = 0.01
DEFAULT_SLACK_SECONDS = 2.0
DEFAULT_SLACK_FRACTION = 0.02
# How each figure of a re-run is established (shown on the job page).
HOW_MEASURED = {
    "minutes": "the worker's clock, from the arrival of the run_start line to the arrival of the run_stop line",
    "logged_minutes": "the log's own run_start and run_stop timestamps (checked against the worker's clock)",
    "wall_seconds": "the worker's clock, from starting the sandbox to the run's exit",
    "seed": "given by the worker (SEED); the log's seed event must equal it",
    "max_drift_seconds": "largest gap between when a timed log line says it was written and when it reached the worker",
    "quality": "the log's eval lines, each checked to have arrived while the run ran",
}


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
    logged_minutes: float | None = None  # what the log's own timestamps say
    logged_seeds: list = field(default_factory=list)
    max_drift_seconds: float | None = None
    violations: list[str] = field(default_factory=list)  # where the log contradicts the measurement
    how: dict = field(default_factory=lambda: dict(HOW_MEASURED))

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


class ArrivalClock:
    """When the lines of a run's output reached the worker, in seconds since the clock started
    (just before the sandbox). Bounded memory whatever the output: one entry per
    ARRIVAL_RESOLUTION_SECONDS at most, holding how many lines were complete by then."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.newlines = 0
        self.lines = array("q")  # lines complete ...
        self.seconds = array("d")  # ... by this time

    def feed(self, chunk: bytes) -> None:
        now = time.monotonic() - self.started
        self.newlines += chunk.count(b"\n")
        if self.seconds and now - self.seconds[-1] < ARRIVAL_RESOLUTION_SECONDS:
            self.lines[-1] = self.newlines
        else:
            self.lines.append(self.newlines)
            self.seconds.append(now)

    def arrival(self, line: int) -> float | None:
        """When line `line` (1-based, as the parser numbers lines) was complete; None if it never was."""
        index = bisect_left(self.lines, line)
        return self.seconds[index] if index < len(self.seconds) else None


def parse_rerun(
    log_path: Path, spec: dict, number: int, seed: int, clock: ArrivalClock | None = None, wall_seconds: float = 0.0
) -> Rerun:
    """Parse one re-run log with the checker package (ruleset, benchmark and system of the claim).
    With the worker's `clock` and measured `wall_seconds`, the figures are the measured ones and
    the log is checked against them (measure()); without, the log's own (a claimed run)."""
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
    rerun = Rerun(
        number=number,
        seed=seed,
        minutes=run.time_to_train_minutes,
        reached_target=reached_quality and run.run_stop_status == "success" and run.time_to_train_ms is not None,
        run_stop_status=run.run_stop_status,
        final_quality=final if isinstance(final, int | float) else None,
        error_findings=sum(1 for finding in run.findings if finding.severity == ERROR),
        eval_curve=curve,
        logged_minutes=run.time_to_train_minutes,
        logged_seeds=[finite_or_text(logged.value) for logged in run.seeds[:10]],
        wall_seconds=round(wall_seconds, 3),
    )
    if clock is not None:
        measure(rerun, log_path, run.run_start_line, run.run_stop_line, clock, spec)
    return rerun


def measure(rerun: Rerun, log_path: Path, start_line: int | None, stop_line: int | None, clock: ArrivalClock,
            spec: dict) -> None:
    """Replace the log's figures by the worker's and note every contradiction as a violation."""
    slack_seconds = spec.get("timing_slack_seconds", DEFAULT_SLACK_SECONDS)
    slack_fraction = spec.get("timing_slack_fraction", DEFAULT_SLACK_FRACTION)
    violations = rerun.violations
    rerun.minutes = None
    if not rerun.logged_seeds:
        violations.append(f"the log has no seed event (the run was given SEED={rerun.seed})")
    elif any(logged != rerun.seed for logged in rerun.logged_seeds):
        shown = ", ".join(str(logged) for logged in rerun.logged_seeds)
        violations.append(f"the log's seed ({shown}) is not the SEED={rerun.seed} the run was given")
    if start_line is None or stop_line is None:
        return  # no timed region: the run did not reach the target, which says so already
    started, stopped = clock.arrival(start_line), clock.arrival(stop_line)
    if started is None or stopped is None:
        violations.append("the run_start or run_stop line never reached the worker")
        return
    measured_seconds = stopped - started
    rerun.minutes = measured_seconds / 60
    logged_seconds = (rerun.logged_minutes or 0.0) * 60

    def slack(seconds: float) -> float:
        return slack_seconds + slack_fraction * seconds

    if logged_seconds > rerun.wall_seconds + slack(rerun.wall_seconds):
        violations.append(
            f"the log claims {logged_seconds:.3f} s of training but the whole run took {rerun.wall_seconds:.3f} s"
        )
    if abs(logged_seconds - measured_seconds) > slack(logged_seconds):
        violations.append(
            f"the log claims {logged_seconds:.3f} s from run_start to run_stop; the worker saw "
            f"{measured_seconds:.3f} s between those lines"
        )
    # Every timed line must have arrived when it says it was written, relative to run_start.
    start_ms = None
    worst = (0.0, 0, 0.0, 0.0)  # drift, line, logged offset, arrival offset
    with log_path.open("rb") as stream:
        for record in iter_records(stream, file=log_path.name, findings=[]):
            if record.line < start_line:
                continue
            if record.line > stop_line:
                break
            if start_ms is None:
                start_ms = record.time_ms
            arrived = clock.arrival(record.line)
            if arrived is None or not isinstance(record.time_ms, int | float):
                continue
            logged_offset = (record.time_ms - start_ms) / 1000
            drift = abs((arrived - started) - logged_offset)
            if drift > worst[0]:
                worst = (drift, record.line, logged_offset, arrived - started)
    rerun.max_drift_seconds = round(worst[0], 3)
    drift, line, logged_offset, arrival_offset = worst
    if drift > slack(logged_offset):
        violations.append(
            f"the log was not written while the run ran: line {line} says {logged_offset:.3f} s after run_start "
            f"but reached the worker {arrival_offset:.3f} s after it"
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
    contradicted = [rerun for rerun in reruns if rerun.violations]
    if contradicted:
        first = contradicted[0]
        return Decision(
            NOT_REPRODUCED,
            None,
            f"{len(contradicted)} of {len(reruns)} re-runs' logs contradict what the worker measured "
            f"(re-run {first.number}: {'; '.join(first.violations)})",
        )
    rerun_minutes = olympic_mean([rerun.minutes for rerun in reruns], spec["olympic_drop"])
    claimed = spec["claimed_minutes"]
    tolerance = spec["tolerance"]
    if claimed is None or claimed <= 0:
        return Decision(CANNOT_COMPARE, rerun_minutes, "the claimed result has no score to compare with")
    deviation = (rerun_minutes - claimed) / claimed
    numbers = (
        f"re-run score {rerun_minutes:.4f} min vs claimed {claimed:.4f} min "
        f"({deviation:+.1%}, tolerance ±{tolerance:.0%})"
    )
    if abs(deviation) <= tolerance:
        return Decision(REPRODUCED, rerun_minutes, f"every re-run reached the target; {numbers}")
    return Decision(NOT_REPRODUCED, rerun_minutes, numbers)
