"""Run untrusted submission code with no network, no secrets and hard limits.

One interface, two backends chosen by the worker's VERIFY_SANDBOX setting:

- BubblewrapSandbox (local, tested end to end): Debian's `bwrap` gives the run new network, PID,
  IPC, UTS and mount namespaces; the root is a minimal read-only one (/usr plus the Python runtime),
  the code and data are bound read-only at /code and /data, and /output is the only writable
  directory. Inside, `setpriv` drops to an unprivileged uid with no capabilities before the
  submission's command starts: rlimits on processes do not bind root, so the fork bomb limit needs
  a real unprivileged uid. Address space, process count, CPU time and file size are rlimits set on
  bwrap and inherited by everything inside; at the deadline the whole process group is killed and
  `--die-with-parent` tears the PID namespace (and everything in it) down with it.
- ContainerSandbox (production): `docker run` / `podman run` with no network, a non-root user, all
  capabilities dropped, no-new-privileges, a read-only root, a size-capped /tmp, memory / pid / CPU
  limits, the GPU passed through, and `kill` + `rm -f` at the deadline. No container engine runs on
  the development machines: its tests check the exact command line.

Pure Python (no Django): the GPU worker imports it without database access.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# How a sandboxed run ended (values of verify.constants.Outcome where they are outcomes).
EXITED = "exited"
TIMED_OUT = "timed_out"
OUT_OF_MEMORY = "out_of_memory"
SANDBOX_VIOLATION = "sandbox_violation"

SANDBOX_UID = 65534  # nobody
# Where the code, data and output appear inside the sandbox.
CODE_DIR = "/code"
DATA_DIR = "/data"
OUTPUT_DIR = "/output"
# What the log of a run that hit a limit says. An address-space limit makes allocations fail:
# Python raises MemoryError (NumPy's "Unable to allocate"), C++ throws bad_alloc.
MEMORY_MARKERS = ("MemoryError", "Unable to allocate", "Cannot allocate memory", "std::bad_alloc", "out of memory")
# The sandbox refused something the code tried: reaching the network or writing outside /output.
VIOLATION_MARKERS = {
    "Network is unreachable": "tried to open a network connection",
    "Temporary failure in name resolution": "tried to resolve a host name",
    "Read-only file system": "tried to write outside the output directory",
}
KILL_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 3600.0
    memory_bytes: int = 16 * 1024**3  # address space of each process
    max_processes: int = 256
    cpu_seconds: int = 4 * 3600
    file_size_bytes: int = 8 * 1024**3  # largest file a run may write
    tmpfs_bytes: int = 1024**3  # container backend: size of /tmp
    cpus: float = 0.0  # container backend: CPU quota, 0 = no quota


@dataclass
class RunSpec:
    """One run of a submission: its code, the read-only data, where its output goes, what to run."""

    code_dir: Path
    data_dir: Path
    output_dir: Path
    command: list[str]  # as seen inside the sandbox, e.g. ["/bin/sh", "/code/run_and_time.sh"]
    env: dict[str, str] = field(default_factory=dict)  # the ONLY environment the run gets
    limits: Limits = field(default_factory=Limits)
    name: str = "verify-run"  # container name / log label


@dataclass
class RunOutcome:
    status: str  # EXITED, TIMED_OUT, OUT_OF_MEMORY or SANDBOX_VIOLATION
    exit_code: int | None
    wall_seconds: float
    detail: str = ""  # in words, for the job page

    @property
    def succeeded(self) -> bool:
        return self.status == EXITED and self.exit_code == 0


class Sandbox:
    """Runs a RunSpec; `on_output` receives the combined stdout/stderr as it comes, in chunks."""

    def command(self, spec: RunSpec) -> list[str]:
        raise NotImplementedError

    def run(self, spec: RunSpec, on_output: Callable[[bytes], None]) -> RunOutcome:
        raise NotImplementedError


def classify(exit_code: int | None, timed_out: bool, wall_seconds: float, log_tail: str, limits: Limits) -> RunOutcome:
    """Name how a run ended from its exit code and the end of its log."""
    if timed_out:
        return RunOutcome(TIMED_OUT, exit_code, wall_seconds, f"killed after the {limits.wall_seconds:g} s limit")
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


def _run_process_group(
    argv: list[str],
    spec: RunSpec,
    on_output: Callable[[bytes], None],
    preexec_fn: Callable[[], None] | None,
    on_deadline: Callable[[subprocess.Popen], None],
) -> RunOutcome:
    """Start `argv` in its own session, stream its output, kill it at the deadline."""
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
    )
    tail = bytearray()

    def pump() -> None:
        for chunk in iter(lambda: process.stdout.read1(65536), b""):
            tail.extend(chunk)
            del tail[:-16384]
            on_output(chunk)

    reader = threading.Thread(target=pump, name=f"{spec.name}-output", daemon=True)
    reader.start()
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
    reader.join(KILL_GRACE_SECONDS * 5)
    wall = time.monotonic() - started
    return classify(process.returncode, timed_out, wall, tail.decode("utf-8", "replace"), spec.limits)


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL the whole process group (bwrap and anything it started outside the namespace)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@dataclass
class BubblewrapSandbox(Sandbox):
    """`bwrap` + `setpriv` + rlimits. `runtime_binds` are host paths bound read-only into the
    sandbox (host -> inside), e.g. the Python interpreter and its site-packages."""

    runtime_binds: dict[str, str] = field(default_factory=dict)
    bwrap: str = "bwrap"
    setpriv: str = "setpriv"

    def command(self, spec: RunSpec) -> list[str]:
        argv = [
            self.bwrap,
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "sandbox",
            "--ro-bind",
            "/usr",
            "/usr",
            "--symlink",
            "usr/bin",
            "/bin",
            "--symlink",
            "usr/lib",
            "/lib",
            "--symlink",
            "usr/lib64",
            "/lib64",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--tmpfs",
            "/tmp",
        ]
        for parent in sorted({str(Path(inside).parent) for inside in self.runtime_binds.values()} - {"/"}):
            argv += ["--perms", "0755", "--dir", parent]  # bwrap would create it 0700, unreadable after setpriv
        for host, inside in self.runtime_binds.items():
            argv += ["--ro-bind", str(host), inside]
        argv += [
            "--ro-bind",
            str(spec.code_dir),
            CODE_DIR,
            "--ro-bind",
            str(spec.data_dir),
            DATA_DIR,
            "--bind",
            str(spec.output_dir),
            OUTPUT_DIR,
            "--chdir",
            OUTPUT_DIR,
            "--clearenv",
        ]
        for name, value in sorted(spec.env.items()):
            argv += ["--setenv", name, value]
        argv += [
            "--setenv",
            "HOME",
            OUTPUT_DIR,
            self.setpriv,
            f"--reuid={SANDBOX_UID}",
            f"--regid={SANDBOX_UID}",
            "--clear-groups",
            "--no-new-privs",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
            *spec.command,
        ]
        return argv

    def run(self, spec: RunSpec, on_output: Callable[[bytes], None]) -> RunOutcome:
        spec.output_dir.mkdir(parents=True, exist_ok=True)
        os.chown(spec.output_dir, SANDBOX_UID, SANDBOX_UID)
        limits = spec.limits

        def set_limits() -> None:  # runs in the child, before exec
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return _run_process_group(self.command(spec), spec, on_output, set_limits, kill_group)


@dataclass
class ContainerSandbox(Sandbox):
    """`docker run` or `podman run` of `image` with the GPU passed through."""

    image: str
    engine: str = "docker"  # or "podman"
    gpus: str = "all"  # "" for no GPU

    def command(self, spec: RunSpec) -> list[str]:
        limits = spec.limits
        argv = [
            self.engine,
            "run",
            "--rm",
            "--name",
            spec.name,
            "--network",
            "none",
            "--user",
            f"{SANDBOX_UID}:{SANDBOX_UID}",
            "--cap-drop",
            "ALL",
            "--security-opt",
            "no-new-privileges",
            "--read-only",
            "--tmpfs",
            f"/tmp:rw,noexec,nosuid,size={limits.tmpfs_bytes}",
            "--memory",
            str(limits.memory_bytes),
            "--memory-swap",
            str(limits.memory_bytes),  # equal to --memory: no swap on top
            "--pids-limit",
            str(limits.max_processes),
            "--ulimit",
            f"fsize={limits.file_size_bytes}",
            "--ulimit",
            f"cpu={limits.cpu_seconds}",
        ]
        if limits.cpus:
            argv += ["--cpus", f"{limits.cpus:g}"]
        if self.gpus:
            # Docker's NVIDIA runtime flag; Podman passes GPUs as CDI devices.
            argv += ["--gpus", self.gpus] if self.engine == "docker" else ["--device", f"nvidia.com/gpu={self.gpus}"]
        argv += [
            "--volume",
            f"{spec.code_dir}:{CODE_DIR}:ro",
            "--volume",
            f"{spec.data_dir}:{DATA_DIR}:ro",
            "--volume",
            f"{spec.output_dir}:{OUTPUT_DIR}:rw",
            "--workdir",
            OUTPUT_DIR,
            "--env",
            f"HOME={OUTPUT_DIR}",
        ]
        for name, value in sorted(spec.env.items()):
            argv += ["--env", f"{name}={value}"]
        return [*argv, self.image, *spec.command]

    def run(self, spec: RunSpec, on_output: Callable[[bytes], None]) -> RunOutcome:
        spec.output_dir.mkdir(parents=True, exist_ok=True)
        os.chown(spec.output_dir, SANDBOX_UID, SANDBOX_UID)

        def stop_container(process: subprocess.Popen) -> None:
            # The container lives in the engine, not in our process group: kill and remove it there.
            subprocess.run([self.engine, "kill", spec.name], capture_output=True, timeout=30)
            subprocess.run([self.engine, "rm", "-f", spec.name], capture_output=True, timeout=30)
            kill_group(process)

        return _run_process_group(self.command(spec), spec, on_output, None, stop_container)


def python_runtime_binds() -> dict[str, str]:
    """Bind this worker's Python interpreter and its installed packages into the sandbox (read-only),
    so a submission can use NumPy, mlperf-logging and (where installed) PyTorch."""
    import sysconfig

    return {
        sys.base_prefix: "/opt/python",
        sysconfig.get_paths()["purelib"]: "/opt/site-packages",
    }


# What every run finds in its environment besides the job's own variables (no secrets).
SANDBOX_PATH = "/opt/python/bin:/usr/local/bin:/usr/bin:/bin"
SANDBOX_ENV = {"PATH": SANDBOX_PATH, "PYTHONPATH": "/opt/site-packages", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}


def make_sandbox(kind: str, image: str = "", engine: str = "docker") -> Sandbox:
    if kind == "bubblewrap":
        return BubblewrapSandbox(runtime_binds=python_runtime_binds())
    if kind == "container":
        if not image:
            raise ValueError("VERIFY_SANDBOX=container needs VERIFY_CONTAINER_IMAGE")
        return ContainerSandbox(image=image, engine=engine)
    raise ValueError(f"VERIFY_SANDBOX must be bubblewrap or container, not {kind!r}")
