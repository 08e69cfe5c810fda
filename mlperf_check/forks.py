"""map_in_forks(): a function over a list of items, shared between this process and forked copies
of it, for the offline command's --jobs.

Why not concurrent.futures: a check takes a few hundred milliseconds, and on two cores a
ProcessPoolExecutor cost more than it saved (bench/RESULTS.md): importing it and multiprocessing,
a worker process per job beside a parent that only waits, a feeder thread, a pickle round trip
per task. Here the items are dealt out once by weight (bytes of log), this process takes a share
like its children, and each child sends all its results back in one pickle through a pipe.

Where there is no fork (Windows), everything runs here. pickle and signal are imported only where
a fork happens: every check imports this module (usable_cpus), most never fork.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def usable_cpus() -> int:
    """The CPUs this process may run on (a container or `taskset` may allow fewer than the machine
    has, which os.cpu_count() reports)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def deal(weights: Sequence[int], shares: int) -> list[list[int]]:
    """The indexes of `weights` dealt into `shares` lists of nearly equal total weight (heaviest
    first, each to the lightest list so far), each list in index order."""
    totals = [0] * shares
    dealt: list[list[int]] = [[] for _ in range(shares)]
    for index in sorted(range(len(weights)), key=lambda i: -weights[i]):
        lightest = totals.index(min(totals))
        dealt[lightest].append(index)
        totals[lightest] += weights[index]
    return [sorted(share) for share in dealt]


def map_in_forks(
    function: Callable[[Item], Result], items: Sequence[Item], weights: Sequence[int], jobs: int
) -> list[Result]:
    """[function(item) for item in items], computed by this process and jobs - 1 forked children,
    each taking a share of about the same total weight. An exception in a child is raised here
    (the first child's first); a child that dies without a result raises ChildProcessError."""
    if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        return [function(item) for item in items]
    shares = [share for share in deal(weights, min(jobs, len(items))) if share]
    running: dict[int, int] = {}  # pid -> the read end of its pipe
    results: list = [None] * len(items)
    try:
        children = []
        for share in shares[1:]:
            pid, read_end = _fork(function, [items[index] for index in share])
            running[pid] = read_end
            children.append(pid)
        for index in shares[0]:
            results[index] = function(items[index])
        for share, pid in zip(shares[1:], children, strict=True):
            for index, result in zip(share, _collect(pid, running.pop(pid)), strict=True):
                results[index] = result
    finally:
        for pid, read_end in running.items():  # only when this process failed first
            import signal

            os.close(read_end)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return results


def _fork(function: Callable, items: list) -> tuple[int, int]:
    import pickle

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read_end)
            try:
                payload = pickle.dumps((True, [function(item) for item in items]), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # noqa: BLE001 - re-raised by the parent
                payload = _pickled_error(exc)
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
            status = 0
        finally:
            os._exit(status)  # no atexit handlers, no flush of buffers copied from the parent
    os.close(write_end)
    return pid, read_end


def _pickled_error(exc: BaseException) -> bytes:
    import pickle

    try:
        return pickle.dumps((False, exc))
    except Exception:  # noqa: BLE001 - an exception that cannot be pickled is sent as its text
        return pickle.dumps((False, ChildProcessError(f"in a forked check process: {type(exc).__name__}: {exc}")))


def _collect(pid: int, read_end: int) -> list:
    """The results a child sends, once it has exited."""
    import pickle

    with os.fdopen(read_end, "rb") as stream:
        data = stream.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        raise ChildProcessError(
            f"a forked check process ended without sending its results (wait status {status})"
        )
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value
