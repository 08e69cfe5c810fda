"""analyze_run(): one streaming pass over a result file feeding the run summary and every RunChecker.

The summary follows the official tools (see docs/official-tools.md):
time to train is taken like the result summarizer (the last run_start before the first
run_stop), the convergence point like the RCP checker (the last eval before that run_stop).
Memory stays bounded whatever the log size: the eval curve, hyperparameters and seeds are capped.

The eval curve has one point per eval_accuracy line, except for Stable Diffusion, which logs FID
and CLIP on separate lines: like the official configs (their `aggregated_eval_accuracy`), the
lines of one eval step become one point whose value is {"FID": .., "CLIP": ..}.
"""

from __future__ import annotations

import gc
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import orjson

from mlperf_check.checkers import checkers_of_scope
from mlperf_check.checkers.base import RunChecker, RunContext
from mlperf_check.finding_sources import checker_version
from mlperf_check.parsing import ParseStats, iter_record_blocks
from mlperf_check.parsing.formats import short_repr
from mlperf_check.report import ERROR, EvalPoint, Finding, Record, RunLog, Seed
from mlperf_check.rules.targets import quality_target

PARSER = "parser"  # findings about the bytes of the log are the parser's, like those of iter_records
RUN_NO_EVENTS = "RUN_NO_EVENTS"

MAX_EVAL_POINTS = 5_000  # real logs have at most a few hundred evals
# First value of every other key, wherever it is logged (SSD and others log their hyperparameters
# after run_start). Real logs have a few dozen such keys; the cap bounds a hostile one.
MAX_HYPERPARAMETERS = 300
MAX_SEEDS = 1_000
MAX_STORED_VALUE_CHARS = 2_000  # a kept value larger than this as JSON is kept as a shortened text

EVAL_KEYS = ("eval_accuracy", "eval_error")  # what the official RCP checker reads a convergence point from
# Keys that mark intervals or events, or are summarised elsewhere: not hyperparameters.
NON_HYPERPARAMETER_PREFIXES = ("run_", "init_", "epoch_", "block_", "submission_", "power_")
NON_HYPERPARAMETER_KEYS = frozenset(
    {
        "",
        "eval_start",
        "eval_stop",
        "eval_accuracy",
        "eval_error",
        "cache_clear",
        "weights_initialization",
        "tracked_stats",
        "throughput",
        "train_loss",
        "seed",
    }
)
SUBMISSION_FIELDS = {
    "submission_benchmark": "benchmark",
    "submission_division": "division",
    "submission_org": "org",
    "submission_platform": "platform",
    "submission_status": "status",
}
FIRST_VALUE_KEYS = frozenset({*SUBMISSION_FIELDS, "global_batch_size", "train_samples"})
# HPC: the size of one instance (weak scaling's instance_scale), read as the official summarizer does.
INSTANCE_KEYS = ("number_of_nodes", "accelerators_per_node")
# What RunSummary reads besides the evaluations and hyperparameters: most records are none of these.
SUMMARY_KEYS = FIRST_VALUE_KEYS | {"run_start", "run_stop", "init_start", "init_stop", *INSTANCE_KEYS, "seed"}
# Keys RunSummary reads at every occurrence; any other key matters at its first occurrence only
# (a first value, a hyperparameter, or nothing), after which it is "settled" and skipped.
EVERY_OCCURRENCE_KEYS = (SUMMARY_KEYS - FIRST_VALUE_KEYS) | frozenset(EVAL_KEYS)
MAX_SETTLED_KEYS = 4_096  # a hostile log's millions of distinct keys take the slow path instead
# Stable Diffusion: the official configs have no eval_accuracy target for it (quality_target()
# is None); they check the merged points: 0 <= FID <= 90 and 0.15 <= CLIP <= 1. The official RCP
# checker converges at the smallest step with FID <= 90 and CLIP >= 0.15 (no sanity bounds).
SD_BENCHMARK = "stable_diffusion"
SD_METRICS = ("FID", "CLIP")
SD_MAX_FID = 90.0
SD_MIN_CLIP = 0.15


