"""What a verification proves, decided by the server from the evidence the worker observed (pure Python).

The worker (verify/worker.py) observes and reports; it never sends a verdict. Its evidence, kept by
the server (verify/services.py): every line of a re-run's output with when it reached the worker
(seconds on the job's clock, whose epoch it also reports), the run's exit, the CPU time the run's
processes used over time, GPU telemetry, and the registered evaluator's figure (verify/evaluators).

judge_rerun() parses a re-run's stored log with mlperf_check.runlog.analyze_run (the ingestion's
code, so figures are taken exactly as for the claimed runs) and establishes, noting every
contradiction as a violation of a named check:
- SEED: the worker chose the SEED at run time; the log's seed event must equal it.
- LIVE: the log was written while the run ran: every timed line arrived when its timestamp says
  (relative to run_start), and run_start's own timestamp is the worker's clock, so a log printed at
  the end, after a sleep, or written before (months ago, elsewhere) is caught.
- TIMING: the time to train is the worker's clock between the arrival of run_start and of run_stop;
  the log's own figure must agree and may not exceed the run's wall time.
- RULES: the re-run's own error findings decide: any the claimed runs did not have is a violation.
- WORK: during the timed span the accelerators were busy (GPU telemetry; accelerator systems) or
  the run's processes used CPU time (CPU systems).
- QUALITY: the run's run_stop says success and an eval met the target; where the benchmark has a
  registered evaluator, its figure on fresh data decides (the log's eval lines are then only shown).
Each disagreement in time is allowed the slack "timing_slack_seconds" plus "timing_slack_fraction"
of the elapsed time (pipe latency, a loaded host).

decide() then gives the job's outcome (verify.constants.Outcome): failed / timed out / out of memory
/ sandbox violation from the runs' exits; not reproduced when a re-run missed the target or broke
a check, or (like hardware only) the re-runs' olympic mean is slower than the claim beyond the
tolerance; cannot compare without a claimed score or on other hardware (the ratio is reported);
reproduced when all holds and the quality was evaluated by the worker; "timing only" when all holds
but the benchmark has no evaluator. Faster than claimed is never a failure: it is reported.
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

from .sandbox import EXITED, OUT_OF_MEMORY, SANDBOX_VIOLATION, TIMED_OUT

REPRODUCED = "reproduced"
TIMING_ONLY = "timing_only"  # everything held, but no evaluator measured the quality
NOT_REPRODUCED = "not_reproduced"
CANNOT_COMPARE = "cannot_compare"  # no claimed score, or other hardware than the claim's
FAILED = "failed"
FAILURES = (FAILED, TIMED_OUT, OUT_OF_MEMORY, SANDBOX_VIOLATION)
ARRIVAL_RESOLUTION_SECONDS = 0.01
DEFAULT_SLACK_SECONDS = 2.0
DEFAULT_SLACK_FRACTION = 0.02
MAX_NEW_ERRORS_KEPT = 20

# The checks of a re-run (each violation names one).
SEED, LIVE, TIMING, RULES, WORK, QUALITY = "seed", "live", "timing", "rules", "work", "quality"
CHECK_TITLES = {
    SEED: "Seed chosen by the worker",
    LIVE: "Log written while the run ran",
    TIMING: "Time to train measured by the worker",
    RULES: "No new rule violations",
    WORK: "Work shown by telemetry",
    QUALITY: "Quality target reached",
    "hardware": "Hardware like the claim's",
}
# How each figure of a re-run is established (shown on the job page).
HOW_MEASURED = {
    "minutes": "the worker's clock, from the arrival of the run_start line to the arrival of the run_stop line",
    "logged_minutes": "the log's own run_start and run_stop timestamps (checked against the worker's clock)",
    "wall_seconds": "the worker's clock, from starting the sandbox to the run's exit",
    "seed": "chosen by the worker at run time (SEED); the log's seed event must equal it",
    "max_drift_seconds": "largest gap between when a timed log line says it was written and when it reached the worker",
    "clock_offset_seconds": "how far the log's run_start timestamp is from the worker's clock when the line arrived",
    "work": "the run's processes' CPU time (sampled by the worker) or the GPUs' utilization (NVML) during the timed span",
    "quality": "the registered evaluator on the model the run wrote, on fresh data from a seed the worker chose; "
               "without one, the log's eval lines",
    "error_findings": "the checker's error findings on the re-run's log; those the claimed runs did not have decide",
}


@dataclass
class Rerun:
    """One re-run as the server established it (JSON-serialisable; stored on the job)."""

    number: int
    seed: int
    status: str = EXITED  # how the run ended (verify.sandbox: exited, timed_out, ...)
    exit_code: int | None = 0
    detail: str = ""  # the run's end in words, when it ended badly
    limits: str = ""  # how the sandbox enforced its limits
    minutes: float | None = None
    reached_target: bool = False
    run_stop_status: str = ""
    final_quality: float | None = None
    error_findings: int = 0
    new_errors: list[str] = field(default_factory=list)  # error findings the claimed runs do not have
    eval_curve: list[list] = field(default_factory=list)  # [[epoch, value, minutes since run_start], ...]
    wall_seconds: float = 0.0
    logged_minutes: float | None = None  # what the log's own timestamps say
    logged_seeds: list = field(default_factory=list)
    max_drift_seconds: float | None = None
    clock_offset_seconds: float | None = None
    timed_span: list[float] | None = None  # [start, stop] on the job's clock (seconds)
    cpu_busy: float | None = None  # CPUs busy on average during the timed span
    gpu_busy_pct: float | None = None  # mean GPU utilization during the timed span
    evaluation: dict | None = None  # {"accuracy", "samples", "passed", "what"} or {"error", "passed": False}
    violations: list[str] = field(default_factory=list)  # where the evidence contradicts the claim, in words
    failed_checks: list[str] = field(default_factory=list)  # the checks those violations belong to
    how: dict = field(default_factory=lambda: dict(HOW_MEASURED))

    def as_json(self) -> dict:
        return asdict(self)

    def violate(self, check: str, text: str) -> None:
        self.violations.append(text)
        if check not in self.failed_checks:
            self.failed_checks.append(check)


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
    """When the lines of a run's output reached the worker, in seconds since `origin` (a
    time.monotonic() value: the job's clock). Bounded memory whatever the output: one entry per
    ARRIVAL_RESOLUTION_SECONDS at most, holding how many lines were complete by then."""

    def __init__(self, origin: float | None = None) -> None:
        self.origin = time.monotonic() if origin is None else origin
        self.newlines = 0
        self.lines = array("q")  # lines complete ...
        self.seconds = array("d")  # ... by this time

    @classmethod
    def from_points(cls, points: list[list]) -> ArrivalClock:
        """The clock as the worker reported it ([[lines complete, seconds], ...]). Out-of-order
        points (only a broken or lying worker sends them) cannot make a line arrive earlier than a
        line before it: both columns are kept non-decreasing."""
        clock = cls(origin=0.0)
        for lines, seconds in points:
            clock.lines.append(max(lines, clock.lines[-1]) if clock.lines else lines)
            clock.seconds.append(max(seconds, clock.seconds[-1]) if clock.seconds else seconds)
        clock.newlines = clock.lines[-1] if clock.lines else 0
        return clock

    def feed(self, chunk: bytes) -> None:
        now = time.monotonic() - self.origin
        self.newlines += chunk.count(b"\n")
        if self.seconds and now - self.seconds[-1] < ARRIVAL_RESOLUTION_SECONDS:
            self.lines[-1] = self.newlines
        else:
            self.lines.append(self.newlines)
            self.seconds.append(now)

    def points(self, start: int = 0, stop: int | None = None) -> list[list]:
        return [[self.lines[index], round(self.seconds[index], 3)] for index in range(start, len(self.lines) if stop is None else stop)]

    def arrival(self, line: int) -> float | None:
        """When line `line` (1-based, as the parser numbers lines) was complete; None if it never was."""
        index = bisect_left(self.lines, line)
        return self.seconds[index] if index < len(self.seconds) else None


def analyze(log_path: Path, claim: dict):
    """mlperf_check's analysis of one log, with the claim's ruleset, benchmark and system."""
    context = RunContext(
        file=log_path.name,
        ruleset=get_ruleset(claim["ruleset"]),
        system_id=claim["system_id"],
        benchmark=claim["benchmark"],
        system=None,
        submitter=claim["organization"],
        division=claim["division"],
    )
    return analyze_run(lambda: log_path.open("rb"), context)


def parse_rerun(log_path: Path, claim: dict, number: int, seed: int, run=None) -> Rerun:
    """A log's own figures (as for a claimed run): time to train, quality, seeds, error findings."""
    run = run or analyze(log_path, claim)
    start = run.run_start_ms
    curve = [
        [point.epoch, finite_or_text(point.value), None if start is None else round((point.time_ms - start) / 60000, 6)]
        for point in run.eval_curve
    ]
    final = finite_or_text(run.eval_curve[-1].value) if run.eval_curve else None
    target = claim.get("quality_target")
    if run.target_reached_ms is not None:
        reached_quality = True
    else:
        reached_quality = target is not None and any(
            meets(point.value, target, claim.get("direction", "higher")) for point in run.eval_curve
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
        logged_minutes=run.time_to_train_minutes,
        logged_seeds=[finite_or_text(logged.value) for logged in run.seeds[:10]],
    )


