"""TimingChecker: the timing loopholes of the official tools (docs/official-tools.md §h items 1-3)."""

from __future__ import annotations

import io
import time

from mlperf_check.checkers.timing import TIMELINE_TOLERANCE_MS, TimingChecker
from mlperf_check.parsing import iter_record_blocks
from mlperf_check.report import ERROR, WARNING, RunLog
from mlperf_check.runlog import analyze_run
from mlperf_check.tests.logs import T0, event
from mlperf_check.tests.test_runlog import context, resnet_log

DAY_MS = 24 * 3600 * 1000


def check(lines: list[str], **context_args) -> RunLog:
    data = ("\n".join(lines) + "\n").encode()
    return analyze_run(lambda: io.BytesIO(data), context(**context_args), [TimingChecker])


def codes(run: RunLog) -> list[tuple[str, str]]:
    return [(f.severity, f.code) for f in run.findings]


def test_it_accepts_a_well_formed_run():
    run = check(resnet_log())
    assert run.findings == []


def test_it_rejects_a_run_start_copied_ten_minutes_later():
    """The loophole of docs/official-tools.md §h item 1: the official summarizer would time this run 10 minutes short."""
    lines = resnet_log()
    lines.insert(15, event("run_start", at=T0 + 60_010 + 600_000))
    run = check(lines)
    assert codes(run) == [(ERROR, "DUPLICATE_RUN_START"), (ERROR, "TIMESTAMP_DECREASES")]
    duplicate, decrease = run.findings
    assert duplicate.line == 16 and "line 15, again on line 16" in duplicate.message
    assert duplicate.checker == "timing" and duplicate.actual == "2 occurrences"
    assert (
        decrease.line == 18
        and "epoch_start on line 18 is timestamped 10.0 min before run_start on line 16" in (decrease.message)
    )
    assert run.has_verdict_errors and not run.converged


def test_it_rejects_duplicated_init_stop_and_run_stop():
    lines = resnet_log()
    lines.insert(14, event("init_stop", at=T0 + 60_005))
    lines += [event("run_stop", at=T0 + 1_200_020, status="success")] * 2
    run = check(lines)
    assert codes(run) == [(ERROR, "DUPLICATE_INIT_STOP"), (ERROR, "DUPLICATE_RUN_STOP")]
    assert "line 14, again on line 15" in run.findings[0].message
    assert "logged 3 times (line 21, again on line 22 and 1 more time(s))" in run.findings[1].message


def test_it_rejects_a_target_reached_only_after_run_stop():
    lines = resnet_log(final_accuracy=0.70)
    lines.append(event("eval_accuracy", 0.7601, at=T0 + 1_300_000, epoch_num=38))
    run = check(lines)
    assert codes(run) == [(ERROR, "TARGET_AFTER_RUN_STOP")]
    finding = run.findings[0]
    assert finding.line == 21 and "after run_stop on line 20" in finding.message


def test_it_accepts_a_target_reached_before_run_stop_and_evals_after_it():
    lines = resnet_log()
    lines.append(event("eval_accuracy", 0.77, at=T0 + 1_300_000, epoch_num=38))
    assert check(lines).findings == []


def test_it_warns_that_an_aborted_run_is_not_converged():
    run = check(resnet_log(status="aborted"))
    assert codes(run) == [(WARNING, "RUN_STOP_NOT_SUCCESS")]
    assert run.findings[0].line == 20 and "'aborted'" in run.findings[0].message
    assert not run.converged


def test_it_leaves_a_run_stop_without_status_to_compliance():
    lines = resnet_log()
    lines[-1] = event("run_stop", at=T0 + 1_200_010)
    assert check(lines).findings == []


def test_it_tolerates_small_clock_differences_between_ranks():
    lines = resnet_log()
    lines.insert(16, event("epoch_start", at=T0 + 60_010 - TIMELINE_TOLERANCE_MS + 1, epoch_num=1))
    lines.insert(8, event("init_start", at=T0 + 4))  # another rank's init_start, 6 ms earlier
    assert check(lines).findings == []


def test_it_accepts_evals_logged_after_the_blocks_they_belong_to():
    """Habana v1.0 BERT writes its eval_accuracy lines hours after their time; the minigo reference
    logs run_stop with the time of the first model to reach the target, before evals logged above it."""
    lines = resnet_log()[:17] + [
        event("block_stop", at=T0 + 1_100_000),
        event("eval_accuracy", 0.5, at=T0 + 600_000, epoch_num=17),
        event("eval_accuracy", 0.7601, at=T0 + 1_150_000, epoch_num=34),
        event("run_stop", at=T0 + 1_000_000, status="success"),
    ]
    assert check(lines).findings == []


