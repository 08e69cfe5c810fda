"""map_in_forks (the offline command's --jobs): same results in the same order as one process,
a child's exception raised in the parent, a child that dies is an error, never a silent gap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mlperf_check import pipeline
from mlperf_check.forks import deal, map_in_forks

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def square_with_pid(number: int) -> tuple[int, int]:
    return number * number, os.getpid()


def test_results_come_back_in_item_order_computed_by_this_process_and_its_children():
    results = map_in_forks(square_with_pid, list(range(10)), [1] * 10, jobs=3)
    assert [square for square, _ in results] == [n * n for n in range(10)]
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) == 3


def test_one_job_or_one_item_runs_here():
    assert {pid for _, pid in map_in_forks(square_with_pid, [1, 2, 3], [1, 1, 1], jobs=1)} == {os.getpid()}
    assert map_in_forks(square_with_pid, [4], [1], jobs=4) == [(16, os.getpid())]
    assert map_in_forks(square_with_pid, [], [], jobs=4) == []


def test_items_are_dealt_by_weight():
    assert deal([10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 2) == [[0], list(range(1, 11))]
    assert deal([3, 3, 2, 2], 2) == [[0, 2], [1, 3]]
    assert deal([1], 3) == [[0], [], []]


def fail_on_seven(number: int) -> int:
    if number == 7:
        raise ValueError(f"no {number} in pid {os.getpid()}")
    return number


def test_an_exception_in_a_child_is_raised_in_the_parent():
    weights = [100, 1, 1, 1, 1, 1, 1, 1]  # item 0 alone is this process's share; 1..7 the child's
    with pytest.raises(ValueError, match="no 7 in pid") as raised:
        map_in_forks(fail_on_seven, list(range(8)), weights, jobs=2)
    assert f"pid {os.getpid()}" not in str(raised.value)


def die_on_five(number: int) -> int:
    if number == 5:
        os._exit(3)
    return number


def test_a_child_that_dies_without_results_is_an_error_not_a_gap():
    weights = [100, 1, 1, 1, 1, 1]  # item 0 here, 1..5 in the child
    with pytest.raises(ChildProcessError, match="ended without sending its results"):
        map_in_forks(die_on_five, list(range(6)), weights, jobs=2)


def unpicklable_on_three(number: int):
    return (lambda: number) if number == 3 else number


def test_a_result_that_cannot_be_sent_back_is_a_clear_error():
    with pytest.raises(Exception, match="(?i)pickle"):
        map_in_forks(unpicklable_on_three, list(range(5)), [100, 1, 1, 1, 1], jobs=2)


def test_a_round_checked_in_forks_equals_the_round_checked_in_one_process(monkeypatch):
    folders = pipeline.submitter_folders(SAMPLE / "training-v1.0")
    alone = [report.to_json() for _, report in pipeline.check_round(folders, jobs=1)]
    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 0)  # the sample is small: fork anyway
    forked = [report.to_json() for _, report in pipeline.check_round(folders, jobs=2)]
    assert forked == alone
    one_folder = pipeline.check_folder(folders[0], jobs=2)
    assert one_folder.to_json() == alone[0]
    monkeypatch.setattr(pipeline, "ROUND_GROUP_BYTES", 1)  # a group per folder
    assert [report.to_json() for _, report in pipeline.check_round(folders, jobs=2)] == alone
