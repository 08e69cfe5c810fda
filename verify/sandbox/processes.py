"""A sandboxed run's process group, whichever backend starts it: started in its own session,
its output streamed, killed at the deadline, its end classified; the CPU time its processes use,
sampled as it runs."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .base import RunOutcome, RunSpec, classify
from .cgroups import RunCgroup

KILL_GRACE_SECONDS = 2.0
CPU_SAMPLE_SECONDS = 0.2  # how often the CPU time of a run's processes is read
MAX_CPU_SAMPLES = 4000  # past this, every other sample is dropped and the period doubles
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # the unit of /proc/<pid>/stat's times


def run_process_group(
    argv: list[str],
    spec: RunSpec,
    on_output: Callable[[bytes], None],
    preexec_fn: Callable[[], None] | None,
    on_deadline: Callable[[subprocess.Popen], None],
    pass_fds: tuple[int, ...] = (),
    cgroup: RunCgroup | None = None,
    sample_cpu: bool = False,
) -> RunOutcome:
    """Start `argv` in its own session (and `cgroup`), stream its output, kill it at the deadline;
    with `sample_cpu`, note the CPU time of its process tree as it goes (CpuSampler)."""
    started = time.monotonic()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={"PATH": "/usr/bin:/bin"},  # the worker's own environment never reaches the run
        start_new_session=True,
        preexec_fn=preexec_fn,
        close_fds=True,
        pass_fds=pass_fds,
    )
    tail = bytearray()

    def pump() -> None:
        for chunk in iter(lambda: process.stdout.read1(65536), b""):
            tail.extend(chunk)
            del tail[:-16384]
            on_output(chunk)

    reader = threading.Thread(target=pump, name=f"{spec.name}-output", daemon=True)
    reader.start()
    cpu = CpuSampler(process.pid) if sample_cpu else None
    timed_out = False
    try:
        process.wait(timeout=spec.limits.wall_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        on_deadline(process)
        process.wait()
    finally:
        if process.poll() is None:  # we are being stopped (the task's soft time limit): take the run along
            on_deadline(process)
            process.wait()
        if cpu is not None:
            cpu.stop()
        if cgroup is not None:  # whatever the run left behind, wherever it went
            cgroup.kill_all()
    reader.join(KILL_GRACE_SECONDS * 5)
    wall = time.monotonic() - started
    oom_kills = cgroup.oom_kills() if cgroup is not None else 0
    outcome = classify(process.returncode, timed_out, wall, tail.decode("utf-8", "replace"), spec.limits, oom_kills)
    outcome.cpu_samples = cpu.samples if cpu is not None else []
    return outcome


def tree_cpu_seconds(root_pid: int, proc: Path = Path("/proc")) -> float | None:
    """CPU seconds used by process `root_pid` and everything under it: each live process's user and
    system time plus what its reaped children used (an orphan is reaped by the sandbox's pid 1, so
    its time is counted there). None once `root_pid` is gone."""
    children: dict[int, list[int]] = {}
    used: dict[int, float] = {}
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            fields = (proc / entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        used[pid] = sum(int(value) for value in fields[11:15]) / CLOCK_TICKS  # utime stime cutime cstime
    if root_pid not in used:
        return None
    total, todo = 0.0, [root_pid]
    while todo:
        pid = todo.pop()
        total += used.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return total


class CpuSampler:
    """Reads tree_cpu_seconds() of a run every CPU_SAMPLE_SECONDS on a side thread: how hard its
    processes worked, and when (the server compares it with the run's timed span)."""

    def __init__(self, root_pid: int):
        self.root_pid = root_pid
        self.samples: list[list[float]] = []
        self.period = CPU_SAMPLE_SECONDS
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="cpu-sampler", daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        used = tree_cpu_seconds(self.root_pid)
        if used is None:
            return
        # CPU used so far never goes down. A read can miss some: a process that has exited and that
        # its parent has not reaped yet is in nobody's count (bwrap's pid 1 ends before the outer
        # bwrap reaps it), a window a loaded machine widens.
        if self.samples:
            used = max(used, self.samples[-1][1])
        self.samples.append([time.monotonic(), round(used, 3)])
        if len(self.samples) > MAX_CPU_SAMPLES:  # a long run: keep its whole span, coarser
            del self.samples[1:-1:2]
            self.period *= 2

    def _loop(self) -> None:
        self._sample()
        while not self._stop.wait(self.period):
            self._sample()

    def stop(self) -> None:
        """Stops, with a last sample where the run's processes can still be read."""
        self._stop.set()
        self._thread.join()
        self._sample()


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL the whole process group (bwrap and anything it started outside the namespace)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass

