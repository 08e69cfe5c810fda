"""The bubblewrap sandbox against hostile code: every limit proven by a run that tries to break it."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from verify.sandbox import (
    EXITED,
    OUT_OF_MEMORY,
    SANDBOX_ENV,
    SANDBOX_VIOLATION,
    TIMED_OUT,
    BubblewrapSandbox,
    Limits,
    RunSpec,
    classify,
    python_runtime_binds,
)

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (apt-get install bubblewrap)")

SECRET = "verify-test-secret-7f3a"


@pytest.fixture
def sandbox() -> BubblewrapSandbox:
    return BubblewrapSandbox(runtime_binds=python_runtime_binds())


def run_python(sandbox: BubblewrapSandbox, tmp_path: Path, source: str, limits: Limits | None = None):
    code = tmp_path / "code"
    data = tmp_path / "data"
    code.mkdir()
    data.mkdir()
    (code / "main.py").write_text(textwrap.dedent(source))
    (data / "dataset.txt").write_text("read-only data\n")
    for folder in (tmp_path, code, data):
        os.chmod(folder, 0o755)
    output = bytearray()
    outcome = sandbox.run(
        RunSpec(
            code_dir=code,
            data_dir=data,
            output_dir=tmp_path / "output",
            command=["python3", "/code/main.py"],
            env=dict(SANDBOX_ENV),
            limits=limits or Limits(wall_seconds=30, memory_bytes=2 * 1024**3, max_processes=64),
            name=f"sandbox-test-{tmp_path.name}",
        ),
        output.extend,
    )
    return outcome, output.decode()


def sandbox_processes() -> list[str]:
    """Processes of the sandbox's uid still alive anywhere on the machine."""
    listing = subprocess.run(["ps", "-u", "65534", "-o", "pid=,args="], capture_output=True, text=True).stdout
    return [line for line in listing.splitlines() if line.strip()]


def test_a_well_behaved_run_exits_with_its_output_written_only_under_output(sandbox, tmp_path):
    outcome, log = run_python(sandbox, tmp_path, """
        import os, numpy, mlperf_logging
        print("uid", os.getuid(), "data:", open("/data/dataset.txt").read().strip())
        open("/output/result.txt", "w").write("ok")
    """)
    assert outcome.status == EXITED and outcome.exit_code == 0, log
    assert "uid 65534 data: read-only data" in log
    assert (tmp_path / "output" / "result.txt").read_text() == "ok"


def test_opening_a_network_socket_fails(sandbox, tmp_path):
    outcome, log = run_python(sandbox, tmp_path, """
        import socket
        for host in ("1.1.1.1", "127.0.0.1"):
            try:
                socket.create_connection((host, 5432), timeout=3)
                print("CONNECTED", host)
            except OSError as exc:
                print("refused", host, exc)
        socket.create_connection(("93.184.216.34", 80), timeout=3)
    """)
    assert "CONNECTED" not in log
    assert "Network is unreachable" in log
    assert outcome.status == SANDBOX_VIOLATION
    assert "network" in outcome.detail


def test_writing_outside_the_output_directory_fails(sandbox, tmp_path):
    outcome, log = run_python(sandbox, tmp_path, """
        import os
        for path in ("/code/planted.py", "/data/poisoned.txt", "/usr/lib/evil", "/output/../code/x", "/etc/passwd"):
            try:
                open(path, "w").write("x")
                print("WROTE", path)
            except OSError as exc:
                print("refused", path, exc.strerror)
        open("/code/main.py", "a").write("# PLANTED")
    """)
    assert "WROTE" not in log, log
    assert outcome.status == SANDBOX_VIOLATION
    assert not (tmp_path / "code" / "main.py").read_text().endswith("# PLANTED")
    assert not (tmp_path / "data" / "poisoned.txt").exists()


def test_no_secrets_from_the_workers_environment_or_home(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", f"postgres://admin:{SECRET}@db/prod")
    monkeypatch.setenv("VERIFY_TEST_SECRET", SECRET)
    outcome, log = run_python(sandbox, tmp_path, """
        import os, glob
        print(sorted(os.environ.items()))
        print("root:", sorted(os.listdir("/")))
        for path in ("/root", "/home", "/etc", "/work", "/proc/1/environ"):
            try:
                print(path, os.listdir(path) if os.path.isdir(path) else open(path, "rb").read())
            except OSError as exc:
                print(path, "unreadable", exc.strerror)
    """)
    assert outcome.succeeded, log
    assert SECRET not in log
    assert "DATABASE_URL" not in log
    assert "/root unreadable" in log and "/work unreadable" in log
    assert "root: ['bin', 'code', 'data', 'dev', 'lib', 'lib64', 'opt', 'output', 'proc', 'tmp', 'usr']" in log


def test_a_fork_bomb_is_contained_and_nothing_is_left_running(sandbox, tmp_path):
    started = time.monotonic()
    outcome, log = run_python(sandbox, tmp_path, """
        import os, time
        children = 0
        try:
            while True:
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
                children += 1
        except OSError as exc:
            print("fork refused after", children, "children:", exc.strerror, flush=True)
        time.sleep(600)
    """, limits=Limits(wall_seconds=4, memory_bytes=2 * 1024**3, max_processes=32))
    assert "fork refused after" in log, log
    assert outcome.status == TIMED_OUT
    assert time.monotonic() - started < 30
    assert sandbox_processes() == []


def test_memory_beyond_the_limit_ends_as_out_of_memory(sandbox, tmp_path):
    outcome, log = run_python(sandbox, tmp_path, """
        import numpy
        blocks = [numpy.ones(64 * 1024**2, dtype=numpy.uint8) for _ in range(64)]  # 4 GiB
        print("ALLOCATED", len(blocks))
    """, limits=Limits(wall_seconds=30, memory_bytes=768 * 1024**2, max_processes=64))
    assert "ALLOCATED" not in log
    assert outcome.status == OUT_OF_MEMORY, (outcome, log)
    assert "memory" in outcome.detail


def test_an_endless_loop_is_killed_at_the_deadline_with_everything_it_started(sandbox, tmp_path):
    started = time.monotonic()
    outcome, log = run_python(sandbox, tmp_path, """
        import subprocess, os
        subprocess.Popen(["sh", "-c", "while true; do :; done"], start_new_session=True)
        os.setsid() if os.getpid() != os.getsid(0) else None
        print("looping", flush=True)
        while True:
            pass
    """, limits=Limits(wall_seconds=2, memory_bytes=2 * 1024**3, max_processes=64))
    assert "looping" in log
    assert outcome.status == TIMED_OUT
    assert 2 <= time.monotonic() - started < 20
    assert sandbox_processes() == []


def test_classify_names_each_ending():
    limits = Limits(wall_seconds=5, memory_bytes=1024**3)
    assert classify(0, False, 1.0, "", limits).status == EXITED
    assert classify(None, True, 5.0, "", limits).status == TIMED_OUT
    assert classify(1, False, 1.0, "MemoryError", limits).status == OUT_OF_MEMORY
    assert classify(1, False, 1.0, "OSError: [Errno 101] Network is unreachable", limits).status == SANDBOX_VIOLATION
    failed = classify(3, False, 1.0, "Traceback: ValueError", limits)
    assert (failed.status, failed.exit_code, failed.detail) == (EXITED, 3, "exited with status 3")
