"""Run untrusted submission code with no network, no secrets and hard limits.

One interface, two backends chosen by the worker's VERIFY_SANDBOX setting:

- BubblewrapSandbox (local, tested end to end): Debian's `bwrap` gives the run new network, PID,
  IPC, UTS and mount namespaces; the root is a minimal read-only one (/usr plus the Python runtime),
  the code and data are bound read-only at /code and /data, and /output and /tmp are size-capped
  tmpfs, the only writable places. Inside, `setpriv` drops to an unprivileged uid with no
  capabilities before the submission's command starts. Limits on the whole run: a cgroup of its own
  (RunCgroup: memory of all its processes and tmpfs together, process count, CPU quota), removed with
  everything in it at the end; CPU time and file size are rlimits. The CPU time its processes use
  is sampled as it runs (CpuSampler: evidence that work happened). A seccomp filter (seccomp_filter())
  refuses new user namespaces (no `unshare -Ur` to get uid 0 and mounts inside) and a few kernel
  interfaces no training run needs. bwrap reads its arguments from a file descriptor, so the
  sandbox's pid 1 shows no host path in /proc/1/cmdline. Where no cgroup can be made the run is
  refused (SandboxUnavailable), unless the worker is configured for the weaker per-process rlimits
  (VERIFY_SANDBOX_LIMITS=rlimits, docs/security.md), which every re-run then records.
- ContainerSandbox (production): `docker run` / `podman run` with no network, a non-root user, all
  capabilities dropped, no-new-privileges, the engine's default seccomp profile (no user namespaces),
  a read-only root, size-capped /tmp and /output, memory / pid / CPU limits of the container's
  cgroup, the GPU passed through, and `kill` + `rm -f` at the deadline. No container engine runs on
  the development machines: its tests check the exact command line.

Pure Python (no Django): the GPU worker imports it without database access.
"""

from __future__ import annotations

import glob
import os
import platform
import re
import resource
import secrets
import signal
import struct
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
CGROUP_ROOT = Path("/sys/fs/cgroup")
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
KILL_GRACE_SECONDS = 2.0
CPU_SAMPLE_SECONDS = 0.2  # how often the CPU time of a run's processes is read
MAX_CPU_SAMPLES = 4000  # past this, every other sample is dropped and the period doubles
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # the unit of /proc/<pid>/stat's times
# The folders a run's cgroup is made in are named "<run name>-<worker pid>-<6 hex digits>".
RUN_CGROUP_NAME = re.compile(r"^verify-[\w.-]+-(?P<pid>\d+)-[0-9a-f]{6}$")


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


