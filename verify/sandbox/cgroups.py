"""A cgroup per run (RunCgroup): memory, process count and CPU quota of all the run's processes
together, under the worker's own cgroup (v2, or the v1 hierarchies); and the run cgroups a killed
worker left behind, found and removed at the next start."""

from __future__ import annotations

import os
import re
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from .base import Limits, SandboxUnavailable

CGROUP_ROOT = Path("/sys/fs/cgroup")
# The folders a run's cgroup is made in are named "<run name>-<worker pid>-<6 hex digits>".
RUN_CGROUP_NAME = re.compile(r"^verify-[\w.-]+-(?P<pid>\d+)-[0-9a-f]{6}$")


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

