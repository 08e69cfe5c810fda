"""Real processes for tests: a throwaway Redis and a Celery worker subprocess on the test database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.conf import settings

from ingest.tests.upload_fixtures import free_port

REPO = Path(__file__).resolve().parents[2]
STALE_AFTER = 3
# Runs the real `celery` command line with this interpreter.
WORKER_MAIN = "import sys; from celery.__main__ import main; sys.argv[0] = 'celery'; sys.exit(main())"


def wait_for(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class RedisServer:
    def __init__(self, tmp: Path):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = tmp / f"redis-{self.port}.log"
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for(self.ping, 10, "redis to start")

    def ping(self) -> bool:
        done = subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True)
        return done.stdout.strip() == "PONG"

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


class CeleryProcess:
    """A Celery process started as its own process group, its output in `log`."""

    log: Path
    process: subprocess.Popen | None = None

    def _died(self) -> bool:
        return self.process.poll() is not None

    def kill9(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is None or self._died():
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""


class Worker(CeleryProcess):
    """`celery -A config worker -Q ingest` (optionally with embedded beat) as a process group."""

    def __init__(self, tmp: Path, broker_url: str, database_url: str, beat: bool = False, queues: str = "ingest"):
        self.tmp = tmp
        self.queues = queues
        self.log = tmp / f"worker-{uuid.uuid4().hex[:6]}.log"
        self.beat = beat
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": broker_url,
            "REDIS_URL": "",
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "INGEST_HEARTBEAT_SECONDS": "0.5",
            "INGEST_STALE_AFTER_SECONDS": str(STALE_AFTER),
            "INGEST_SWEEP_SECONDS": "1",
            "REVIEW_PUBLISH_CHECK_SECONDS": "1",
            "PYTHONPATH": str(REPO),
        }

    def start(self) -> None:
        args = [
            sys.executable,
            "-c",
            WORKER_MAIN,
            "-A",
            "config",
            "worker",
            "-Q",
            self.queues,
            "-P",
            "prefork",
            "-c",
            "2",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"ingest-test-{uuid.uuid4().hex[:6]}@%h",
            "--loglevel",
            "INFO",
        ]
        if self.beat:
            args += ["-B", "-s", str(self.tmp / f"beat-{uuid.uuid4().hex[:6]}")]
        offset = self.log.stat().st_size if self.log.exists() else 0
        self.process = subprocess.Popen(
            args,
            cwd=REPO,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(
            lambda: " ready." in self.log.read_text()[offset:] or self._died(), 40, "the worker to start"
        )
        assert not self._died(), self.text()



def database_url_of_test_db() -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
