"""A task message queued when Redis restarts survives the restart (issue 14): scripts/services.sh
(like docker-compose.yml) runs Redis with appendonly. Before, the message was lost and its job
waited for the sweep's 600 s resend."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
import redis

from ingest.tests.processes import wait_for
from ingest.tests.upload_fixtures import celery_broker, free_port

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def services(command: str, env: dict) -> str:
    return subprocess.run([os.path.join(REPO, "scripts", "services.sh"), command], env=env, check=True,
                          capture_output=True, text=True).stdout


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
    services("start", env)
    broker_url = dict(line.split("=", 1) for line in services("env", env).split())["CELERY_BROKER_URL"]
    broker = redis.Redis.from_url(broker_url)
    try:
        with celery_broker(broker_url):
            process_upload_task.apply_async(args=[424242])
        assert broker.llen("ingest") == 1
        # A clean restart, as an upgrade or a container restart does (SIGTERM: no ACL user may SHUTDOWN).
        os.kill(int((tmp_path / "services" / "redis.pid").read_text()), signal.SIGTERM)
        wait_for(lambda: not alive(broker), 10, "redis to stop")
        services("start", env)
        assert broker.llen("ingest") == 1
    finally:
        services("stop", env)  # this Redis only: PostgreSQL's data directory is not in this SERVICES_DIR


def alive(client) -> bool:
    try:
        return client.ping()
    except redis.exceptions.ConnectionError:
        return False
