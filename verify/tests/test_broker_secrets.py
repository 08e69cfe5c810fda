"""Issue 36 item 1: every holder of the broker's `worker` Redis user (ingest workers, beat, any GPU
worker) can read the `gpu` queue. Before, the job's token travelled in the task message (its
arguments, `argsrepr`): a reader could open the job and report any outcome. Now the message holds
the job id and a nonce; the token is derived from the nonce with VERIFY_WORKER_KEY, which Redis
never sees. The Redis here has the ACL users of scripts/services.sh (its own redis_acl function)."""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import subprocess

import pytest

from ingest.tests.processes import REPO, wait_for
from ingest.tests.upload_fixtures import celery_broker, free_port
from verify import services, tokens
from verify.constants import JobState
from verify.task_names import GPU_QUEUE
from verify.tests.test_internal_api import call
from verify.tests.world import verifiable_result

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed"),
]


@pytest.fixture
def acl_redis(tmp_path):
    """A Redis with no anonymous access and the `web` and `worker` users of scripts/services.sh."""
    redis = pytest.importorskip("redis")
    for user in ("web", "worker"):
        (tmp_path / f"redis-{user}.password").write_text(secrets.token_hex(16))
    acl = subprocess.run(
        ["bash", "-c", f'source <(sed "/^case /,\\$d" {REPO}/scripts/services.sh) && redis_acl'],
        env={"PATH": os.environ["PATH"], "SERVICES_DIR": str(tmp_path)}, capture_output=True, text=True, check=True,
    ).stdout
    (tmp_path / "users.acl").write_text(acl)
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--aclfile", str(tmp_path / "users.acl")],
        stdout=(tmp_path / "redis.log").open("ab"), stderr=subprocess.STDOUT,
    )
    urls = {user: f"redis://{user}:{(tmp_path / f'redis-{user}.password').read_text()}@127.0.0.1:{port}/0"
            for user in ("web", "worker")}

    def answers() -> bool:
        try:
            return redis.Redis.from_url(urls["web"]).ping()
        except redis.exceptions.ConnectionError:
            return False

    wait_for(answers, 10, "redis to start")
    yield urls
    server.terminate()
    server.wait(10)


def strings_in(value) -> set[str]:
    """Every text anywhere in a decoded message, and every word of it."""
    if isinstance(value, str):
        return {value, *value.replace(",", " ").replace("'", " ").replace("[", " ").replace("]", " ").split()}
    if isinstance(value, dict):
        return set().union(*(strings_in(item) for item in value.values()), *(strings_in(key) for key in value))
    if isinstance(value, list | tuple):
        return set().union(*(strings_in(item) for item in value)) if value else set()
    return {str(value)} if value is not None else set()


def test_a_holder_of_the_worker_redis_user_cannot_act_as_the_jobs_worker(
    acl_redis, personas, tmp_path, django_capture_on_commit_callbacks
):
    import redis

    result = verifiable_result(personas, tmp_path)
    # Sent through the `web` user, as the web app does; no GPU worker consumes the queue (paused).
    with celery_broker(acl_redis["web"]), django_capture_on_commit_callbacks(execute=True):
        job = services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    thief = redis.Redis.from_url(acl_redis["worker"])
    (raw,) = thief.lrange(GPU_QUEUE, 0, -1)
    message = json.loads(raw)
    body = json.loads(base64.b64decode(message["body"]))
    job_id, nonce = body[0]
    assert job_id == job.pk
    readable = strings_in(message) | strings_in(body)
    assert nonce in readable
    # Whatever the thief read, as a bearer token: nothing opens the job, nothing finishes it.
    for candidate in sorted(readable):
        assert call("POST", job.pk, "outcome", candidate, {"outcome": "reproduced"}).status_code == 403, candidate
        assert call("GET", job.pk, "spec", candidate).status_code == 403, candidate
    job.refresh_from_db()
    assert job.state == JobState.QUEUED and job.outcome == ""
    # Only the holder of VERIFY_WORKER_KEY (the GPU workers, the web app) gets the token from the nonce.
    assert call("GET", job.pk, "spec", tokens.job_token(services.worker_key(), job.pk, nonce)).status_code == 200
    assert call("GET", job.pk, "spec", tokens.job_token("another key " * 4, job.pk, nonce)).status_code == 403
