"""The servers the journeys run against, started as their users start them.

EmbeddedServer is the README's `make run` in a fresh copy of this working tree (what a clone of it
holds: tracked files and new files git does not ignore; no database, no var/, no media): SQLite, the
folder broker, and the worker, beat and verification worker that scripts/run.sh starts beside the
web server. Only the port, and the virtual environment (this checkout's, so that nothing is
installed twice), are the test's.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# What a test's environment holds that a newcomer's shell does not: the test servers' URLs.
NOT_A_NEWCOMERS = ("DATABASE_URL", "APP_DATABASE_URL", "CELERY_BROKER_URL", "WORKER_BROKER_URL", "REDIS_URL",
                   "TEST_DB_SUFFIX", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE", "LOCAL_STATE_DIR",
                   "MEDIA_ROOT", "PORT", "HOST")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def copy_working_tree(destination: Path) -> Path:
    """The files a clone of this working tree would hold, with their times (so make sees nothing newer
    than this checkout's virtual environment)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


class EmbeddedServer:
    def __init__(self, tmp: Path, settings: dict[str, str] | None = None):
        self.tree = copy_working_tree(tmp / "clone")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / "make-run.log"
        self.env = {name: value for name, value in os.environ.items() if name not in NOT_A_NEWCOMERS}
        self.env.update(settings or {})
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 300) -> None:
        self.process = subprocess.Popen(
            ["make", "run", f"PORT={self.port}", f"VENV={REPO / '.venv'}"], cwd=self.tree, env=self.env,
            stdout=self.log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"make run exited with {self.process.returncode}:\n{self.output()[-4000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            time.sleep(1)
        raise AssertionError(f"make run did not serve {self.url} within {timeout} s:\n{self.output()[-4000:]}")

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def manage(self, *args: str) -> str:
        """`manage.py` in the clone, as its developer would type it (make's environment)."""
        done = subprocess.run([str(REPO / ".venv" / "bin" / "python"), "manage.py", *args], cwd=self.tree,
                              env={**self.env, "DJANGO_ENV": "development"}, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def processes(self) -> list[str]:
        """The processes make run started (its process group) still running now, as "pid command"."""
        if self.process is None:
            return []
        found = subprocess.run(["pgrep", "-a", "-g", str(self.process.pid)], capture_output=True, text=True).stdout
        return [line for line in found.splitlines() if line.strip() and not line.endswith("<defunct>")]

    def stop(self) -> None:
        """Ctrl-C, as its developer would; everything make run started must end."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGINT)
        deadline = time.monotonic() + 30
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.5)
        left = self.processes()
        if left:
            os.killpg(self.process.pid, signal.SIGKILL)
            raise AssertionError(f"Ctrl-C left processes of make run behind: {left}")
        self.process.wait(10)
