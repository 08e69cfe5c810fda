"""Olympic scoring of one result folder, with the arithmetic of the official result summarizer.

The official `_compute_olympic_average`: with k = the benchmark's olympic drop (4 for unet3d, else
1) and d failed runs, no score when d > k; otherwise the mean of sorted(times)[k : n - (k - d)],
i.e. the k fastest runs are dropped and the failed runs stand in for the slowest drops. The score
is that mean times the RCP scaling factor.

The summarizer takes the factor from the `scaling.json` it finds in the folder; here the factor
comes from the RCP evaluation, and a shipped `scaling.json` is only read (`read_shipped_factor`) for
the shipped_factors checker to compare.

One deliberate difference: a run fails here when it is not `RunLog.converged` (official per-run
rules, our stricter per-run checks, AND run_stop status `success`). The official summarizer only
drops runs failing its compliance check and scores an aborted run that reached the target.
"""

from __future__ import annotations

import json
import math
from dataclasses import field
from typing import TYPE_CHECKING

from mlperf_check.finding_sources import checker_version
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import (
    ERROR,
    RUN_VERDICT_CHECKERS,
    Finding,
    RunLog,
    RunScore,
    ShippedFactor,
    WeakScalingScore,
)
from mlperf_check.rules.catalog import BenchmarkSpec

if TYPE_CHECKING:
    from mlperf_check.package import BenchmarkDir, Package

# Values of results.constants.RunStatus (no Django import in the checking core).
COUNTED = "counted"
DROPPED_FASTEST = "dropped_fastest"
DROPPED_SLOWEST = "dropped_slowest"
FAILED = "failed"

# The file the official package checker writes into a result folder and the summarizer multiplies by.
SCALING_FILE = "scaling.json"
# The official file is about 40 bytes; anything much larger is not one.
SCALING_FILE_MAX_BYTES = 4096


@dataclass
class ScoreOutcome:
    """A benchmark result's score, as the official summarizer computes it, and how each run counted."""

    score_minutes: float | None  # olympic mean x scaling factor, None when there is no score
    mean_minutes: float | None  # olympic mean before the scaling factor
    note: str
    dropped_runs: int  # failed runs (the official summarizer's "dropped_scores")
    run_scores: list[RunScore] = field(default_factory=list)


def failure_reason(run: RunLog) -> str:
    """Why a run does not count as converged ("" when it does)."""
    if run.converged and run.time_to_train_ms is not None:
        return ""
    if not run.compliant:
        first = next((f for f in run.findings if f.severity == ERROR and f.checker == "compliance"), None)
        return f"failed compliance: {first.message}" if first else "failed compliance"
    verdict = next(
        (f for f in run.findings if f.severity == ERROR and f.checker in RUN_VERDICT_CHECKERS), None
    )
    if verdict is not None:
        return f"failed the {verdict.checker} check: {verdict.message}"
    if run.run_stop_status != "success":
        return f"run_stop status {run.run_stop_status}" if run.run_stop_status else "no run_stop status"
    return "no time to train: run_start or run_stop missing"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def olympic_score(runs: list[RunLog], spec: BenchmarkSpec, scaling_factor: float = 1.0) -> ScoreOutcome:
    drop = spec.olympic_drop
    reasons = [(run, failure_reason(run)) for run in runs]
    failed = [run for run, reason in reasons if reason]
    failed_scores = [RunScore(run.file, FAILED, reason) for run, reason in reasons if reason]
    # Stable sort by the same float the official sorts, so ties keep file order.
    timed = sorted(
        ((run.time_to_train_minutes, run) for run, reason in reasons if not reason), key=lambda pair: pair[0]
    )
    total = len(runs)

    if len(failed) > drop:
        note = f"{_plural(len(failed), 'run')} failed; at most {drop} may fail under olympic scoring"
        counted = [
            RunScore(run.file, COUNTED, f"converged, but the result has no score: {note}") for _, run in timed
        ]
        return ScoreOutcome(None, None, note, len(failed), failed_scores + counted)

    end = len(timed) - (drop - len(failed))
    run_scores = []
    for index, (_, run) in enumerate(timed):
        if index < drop:
            reason = f"fastest of {total} runs" if drop == 1 else f"one of the {drop} fastest of {total} runs"
            run_scores.append(RunScore(run.file, DROPPED_FASTEST, reason))
        elif index >= end:
            reason = f"slowest of {total} runs" if drop == 1 else f"one of the {drop} slowest of {total} runs"
            run_scores.append(RunScore(run.file, DROPPED_SLOWEST, reason))
        else:
            run_scores.append(RunScore(run.file, COUNTED, "counted in the olympic mean"))
    run_scores = failed_scores + run_scores

    countable = [minutes for minutes, _ in timed[drop:end]]
    if not countable:
        note = (
            f"no run left to average after dropping {drop} fastest and {drop - len(failed)} slowest "
            f"of {_plural(len(timed), 'converged run')}"
        )
        return ScoreOutcome(None, None, note, len(failed), run_scores)

    # Left-to-right addition: the official sum() on CPython 3.11 (3.12 compensates float sums).
    total_minutes = 0.0
    for minutes in countable:
        total_minutes += minutes
    mean = total_minutes / len(countable)
    note = f"mean of {_plural(len(countable), 'run')} of {total}"
    if failed:
        note += f"; {_plural(len(failed), 'failed run')} counted as slowest drops"
    if scaling_factor != 1.0:
        note += f"; multiplied by the RCP scaling factor {scaling_factor:.4f}"
    return ScoreOutcome(mean * scaling_factor, mean, note, len(failed), run_scores)


