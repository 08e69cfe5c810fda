"""The servers the journeys run against, started as their users start them.

EmbeddedServer is the README's `make run` in a fresh copy of this working tree (what a clone of it
holds: tracked files and new files git does not ignore; no database, no var/, no media): SQLite, the
folder broker, and the worker, beat and verification worker that scripts/run.sh starts beside the
web server. Only the port, and the virtual environment (this checkout's, so that nothing is
installed twice), are the test's.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

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
            preexec_fn=as_from_a_terminal,
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
        """The processes make run started still running now, as "pid command"."""
        return [] if self.process is None else processes_of_session(self.process.pid)

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
            kill_session(self.process.pid)
            raise AssertionError(f"Ctrl-C left processes of make run behind: {left}")
        self.process.wait(10)


def processes_of_session(session: int) -> list[str]:
    """The live processes of the session `session`, as "pid command": all that a command started with
    start_new_session started, in whatever process group (make run's Celery processes have their own)."""
    found = subprocess.run(["pgrep", "-a", "-s", str(session)], capture_output=True, text=True).stdout
    return [line for line in found.splitlines() if line.strip() and not line.endswith("<defunct>")]


def kill_session(session: int) -> None:
    for line in processes_of_session(session):
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line.split()[0]), signal.SIGKILL)


def as_from_a_terminal() -> None:
    """Ctrl-C and Ctrl-\\ as a terminal delivers them. A suite started in the background by a
    non-interactive shell (`cmd &`) inherits SIGINT and SIGQUIT ignored, and so would make run: its
    shell script cannot trap an ignored signal, nor Python turn it into KeyboardInterrupt, and the
    test's Ctrl-C would stop only the Celery processes (they install their own handlers)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def with_database(url: str, name: str) -> str:
    """`url` (postgres://user@host:port/db) naming the database `name` instead."""
    return url.rsplit("/", 1)[0] + "/" + name


def with_redis_db(url: str, number: int) -> str:
    return url.rsplit("/", 1)[0] + f"/{number}"


class ProductionServer:
    """The processes of docker-compose.yml without Docker, as `make services` runs them: gunicorn (DEBUG
    off, static files collected) on PostgreSQL as the application role, Redis with its ACL users (`web`
    for the web app, `worker` for the workers), a Celery worker and celery beat as the application
    role, and a verification worker with no database settings. The servers are the suite's own
    (scripts/test.sh), with a database and Redis databases of this server's alone."""

    PROCESSES = ("web", "worker", "beat", "gpu-worker")

    def __init__(self, tmp: Path, settings: dict[str, str] | None = None):
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = f"journey_{os.getpid()}_{self.port}"
        owner, app = os.environ["DATABASE_URL"], os.environ["APP_DATABASE_URL"]
        self.owner_env = self._env(DATABASE_URL=with_database(owner, self.database))
        self.app_env = self._env(
            DATABASE_URL=with_database(app, self.database),
            CELERY_BROKER_URL=with_redis_db(os.environ["CELERY_BROKER_URL"], 5),
            REDIS_URL=with_redis_db(os.environ["REDIS_URL"], 6),
            **(settings or {}),
        )
        self.worker_env = {**self.app_env, "CELERY_BROKER_URL": with_redis_db(os.environ["WORKER_BROKER_URL"], 5)}
        self.processes: dict[str, subprocess.Popen] = {}

    def _env(self, **values: str) -> dict[str, str]:
        base = {name: value for name, value in os.environ.items() if name not in NOT_A_NEWCOMERS}
        return {**base, "DJANGO_ENV": "development", "DEBUG": "false", "MEDIA_ROOT": str(self.tmp / "media"),
                "LOCAL_STATE_DIR": str(self.tmp / "var"), **values}

    def manage(self, *args: str) -> str:
        """`manage.py` as the operator runs it: as the owner of the tables."""
        done = subprocess.run([str(REPO / ".venv" / "bin" / "python"), "manage.py", *args], cwd=REPO,
                              env=self.owner_env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def start(self, imports: tuple[tuple[str, ...], ...] = ()) -> None:
        """Migrate, `import_results` each of `imports` (its arguments), collect the static files, start."""
        subprocess.run(["psql", os.environ["DATABASE_URL"], "-qc", f'CREATE DATABASE "{self.database}"'], check=True)
        self.manage("migrate", "--noinput", "-v0")
        self.manage("grant_app_role", urlsplit(os.environ["APP_DATABASE_URL"]).username)
        for arguments in imports:
            self.manage("import_results", *arguments)
        self.manage("collectstatic", "--noinput", "-v0")
        celery = str(REPO / ".venv" / "bin" / "celery")
        self._spawn("web", [str(REPO / ".venv" / "bin" / "gunicorn"), "config.wsgi:application",
                            "--bind", f"127.0.0.1:{self.port}", "--workers", "2", "--threads", "4"], self.app_env)
        self._spawn("worker", [celery, "-A", "config", "worker", "-Q", "default,ingest", "--concurrency", "2",
                               "-n", f"journey-{self.port}@%h", "--loglevel", "INFO"], self.worker_env)
        self._spawn("beat", [celery, "-A", "config", "beat", "--schedule", str(self.tmp / "beat-schedule"),
                             "--loglevel", "INFO"], self.worker_env)
        gpu_env = {name: value for name, value in self.worker_env.items()
                   if not name.startswith(("DATABASE", "REDIS_URL", "DJANGO", "SECRET_KEY"))}
        (self.tmp / "verify-data").mkdir(mode=0o755, exist_ok=True)
        self._spawn("gpu-worker", [celery, "-A", "verify.gpu_worker", "worker", "-Q", "gpu", "--concurrency", "1",
                                   "-n", f"journey-gpu-{self.port}@%h", "--loglevel", "INFO"],
                    {**gpu_env, "VERIFY_API_URL": self.url, "VERIFY_SANDBOX": "bubblewrap",
                     "VERIFY_DATA_DIR": str(self.tmp / "verify-data")})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise AssertionError(f"{name} exited with {process.returncode}:\n{self.log(name)[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"gunicorn did not answer within 60 s:\n{self.log('web')[-3000:]}")

    def _spawn(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        self.processes[name] = subprocess.Popen(argv, cwd=REPO, env=env, stdout=(self.tmp / f"{name}.log").open("wb"),
                                                stderr=subprocess.STDOUT, start_new_session=True)

    def log(self, name: str) -> str:
        path = self.tmp / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
        subprocess.run(["psql", os.environ["DATABASE_URL"], "-qc", f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)'],
                       check=False)
