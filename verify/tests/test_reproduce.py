"""The server's decision from the worker's evidence: each check, the tolerance rule (only slower
fails), like hardware, "timing only", and parsing re-run logs with the checker package."""

import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from verify.evaluators import EVALUATORS
from verify.reproduce import (
    CANNOT_COMPARE,
    FAILED,
    NOT_REPRODUCED,
    REPRODUCED,
    TIMING_ONLY,
    ArrivalClock,
    Rerun,
    check_quality,
    check_work,
    cumulative_at,
    decide,
    finite_or_text,
    olympic_mean,
)
from verify.tests.world import claimed_runs

EVALUATOR = asdict(EVALUATORS["tiny_mlp"])
SPEC = {"claimed_minutes": 10.0, "tolerance": 0.10, "olympic_drop": 1, "quality_target": 0.95, "direction": "higher",
        "runs": 3, "benchmark": "tiny_mlp", "like_hardware": True, "hardware_note": "claimed CPU x; the worker has CPU x",
        "evaluator": EVALUATOR, "min_cpu_busy": 0.25, "min_gpu_busy_pct": 10.0, "accelerator_system": False}


def reruns(*minutes, reached=True):
    return [Rerun(number=i + 1, seed=i, minutes=m, reached_target=reached, run_stop_status="success", final_quality=0.96,
                  evaluation={"passed": True, "accuracy": 0.96})
            for i, m in enumerate(minutes)]


def test_reproduced_within_tolerance_slower_beyond_it_is_not():
    assert decide(SPEC, reruns(9.0, 10.5, 11.0)).outcome == REPRODUCED  # olympic mean 10.5 (+5 %)
    slow = decide(SPEC, reruns(11.0, 11.5, 30.0))
    assert slow.outcome == NOT_REPRODUCED and slow.rerun_minutes == 11.5
    assert slow.message == ("re-run score 11.5000 min vs claimed 10.0000 min (1.15 x the claimed time): slower than "
                            "the claim by more than the 10% tolerance")


def test_faster_than_claimed_is_reproduced_and_says_by_how_much():
    """Issue 36: an honest run faster than the claim failed (the tolerance was symmetric)."""
    fast = decide(SPEC, reruns(2.0, 2.0, 2.0))
    assert fast.outcome == REPRODUCED
    assert "re-run score 2.0000 min vs claimed 10.0000 min (0.20 x the claimed time), faster than claimed" in fast.message


def test_on_other_hardware_the_time_is_reported_not_judged():
    claim = {**SPEC, "like_hardware": False, "hardware_note": "claimed 8 x NVIDIA A100; the worker has 1 x NVIDIA H100"}
    for minutes in (2.0, 30.0):
        decision = decide(claim, reruns(minutes, minutes, minutes))
        assert decision.outcome == CANNOT_COMPARE
        assert f"({minutes / 10:.2f} x the claimed time), not judged" in decision.message
        assert "other hardware than the claim (claimed 8 x NVIDIA A100; the worker has 1 x NVIDIA H100)" in decision.message
    hardware = next(check for check in decision.checks if check["check"] == "hardware")
    assert hardware["passed"] is False


def test_without_an_evaluator_the_best_outcome_is_timing_only():
    decision = decide({**SPEC, "evaluator": None}, reruns(10.0, 10.0, 10.0))
    assert decision.outcome == TIMING_ONLY and decision.message.startswith("timing only: every check held")
    assert "no evaluator measured it" in decision.message
    quality = next(check for check in decision.checks if check["check"] == "quality")
    assert quality["passed"] is None and "read from the log only: tiny_mlp has no registered evaluator" in quality["detail"]


@pytest.mark.parametrize("claimed", [None, 0.0])
def test_a_claim_without_a_score_cannot_be_compared(claimed):
    decision = decide({**SPEC, "claimed_minutes": claimed}, reruns(9.0, 10.0, 11.0))
    assert decision.outcome == CANNOT_COMPARE and decision.rerun_minutes == 10.0
    assert decision.message == "the claimed result has no score to compare with"