def judge_rerun(log_path: Path, claim: dict, evidence: dict, clock: ArrivalClock, telemetry: list[dict]) -> Rerun:
    """A re-run as the server establishes it from the worker's evidence (the module docstring's
    checks). `claim`: the claim_spec of verify.services; `evidence`: the run's evidence as the
    internal API validated it; `clock`: its lines' arrivals; `telemetry`: the job's GPU samples."""
    run = analyze(log_path, claim)
    rerun = parse_rerun(log_path, claim, evidence["number"], evidence["seed"], run)
    rerun.status, rerun.exit_code = evidence["status"], evidence["exit_code"]
    rerun.detail, rerun.limits = evidence["detail"], evidence["limits"]
    rerun.wall_seconds = round(evidence["wall_seconds"], 3)
    if rerun.status != EXITED or rerun.exit_code != 0:
        return rerun  # the job ends here (decide): nothing more to establish
    measure(rerun, log_path, run.run_start_line, run.run_stop_line, clock, claim, evidence["epoch_at_zero"])
    check_rules(rerun, run.findings, claim)
    check_work(rerun, evidence["cpu"], telemetry, claim)
    if not rerun.reached_target:
        rerun.violate(QUALITY, missed_target(rerun, claim))
    check_quality(rerun, evidence.get("evaluation"), claim)
    return rerun