WEAK_SCALING = "weak_scaling"  # the registry entry of weak-scaling findings


def instance_scale(run: RunLog) -> int | None:
    """number_of_nodes x max(accelerators_per_node, 1) as logged (the official
    `_query_instance_scale`, which int()s both values); None when either is missing or not a
    whole number."""
    values = []
    for value in (run.number_of_nodes, run.accelerators_per_node):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            return None
        try:
            number = float(value)
        except ValueError:
            return None
        if not math.isfinite(number) or number != int(number):
            return None
        values.append(int(number))
    nodes, accelerators = values
    return nodes * max(accelerators, 1)


def weak_scaling_score(
    runs: list[RunLog], spec: BenchmarkSpec
) -> tuple[WeakScalingScore, list[RunScore], list[Finding]]:
    """The official `_compute_weak_score_standalone` for one weak-scaling folder: the models that
    count, their instance size, and the time from the first run_start to the last run_stop.

    A model counts here when it is `RunLog.converged` (the official summarizer counts every file
    passing the compliance rules with a run_start and a run_stop, whatever its run_stop status).
    Where the official summarizer stops with an AssertionError (models of different sizes), this
    reports a finding and gives no figures."""
    findings: list[Finding] = []
    reasons = [(run, failure_reason(run)) for run in runs]
    counted = [run for run, reason in reasons if not reason]
    run_scores = [
        RunScore(run.file, FAILED, reason) if reason else RunScore(run.file, COUNTED, "counted as a model")
        for run, reason in reasons
    ]
    scales = {}
    for run in counted:
        scale = instance_scale(run)
        scales.setdefault(scale, []).append(run.file)
        if scale is None:
            findings.append(
                Finding(
                    ERROR,
                    "HPC_INSTANCE_SCALE_MISSING",
                    f"{run.file} logs no whole-number number_of_nodes and accelerators_per_node "
                    f"(found {run.number_of_nodes!r} and {run.accelerators_per_node!r}): the instance size "
                    "of a weak-scaling model is read from its log",
                    file=run.file,
                    key="number_of_nodes",
                    checker=WEAK_SCALING,
                    checker_version=checker_version(WEAK_SCALING),
                )
            )
    if len(scales) > 1 and None not in scales:
        listing = "; ".join(f"{scale} in {len(files)} file(s), e.g. {files[0]}" for scale, files in scales.items())
        findings.append(
            Finding(
                ERROR,
                "HPC_INSTANCE_SCALE_MISMATCH",
                f"the models of a weak-scaling folder have different sizes (number_of_nodes x "
                f"accelerators_per_node): {listing}; all instances must be the same size",
                file=counted[0].file.rpartition("/")[0],
                checker=WEAK_SCALING,
                checker_version=checker_version(WEAK_SCALING),
            )
        )
    required = spec.required_runs
    if len(counted) < required:
        note = f"{len(counted)} of {len(runs)} models converged; at least {required} must"
        return WeakScalingScore(None, None, None, None, note), run_scores, findings
    if findings:
        return WeakScalingScore(None, None, None, None, "the models' instance size is not known"), run_scores, findings
    start = min(run.run_start_ms for run in counted)
    stop = max(run.run_stop_ms for run in counted)
    minutes = (stop - start) / 60 / 1000
    (scale,) = scales
    per_minute = len(counted) / minutes if minutes > 0 else None
    note = f"{len(counted)} of {len(runs)} models; models per minute is derived (not an official figure)"
    return WeakScalingScore(len(counted), scale, minutes, per_minute, note), run_scores, findings


def read_shipped_factor(package: Package, bench_dir: BenchmarkDir) -> ShippedFactor | None:
    """The `scaling.json` directly inside a result folder (where the official summarizer looks),
    or None when there is none. Never raises on the file's content: a problem is returned."""
    rel = f"{bench_dir.folder}/{SCALING_FILE}"
    if rel not in bench_dir.other_files:
        return None
    try:
        raw = package.read_at_most(rel, SCALING_FILE_MAX_BYTES)
    except (OSError, ValueError) as exc:
        return ShippedFactor(rel, None, f"cannot be read: {exc}")
    if len(raw) > SCALING_FILE_MAX_BYTES:
        return ShippedFactor(rel, None, f"is larger than {SCALING_FILE_MAX_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return ShippedFactor(rel, None, f"is not UTF-8 text ({exc.reason} at byte {exc.start})")
    except (ValueError, RecursionError) as exc:
        return ShippedFactor(rel, None, f"is not valid JSON ({exc})")
    if not isinstance(data, dict) or "scaling_factor" not in data:
        return ShippedFactor(rel, None, 'is not a JSON object with a "scaling_factor" key')
    value = data["scaling_factor"]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ShippedFactor(rel, None, f"has a scaling_factor that is not a number: {json.dumps(value)[:80]}")
    try:
        factor = float(value)
    except OverflowError:  # an integer too large for a float
        factor = math.inf
    if not math.isfinite(factor) or factor <= 0:
        # str() of an int is bounded: the file is at most SCALING_FILE_MAX_BYTES.
        return ShippedFactor(rel, None, f"has a scaling_factor that is not a positive finite number: {str(value)[:80]}")
    return ShippedFactor(rel, factor)