def test_a_run_that_misses_the_target_is_not_reproduced():
    runs = reruns(10.0, 10.0, 10.0)
    runs[1].reached_target = False
    runs[1].run_stop_status = "aborted"
    runs[1].evaluation = None
    decision = decide(SPEC, runs)
    assert decision.outcome == NOT_REPRODUCED
    assert decision.message.startswith(
        "1 of 3 re-runs not reproduced (re-run 2: did not reach the quality target in its log (run_stop status aborted")


def test_no_runs_or_fewer_than_asked_or_a_bad_exit_are_failures_whatever_the_worker_says():
    assert decide(SPEC, [], "reproduced").outcome == FAILED
    assert decide(SPEC, [], "timed_out", "the job's time limit").message == "no re-run was reported: the job's time limit"
    assert decide(SPEC, reruns(10.0), "reproduced").outcome == FAILED
    assert decide(SPEC, reruns(10.0), "timed_out").outcome == "timed_out"
    runs = reruns(10.0, 10.0)
    runs[1].status, runs[1].exit_code, runs[1].detail = "out_of_memory", 137, "ran out of the 2 GiB memory limit"
    decision = decide(SPEC, runs, "reproduced")
    assert (decision.outcome, decision.message) == ("out_of_memory", "re-run 2: ran out of the 2 GiB memory limit")


def test_the_evaluators_figure_decides_the_quality():
    claim = {**SPEC}
    good = Rerun(number=1, seed=1, reached_target=True)
    check_quality(good, {"accuracy": 0.946, "samples": 20000}, claim)  # within the evaluator's sampling slack
    assert good.reached_target and good.evaluation["passed"] and good.violations == []
    bad = Rerun(number=1, seed=1, reached_target=True)
    check_quality(bad, {"accuracy": 0.61, "samples": 20000}, claim)
    assert not bad.evaluation["passed"] and bad.failed_checks == ["quality"]
    assert "gives 0.61 on fresh data; the target is 0.95 (at least 0.94 on this sample)" in bad.violations[0]
    none = Rerun(number=1, seed=1, reached_target=True)
    check_quality(none, None, claim)  # the run wrote no result line: killed, or no runner
    assert none.failed_checks == ["quality"] and none.evaluation["error"] == "no result"
    assert decide({**claim, "runs": 1}, [bad]).outcome == NOT_REPRODUCED
    without = Rerun(number=1, seed=1, reached_target=True)
    check_quality(without, None, {**claim, "evaluator": None})  # no evaluator: the log's figure stands
    assert without.reached_target and without.evaluation is None


def test_work_is_cpu_time_during_the_timed_span_on_cpu_systems_and_utilization_on_accelerator_systems():
    busy = [[0.0, 0.0], [1.0, 0.1], [2.0, 1.05], [3.0, 2.0], [4.0, 2.1]]  # busy from 1 s to 3 s
    assert cumulative_at(busy, 2.5) == pytest.approx(1.525) and cumulative_at(busy, 9) == 2.1
    working = Rerun(number=1, seed=1, timed_span=[1.0, 3.0])
    check_work(working, busy, [], SPEC)
    assert working.cpu_busy == pytest.approx(0.95) and working.violations == []
    idle = Rerun(number=1, seed=1, timed_span=[3.0, 4.0])
    check_work(idle, busy, [], SPEC)
    assert idle.failed_checks == ["work"] and "the time was not spent computing" in idle.violations[0]
    unseen = Rerun(number=1, seed=1, timed_span=[1.0, 3.0])
    check_work(unseen, [], [], SPEC)
    assert "no CPU time of the run was sampled" in unseen.violations[0]
    accelerator = {**SPEC, "accelerator_system": True}
    telemetry = [{"t": t, "gpu": 0, "utilization_pct": 90 if 1 <= t <= 3 else 0} for t in range(6)]
    gpu_busy = Rerun(number=1, seed=1, timed_span=[1.0, 3.0])
    check_work(gpu_busy, [], telemetry, accelerator)
    assert gpu_busy.gpu_busy_pct == 90 and gpu_busy.violations == []
    gpu_idle = Rerun(number=1, seed=1, timed_span=[4.0, 5.0])
    check_work(gpu_idle, busy, telemetry, accelerator)
    assert "the accelerators were idle during the timed span: 0 % mean utilization" in gpu_idle.violations[0]
    no_telemetry = Rerun(number=1, seed=1, timed_span=[1.0, 3.0])
    check_work(no_telemetry, busy, [], accelerator)
    assert "no accelerator telemetry during the timed span" in no_telemetry.violations[0]


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


