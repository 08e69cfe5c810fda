"""The decision, the tolerance rule, and parsing re-run logs with the checker package."""

import subprocess
import sys
from pathlib import Path

import pytest

from verify.reproduce import (
    CANNOT_COMPARE,
    NOT_REPRODUCED,
    REPRODUCED,
    Rerun,
    decide,
    finite_or_text,
    olympic_mean,
)
from verify.tests.world import claimed_runs

SPEC = {"claimed_minutes": 10.0, "tolerance": 0.10, "olympic_drop": 1, "quality_target": 0.95}


def reruns(*minutes, reached=True):
    return [Rerun(number=i + 1, seed=i, minutes=m, reached_target=reached, run_stop_status="success", final_quality=0.96)
            for i, m in enumerate(minutes)]


def test_reproduced_within_tolerance_and_not_beyond():
    assert decide(SPEC, reruns(9.0, 10.5, 11.0)).outcome == REPRODUCED  # olympic mean 10.5 (+5 %)
    slow = decide(SPEC, reruns(11.0, 11.5, 30.0))
    assert slow.outcome == NOT_REPRODUCED and slow.rerun_minutes == 11.5
    assert slow.message == "re-run score 11.5000 min vs claimed 10.0000 min (+15.0%, tolerance ±10%)"
    fast = decide(SPEC, reruns(8.0))
    assert fast.outcome == NOT_REPRODUCED and "(-20.0%" in fast.message  # too fast is not reproducing either


@pytest.mark.parametrize("claimed", [None, 0.0])
def test_a_claim_without_a_score_cannot_be_compared(claimed):
    decision = decide({**SPEC, "claimed_minutes": claimed}, reruns(9.0, 10.0, 11.0))
    assert decision.outcome == CANNOT_COMPARE and decision.rerun_minutes == 10.0
    assert decision.message == "the claimed result has no score to compare with"


def test_a_run_that_misses_the_target_is_not_reproduced():
    runs = reruns(10.0, 10.0, 10.0)
    runs[1].reached_target = False
    runs[1].run_stop_status = "aborted"
    decision = decide(SPEC, runs)
    assert decision.outcome == NOT_REPRODUCED
    assert decision.message.startswith("1 of 3 re-runs did not reach the quality target (re-run 2: run_stop status aborted")


def test_olympic_mean_drops_only_when_there_are_enough_runs():
    assert olympic_mean([5.0, 1.0, 3.0, 100.0, 4.0], 1) == 4.0
    assert olympic_mean([2.0, 4.0], 1) == 3.0


def test_the_fixture_claims_parse_with_the_checker_as_converged_runs():
    runs = claimed_runs()
    assert len(runs) == 3
    for run in runs:
        assert run.reached_target and run.run_stop_status == "success"
        assert 0.005 < run.minutes < 0.5  # well under a minute
        assert run.final_quality >= 0.95 and len(run.eval_curve) >= 5
        assert run.error_findings > 0  # tiny_mlp is no official benchmark: compliance says so, and it is shown


def test_untrusted_eval_values_are_made_json_safe():
    assert finite_or_text(float("nan")) == "nan" and finite_or_text(float("inf")) == "inf"
    assert finite_or_text(0.5) == 0.5 and finite_or_text({"a": 1}) == "{'a': 1}"


def test_tolerance_is_five_percent_for_vision_ten_for_the_rest_and_configurable(settings):
    from types import SimpleNamespace

    from verify.services import tolerance_for

    settings.VERIFY_TOLERANCES = {"bert": 0.2}
    assert tolerance_for(SimpleNamespace(name="resnet", area="Vision")) == 0.05
    assert tolerance_for(SimpleNamespace(name="gpt3", area="Language")) == 0.10
    assert tolerance_for(SimpleNamespace(name="bert", area="Language")) == 0.2


@pytest.mark.parametrize("module", ["verify.worker", "verify.sandbox", "verify.reproduce", "verify.telemetry"])
def test_the_worker_side_never_imports_django(module):
    """The GPU worker holds no database credentials and cannot reach the ORM: its code does not even import Django."""
    code = f"import sys, {module}; bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework')); print(bad); sys.exit(1 if bad else 0)"
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_without_a_gpu_the_sampler_says_so():
    from verify.telemetry import GpuSampler

    with GpuSampler(interval=0.05) as sampler:
        pass
    if not sampler.available:
        assert sampler.note.startswith("NVML is not available") and sampler.take() == []