def missed_target(rerun: Rerun, claim: dict) -> str:
    why = f"run_stop status {rerun.run_stop_status or 'missing'}"
    if rerun.final_quality is not None:
        why += f", last eval {rerun.final_quality:g}"
    return f"did not reach the quality target in its log ({why}; target {claim.get('quality_target')})"


def slack(claim: dict, seconds: float) -> float:
    return (claim.get("timing_slack_seconds", DEFAULT_SLACK_SECONDS)
            + claim.get("timing_slack_fraction", DEFAULT_SLACK_FRACTION) * seconds)


def measure(rerun: Rerun, log_path: Path, start_line: int | None, stop_line: int | None, clock: ArrivalClock,
            claim: dict, epoch_at_zero: float) -> None:
    """Replace the log's figures by the worker's and note every contradiction (SEED, LIVE, TIMING)."""
    rerun.minutes = None
    if not rerun.logged_seeds:
        rerun.violate(SEED, f"the log has no seed event (the run was given SEED={rerun.seed})")
    elif any(logged != rerun.seed for logged in rerun.logged_seeds):
        shown = ", ".join(str(logged) for logged in rerun.logged_seeds)
        rerun.violate(SEED, f"the log's seed ({shown}) is not the SEED={rerun.seed} the run was given")
    if start_line is None or stop_line is None:
        return  # no timed region: the run did not reach the target, which says so already
    started, stopped = clock.arrival(start_line), clock.arrival(stop_line)
    if started is None or stopped is None:
        rerun.violate(TIMING, "the run_start or run_stop line never reached the worker")
        return
    measured_seconds = stopped - started
    rerun.minutes = measured_seconds / 60
    rerun.timed_span = [round(started, 3), round(stopped, 3)]
    logged_seconds = (rerun.logged_minutes or 0.0) * 60
    if logged_seconds > rerun.wall_seconds + slack(claim, rerun.wall_seconds):
        rerun.violate(TIMING, f"the log claims {logged_seconds:.3f} s of training but the whole run took "
                              f"{rerun.wall_seconds:.3f} s")
    if abs(logged_seconds - measured_seconds) > slack(claim, logged_seconds):
        rerun.violate(TIMING, f"the log claims {logged_seconds:.3f} s from run_start to run_stop; the worker saw "
                              f"{measured_seconds:.3f} s between those lines")
    # Every timed line must have arrived when it says it was written, relative to run_start; and
    # run_start itself when the worker's clock said so.
    start_ms = None
    worst = (0.0, 0, 0.0, 0.0)  # drift, line, logged offset, arrival offset
    with log_path.open("rb") as stream:
        for record in iter_records(stream, file=log_path.name, findings=[]):
            if record.line < start_line:
                continue
            if record.line > stop_line:
                break
            if not isinstance(record.time_ms, int | float) or isinstance(record.time_ms, bool):
                continue
            if start_ms is None:
                start_ms = record.time_ms
            arrived = clock.arrival(record.line)
            if arrived is None:
                continue
            logged_offset = (record.time_ms - start_ms) / 1000
            drift = abs((arrived - started) - logged_offset)
            if drift > worst[0]:
                worst = (drift, record.line, logged_offset, arrived - started)
    rerun.max_drift_seconds = round(worst[0], 3)
    drift, line, logged_offset, arrival_offset = worst
    if drift > slack(claim, logged_offset):
        rerun.violate(LIVE, f"the log was not written while the run ran: line {line} says {logged_offset:.3f} s after "
                            f"run_start but reached the worker {arrival_offset:.3f} s after it")
    if start_ms is None:
        rerun.violate(LIVE, "the log's run_start has no timestamp to compare with the worker's clock")
        return
    offset = (epoch_at_zero + started) - start_ms / 1000
    rerun.clock_offset_seconds = round(offset, 3)
    if abs(offset) > slack(claim, 0.0):
        rerun.violate(LIVE, f"the log's clock is not the worker's: its run_start is stamped {_span(offset)} "
                            f"{'before' if offset > 0 else 'after'} the line reached the worker")


