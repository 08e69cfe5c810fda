"""Timing checks stricter than the official tools (docs/official-tools.md §h items 1-3).

The official tools accept a duplicated run_start (and score from the later one), a quality target
reached only after run_stop, and timestamps that go backwards or make no sense. Each of those
gets its own finding here. Counting required keys and the init time limit stay with the
compliance checker, which already reports them.
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from operator import itemgetter

from mlperf_check.checkers.base import ERROR, WARNING, Finding, RunChecker, RunContext
from mlperf_check.report import Record, RunLog

DUPLICATE_CODES = {
    "init_stop": "DUPLICATE_INIT_STOP",
    "run_start": "DUPLICATE_RUN_START",
    "run_stop": "DUPLICATE_RUN_STOP",
}
TARGET_AFTER_RUN_STOP = "TARGET_AFTER_RUN_STOP"
RUN_STOP_NOT_SUCCESS = "RUN_STOP_NOT_SUCCESS"
TIMESTAMP_DECREASES = "TIMESTAMP_DECREASES"
TIMESTAMP_IMPLAUSIBLE = "TIMESTAMP_IMPLAUSIBLE"

# The main timeline: interval markers and eval results, the events whose order means something.
TIMELINE_KEYS = frozenset(
    {
        "init_start",
        "init_stop",
        "run_start",
        "run_stop",
        "epoch_start",
        "epoch_stop",
        "block_start",
        "block_stop",
        "eval_start",
        "eval_stop",
        "eval_accuracy",
    }
)
# Timestamps may only go backwards relative to these phase boundaries (earliest init_start,
# latest init_stop, latest run_start) by TIMELINE_TOLERANCE_MS. Real logs are not monotonic in
# general: Habana v1.0 BERT logs its eval_accuracy lines in a batch after the training blocks
# (2.8 h earlier than the block_stop before them) and the minigo reference logs run_stop with the
# time of the first model to reach the target, 3.1 h before evals logged above it. But on the
# v0.7 + v1.0 corpus (900 result files), no event logged after init_stop or run_start is
# timestamped before it at all, and events after the earliest init_start go back by at most
# 6 ms (other ranks' init_start lines). The only exceptions are data defects: Intel's TF ResNet
# logs (init lines written days after the run) and Google v0.7 tpu-v3-8192 SSD result_0
# (run_start 1592800000000, 15 h before its init_stop). 10 s leaves room for clock skew between
# ranks while a run_start copied 10 minutes later (docs/official-tools.md §h item 1) still fires.
TIMELINE_TOLERANCE_MS = 10_000.0

# Plausible absolute times for init and run markers: MLPerf Training logs started in 2018 (v0.5),
# and a clock more than a day ahead of ours is wrong. time_ms 0 on submission_* lines (Google
# logs) is not checked: those keys carry no time that is used.
EARLIEST_PLAUSIBLE_MS = datetime(2018, 1, 1, tzinfo=UTC).timestamp() * 1000.0
FUTURE_SLACK_MS = 24 * 3600 * 1000.0
PLAUSIBLE_KEYS = ("init_start", "init_stop", "run_start", "run_stop")
# The markers: besides the order check, their duplicates, plausible times and phase boundaries.
MARKER_KEYS = frozenset(PLAUSIBLE_KEYS) | frozenset(DUPLICATE_CODES)
# The longest real runs in the v0.5-v1.0 corpus are Intel's v0.5 ResNet on one 2-socket Xeon
# (7.1-7.3 days; the longest from v0.7 on is 19.1 h). 30 days leaves four times that, and still
# catches clocks that are off by months or years.
MAX_RUN_MS = 30 * 24 * 3600 * 1000.0


class TimingChecker(RunChecker):
    name = "timing"
    description = (
        "Duplicated init_stop/run_start/run_stop, quality target reached after run_stop, run_stop "
        "status, timestamps that go backwards or are implausible."
    )

    def __init__(self, context: RunContext) -> None:
        super().__init__(context)
        self.first_of: dict[str, Record] = {}  # first occurrence of each duplicate-checked key
        self.second_of: dict[str, Record] = {}
        self.count_of: dict[str, int] = {}
        self.first_run_stop: Record | None = None
        self.earliest_init_start: Record | None = None
        self.latest_init_stop: Record | None = None
        self.latest_run_start: Record | None = None
        self.boundary: Record | None = None  # the latest in time of the three above
        self.in_order_from = -math.inf  # a timeline event earlier than this goes back behind the boundary
        self.first_decrease: tuple[Record, Record] | None = None  # (event, the boundary it precedes)
        self.first_timed_decrease: tuple[Record, Record] | None = None  # behind run_start
        self.decrease_count = 0
        self.implausible: dict[str, Record] = {}  # first record of each key with an implausible time

    def feed_records(self, records: list[Record]) -> None:
        # Most blocks hold no marker and nothing behind the boundary: told in C, not record by record.
        if MARKER_KEYS.isdisjoint(map(itemgetter(0), records)) and (
            not records or min(map(itemgetter(3), records)) >= self.in_order_from
        ):
            return
        for record in records:
            key = record.key
            if key in MARKER_KEYS:
                self.note_marker(record)
            elif key in TIMELINE_KEYS and record.time_ms < self.in_order_from:
                self.check_order(record)  # behind a phase boundary: a decrease to count
            # Any other key, or a timeline event not behind a boundary, changes nothing here.

    def note_marker(self, record: Record) -> None:
        key = record.key
        if key in DUPLICATE_CODES:
            self.note_occurrence(record)
        if key == "run_stop" and self.first_run_stop is None:
            self.first_run_stop = record
        if key in PLAUSIBLE_KEYS and key not in self.implausible and not plausible_time(record.time_ms):
            self.implausible[key] = record
        self.check_order(record)

    def note_occurrence(self, record: Record) -> None:
        key = record.key
        count = self.count_of.get(key, 0) + 1
        self.count_of[key] = count
        if count == 1:
            self.first_of[key] = record
        elif count == 2:
            self.second_of[key] = record

    def check_order(self, record: Record) -> None:
        boundary = self.boundary
        if record.time_ms < self.in_order_from:  # -inf while there is no boundary
            self.decrease_count += 1
            if self.first_decrease is None:
                self.first_decrease = (record, boundary)
            if boundary.key == "run_start" and self.first_timed_decrease is None:
                self.first_timed_decrease = (record, boundary)
        key = record.key
        if key == "init_start":
            if self.earliest_init_start is None or record.time_ms < self.earliest_init_start.time_ms:
                self.earliest_init_start = record
        elif key == "init_stop":
            self.latest_init_stop = record
        elif key == "run_start":
            self.latest_run_start = record
        else:
            return
        self.boundary = max(
            (b for b in (self.earliest_init_start, self.latest_init_stop, self.latest_run_start) if b is not None),
            key=lambda b: b.time_ms,
        )
        self.in_order_from = self.boundary.time_ms - TIMELINE_TOLERANCE_MS

    def finish(self, run: RunLog) -> list[Finding]:
        findings = [self.duplicate_finding(key) for key in DUPLICATE_CODES if self.count_of.get(key, 0) > 1]
        # The run summary finds the first eval meeting the quality target (it merges Stable
        # Diffusion's FID and CLIP lines and knows the hyperparameters BERT 0.7's target reads).
        stop = self.first_run_stop
        if run.target_reached_line is not None and stop is not None and run.target_reached_line > stop.line:
            findings.append(self.target_after_stop_finding(run.target_reached_line, stop))
        # A run_stop without a status is the compliance checker's finding (a required field).
        if run.run_stop_status not in ("success", ""):
            findings.append(self.status_finding(run))
        if self.first_decrease is not None:
            findings.append(self.decrease_finding())
        findings.extend(self.implausible_findings(run))
        return findings

    def duplicate_finding(self, key: str) -> Finding:
        first, second, count = self.first_of[key], self.second_of[key], self.count_of[key]
        more = f" and {count - 2} more time(s)" if count > 2 else ""
        consequence = {
            "run_start": "the official summarizer times the run from the last run_start before run_stop, "
            "so a copied line shortens the measured time",
            "run_stop": "the official tools disagree on which one ends the run (the summarizer stops the "
            "clock at the first, the RCP checker reads the last)",
            "init_stop": "which one ends initialisation is ambiguous",
        }[key]
        return self.finding(
            ERROR,
            DUPLICATE_CODES[key],
            f"{key} is logged {count} times (line {first.line}, again on line {second.line}{more}); "
            f"expected exactly one: {consequence}",
            file=self.context.file,
            line=second.line,
            key=key,
            expected="1 occurrence",
            actual=f"{count} occurrences",
        )

    def target_after_stop_finding(self, target_line: int, stop: Record) -> Finding:
        return self.finding(
            ERROR,
            TARGET_AFTER_RUN_STOP,
            f"the first eval_accuracy that meets the quality target is on line {target_line}, after "
            f"run_stop on line {stop.line}: the target must be reached before the clock stops",
            file=self.context.file,
            line=target_line,
            key="eval_accuracy",
            expected=f"target reached before run_stop (line {stop.line})",
            actual=f"first reached on line {target_line}",
        )

    def status_finding(self, run: RunLog) -> Finding:
        status = run.run_stop_status
        return self.finding(
            WARNING,
            RUN_STOP_NOT_SUCCESS,
            f"run_stop on line {run.run_stop_line} has status {status!r}, not 'success': the run is "
            "scored as not converged",
            file=self.context.file,
            line=run.run_stop_line,
            key="run_stop",
            expected="success",
            actual=status,
        )

    def decrease_finding(self) -> Finding:
        # Going back behind run_start corrupts the timed region (an error). Going back behind
        # init_start/init_stop only makes the init timing unreliable; the time to train is still
        # run_stop - run_start (a warning: Intel's TF logs got their init lines written after the run).
        if self.first_timed_decrease is not None:
            severity, (record, boundary) = ERROR, self.first_timed_decrease
        else:
            severity, (record, boundary) = WARNING, self.first_decrease
        more = f" ({self.decrease_count} events in all go back that far)" if self.decrease_count > 1 else ""
        return self.finding(
            severity,
            TIMESTAMP_DECREASES,
            f"{record.key} on line {record.line} is timestamped {describe_gap(boundary.time_ms - record.time_ms)} "
            f"before {boundary.key} on line {boundary.line}, which is logged above it{more}; "
            f"the log's timeline goes backwards by more than the {TIMELINE_TOLERANCE_MS / 1000:g} s allowed",
            file=self.context.file,
            line=record.line,
            key=record.key,
            expected=f"time_ms >= {boundary.time_ms - TIMELINE_TOLERANCE_MS:.0f}",
            actual=f"time_ms {record.time_ms:.0f}",
        )

    def implausible_findings(self, run: RunLog) -> list[Finding]:
        findings = []
        if self.implausible:
            records = sorted(self.implausible.values(), key=lambda r: r.line)
            first = records[0]
            listed = ", ".join(
                f"{r.key} on line {r.line} has time_ms {r.time_ms:.0f} ({describe_time(r.time_ms)})"
                for r in records
            )
            # A wrong epoch (NVIDIA v0.7 HugeCTR logs seconds plus millisecond offsets) leaves the
            # differences, and so the time to train, intact: a warning. Durations are checked below.
            findings.append(
                self.finding(
                    WARNING,
                    TIMESTAMP_IMPLAUSIBLE,
                    f"{listed}; expected milliseconds since 1970 between 2018-01-01 and tomorrow",
                    file=self.context.file,
                    line=first.line,
                    key=first.key,
                    expected="2018-01-01 <= time <= now + 1 day",
                    actual=describe_time(first.time_ms),
                )
            )
        duration = run.time_to_train_ms
        if duration is not None and duration > MAX_RUN_MS:
            findings.append(
                self.finding(
                    ERROR,
                    TIMESTAMP_IMPLAUSIBLE,
                    f"the run lasts {describe_gap(duration)} from run_start on line {run.run_start_line} to "
                    f"run_stop on line {run.run_stop_line}; no real run takes more than "
                    f"{describe_gap(MAX_RUN_MS)}: the timestamps are wrong",
                    file=self.context.file,
                    line=run.run_stop_line,
                    key="run_stop",
                    expected=f"at most {describe_gap(MAX_RUN_MS)}",
                    actual=describe_gap(duration),
                )
            )
        return findings


def plausible_time(time_ms: float) -> bool:
    return EARLIEST_PLAUSIBLE_MS <= time_ms <= time.time() * 1000.0 + FUTURE_SLACK_MS


def describe_time(time_ms: float) -> str:
    try:
        return datetime.fromtimestamp(time_ms / 1000.0, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):  # beyond what datetime represents
        return "not a representable date"


def describe_gap(ms: float) -> str:
    seconds = ms / 1000.0
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