@pytest.mark.parametrize("module", ["verify.worker", "verify.sandbox", "verify.reproduce", "verify.telemetry",
                                    "verify.tokens", "verify.hardware", "verify.schema"])
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
    `arrive(logged seconds since run_start)` (None before run_start: at 0), run_start arriving 5 s
    into the job. Returns the log, the clock and the job clock's epoch that makes the log's own
    timestamps the worker's clock."""
    import json

    from verify.tests.world import FIXTURE

    text = (FIXTURE / "results" / "cpu_box" / "tiny_mlp" / "result_0.txt").read_bytes()
    log = tmp_path / "rerun_1.txt"
    log.write_bytes(text)
    start_ms = next(json.loads(line[9:])["time_ms"] for line in text.decode().splitlines() if '"run_start"' in line)
    offsets = []
    for line in text.splitlines(keepends=True):
        logged = json.loads(line[9:])["time_ms"] if line.startswith(b":::MLLOG") else None
        offsets.append(max(0.0, (logged - start_ms) / 1000) if logged is not None else offsets[-1] if offsets else 0.0)
    clock = ArrivalClock.from_points([[number, 5.0 + arrive(offset)] for number, offset in enumerate(offsets, start=1)])
    return log, clock, start_ms / 1000 - 5.0


SPEC_FOR_LOG = {"ruleset": "6.1.0", "system_id": "cpu_box", "benchmark": "tiny_mlp", "organization": "alpha",
                "division": "closed", "quality_target": 0.95, "direction": "higher", "timing_slack_seconds": 0.1,
                "timing_slack_fraction": 0.02}


def measured(log, clock, seed, wall_seconds, epoch):
    from verify.reproduce import analyze, measure, parse_rerun

    run = analyze(log, SPEC_FOR_LOG)
    rerun = parse_rerun(log, SPEC_FOR_LOG, 1, seed, run)
    rerun.wall_seconds = wall_seconds
    measure(rerun, log, run.run_start_line, run.run_stop_line, clock, SPEC_FOR_LOG, epoch)
    return rerun


def test_a_log_written_while_it_ran_is_measured_by_the_workers_clock(tmp_path):
    log, clock, epoch = claimed_log_with_arrivals(tmp_path, lambda offset: offset * 1.01)
    rerun = measured(log, clock, 101, 8.0, epoch)
    assert rerun.violations == [] and rerun.reached_target
    assert rerun.minutes == pytest.approx(rerun.logged_minutes * 1.01, rel=1e-3)  # the worker's figure, not the log's
    assert rerun.max_drift_seconds < 0.02 and rerun.logged_seeds == [101] and rerun.clock_offset_seconds == 0.0
    assert rerun.timed_span[0] == 5.0


def test_the_log_contradicting_the_measurement_is_each_a_violation(tmp_path):
    log, clock, epoch = claimed_log_with_arrivals(tmp_path, lambda offset: 0.0)  # printed all at once
    at_once = measured(log, clock, 101, 0.05, epoch)
    assert any("but the whole run took 0.050 s" in text for text in at_once.violations)
    assert any("the worker saw 0.000 s between those lines" in text for text in at_once.violations)
    assert any(text.startswith("the log was not written while the run ran: line") for text in at_once.violations)
    assert set(at_once.failed_checks) == {"timing", "live"}
    log, clock, epoch = claimed_log_with_arrivals(tmp_path, lambda offset: offset)
    assert measured(log, clock, 7, 8.0, epoch).violations == ["the log's seed (101) is not the SEED=7 the run was given"]
    decision = decide({**SPEC, "claimed_minutes": 0.0165, "runs": 1}, [at_once])
    assert decision.outcome == NOT_REPRODUCED and "1 of 1 re-runs not reproduced (re-run 1: the log claims" in decision.message