def _span(seconds: float) -> str:
    seconds = abs(seconds)
    if seconds < 120:
        return f"{seconds:.3f} s"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 86400:.1f} days"


def check_rules(rerun: Rerun, findings: list, claim: dict) -> None:
    """RULES: an error finding of the re-run's log that no claimed run has (same code and key)."""
    known = {tuple(pair) for pair in claim.get("claimed_errors", [])}
    new = [finding for finding in findings if finding.severity == ERROR and (finding.code, finding.key) not in known]
    rerun.new_errors = [f"{finding.code}: {finding.message}"[:300] for finding in new[:MAX_NEW_ERRORS_KEPT]]
    if new:
        rerun.violate(RULES, f"{len(new)} error finding(s) the claimed runs do not have (first: {rerun.new_errors[0]})")


def cumulative_at(samples: list[list[float]], at: float) -> float:
    """A cumulative counter sampled as [[t, value], ...] (t ascending), read at `at` by linear interpolation."""
    times = [sample[0] for sample in samples]
    index = bisect_left(times, at)
    if index == 0:
        return samples[0][1]
    if index >= len(samples):
        return samples[-1][1]
    (t0, v0), (t1, v1) = samples[index - 1], samples[index]
    return v0 if t1 <= t0 else v0 + (v1 - v0) * (at - t0) / (t1 - t0)


