"""Run untrusted submission code with no network, no secrets and hard limits.

One interface (base.py: Sandbox, RunSpec, Limits, RunOutcome, the outcome constants, classify),
two backends chosen by the worker's VERIFY_SANDBOX setting (make_sandbox below):

- BubblewrapSandbox (bubblewrap.py; local, tested end to end): Debian's `bwrap` gives the run new
  network, PID, IPC, UTS and mount namespaces; the root is a minimal read-only one (/usr plus the
  Python runtime), the code and data are bound read-only at /code and /data, and /output and /tmp
  are size-capped tmpfs, the only writable places. Inside, `setpriv` drops to an unprivileged uid
  with no capabilities before the submission's command starts. Limits on the whole run: a cgroup of
  its own (cgroups.py, RunCgroup: memory of all its processes and tmpfs together, process count, CPU
  quota), removed with everything in it at the end; CPU time and file size are rlimits. The CPU time
  its processes use is sampled as it runs (processes.py, CpuSampler: evidence that work happened). A
  seccomp filter (seccomp.py) refuses new user namespaces (no `unshare -Ur` to get uid 0 and mounts
  inside) and a few kernel interfaces no training run needs. bwrap reads its arguments from a file
  descriptor, so the sandbox's pid 1 shows no host path in /proc/1/cmdline. Where no cgroup can be
  made the run is refused (SandboxUnavailable), unless the worker is configured for the weaker
  per-process rlimits (VERIFY_SANDBOX_LIMITS=rlimits, docs/security.md), which every re-run then
  records.
- ContainerSandbox (container.py; production): `docker run` / `podman run` with no network, a
  non-root user, all capabilities dropped, no-new-privileges, the engine's default seccomp profile
  (no user namespaces), a read-only root, size-capped /tmp and /output, memory / pid / CPU limits of
  the container's cgroup, the GPU passed through, and `kill` + `rm -f` at the deadline. No container
  engine runs on the development machines: its tests check the exact command line.

Both run their command as one process group (processes.py). The types live in base.py, not here,
so that the backends import them without an import circle through this package.

Pure Python (no Django): the GPU worker imports it without database access.
"""

from __future__ import annotations

import glob

from .base import (
    CGROUP,
    CODE_DIR,
    DATA_DIR,
    EXITED,
    OUT_OF_MEMORY,
    OUTPUT_DIR,
    RLIMITS,
    RUNNER_DIR,
    SANDBOX_ENV,
    SANDBOX_UID,
    SANDBOX_VIOLATION,
    TIMED_OUT,
    Limits,
    RunOutcome,
    RunSpec,
    Sandbox,
    SandboxUnavailable,
    classify,
)
from .bubblewrap import BubblewrapSandbox, python_runtime_binds
from .cgroups import RunCgroup, process_exists, remove_leftover_cgroups
from .container import ContainerSandbox
from .seccomp import seccomp_filter

__all__ = [
    "CGROUP", "CODE_DIR", "DATA_DIR", "EXITED", "OUT_OF_MEMORY", "OUTPUT_DIR", "RLIMITS", "RUNNER_DIR", "SANDBOX_ENV",
    "SANDBOX_UID", "SANDBOX_VIOLATION", "TIMED_OUT", "BubblewrapSandbox", "ContainerSandbox", "Limits", "RunCgroup",
    "RunOutcome", "RunSpec", "Sandbox", "SandboxUnavailable", "classify", "make_sandbox", "process_exists",
    "python_runtime_binds", "remove_leftover_cgroups", "seccomp_filter",
]


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