def analyze_run(
    open_stream: Callable[[], BinaryIO],
    context: RunContext,
    checkers: list[type[RunChecker]] | None = None,
) -> RunLog:
    """Read the result file once: fill a RunLog and run every applicable RunChecker over it.
    Findings land on run.findings: the parser's first, then each checker's in registry order."""
    with collector_paused():
        return _analyze_run(open_stream, context, checkers)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the analysis of one log. A log allocates
    containers by the hundred thousand (a record, its metadata dict, ...), each collection during
    it walked the survivors again (the replay buffer keeps a log's first records to its end, a
    process keeps the runs it checked), and reference counting frees them anyway when the log is
    done: `mlperf-check <v1.0 round> --jobs 1` uses 5% less CPU. The few cycles a log leaves
    (session state: tens of objects per log on the corpus) wait for the next collection after it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _analyze_run(
    open_stream: Callable[[], BinaryIO],
    context: RunContext,
    checkers: list[type[RunChecker]] | None,
) -> RunLog:
    context.reopen = lambda: reread_record_blocks(open_stream, context.file)
    stats = context.parse_stats = ParseStats()
    if checkers is None:
        checkers = checkers_of_scope("run")
    active = [checker_class(context) for checker_class in checkers if checker_class.applies_to(context)]

    summary = RunSummary(context)
    parser_findings: list[Finding] = []
    with open_stream() as stream:
        for records in iter_record_blocks(
            stream, file=context.file, findings=parser_findings, stats=stats, digest=context.digest
        ):
            summary.feed_records(records)
            for checker in active:
                checker.feed_records(records)

    run = summary.run_log(stats)
    run.findings.extend(parser_findings)
    if stats.event_count == 0:
        run.findings.append(
            Finding(
                ERROR,
                RUN_NO_EVENTS,
                "no MLPerf log lines (:::MLLOG, :::MLL or :::MLPv0.5.0) found",
                file=context.file,
                checker=PARSER,
                checker_version=checker_version(PARSER),
            )
        )
    for checker in active:
        run.findings.extend(checker.finish(run))
    return run


def reread_record_blocks(open_stream: Callable[[], BinaryIO], file: str) -> Iterator[list[Record]]:
    """The file's records again from the start; parser findings were reported on the first pass."""
    with open_stream() as stream:
        yield from iter_record_blocks(stream, file=file, findings=[])


