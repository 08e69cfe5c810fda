"""What every sandbox backend shares: the run (RunSpec, Limits), how it ended (RunOutcome and the
outcome constants, classify), the Sandbox interface, and the paths and environment a run sees.
Imports nothing of the package: the backends build on it (verify/sandbox/__init__.py)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# How a sandboxed run ended (values of verify.constants.Outcome where they are outcomes).
EXITED = "exited"
TIMED_OUT = "timed_out"
OUT_OF_MEMORY = "out_of_memory"
SANDBOX_VIOLATION = "sandbox_violation"

SANDBOX_UID = 65534  # nobody
CGROUP = "cgroup"  # limits modes: a cgroup per run (required unless the worker says otherwise)
RLIMITS = "rlimits"  # per-process rlimits only: the documented weaker mode
# Where the code, data and output appear inside the sandbox, and the worker's runner (verify/evaluators).
CODE_DIR = "/code"
DATA_DIR = "/data"
OUTPUT_DIR = "/output"
RUNNER_DIR = "/opt/verify-runner"
# What the log of a run that hit a limit says. An address-space limit makes allocations fail:
# Python raises MemoryError (NumPy's "Unable to allocate"), C++ throws bad_alloc.
MEMORY_MARKERS = ("MemoryError", "Unable to allocate", "Cannot allocate memory", "std::bad_alloc", "out of memory")
# The sandbox refused something the code tried: reaching the network or writing outside /output.
VIOLATION_MARKERS = {
    "Network is unreachable": "tried to open a network connection",
    "Temporary failure in name resolution": "tried to resolve a host name",
    "Read-only file system": "tried to write outside the output directory",
    "No space left on device": "filled its size-capped /output or /tmp",
}


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 3600.0
    memory_bytes: int = 16 * 1024**3  # all the run's processes and its /tmp and /output together
    max_processes: int = 256  # of the run, whatever else runs as the same uid
    cpu_seconds: int = 4 * 3600  # per process
    file_size_bytes: int = 8 * 1024**3  # largest file a run may write
    tmpfs_bytes: int = 1024**3  # size of /tmp
    output_bytes: int = 1024**3  # size of /output
    cpus: float = 0.0  # CPU quota in CPUs, 0 = no quota

    def describe(self, mode: str) -> str:
        """The limits as enforced, in words (each re-run records them)."""
        cpus = f"{self.cpus:g} CPUs" if self.cpus else "no CPU quota"
        if mode == RLIMITS:
            return (f"per-process rlimits only (weaker: VERIFY_SANDBOX_LIMITS=rlimits): {self.memory_bytes / 1024**3:g} GiB "
                    f"address space per process, {self.max_processes} processes of the sandbox uid, no CPU quota")
        return (f"{mode}: {self.memory_bytes / 1024**3:g} GiB memory in all, {self.max_processes} processes, {cpus}; "
                f"/output {self.output_bytes / 1024**2:g} MiB, /tmp {self.tmpfs_bytes / 1024**2:g} MiB")


class SandboxUnavailable(Exception):
    """The sandbox cannot enforce its limits here: the run is refused, with what to change."""


@dataclass
class RunSpec:
    """One run of a submission: its code, the read-only data, where its output goes, what to run."""

    code_dir: Path
    data_dir: Path
    command: list[str]  # as seen inside the sandbox, e.g. ["/bin/sh", "/code/run_and_time.sh"]
    env: dict[str, str] = field(default_factory=dict)  # the ONLY environment the run gets
    limits: Limits = field(default_factory=Limits)
    name: str = "verify-run"  # container name / log label
    runner_dir: Path | None = None  # bound read-only at RUNNER_DIR (verify/evaluators: runner.py)


@dataclass
class RunOutcome:
    status: str  # EXITED, TIMED_OUT, OUT_OF_MEMORY or SANDBOX_VIOLATION
    exit_code: int | None
    wall_seconds: float
    detail: str = ""  # in words, for the job page
    limits: str = ""  # how the limits were enforced, in words (Limits.describe)
    # [time.monotonic(), CPU seconds used so far by the run's processes], from start to exit
    # (bubblewrap only: a container's processes are the engine's, not ours)
    cpu_samples: list[list[float]] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.status == EXITED and self.exit_code == 0


class Sandbox:
    """Runs a RunSpec; `on_output` receives the combined stdout/stderr as it comes, in chunks."""

    def command(self, spec: RunSpec) -> list[str]:
        raise NotImplementedError

    def run(self, spec: RunSpec, on_output: Callable[[bytes], None]) -> RunOutcome:
        raise NotImplementedError


def classify(exit_code: int | None, timed_out: bool, wall_seconds: float, log_tail: str, limits: Limits,
             oom_kills: int = 0) -> RunOutcome:
    """Name how a run ended from its exit code, the end of its log and its cgroup's OOM kills."""
    if timed_out:
        return RunOutcome(TIMED_OUT, exit_code, wall_seconds, f"killed after the {limits.wall_seconds:g} s limit")
    if oom_kills:
        return RunOutcome(OUT_OF_MEMORY, exit_code, wall_seconds,
                          f"its processes together used up the {limits.memory_bytes / 1024**3:g} GiB memory limit "
                          f"({oom_kills} killed)")
    if exit_code == 0:
        return RunOutcome(EXITED, 0, wall_seconds)
    for marker, what in VIOLATION_MARKERS.items():
        if marker in log_tail:
            return RunOutcome(SANDBOX_VIOLATION, exit_code, wall_seconds, f"the code {what} ({marker!r} in its log)")
    if any(marker in log_tail for marker in MEMORY_MARKERS) or exit_code in (-signal.SIGKILL, 137):
        return RunOutcome(
            OUT_OF_MEMORY, exit_code, wall_seconds, f"ran out of the {limits.memory_bytes / 1024**3:g} GiB memory limit"
        )
    return RunOutcome(EXITED, exit_code, wall_seconds, f"exited with status {exit_code}")


# What every run finds in its environment besides the job's own variables (no secrets).
SANDBOX_PATH = "/opt/python/bin:/usr/local/bin:/usr/bin:/bin"
SANDBOX_ENV = {"PATH": SANDBOX_PATH, "PYTHONPATH": "/opt/site-packages", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}