def test_it_warns_about_a_run_start_before_init_stop():
    # The init timing is unreliable, but the timed region (run_start to run_stop) is intact.
    lines = resnet_log()
    lines[14] = event("run_start", at=T0 + 30_000)  # 30 s before init_stop
    run = check(lines)
    assert codes(run) == [(WARNING, "TIMESTAMP_DECREASES")]
    assert "run_start on line 15 is timestamped 30 s before init_stop on line 14" in run.findings[0].message


def test_it_rejects_an_event_timestamped_before_run_start():
    lines = resnet_log()
    run_start = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    lines.insert(run_start + 1, event("eval_accuracy", 0.1, at=T0 - 3_600_000, epoch_num=1))
    run = check(lines)
    assert (ERROR, "TIMESTAMP_DECREASES") in codes(run)


def test_it_finds_the_same_whatever_blocks_the_records_come_in():
    """A block without markers is judged in one step (feed_records); one record per block, as a
    long log's later blocks hold no marker, gives the same findings as the whole log at once."""
    lines = resnet_log()
    run_stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    lines.insert(run_stop, event("eval_accuracy", 0.1, at=T0 - 3_600_000, epoch_num=9))
    data = ("\n".join(lines) + "\n").encode()
    records = [record for block in iter_record_blocks(io.BytesIO(data), file="x", findings=[]) for record in block]
    run = check(lines)
    whole, one_by_one = TimingChecker(context()), TimingChecker(context())
    whole.feed_records(records)
    for record in records:
        one_by_one.feed_records([record])
    one_by_one.feed_records([])
    assert (ERROR, "TIMESTAMP_DECREASES") in codes(run)
    assert one_by_one.finish(run) == whole.finish(run) == [f for f in run.findings if f.checker == "timing"]


def test_it_rejects_implausible_times_but_not_zero_on_submission_lines():
    lines = resnet_log()  # its submission_* lines have time_ms 0, as Google's do
    lines[14] = event("run_start", at=0)
    run = check(lines)
    assert (ERROR, "TIMESTAMP_IMPLAUSIBLE") in codes(run)
    finding = next(f for f in run.findings if f.code == "TIMESTAMP_IMPLAUSIBLE")
    assert (
        finding.line == 15
        and "run_start on line 15 has time_ms 0 (1970-01-01 00:00:00 UTC)" in finding.message
    )


def test_it_rejects_times_in_the_future_and_overlong_runs():
    future = time.time() * 1000 + 3 * DAY_MS
    lines = resnet_log()
    lines[-1] = event("run_stop", at=future, status="success")
    run = check(lines)
    assert [f.code for f in run.findings] == ["TIMESTAMP_IMPLAUSIBLE", "TIMESTAMP_IMPLAUSIBLE"]
    assert "run_stop on line 20" in run.findings[0].message
    assert "no real run takes more than 30.0 days" in run.findings[1].message

    lines[-1] = event("run_stop", at=T0 + 29 * DAY_MS, status="success")  # long, but possible
    assert check(lines).findings == []


def test_it_finds_no_timing_error_in_nvidia_resnet_v10(corpus):
    folder = corpus / "v1.0/NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet"
    files = sorted(folder.glob("result_*.txt"))
    assert len(files) == 5
    statuses = []
    for path in files:
        run = analyze_run(lambda p=path: p.open("rb"), context(), [TimingChecker])
        assert [f for f in run.findings if f.severity == ERROR] == []
        statuses += [f.actual for f in run.findings]
    assert statuses == ["aborted"]  # result_1 was aborted (MANIFEST.md)


def test_it_finds_the_rounded_run_start_of_google_v07_ssd(corpus):
    """A real defect: run_start 1592800000000, 15 h before init_stop (a 15 h run among 28 s runs)."""
    path = corpus / "v0.7/Google/results/tpu-v3-8192-TF/ssd/result_0.txt"
    run = analyze_run(lambda: path.open("rb"), context(benchmark="ssd", ruleset="0.7.0"), [TimingChecker])
    assert [(f.code, f.line) for f in run.findings] == [("TIMESTAMP_DECREASES", 15)]
