"""The production backend: `docker run` / `podman run` with the GPU passed through. No container
engine runs on the development machines: verify/tests/test_container.py checks the exact command."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from .base import CODE_DIR, DATA_DIR, OUTPUT_DIR, RUNNER_DIR, SANDBOX_UID, RunOutcome, RunSpec, Sandbox
from .processes import kill_group, run_process_group


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

        outcome = run_process_group(self.command(spec), spec, on_output, None, stop_container)
        outcome.limits = spec.limits.describe(f"{self.engine} container")
        return outcome

