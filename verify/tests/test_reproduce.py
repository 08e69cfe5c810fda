"""The decision, the tolerance rule, and parsing re-run logs with the checker package."""

import subprocess
import sys
from pathlib import Path

import pytest

from verify.reproduce import NOT_REPRODUCED, REPRODUCED, Rerun, decide, finite_or_text, olympic_mean
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
        assert sampler.note.startswith("no GPU telemetry: NVML is not available") and sampler.take() == []