def _run_process_group(
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


def process_exists(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie does not: it is dead, only not reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def remove_leftover_cgroups(root: Path = CGROUP_ROOT, own: str | None = None) -> list[str]:
    """Kill what is still in the run cgroups a killed worker left behind and remove them; their names."""
    removed = []
    for cgroup in RunCgroup.leftovers(root, own):
        cgroup.kill_all()
        cgroup.remove()
        removed += [str(path) for path in cgroup.paths if not path.exists()]
    return removed


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL the whole process group (bwrap and anything it started outside the namespace)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@dataclass
class RunCgroup:
    """A cgroup of one run: memory (its processes and the pages of its tmpfs, together), process
    count and CPU quota, however many processes and whatever uid. Under the worker's own cgroup:
    cgroup v2 where the worker's cgroup delegates memory, pids and cpu (a container with its own
    cgroup namespace, or systemd's Delegate=yes), else the v1 memory, pids and cpu hierarchies."""

    version: int
    paths: list[Path]

    @classmethod
    def create(cls, name: str, limits: Limits, root: Path = CGROUP_ROOT, own: str | None = None) -> RunCgroup:
        own = own if own is not None else Path("/proc/self/cgroup").read_text()
        leaf = f"{name}-{os.getpid()}-{secrets.token_hex(3)}"
        try:
            create = cls._create_v2 if (root / "cgroup.controllers").exists() else cls._create_v1
            cgroup = create(root, own, leaf)
            try:
                cgroup._limit(limits)
            except OSError:
                cgroup.remove()
                raise
        except (OSError, ValueError) as exc:
            raise SandboxUnavailable(
                f"cannot give the run a cgroup of its own under {root} ({exc}); the worker needs write access to a "
                f"cgroup delegating memory, pids and cpu (root in its container, or systemd Delegate=yes), or the "
                f"weaker per-process limits (VERIFY_SANDBOX_LIMITS=rlimits, see docs/security.md)"
            ) from exc
        return cgroup

    @classmethod
    def _create_v2(cls, root: Path, own: str, leaf: str) -> RunCgroup:
        mine = next((line[3:] for line in own.splitlines() if line.startswith("0::")), "/")
        parent = root / mine.lstrip("/")
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        missing = [name for name in ("memory", "pids", "cpu") if name not in enabled]
        if missing:
            # Fails (EBUSY) where the worker's own processes live in `parent`: then it is not delegated.
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{name}" for name in missing))
        path = parent / leaf
        path.mkdir()
        return cls(2, [path])

    @classmethod
    def _create_v1(cls, root: Path, own: str, leaf: str) -> RunCgroup:
        where = {}
        for line in own.splitlines():
            _number, controllers, path = line.split(":", 2)
            for controller in controllers.split(","):
                where[controller] = path
        paths = []
        try:
            for controller in ("memory", "pids", "cpu"):
                if controller not in where:
                    raise FileNotFoundError(f"no cgroup v1 {controller} hierarchy")
                path = root / controller / where[controller].lstrip("/") / leaf
                path.mkdir()
                paths.append(path)
        except OSError:
            cls(1, paths).remove()
            raise
        return cls(1, paths)

    def _limit(self, limits: Limits) -> None:
        quota = int(limits.cpus * 100_000)
        if self.version == 2:
            (path,) = self.paths
            (path / "memory.max").write_text(str(limits.memory_bytes))
            if (path / "memory.swap.max").exists():
                (path / "memory.swap.max").write_text("0")
            (path / "pids.max").write_text(str(limits.max_processes))
            (path / "cpu.max").write_text(f"{quota if quota else 'max'} 100000")
            return
        memory, pids, cpu = self.paths
        (memory / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
        if (memory / "memory.memsw.limit_in_bytes").exists():  # no swap on top (set after the memory limit)
            (memory / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
        (pids / "pids.max").write_text(str(limits.max_processes))
        (cpu / "cpu.cfs_period_us").write_text("100000")
        (cpu / "cpu.cfs_quota_us").write_text(str(quota if quota else -1))

    def enter(self) -> None:
        """Move the calling process in (the child, before it execs bwrap: all it starts stays in)."""
        for path in self.paths:
            (path / "cgroup.procs").write_text(str(os.getpid()))

    def pids(self) -> list[int]:
        try:
            return [int(pid) for pid in (self.paths[-1 if self.version == 1 else 0] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_all(self, wait_seconds: float = 10.0) -> None:
        deadline = time.monotonic() + wait_seconds
        while (alive := self.pids()) and time.monotonic() < deadline:
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)

    def oom_kills(self) -> int:
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            for line in (self.paths[0] / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    @classmethod
    def leftovers(cls, root: Path = CGROUP_ROOT, own: str | None = None) -> list[RunCgroup]:
        """The run cgroups a killed worker left behind: where this worker would make its own, those
        whose worker process is gone (a live one's are in use, whichever worker it is)."""
        own = own if own is not None else Path("/proc/self/cgroup").read_text()
        if (root / "cgroup.controllers").exists():
            mine = next((line[3:] for line in own.splitlines() if line.startswith("0::")), "/")
            parents = {2: [root / mine.lstrip("/")]}
        else:
            where = {}
            for line in own.splitlines():
                _number, controllers, path = line.split(":", 2)
                for controller in controllers.split(","):
                    where[controller] = path
            parents = {1: [root / name / where[name].lstrip("/") for name in ("memory", "pids", "cpu") if name in where]}
        found = []
        for version, folders in parents.items():
            for folder in folders:
                for path in sorted(folder.iterdir()) if folder.is_dir() else []:
                    match = RUN_CGROUP_NAME.match(path.name)
                    if match and path.is_dir() and not process_exists(int(match["pid"])):
                        found.append(cls(version, [path]))
        return found

    def remove(self) -> None:
        for path in self.paths:
            for _ in range(50):  # the kernel frees a cgroup a moment after its last process exits
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)


# The seccomp filter: syscall numbers per architecture (AUDIT_ARCH value, numbers).
CLONE_NEWUSER = 0x10000000
SECCOMP_ARCHES = {
    "x86_64": (0xC000003E, {
        "unshare": 272, "clone": 56, "clone3": 435, "setns": 308, "keyctl": 250, "add_key": 248, "request_key": 249,
        "bpf": 321, "userfaultfd": 323, "perf_event_open": 298, "kexec_load": 246, "kexec_file_load": 320,
        "open_by_handle_at": 304, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    }),
    "aarch64": (0xC00000B7, {
        "unshare": 97, "clone": 220, "clone3": 435, "setns": 268, "keyctl": 219, "add_key": 217, "request_key": 218,
        "bpf": 280, "userfaultfd": 282, "perf_event_open": 241, "kexec_load": 104, "kexec_file_load": 294,
        "open_by_handle_at": 265, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    }),
}
# Refused outright (EPERM): kernel interfaces no training run needs and that are frequent ways into
# the kernel (keyrings are not namespaced; eBPF, userfaultfd, io_uring; modules; kexec).
SECCOMP_REFUSED = ("setns", "keyctl", "add_key", "request_key", "bpf", "userfaultfd", "perf_event_open", "kexec_load",
                   "kexec_file_load", "open_by_handle_at", "init_module", "finit_module", "delete_module",
                   "io_uring_setup", "io_uring_enter", "io_uring_register")
X32_SYSCALL_BIT = 0x40000000


def seccomp_filter(machine: str | None = None) -> bytes:
    """A classic BPF seccomp program (what bwrap --seccomp reads): unshare and clone with
    CLONE_NEWUSER fail with EPERM, clone3 with ENOSYS (its flags are behind a pointer; the C library
    then falls back to clone), SECCOMP_REFUSED with EPERM, any other architecture's calling
    convention is refused; everything else is allowed."""
    machine = machine or platform.machine()
    if machine not in SECCOMP_ARCHES:
        raise SandboxUnavailable(f"no seccomp filter for the {machine} architecture (only {', '.join(SECCOMP_ARCHES)})")
    arch, numbers = SECCOMP_ARCHES[machine]
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    tests = [(jeq, numbers["unshare"], "flags"), (jeq, numbers["clone"], "flags"), (jeq, numbers["clone3"], "enosys")]
    tests += [(jeq, numbers[name], "eperm") for name in SECCOMP_REFUSED]
    if machine == "x86_64":
        tests.insert(0, (jge, X32_SYSCALL_BIT, "eperm"))  # x32 calls reach the same numbers with this bit set
    # Jumps go forward only: the tests, then "allow", then the flags check, then the refusals.
    at_allow = 4 + len(tests)
    where = {"flags": at_allow + 1, "eperm": at_allow + 3, "enosys": at_allow + 5}
    program = [(load, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, eperm), (load, 0, 0, 0)]  # arch, then syscall nr
    for test, value, target in tests:
        program.append((test, where[target] - len(program) - 1, 0, value))
    program += [
        (ret, 0, 0, allow),
        (load, 0, 0, 16),  # the low half of args[0]: the flags of unshare and clone
        (jset, 0, 1, CLONE_NEWUSER),
        (ret, 0, 0, eperm),
        (ret, 0, 0, allow),
        (ret, 0, 0, enosys),
    ]
    return b"".join(struct.pack("<HBBI", *instruction) for instruction in program)


def _memfd(name: str, data: bytes) -> int:
    """A sealed-in-memory file holding `data`, read by bwrap from its start."""
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@dataclass
class BubblewrapSandbox(Sandbox):
    """`bwrap` + `setpriv` + a cgroup per run + seccomp. `runtime_binds` are host paths bound
    read-only into the sandbox (host -> inside), e.g. the Python interpreter and its site-packages.
    `limits_mode`: CGROUP (the run is refused where no cgroup can be made) or RLIMITS (weaker)."""

    runtime_binds: dict[str, str] = field(default_factory=dict)
    devices: list[str] = field(default_factory=list)  # e.g. /dev/nvidia0, /dev/nvidiactl: the GPU
    bwrap: str = "bwrap"
    setpriv: str = "setpriv"
    limits_mode: str = CGROUP
    cgroup_root: Path = CGROUP_ROOT

    def command(self, spec: RunSpec, seccomp_fd: int | None = None) -> list[str]:
        limits = spec.limits
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
            "--perms",
            "1777",
            "--size",
            str(limits.tmpfs_bytes),
            "--tmpfs",
            "/tmp",
        ]
        if seccomp_fd is not None:
            argv += ["--seccomp", str(seccomp_fd)]
        for device in self.devices:
            argv += ["--dev-bind", device, device]
        binds = dict(self.runtime_binds)
        if spec.runner_dir is not None:
            binds[str(spec.runner_dir)] = RUNNER_DIR
        for parent in sorted({str(Path(inside).parent) for inside in binds.values()} - {"/"}):
            argv += ["--perms", "0755", "--dir", parent]  # bwrap would create it 0700, unreadable after setpriv
        for host, inside in binds.items():
            argv += ["--ro-bind", str(host), inside]
        argv += [
            "--ro-bind",
            str(spec.code_dir),
            CODE_DIR,
            "--ro-bind",
            str(spec.data_dir),
            DATA_DIR,
            "--perms",
            "1777",
            "--size",
            str(limits.output_bytes),
            "--tmpfs",
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
        if self.limits_mode not in (CGROUP, RLIMITS):
            raise SandboxUnavailable(f"VERIFY_SANDBOX_LIMITS must be {CGROUP} or {RLIMITS}, not {self.limits_mode!r}")
        limits = spec.limits
        cgroup = RunCgroup.create(spec.name, limits, self.cgroup_root) if self.limits_mode == CGROUP else None
        mode = RLIMITS if cgroup is None else f"cgroup v{cgroup.version}"

        def set_limits() -> None:  # runs in the child, before exec
            if cgroup is not None:
                cgroup.enter()
            else:  # the weaker mode: per process (and per uid, host-wide, for the process count)
                resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
                resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        seccomp_fd = args_fd = None
        try:
            seccomp_fd = _memfd("verify-seccomp", seccomp_filter())
            argv = self.command(spec, seccomp_fd)
            # bwrap's options through a file: the sandbox's pid 1 (bwrap) then shows no host path.
            command_at = argv.index(self.setpriv)
            args_fd = _memfd("verify-bwrap-args", b"".join(arg.encode() + b"\0" for arg in argv[1:command_at]))
            outcome = _run_process_group([argv[0], "--args", str(args_fd), *argv[command_at:]], spec, on_output,
                                         set_limits, kill_group, (seccomp_fd, args_fd), cgroup, sample_cpu=True)
        finally:
            for fd in (seccomp_fd, args_fd):
                if fd is not None:
                    os.close(fd)
            if cgroup is not None:
                cgroup.kill_all()
                cgroup.remove()
        outcome.limits = limits.describe(mode)
        return outcome


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
            f"/tmp:rw,noexec,nosuid,size={limits.tmpfs_bytes},mode=1777",
            "--tmpfs",
            f"{OUTPUT_DIR}:rw,nosuid,size={limits.output_bytes},mode=1777",
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
            *(["--volume", f"{spec.runner_dir}:{RUNNER_DIR}:ro"] if spec.runner_dir is not None else []),
            "--workdir",
            OUTPUT_DIR,
            "--env",
            f"HOME={OUTPUT_DIR}",
        ]
        for name, value in sorted(spec.env.items()):
            argv += ["--env", f"{name}={value}"]
        return [*argv, self.image, *spec.command]

    def run(self, spec: RunSpec, on_output: Callable[[bytes], None]) -> RunOutcome:
        def stop_container(process: subprocess.Popen) -> None:
            # The container lives in the engine, not in our process group: kill and remove it there.
            subprocess.run([self.engine, "kill", spec.name], capture_output=True, timeout=30)
            subprocess.run([self.engine, "rm", "-f", spec.name], capture_output=True, timeout=30)
            kill_group(process)

        outcome = _run_process_group(self.command(spec), spec, on_output, None, stop_container)
        outcome.limits = spec.limits.describe(f"{self.engine} container")
        return outcome


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


def make_sandbox(kind: str, image: str = "", engine: str = "docker", limits_mode: str = CGROUP) -> Sandbox:
    if kind == "bubblewrap":
        # The NVIDIA device nodes, where there are any (the driver's libraries come with /usr).
        return BubblewrapSandbox(runtime_binds=python_runtime_binds(), devices=sorted(glob.glob("/dev/nvidia*")),
                                 limits_mode=limits_mode)
    if kind == "container":
        if not image:
            raise ValueError("VERIFY_SANDBOX=container needs VERIFY_CONTAINER_IMAGE")
        return ContainerSandbox(image=image, engine=engine)
    raise ValueError(f"VERIFY_SANDBOX must be bubblewrap or container, not {kind!r}")
