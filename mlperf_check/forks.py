"""map_in_forks(): a function over a list of items, shared between this process and forked copies
of it, for the offline command's --jobs.

Why not concurrent.futures: a check takes a few hundred milliseconds, and on two cores a
ProcessPoolExecutor cost more than it saved (bench/RESULTS.md): importing it and multiprocessing,
a worker process per job beside a parent that only waits, a feeder thread, a pickle round trip
per task. Here the items wait in a pipe, heaviest first, as 4-byte numbers that every process
(this one and its children) reads one at a time when it is free: a process that runs slower (a
forked child pays for its copy-on-write pages and cold caches; a busy CPU) simply takes fewer.
Each child sends all its results back in one pickle through a pipe of its own.

Where there is no fork (Windows), everything runs here. pickle and signal are imported only where
a fork happens: every check imports this module (usable_cpus), most never fork.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# Entries of the queue (4 bytes each): 4 KiB, which a pipe holds on every system with fork, so it
# is filled before any process reads it. More items than this go in batches of neighbours in
# weight order.
QUEUE_ENTRIES = 1024
ENTRY_BYTES = 4


def usable_cpus() -> int:
    """The CPUs this process may run on (a container or `taskset` may allow fewer than the machine
    has, which os.cpu_count() reports)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def batches_by_weight(weights: Sequence[int], entries: int = QUEUE_ENTRIES) -> list[list[int]]:
    """The indexes of `weights`, heaviest first, in at most `entries` batches of consecutive ones
    (one index per batch when they fit): the order the queue hands them out in."""
    order = sorted(range(len(weights)), key=lambda index: -weights[index])
    size = max(1, -(-len(order) // entries))  # ceiling division
    return [order[start : start + size] for start in range(0, len(order), size)]


def map_in_forks(
    function: Callable[[Item], Result], items: Sequence[Item], weights: Sequence[int], jobs: int
) -> list[Result]:
    """[function(item) for item in items], computed by this process and jobs - 1 forked children,
    which take the items from a shared queue, heaviest first (weights), until it is empty. An
    exception in a child is raised here (the first child's); a child that dies without a result
    raises ChildProcessError."""
    if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        return [function(item) for item in items]
    batches = batches_by_weight(weights)
    entries = b"".join(number.to_bytes(ENTRY_BYTES, "little") for number in range(len(batches)))
    running: dict[int, int] = {}  # pid -> the read end of its results pipe
    results: list = [None] * len(items)
    queue, queue_end = os.pipe()
    try:
        try:
            written = os.write(queue_end, entries)
        finally:
            os.close(queue_end)  # before forking: an empty queue then reads as its end in every process
        if written != len(entries):
            raise ChildProcessError("the work queue did not take all its entries")
        for _ in range(min(jobs, len(batches)) - 1):
            pid, read_end = _fork(function, items, batches, queue)
            running[pid] = read_end
        for index, result in _take_from_queue(function, items, batches, queue):
            results[index] = result
        for pid in list(running):
            for index, result in _collect(pid, running.pop(pid)):
                results[index] = result
    finally:
        os.close(queue)
        for pid, read_end in running.items():  # only when this process failed first
            import signal

            os.close(read_end)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return results


def _take_from_queue(
    function: Callable, items: Sequence, batches: list[list[int]], queue: int
) -> Iterator[tuple[int, object]]:
    """(index, function(item)) of each item this process takes from the queue, one at a time,
    until it is empty. A pipe read of ENTRY_BYTES, with only whole entries in the pipe, takes one
    whole entry."""
    while entry := os.read(queue, ENTRY_BYTES):
        if len(entry) != ENTRY_BYTES:
            raise ChildProcessError(
                f"the work queue gave {len(entry)} bytes, not one {ENTRY_BYTES}-byte entry"
            )
        for index in batches[int.from_bytes(entry, "little")]:
            yield index, function(items[index])


def _fork(function: Callable, items: Sequence, batches: list[list[int]], queue: int) -> tuple[int, int]:
    """A child that takes items from the queue like this process and sends back its (index,
    result) pairs, pickled one by one as they are done with one memo (a class or a string pickled
    once is referred to after), so that little is left to do when the queue is empty. The pairs
    end with None; a failure is sent instead of them, as the exception alone."""
    import io
    import pickle

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read_end)
            buffer = io.BytesIO()
            try:
                pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
                for pair in _take_from_queue(function, items, batches, queue):
                    pickler.dump(pair)
                pickler.dump(None)
                payload = buffer.getbuffer()
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
        return pickle.dumps(exc)
    except Exception:  # noqa: BLE001 - an exception that cannot be pickled is sent as its text
        return pickle.dumps(ChildProcessError(f"in a forked check process: {type(exc).__name__}: {exc}"))


def _collect(pid: int, read_end: int) -> list[tuple[int, object]]:
    """The (index, result) pairs a child sends, once it has sent them all."""
    import io
    import pickle

    with os.fdopen(read_end, "rb") as stream:
        data = stream.read()
    if not data:
        _, status = os.waitpid(pid, 0)
        raise ChildProcessError(
            f"a forked check process ended without sending its results (wait status {status})"
        )
    pairs = []
    failure = None
    try:  # while the child's exit tears its memory down
        unpickler = pickle.Unpickler(io.BytesIO(data))
        while (entry := unpickler.load()) is not None:
            if isinstance(entry, BaseException):
                failure = entry
                break
            pairs.append(entry)
    except (EOFError, pickle.UnpicklingError) as exc:
        raise ChildProcessError(f"a forked check process sent incomplete results ({exc})") from exc
    finally:
        os.waitpid(pid, 0)
    if failure is not None:
        raise failure
    return pairs
