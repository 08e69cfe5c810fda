"""The local backend: `bwrap` + `setpriv` + a cgroup per run (cgroups.py) + seccomp (seccomp.py),
tested end to end (verify/tests/test_sandbox.py)."""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .base import (
    CGROUP,
    CODE_DIR,
    DATA_DIR,
    OUTPUT_DIR,
    RLIMITS,
    RUNNER_DIR,
    SANDBOX_UID,
    RunOutcome,
    RunSpec,
    Sandbox,
    SandboxUnavailable,
)
from .cgroups import CGROUP_ROOT, RunCgroup
from .processes import kill_group, run_process_group
from .seccomp import seccomp_filter


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
            outcome = run_process_group([argv[0], "--args", str(args_fd), *argv[command_at:]], spec, on_output,
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


def python_runtime_binds() -> dict[str, str]:
    """Bind this worker's Python interpreter and its installed packages into the sandbox (read-only),
    so a submission can use NumPy, mlperf-logging and (where installed) PyTorch."""
    import sysconfig

    return {
        sys.base_prefix: "/opt/python",
        sysconfig.get_paths()["purelib"]: "/opt/site-packages",
    }

