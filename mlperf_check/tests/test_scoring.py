"""Olympic scoring (mlperf_check.scoring) against the official result summarizer's arithmetic."""

from __future__ import annotations

import random

from mlperf_logging.result_summarizer.result_summarizer import _compute_olympic_average

from mlperf_check.report import Finding, RunLog
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.scoring import olympic_score
from results.constants import RunStatus

RESNET = get_ruleset("1.0.0").benchmark("resnet")
UNET3D = get_ruleset("1.0.0").benchmark("unet3d")
START = 1_622_000_000_000


def make_run(index: int, minutes: float | None, status: str = "success", compliant: bool = True) -> RunLog:
    return RunLog(
        file=f"results/sys/resnet/result_{index}.txt",
        run_start_ms=START,
        run_stop_ms=None if minutes is None else START + round(minutes * 60000),
        run_stop_status=status,
        compliant=compliant,
    )


def scorings(outcome) -> dict[str, tuple[str, str]]:
    return {s.file.rsplit("/", 1)[1]: (s.scoring, s.reason) for s in outcome.run_scores}


def test_it_drops_the_fastest_and_slowest_of_five_runs():
    runs = [make_run(i, m) for i, m in enumerate([30.0, 28.0, 29.0, 31.0, 27.0])]
    outcome = olympic_score(runs, RESNET)
    assert outcome.mean_minutes == (28.0 + 29.0 + 30.0) / 3
    assert outcome.score_minutes == outcome.mean_minutes
    assert outcome.dropped_runs == 0
    assert outcome.note == "mean of 3 runs of 5"
    assert scorings(outcome) == {
        "result_4.txt": ("dropped_fastest", "fastest of 5 runs"),
        "result_3.txt": ("dropped_slowest", "slowest of 5 runs"),
        "result_0.txt": ("counted", "counted in the olympic mean"),
        "result_1.txt": ("counted", "counted in the olympic mean"),
        "result_2.txt": ("counted", "counted in the olympic mean"),
    }


def test_it_counts_a_failed_run_as_the_slowest_drop():
    runs = [make_run(i, m) for i, m in enumerate([30.0, 28.0, 29.0, 31.0])] + [make_run(4, 20.0, "aborted")]
    outcome = olympic_score(runs, RESNET)
    assert outcome.mean_minutes == (29.0 + 30.0 + 31.0) / 3
    assert outcome.dropped_runs == 1
    assert outcome.note == "mean of 3 runs of 5; 1 failed run counted as slowest drops"
    assert scorings(outcome)["result_4.txt"] == ("failed", "run_stop status aborted")
    assert scorings(outcome)["result_3.txt"][0] == "counted"


def test_it_gives_no_score_with_too_many_failures():
    runs = [
        make_run(0, 30.0),
        make_run(1, 29.0),
        make_run(2, 28.0),
        make_run(3, 20.0, "aborted"),
        make_run(4, 21.0, compliant=False),
    ]
    runs[4].findings.append(
        Finding("error", "KEY_MISSING", "opt_base_learning_rate is missing", checker="compliance")
    )
    outcome = olympic_score(runs, RESNET)
    assert (outcome.score_minutes, outcome.mean_minutes) == (None, None)
    assert outcome.note == "2 runs failed; at most 1 may fail under olympic scoring"
    assert scorings(outcome)["result_4.txt"] == (
        "failed",
        "failed compliance: opt_base_learning_rate is missing",
    )
    assert scorings(outcome)["result_0.txt"][0] == "counted"


def test_it_fails_runs_with_errors_of_the_stricter_run_checks():
    runs = [make_run(i, 30.0 + i) for i in range(5)]
    runs[2].findings.append(
        Finding("error", "DUPLICATE_RUN_START", "run_start logged twice", checker="timing")
    )
    runs[3].findings.append(Finding("error", "ORG_MISMATCH", "org differs", checker="consistency"))
    outcome = olympic_score(runs, RESNET)
    assert scorings(outcome)["result_2.txt"] == ("failed", "failed the timing check: run_start logged twice")
    assert scorings(outcome)["result_3.txt"][0] == "counted"  # not a verdict checker


def test_it_fails_a_run_without_a_time_to_train():
    runs = [make_run(i, 30.0 + i) for i in range(4)] + [make_run(4, None)]
    outcome = olympic_score(runs, RESNET)
    assert scorings(outcome)["result_4.txt"] == ("failed", "no time to train: run_start or run_stop missing")


def test_it_drops_four_and_four_for_unet3d():
    times = [10.0 + i / 10 for i in range(36)]
    runs = [make_run(i, m) for i, m in enumerate(times)] + [make_run(36 + i, None, "abort") for i in range(4)]
    outcome = olympic_score(runs, UNET3D)
    assert outcome.mean_minutes == sum(sorted(r.time_to_train_minutes for r in runs[:36])[4:36]) / 32
    assert outcome.dropped_runs == 4
    assert scorings(outcome)["result_0.txt"] == ("dropped_fastest", "one of the 4 fastest of 40 runs")
    assert [s.scoring for s in outcome.run_scores].count("dropped_slowest") == 0


def test_it_gives_no_score_when_nothing_is_left_to_average():
    outcome = olympic_score([make_run(0, 30.0), make_run(1, 31.0)], RESNET)
    assert outcome.score_minutes is None
    assert outcome.note == "no run left to average after dropping 1 fastest and 1 slowest of 2 converged runs"


def test_it_multiplies_the_mean_by_the_scaling_factor():
    runs = [make_run(i, m) for i, m in enumerate([30.0, 28.0, 29.0, 31.0, 27.0])]
    outcome = olympic_score(runs, RESNET, 1.0043956043956044)
    assert outcome.score_minutes == outcome.mean_minutes * 1.0043956043956044
    assert outcome.note.endswith("multiplied by the RCP scaling factor 1.0044")


def test_it_converts_milliseconds_like_the_summarizer():
    run = make_run(0, 0.0)
    run.run_stop_ms = START + 1_000_007  # a duration where ms / 60 / 1000 != ms / 60000
    assert 1_000_007 / 60 / 1000 != 1_000_007 / 60000
    assert run.time_to_train_minutes == 1_000_007 / 60 / 1000


def test_it_matches_the_official_olympic_average_bit_for_bit():
    rng = random.Random(11)
    for _ in range(300):
        spec = UNET3D if rng.random() < 0.3 else RESNET
        total = spec.required_runs
        failed = rng.randint(0, spec.olympic_drop)
        durations = [rng.randint(60_000, 9_000_000) for _ in range(total - failed)]
        runs = [make_run(i, None) for i in range(total)]
        for run, duration in zip(runs[: len(durations)], durations, strict=True):
            run.run_stop_ms = START + duration
        for run in runs[len(durations) :]:
            run.run_stop_status = "aborted"
            run.run_stop_ms = START + 1
        expected = _compute_olympic_average([d / 60 / 1000 for d in durations], failed, spec.olympic_drop)
        assert olympic_score(runs, spec).mean_minutes == expected


def test_it_uses_only_known_run_status_values():
    runs = [make_run(i, 30.0 + i) for i in range(4)] + [make_run(4, 1.0, "aborted")]
    assert {s.scoring for s in olympic_score(runs, RESNET).run_scores} <= set(RunStatus.values)
