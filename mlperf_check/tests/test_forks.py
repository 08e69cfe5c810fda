"""map_in_forks (the offline command's --jobs): same results in the same order as one process,
a child's exception raised in the parent, a child that dies is an error, never a silent gap.

Which process takes which item is up to the queue; where a test needs a child to take one, the
item waits for it (wait_until_taken_by_others)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mlperf_check import pipeline
from mlperf_check.forks import batches_by_weight, map_in_forks

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def wait_until_taken_by_others(marks: Path, processes: int) -> None:
    """Marks that this process took an item, then waits (at most 20 s) until `processes` distinct
    processes have: the first item each process takes waits here, so every process takes one."""
    (marks / str(os.getpid())).touch()
    deadline = time.monotonic() + 20
    while len(list(marks.iterdir())) < processes and time.monotonic() < deadline:
        time.sleep(0.005)


def square_with_pid(number: int, marks: Path | None = None, processes: int = 1) -> tuple[int, int]:
    if marks is not None:
        wait_until_taken_by_others(marks, processes)
    return number * number, os.getpid()


def test_results_come_back_in_item_order_computed_by_this_process_and_its_children(tmp_path):
    def square(number: int) -> tuple[int, int]:
        return square_with_pid(number, tmp_path, 3)

    results = map_in_forks(square, list(range(10)), [1] * 10, jobs=3)
    assert [square for square, _ in results] == [n * n for n in range(10)]
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) == 3


def test_one_job_or_one_item_runs_here():
    assert {pid for _, pid in map_in_forks(square_with_pid, [1, 2, 3], [1, 1, 1], jobs=1)} == {os.getpid()}
    assert map_in_forks(square_with_pid, [4], [1], jobs=4) == [(16, os.getpid())]
    assert map_in_forks(square_with_pid, [], [], jobs=4) == []


def test_the_queue_hands_out_the_heaviest_items_first_in_at_most_its_entries():
    assert batches_by_weight([1, 10, 5]) == [[1], [2], [0]]
    assert batches_by_weight([1, 1, 1, 1, 1, 1, 1], entries=3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(batches_by_weight([1] * 5000)) <= 1024
    assert batches_by_weight([]) == []


def test_a_slow_process_takes_fewer_items(tmp_path):
    parent = os.getpid()

    def slow_here(number: int) -> int:
        wait_until_taken_by_others(tmp_path, 2)
        time.sleep(0.2 if os.getpid() == parent else 0.01)
        return os.getpid()

    pids = map_in_forks(slow_here, list(range(12)), [1] * 12, jobs=2)
    assert pids.count(parent) < 6


# EOFError too: reading the child's results can raise one of its own, which must not hide it.
@pytest.mark.parametrize("error", [ValueError, EOFError])
def test_an_exception_in_a_child_is_raised_in_the_parent(tmp_path, error):
    parent = os.getpid()

    def fail_in_a_child(number: int) -> int:
        wait_until_taken_by_others(tmp_path, 2)
        if os.getpid() != parent:
            raise error(f"no {number} in pid {os.getpid()}")
        return number

    with pytest.raises(error, match="no [0-9] in pid") as raised:
        map_in_forks(fail_in_a_child, list(range(8)), [1] * 8, jobs=2)
    assert f"pid {parent}" not in str(raised.value)


def test_a_child_that_dies_without_results_is_an_error_not_a_gap(tmp_path):
    parent = os.getpid()

    def die_in_a_child(number: int) -> int:
        wait_until_taken_by_others(tmp_path, 2)
        if os.getpid() != parent:
            os._exit(3)
        return number

    with pytest.raises(ChildProcessError, match="ended without sending its results"):
        map_in_forks(die_in_a_child, list(range(6)), [1] * 6, jobs=2)


def test_a_result_that_cannot_be_sent_back_is_a_clear_error(tmp_path):
    def unpicklable(number: int):
        wait_until_taken_by_others(tmp_path, 2)
        return lambda: number

    with pytest.raises(Exception, match="(?i)pickle"):
        map_in_forks(unpicklable, list(range(5)), [1] * 5, jobs=2)


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
