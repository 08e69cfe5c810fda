"""The container backend's exact command line (no container engine runs on these machines)."""

from pathlib import Path

import pytest

from verify.sandbox import BubblewrapSandbox, ContainerSandbox, Limits, RunSpec, make_sandbox

SPEC = RunSpec(
    code_dir=Path("/work/job-7/code"),
    data_dir=Path("/data/mlperf"),
    command=["/bin/sh", "/code/run_and_time.sh"],
    env={"SEED": "42", "DATADIR": "/data"},
    limits=Limits(wall_seconds=600, memory_bytes=8 * 1024**3, max_processes=256, cpu_seconds=7200,
                  file_size_bytes=1024**3, tmpfs_bytes=512 * 1024**2, output_bytes=2 * 1024**3, cpus=8),
    name="verify-7-1",
)


def test_docker_command_line():
    argv = ContainerSandbox(image="mlperf/verify-runtime:1", engine="docker").command(SPEC)
    assert argv == [
        "docker", "run", "--rm", "--name", "verify-7-1",
        "--network", "none",
        "--user", "65534:65534",
        "--cap-drop", "ALL",
        "--security-opt", "no-new-privileges",
        "--read-only",
        "--tmpfs", "/tmp:rw,noexec,nosuid,size=536870912,mode=1777",
        "--tmpfs", "/output:rw,nosuid,size=2147483648,mode=1777",
        "--memory", "8589934592", "--memory-swap", "8589934592",
        "--pids-limit", "256",
        "--ulimit", "fsize=1073741824", "--ulimit", "cpu=7200",
        "--cpus", "8",
        "--gpus", "all",
        "--volume", "/work/job-7/code:/code:ro",
        "--volume", "/data/mlperf:/data:ro",
        "--workdir", "/output",
        "--env", "HOME=/output",
        "--env", "DATADIR=/data", "--env", "SEED=42",
        "mlperf/verify-runtime:1", "/bin/sh", "/code/run_and_time.sh",
    ]


def test_the_workers_runner_is_mounted_read_only_in_both_backends():
    from dataclasses import replace

    spec = replace(SPEC, runner_dir=Path("/srv/verify/evaluators"))
    docker = ContainerSandbox(image="img").command(spec)
    assert docker[docker.index("/srv/verify/evaluators:/opt/verify-runner:ro") - 1] == "--volume"
    bubblewrap = " ".join(BubblewrapSandbox().command(spec))
    assert "--perms 0755 --dir /opt --ro-bind /srv/verify/evaluators /opt/verify-runner" in bubblewrap


def test_podman_passes_the_gpu_as_a_cdi_device_and_no_gpu_means_no_flag():
    podman = ContainerSandbox(image="img", engine="podman").command(SPEC)
    assert podman[0] == "podman"
    assert podman[podman.index("--device") + 1] == "nvidia.com/gpu=all"
    assert "--gpus" not in podman
    cpu_only = ContainerSandbox(image="img", engine="docker", gpus="").command(SPEC)
    assert "--gpus" not in cpu_only and "--device" not in cpu_only


def test_bubblewrap_command_line_isolates_and_drops_privileges():
    argv = BubblewrapSandbox(runtime_binds={"/opt/py": "/opt/python"}).command(SPEC)
    for flag in ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--clearenv"):
        assert flag in argv
    text = " ".join(argv)
    assert "--ro-bind /work/job-7/code /code" in text
    assert "--ro-bind /data/mlperf /data" in text
    assert "--perms 1777 --size 2147483648 --tmpfs /output" in text  # size-capped, nothing of the host
    assert "--perms 1777 --size 536870912 --tmpfs /tmp" in text
    assert "--ro-bind /opt/py /opt/python" in text
    assert text.endswith("setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs --inh-caps=-all "
                         "--bounding-set=-all -- /bin/sh /code/run_and_time.sh")


def test_bubblewrap_passes_the_gpu_device_nodes_through():
    argv = BubblewrapSandbox(devices=["/dev/nvidia0", "/dev/nvidiactl"]).command(SPEC)
    text = " ".join(argv)
    assert "--tmpfs /tmp --dev-bind /dev/nvidia0 /dev/nvidia0 --dev-bind /dev/nvidiactl /dev/nvidiactl" in text


def test_the_seccomp_filter_is_passed_by_file_descriptor():
    argv = BubblewrapSandbox().command(SPEC, seccomp_fd=9)
    assert argv[argv.index("--seccomp") + 1] == "9"


def test_make_sandbox_refuses_unknown_kinds_and_a_container_without_image():
    with pytest.raises(ValueError, match="bubblewrap or container"):
        make_sandbox("chroot")
    with pytest.raises(ValueError, match="VERIFY_CONTAINER_IMAGE"):
        make_sandbox("container")


def test_a_run_cgroup_on_cgroup_v2_is_made_under_the_workers_own_and_limited(tmp_path):
    """The v2 path on a stand-in tree (this machine has v1 hierarchies): controllers delegated,
    the run's cgroup made under the worker's own, each limit written where the kernel reads it."""
    from verify.sandbox import RunCgroup

    mine = tmp_path / "system.slice" / "worker.service"
    mine.mkdir(parents=True)
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (mine / "cgroup.subtree_control").write_text("")
    limits = Limits(memory_bytes=2 * 1024**3, max_processes=64, cpus=1.5)
    cgroup = RunCgroup.create("verify-7-1", limits, root=tmp_path, own="0::/system.slice/worker.service\n")
    (path,) = cgroup.paths
    assert cgroup.version == 2 and path.parent == mine and path.name.startswith("verify-7-1-")
    assert (mine / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (path / "memory.max").read_text() == str(2 * 1024**3)
    assert (path / "pids.max").read_text() == "64"
    assert (path / "cpu.max").read_text() == "150000 100000"
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert cgroup.oom_kills() == 1


def test_a_run_cgroup_on_cgroup_v1_uses_the_memory_pids_and_cpu_hierarchies(tmp_path):
    from verify.sandbox import RunCgroup

    own = "9:name=systemd:/\n8:pids:/jobs\n4:memory:/jobs\n1:cpu,cpuacct:/jobs\n0::/\n"
    for controller in ("pids", "memory", "cpu"):
        (tmp_path / controller / "jobs").mkdir(parents=True)
    cgroup = RunCgroup.create("run", Limits(memory_bytes=1024**3, max_processes=32, cpus=0), root=tmp_path, own=own)
    memory, pids, cpu = cgroup.paths
    assert cgroup.version == 1 and [p.parent.parent.name for p in cgroup.paths] == ["memory", "pids", "cpu"]
    assert (memory / "memory.limit_in_bytes").read_text() == str(1024**3)
    assert (pids / "pids.max").read_text() == "32"
    assert (cpu / "cpu.cfs_quota_us").read_text() == "-1"  # no quota asked for


def test_the_seccomp_filter_is_a_well_formed_program_for_each_architecture():
    import struct

    from verify.sandbox import SandboxUnavailable, seccomp_filter

    for machine in ("x86_64", "aarch64"):
        program = seccomp_filter(machine)
        instructions = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
        for index, (code, jt, jf, _k) in enumerate(instructions):
            if code & 0x07 == 0x05:  # a jump: both targets inside the program
                assert index + 1 + max(jt, jf) < len(instructions)
        assert instructions[-1][0] == 0x06  # ends with a return
    with pytest.raises(SandboxUnavailable, match="no seccomp filter for the riscv64"):
        seccomp_filter("riscv64")
