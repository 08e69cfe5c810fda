"""A task message queued when Redis restarts survives the restart (issue 14): scripts/services.sh
(like docker-compose.yml) runs Redis with appendonly. Before, the message was lost and its job
waited for the sweep's 600 s resend."""

from __future__ import annotations

import os
import subprocess

import pytest

from ingest.tests.processes import wait_for
from ingest.tests.upload_fixtures import celery_broker, free_port

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def redis_cli(port: int, *args: str) -> str:
    return subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True).stdout.strip()


@pytest.mark.slow
def test_a_queued_task_message_survives_a_redis_restart(tmp_path):
    from ingest.tasks import process_upload_task

    if not os.environ.get("PG_PORT"):
        pytest.skip("needs the PG_PORT of a running scripts/services.sh PostgreSQL (make test sets it)")
    port = free_port()
    env = {
        **os.environ,
        "SERVICES_DIR": str(tmp_path / "services"),
        "REDIS_PORT": str(port),
        "PG_PORT": os.environ["PG_PORT"],  # already running: services.sh leaves it alone
        "WITH_BROWSER": "0",
    }
    start = [os.path.join(REPO, "scripts", "services.sh"), "start"]
    subprocess.run(start, env=env, check=True, capture_output=True)
    try:
        with celery_broker(f"redis://127.0.0.1:{port}/0"):
            process_upload_task.apply_async(args=[424242])
        assert redis_cli(port, "llen", "ingest") == "1"
        redis_cli(port, "shutdown")  # a clean restart, as an upgrade or a container restart does
        wait_for(lambda: redis_cli(port, "ping") != "PONG", 10, "redis to stop")
        subprocess.run(start, env=env, check=True, capture_output=True)
        assert redis_cli(port, "llen", "ingest") == "1"
    finally:
        redis_cli(port, "shutdown", "nosave")
