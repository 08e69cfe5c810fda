"""A real GPU worker for tests: `celery -A verify.gpu_worker worker -Q gpu -c 1` as its own process
group, WITHOUT Django settings, a SECRET_KEY or database credentials (it may only speak HTTP to the
internal API), with the web app's worker key (it derives each job's token), on a throwaway Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ingest.tests.processes import REPO, WORKER_MAIN, CeleryProcess, RedisServer, wait_for
from ingest.tests.upload_fixtures import celery_broker


def ahead_of_the_other_tests() -> None:
    """The verification worker and the runs it starts at a higher CPU priority than the rest of the
    suite, where the system allows it (root). `make test`'s parallel workers keep both cores busy,
    and an honest re-run starved of the CPU looks like one that did no work (verify/reproduce.py
    check_work: 0.01 CPU seconds in a 0.8 s span)."""
    with suppress(PermissionError):
        os.nice(-10)


class GpuWorker(CeleryProcess):
    def __init__(self, tmp: Path, broker_url: str, api_url: str, data_dir: Path, work_dir: Path | None = None):
        from verify.services import worker_key

        self.log = tmp / f"gpu-worker-{uuid.uuid4().hex[:6]}.log"
        self.data_dir = data_dir  # bound read-only into every run: how a test finds its runs' processes
        self.work_dir = work_dir or tmp / "work"  # the jobs' folders
        self.work_dir.mkdir(exist_ok=True)
        secrets_free = {
            k: v for k, v in os.environ.items()
            if not k.startswith(("DATABASE", "PG", "REDIS_URL", "DJANGO", "SECRET_KEY"))
        }
        self.env = {
            **secrets_free,
            "CELERY_BROKER_URL": broker_url,
            "VERIFY_API_URL": api_url,
            "VERIFY_DATA_DIR": str(data_dir),
            "VERIFY_SANDBOX": "bubblewrap",
            "VERIFY_SHIP_SECONDS": "0.3",
            "VERIFY_WORKER_KEY": worker_key(),
            "VERIFY_WORK_DIR": str(self.work_dir),
            "PYTHONPATH": str(REPO),
        }

    def start(self) -> None:
        offset = self.log.stat().st_size if self.log.exists() else 0
        args = [sys.executable, "-c", WORKER_MAIN, "-A", "verify.gpu_worker", "worker", "-Q", "gpu", "-P", "prefork",
                "-c", "1", "--prefetch-multiplier", "1", "--without-gossip", "--without-mingle",
                "--without-heartbeat", "-n", f"gpu-test-{uuid.uuid4().hex[:6]}@%h", "--loglevel", "INFO"]
        self.process = subprocess.Popen(args, cwd=REPO, env=self.env, stdout=self.log.open("ab"),
                                        stderr=subprocess.STDOUT, start_new_session=True,
                                        preexec_fn=ahead_of_the_other_tests)
        wait_for(lambda: " ready." in self.text()[offset:] or self.process.poll() is not None, 40, "the gpu worker to start")
        assert self.process.poll() is None, self.text()


@contextmanager
def running_gpu_worker(tmp: Path, api_url: str) -> Iterator[GpuWorker]:
    """A GpuWorker on its own Redis, reporting to `api_url`, its data folder under `tmp`."""
    data = tmp / "data"
    data.mkdir()
    data.chmod(0o755)
    redis = RedisServer(tmp)
    redis.start()
    try:
        with celery_broker(redis.url):
            worker = GpuWorker(tmp, redis.url, api_url, data)
            worker.start()
            try:
                yield worker
            finally:  # a failed test too: no worker, no sandbox left running
                worker.stop()
    finally:
        redis.stop()