def check_work(rerun: Rerun, cpu_samples: list[list[float]], telemetry: list[dict], claim: dict) -> None:
    """WORK: the claim's kind of hardware worked during the timed span: the accelerators' mean
    utilization (accelerator systems), else the CPU time of the run's processes."""
    if rerun.timed_span is None:
        return  # no span, no time: TIMING or QUALITY says why
    start, stop = rerun.timed_span
    seconds = stop - start
    if claim.get("accelerator_system"):
        during = [sample["utilization_pct"] for sample in telemetry
                  if "utilization_pct" in sample and start <= sample["t"] <= stop]
        if not during:
            rerun.violate(WORK, "no accelerator telemetry during the timed span: nothing shows the accelerators worked")
            return
        rerun.gpu_busy_pct = round(sum(during) / len(during), 1)
        if rerun.gpu_busy_pct < claim["min_gpu_busy_pct"]:
            rerun.violate(WORK, f"the accelerators were idle during the timed span: {rerun.gpu_busy_pct:g} % mean "
                                f"utilization (at least {claim['min_gpu_busy_pct']:g} % expected)")
        return
    if len(cpu_samples) < 2 or seconds <= 0:
        rerun.violate(WORK, "no CPU time of the run was sampled during the timed span: nothing shows it worked")
        return
    used = cumulative_at(cpu_samples, stop) - cumulative_at(cpu_samples, start)
    rerun.cpu_busy = round(used / seconds, 3)
    if rerun.cpu_busy < claim["min_cpu_busy"]:
        rerun.violate(WORK, f"the run's processes used {used:.2f} CPU seconds in its {seconds:.2f} s timed span "
                            f"({rerun.cpu_busy:g} CPUs busy; at least {claim['min_cpu_busy']:g} expected): "
                            f"the time was not spent computing")


def check_quality(rerun: Rerun, evaluation: dict | None, claim: dict) -> None:
    """QUALITY: with a registered evaluator, its figure on fresh data must meet the target (less
    the evaluator's sampling slack); the log's run_stop and eval lines are required either way
    (reached_target, judge_rerun)."""
    evaluator = claim.get("evaluator")
    if evaluator is None:
        return
    target, direction = claim["quality_target"], claim.get("direction", "higher")
    if not isinstance(evaluation, dict) or not isinstance(evaluation.get("accuracy"), int | float):
        why = evaluation.get("error") if isinstance(evaluation, dict) and evaluation.get("error") else "no result"
        rerun.evaluation = {"passed": False, "error": str(why)[:500], "what": evaluator["what"]}
        rerun.violate(QUALITY, f"the worker's evaluation of the model: {rerun.evaluation['error']}")
        return
    bar = target - evaluator["quality_slack"] if direction != "lower" else target + evaluator["quality_slack"]
    passed = meets(evaluation["accuracy"], bar, direction)
    rerun.evaluation = {"passed": passed, "accuracy": evaluation["accuracy"], "samples": evaluation.get("samples"),
                        "bar": round(bar, 6), "what": evaluator["what"]}
    if not passed:
        rerun.violate(QUALITY, f"the worker's evaluation of the model the run wrote gives {evaluation['accuracy']:g} "
                               f"on fresh data; the target is {target:g} (at least {bar:g} on this sample)")


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
    checks: list[dict] = field(default_factory=list)  # [{"check", "title", "passed", "detail"}]: what was established


def decide(claim: dict, reruns: list[Rerun], hint: str = "", hint_message: str = "") -> Decision:
    """The job's outcome from its re-runs (judge_rerun). `hint`/`hint_message`: what the worker
    said when it ended the job; only a failure it names for runs it never reported is taken from it."""
    if not reruns:
        outcome = hint if hint in FAILURES else FAILED
        return Decision(outcome, None, f"no re-run was reported{': ' + hint_message if hint_message else ''}")
    ended_badly = next((rerun for rerun in reruns if rerun.status != EXITED or rerun.exit_code != 0), None)
    if ended_badly is not None:
        outcome = ended_badly.status if ended_badly.status in FAILURES else FAILED
        detail = ended_badly.detail or f"exited with status {ended_badly.exit_code}"
        return Decision(outcome, None, f"re-run {ended_badly.number}: {detail}")
    if len(reruns) < claim["runs"]:
        outcome = hint if hint in FAILURES else FAILED
        return Decision(outcome, None, f"the worker ended the job after {len(reruns)} of {claim['runs']} re-runs"
                                       f"{': ' + hint_message if hint_message else ''}")
    checks = established(claim, reruns)
    failing = [rerun for rerun in reruns if rerun.violations or not rerun.reached_target]
    if failing:
        first = failing[0]
        why = "; ".join(first.violations or [missed_target(first, claim)])
        return Decision(NOT_REPRODUCED, None, f"{len(failing)} of {len(reruns)} re-runs not reproduced "
                                              f"(re-run {first.number}: {why})", checks)
    rerun_minutes = olympic_mean([rerun.minutes for rerun in reruns], claim["olympic_drop"])
    claimed = claim["claimed_minutes"]
    if claimed is None or claimed <= 0:
        return Decision(CANNOT_COMPARE, rerun_minutes, "the claimed result has no score to compare with", checks)
    ratio = rerun_minutes / claimed
    numbers = f"re-run score {rerun_minutes:.4f} min vs claimed {claimed:.4f} min ({ratio:.2f} x the claimed time)"
    if not claim["like_hardware"]:
        return Decision(CANNOT_COMPARE, rerun_minutes,
                        f"the re-runs ran on other hardware than the claim ({claim['hardware_note']}): {numbers}, "
                        f"not judged", checks)
    tolerance = claim["tolerance"]
    if ratio - 1 > tolerance:
        return Decision(NOT_REPRODUCED, rerun_minutes, f"{numbers}: slower than the claim by more than the "
                                                       f"{tolerance:.0%} tolerance", checks)
    speed = f"{numbers}, faster than claimed" if ratio < 1 else f"{numbers}, within the +{tolerance:.0%} tolerance"
    if claim.get("evaluator") is None:
        return Decision(TIMING_ONLY, rerun_minutes, f"timing only: every check held; {speed}; the quality was read "
                                                    f"from the log, no evaluator measured it", checks)
    return Decision(REPRODUCED, rerun_minutes, f"every re-run reached the target on the worker's evaluation; {speed}",
                    checks)