class RunSummary:
    """The RunLog fields, accumulated record by record with bounded state."""

    def __init__(self, context: RunContext) -> None:
        self.context = context
        self.run = RunLog(file=context.file, ruleset=context.ruleset.version)
        self.first_seen: set[str] = set()  # keys of which only the first value counts, once logged
        self.settled: set[str] = set()  # keys whose later occurrences change nothing (bounded)
        self.target_checked = False  # whether the quality predicate has been looked up
        self.target = None
        self.last_eval: Record | None = None  # the latest eval_accuracy / eval_error
        self.last_eval_epoch: float | None = None
        self.sd_points: dict[float, EvalPoint] = {}  # Stable Diffusion: eval step -> merged point

    def feed_records(self, records: list[Record]) -> None:
        run = self.run
        settled = self.settled
        for record in records:
            key = record.key
            if key in settled:
                continue
            if key in SUMMARY_KEYS:
                if key in FIRST_VALUE_KEYS:
                    if key not in self.first_seen:
                        self.first_seen.add(key)
                        self.note_first_value(record)
                elif key == "run_start":
                    if not self.timed_region_closed():
                        run.run_start_ms = record.time_ms
                        run.run_start_line = record.line
                elif key == "run_stop":
                    if not self.timed_region_closed():
                        self.stop_run(record)
                elif key == "init_start":
                    if run.init_start_ms is None or record.time_ms < run.init_start_ms:
                        run.init_start_ms = record.time_ms
                elif key == "init_stop":
                    if run.init_stop_ms is None:
                        run.init_stop_ms = record.time_ms
                elif key in INSTANCE_KEYS:
                    self.note_instance_size(record)
                elif key == "seed":
                    if len(run.seeds) < MAX_SEEDS:
                        run.seeds.append(
                            Seed(bounded(record.value), seed_source(record.metadata), record.line)
                        )

            if key in EVAL_KEYS:
                self.note_eval(record)
            if is_hyperparameter(key):
                if key not in run.hyperparameters and len(run.hyperparameters) < MAX_HYPERPARAMETERS:
                    # Interned: thousands of runs of a package share the same few dozen key names.
                    run.hyperparameters[sys.intern(key)] = bounded(record.value)
            if key not in EVERY_OCCURRENCE_KEYS and len(settled) < MAX_SETTLED_KEYS:
                settled.add(key)

    def note_first_value(self, record: Record) -> None:
        if record.key == "global_batch_size":
            self.run.global_batch_size = as_int(record.value)
        elif record.key == "train_samples":
            self.run.train_samples = as_number(record.value)
        else:
            setattr(self.run, SUBMISSION_FIELDS[record.key], as_text(record.value))

    def note_instance_size(self, record: Record) -> None:
        """Like the official `_query_instance_scale`: each value is overwritten until both keys
        have been seen."""
        run = self.run
        if run.number_of_nodes is not None and run.accelerators_per_node is not None:
            return
        setattr(run, record.key, bounded(record.value))
        # The keys stay hyperparameters too (below): what the log says about its instance.

    def timed_region_closed(self) -> bool:
        """Like the official summarizer, run_start and run_stop are overwritten until both are set."""
        return self.run.run_start_ms is not None and self.run.run_stop_ms is not None

    def stop_run(self, record: Record) -> None:
        run = self.run
        run.run_stop_ms = record.time_ms
        run.run_stop_line = record.line
        run.run_stop_status = run_stop_status(record)
        # The convergence point is read when run_stop is seen, as the official RCP checker does.
        last = self.last_eval
        run.epochs_to_converge = None if self.last_eval_epoch is None else round(self.last_eval_epoch, 3)
        run.samples_to_converge = None if last is None else as_number(last.metadata.get("samples_count"))
        if self.benchmark() == SD_BENCHMARK:
            run.samples_to_converge = self.stable_diffusion_convergence()

    def note_eval(self, record: Record) -> None:
        value = record.value
        epoch = as_number(record.metadata.get("epoch_num"))
        # v0.5 logs put the epoch in the value: {"epoch": N, "value": X}.
        if isinstance(value, dict) and "epoch" in value and "value" in value:
            epoch = as_number(value["epoch"])
            value = value["value"]
        self.last_eval = record
        self.last_eval_epoch = epoch
        target = self.quality_target()
        # The curve and the target follow the key the target is on (HPC cosmoflow and oc20: eval_error).
        if record.key != (target.key if target is not None else "eval_accuracy"):
            return
        if self.benchmark() == SD_BENCHMARK and self.note_stable_diffusion(record, epoch):
            return
        run = self.run
        if len(run.eval_curve) < MAX_EVAL_POINTS:
            samples = as_number(record.metadata.get("samples_count"))
            run.eval_curve.append(EvalPoint(epoch, samples, bounded(value), record.time_ms, record.line))
        else:
            run.eval_curve_truncated = True
        if run.target_reached_ms is None:
            # Some targets depend on a hyperparameter (BERT 0.7: the global batch size).
            if target is not None and target.met(record, run.hyperparameters):
                run.target_reached_ms = record.time_ms
                run.target_reached_line = record.line

    def quality_target(self):
        if not self.target_checked:
            self.target_checked = True
            self.target = quality_target(self.context.ruleset.version, self.benchmark())
        return self.target

    def benchmark(self) -> str:
        """The benchmark as logged (what the official tools go by), else the folder name."""
        return self.run.benchmark or self.context.benchmark

    def note_stable_diffusion(self, record: Record, epoch: float | None) -> bool:
        """Merge a FID or CLIP line into the point of its eval step; False for any other line."""
        # The step goes into EvalPoint.samples whatever field numbers it (it is what the RCP
        # checker compares).
        step = as_number(record.metadata.get(self.context.ruleset.sd_eval_step_key))
        metric = record.metadata.get("metric")
        if step is None or metric not in SD_METRICS:
            return False
        run = self.run
        point = self.sd_points.get(step)
        if point is None:
            if len(run.eval_curve) >= MAX_EVAL_POINTS:
                run.eval_curve_truncated = True
                return True
            point = EvalPoint(epoch, step, {}, record.time_ms, record.line)
            run.eval_curve.append(point)
            self.sd_points[step] = point
        point.value[metric] = bounded(record.value)
        point.time_ms = max(point.time_ms, record.time_ms)
        point.line = record.line
        if run.target_reached_ms is None and sd_target_met(point.value):
            run.target_reached_ms = point.time_ms
            run.target_reached_line = record.line
        return True

    def stable_diffusion_convergence(self) -> float | None:
        passing = [step for step, point in self.sd_points.items() if sd_converged(point.value)]
        return min(passing) if passing else None

    def run_log(self, stats: ParseStats) -> RunLog:
        run = self.run
        run.sha256 = stats.sha256
        run.size_bytes = stats.size_bytes
        run.line_count = stats.line_count
        run.event_count = stats.event_count
        run.log_format = stats.log_format
        return run