def test_a_run_sees_its_benchmarks_dataset_folder_when_there_is_one(tmp_path):
    from verify.worker import dataset_dir

    (tmp_path / "resnet").mkdir()
    assert dataset_dir(tmp_path, "resnet") == tmp_path / "resnet"
    assert dataset_dir(tmp_path, "bert") == tmp_path  # no folder of its own: the whole directory
    assert dataset_dir(tmp_path / "resnet", "..") == tmp_path / "resnet"


def claimed_log_with_arrivals(tmp_path, arrive, seed=101):
    """The fixture's first claimed log as a re-run log, each line reaching an ArrivalClock at
    `arrive(logged seconds since run_start)` (None before run_start: at 0)."""
    import json

    from verify.reproduce import ArrivalClock
    from verify.tests.world import FIXTURE

    text = (FIXTURE / "results" / "cpu_box" / "tiny_mlp" / "result_0.txt").read_bytes()
    log = tmp_path / "rerun_1.txt"
    log.write_bytes(text)
    clock = ArrivalClock()
    clock.started = 0.0
    start_ms = next(json.loads(line[9:])["time_ms"] for line in text.decode().splitlines() if '"run_start"' in line)
    offsets = []
    for line in text.splitlines(keepends=True):
        logged = json.loads(line[9:])["time_ms"] if line.startswith(b":::MLLOG") else None
        offsets.append(max(0.0, (logged - start_ms) / 1000) if logged is not None else offsets[-1] if offsets else 0.0)
    for number, offset in enumerate(offsets, start=1):
        clock.lines.append(number)
        clock.seconds.append(5.0 + arrive(offset))
    clock.newlines = len(offsets)
    return log, clock


SPEC_FOR_LOG = {"ruleset": "6.1.0", "system_id": "cpu_box", "benchmark": "tiny_mlp", "organization": "alpha",
                "division": "closed", "quality_target": 0.95, "direction": "higher", "timing_slack_seconds": 0.1,
                "timing_slack_fraction": 0.02}


def test_a_log_written_while_it_ran_is_measured_by_the_workers_clock(tmp_path):
    from verify.reproduce import parse_rerun

    log, clock = claimed_log_with_arrivals(tmp_path, lambda offset: offset * 1.01)
    rerun = parse_rerun(log, SPEC_FOR_LOG, 1, 101, clock, wall_seconds=8.0)
    assert rerun.violations == [] and rerun.reached_target
    assert rerun.minutes == pytest.approx(rerun.logged_minutes * 1.01, rel=1e-3)  # the worker's figure, not the log's
    assert rerun.max_drift_seconds < 0.02 and rerun.logged_seeds == [101]


def test_the_log_contradicting_the_measurement_is_each_a_violation(tmp_path):
    from verify.reproduce import parse_rerun

    log, clock = claimed_log_with_arrivals(tmp_path, lambda offset: 0.0)  # printed all at once
    at_once = parse_rerun(log, SPEC_FOR_LOG, 1, 101, clock, wall_seconds=0.05)
    assert any("but the whole run took 0.050 s" in text for text in at_once.violations)
    assert any("the worker saw 0.000 s between those lines" in text for text in at_once.violations)
    assert any(text.startswith("the log was not written while the run ran: line") for text in at_once.violations)
    log, clock = claimed_log_with_arrivals(tmp_path, lambda offset: offset)
    assert parse_rerun(log, SPEC_FOR_LOG, 1, 7, clock, wall_seconds=8.0).violations == [
        "the log's seed (101) is not the SEED=7 the run was given"
    ]
    decision = decide({**SPEC, "claimed_minutes": 0.0165}, [at_once])
    assert decision.outcome == NOT_REPRODUCED and "1 of 1 re-runs' logs contradict what the worker measured" in decision.message


def test_the_arrival_clock_stays_small_whatever_the_output():
    from verify.reproduce import ArrivalClock

    clock = ArrivalClock()
    for _ in range(100_000):
        clock.feed(b"x\n")
    assert clock.newlines == 100_000 and len(clock.seconds) < 1000
    assert clock.arrival(1) == clock.seconds[0] and clock.arrival(100_001) is None