def established(claim: dict, reruns: list[Rerun]) -> list[dict]:
    """What the verification established, check by check, in words (the job page and the badge)."""
    def check(name: str, passed: bool | None, detail: str) -> dict:
        return {"check": name, "title": CHECK_TITLES[name], "passed": passed, "detail": detail}

    def failed(name: str) -> list[int]:
        return [rerun.number for rerun in reruns if name in rerun.failed_checks]

    def which(numbers: list[int]) -> str:
        return "re-run" + ("s " if len(numbers) > 1 else " ") + ", ".join(map(str, numbers))

    rows = [
        check(SEED, not failed(SEED), f"{which(failed(SEED))}: the log did not use the SEED given" if failed(SEED)
              else "each re-run's SEED was chosen at run time and its log used it"),
        check(LIVE, not failed(LIVE), f"{which(failed(LIVE))}: the log was not written live, or not by the worker's clock"
              if failed(LIVE) else "every timed line arrived when its timestamp says, stamped by the worker's clock "
              f"(largest drift {max((r.max_drift_seconds or 0) for r in reruns):.3f} s)"),
        check(TIMING, not failed(TIMING), f"{which(failed(TIMING))}: the log's time contradicts the worker's clock"
              if failed(TIMING) else "run_start to run_stop on the worker's clock; the logs agree"),
        check(RULES, not failed(RULES), f"{which(failed(RULES))}: error findings the claimed runs do not have"
              if failed(RULES) else "no error finding beyond those of the claimed runs"),
    ]
    busy = [r.gpu_busy_pct for r in reruns if r.gpu_busy_pct is not None]
    cpus = [r.cpu_busy for r in reruns if r.cpu_busy is not None]
    shown = (f"accelerators {min(busy):g} % utilized at least" if busy else
             f"at least {min(cpus):g} CPUs busy" if cpus else "")
    rows.append(check(WORK, not failed(WORK), f"{which(failed(WORK))}: no work shown during the timed span"
                      if failed(WORK) else f"{shown} during the timed spans"))
    evaluator = claim.get("evaluator")
    if evaluator is None:
        missed = failed(QUALITY) or [rerun.number for rerun in reruns if not rerun.reached_target]
        rows.append(check(QUALITY, False if missed else None, f"{which(missed)}: the target was not reached" if missed
                          else f"read from the log only: {claim['benchmark']} has no registered evaluator"))
    else:
        figures = [r.evaluation["accuracy"] for r in reruns if r.evaluation and "accuracy" in r.evaluation]
        low = f"; lowest {min(figures):g}" if figures else ""
        missed = [r.number for r in reruns if not (r.evaluation and r.evaluation.get("passed") and r.reached_target)]
        what = f"evaluated by the worker: {evaluator['what']} (target {claim['quality_target']:g}{low})"
        rows.append(check(QUALITY, not missed, f"{which(missed)}: the target was not reached; {what}" if missed else what))
    rows.append(check("hardware", claim["like_hardware"], claim["hardware_note"]))
    return rows