def sd_target_met(metrics: dict[str, Any]) -> bool:
    fid, clip = as_number(metrics.get("FID")), as_number(metrics.get("CLIP"))
    return fid is not None and clip is not None and 0.0 <= fid <= SD_MAX_FID and SD_MIN_CLIP <= clip <= 1.0


def sd_converged(metrics: dict[str, Any]) -> bool:
    fid, clip = as_number(metrics.get("FID")), as_number(metrics.get("CLIP"))
    return fid is not None and clip is not None and fid <= SD_MAX_FID and clip >= SD_MIN_CLIP


def run_stop_status(record: Record) -> str:
    """metadata.status (>= 0.6); v0.5 logs put {"success": true|false} in the value instead."""
    status = record.metadata.get("status")
    if status is not None:
        return as_text(status)
    value = record.value
    if isinstance(value, dict) and "success" in value:
        return "success" if value["success"] in (True, "true") else "failure"
    return ""


def is_hyperparameter(key: str) -> bool:
    return key not in NON_HYPERPARAMETER_KEYS and not key.startswith(NON_HYPERPARAMETER_PREFIXES)


def seed_source(metadata: dict) -> str:
    if "file" in metadata and "lineno" in metadata:
        return f"{as_text(metadata['file'])}:{as_text(metadata['lineno'])}"
    return ""


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else str(bounded(value))


def as_number(value: Any) -> float | int | None:
    """A finite int or float as logged; None for anything else (booleans, strings, null)."""
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return value
    return None


def as_int(value: Any) -> int | None:
    number = as_number(value)
    if number is None or number != int(number):
        return None
    return int(number)


def bounded(value: Any) -> Any:
    """The value itself when small; a large string or container (a log line may be megabytes)
    becomes the start of its text, so the summary stays small whatever the log holds."""
    if isinstance(value, str):
        return value if len(value) <= MAX_STORED_VALUE_CHARS else value[:MAX_STORED_VALUE_CHARS] + "…"
    if isinstance(value, (dict, list)):
        try:
            text = orjson.dumps(value).decode()
        except orjson.JSONEncodeError:  # integers beyond 64 bits, nesting deeper than orjson writes
            return short_repr(value)
        return value if len(text) <= MAX_STORED_VALUE_CHARS else text[:MAX_STORED_VALUE_CHARS] + "…"
    return value