def test_a_log_stamped_by_another_clock_is_caught_however_well_paced(tmp_path):
    """Issue 36: a claimed log replayed line by line at its own pace, its months-old timestamps kept."""
    log, clock, epoch = claimed_log_with_arrivals(tmp_path, lambda offset: offset)
    months_later = measured(log, clock, 101, 8.0, epoch + 90 * 86400)
    assert months_later.failed_checks == ["live"] and months_later.clock_offset_seconds == 90 * 86400
    assert months_later.violations == [
        "the log's clock is not the worker's: its run_start is stamped 90.0 days before the line reached the worker"]
    assert measured(log, clock, 101, 8.0, epoch + 1.5).violations  # beyond the 0.1 s slack here
    assert measured(log, clock, 101, 8.0, epoch + 0.05).violations == []


def test_the_arrival_clock_stays_small_whatever_the_output():
    clock = ArrivalClock()
    for _ in range(100_000):
        clock.feed(b"x\n")
    assert clock.newlines == 100_000 and len(clock.seconds) < 1000
    assert clock.arrival(1) == clock.seconds[0] and clock.arrival(100_001) is None


def test_an_arrival_clock_rebuilt_from_a_workers_points_never_runs_backwards():
    clock = ArrivalClock.from_points([[2, 1.0], [1, 3.0], [5, 2.0]])
    assert list(clock.lines) == [2, 2, 5] and list(clock.seconds) == [1.0, 3.0, 3.0]
    assert clock.arrival(1) == 1.0 and clock.arrival(4) == 3.0 and clock.arrival(6) is None


def test_hardware_is_like_the_claims_on_the_model_and_count():
    from verify.hardware import compare, cpu_model, same_model

    assert same_model("NVIDIA H100-SXM5-80GB", "NVIDIA H100 80GB HBM3")
    assert not same_model("NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3")
    assert same_model("Intel(R) Xeon(R) Processor", "Intel Xeon Processor")
    eight_h100 = {"number_of_nodes": 1, "accelerator_model_name": "NVIDIA H100-SXM5-80GB", "accelerators_per_node": 8}
    assert compare(eight_h100, {"accelerators": ["NVIDIA H100 80GB HBM3"] * 8, "cpu_model": "x", "cpus": 1})[0]
    like, note = compare(eight_h100, {"accelerators": ["NVIDIA H100 80GB HBM3"], "cpu_model": "x", "cpus": 1})
    assert not like and note == "claimed 8 x NVIDIA H100-SXM5-80GB; the worker has 1 x NVIDIA H100 80GB HBM3"
    assert not compare({**eight_h100, "number_of_nodes": 4}, {"accelerators": ["H100"] * 8})[0]
    cpu_box = {"number_of_nodes": 1, "accelerator_model_name": "N/A", "accelerators_per_node": 0,
               "host_processor_model_name": "Intel(R) Xeon(R) Platinum 8480+"}
    assert compare(cpu_box, {"accelerators": ["NVIDIA H100"], "cpu_model": "Intel Xeon Platinum 8480+ @ 2GHz"})[0]
    assert not compare(cpu_box, {"accelerators": [], "cpu_model": "AMD EPYC 9654"})[0]
    assert cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\n") == "AMD EPYC 9654 96-Core Processor"


def test_a_rerun_breaking_a_rule_the_claimed_runs_kept_is_not_reproduced(tmp_path):
    """Issue 36: the re-runs' own error findings were counted and decided nothing."""
    from verify.reproduce import analyze, check_rules
    from verify.tests.world import claimed_logs

    claimed = {(finding.code, finding.key) for finding in analyze(claimed_logs()[0], SPEC_FOR_LOG).findings
               if finding.severity == "error"}
    honest = Rerun(number=1, seed=1)
    check_rules(honest, analyze(claimed_logs()[1], SPEC_FOR_LOG).findings, {"claimed_errors": sorted(claimed)})
    assert honest.violations == [] and honest.new_errors == []  # tiny_mlp's known compliance errors, as claimed
    sloppy = tmp_path / "rerun.txt"  # a hand-made log: no cache_clear, which the rules require
    sloppy.write_text("".join(line for line in claimed_logs()[0].read_text().splitlines(keepends=True)
                              if '"cache_clear"' not in line))
    caught = Rerun(number=1, seed=1)
    check_rules(caught, analyze(sloppy, SPEC_FOR_LOG).findings, {"claimed_errors": sorted(claimed)})
    assert caught.failed_checks == ["rules"] and "cache_clear" in " ".join(caught.new_errors)
    assert caught.violations[0].startswith("1 error finding(s) the claimed runs do not have")
