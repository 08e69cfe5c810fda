"""Fixtures shared by the upload, job and worker tests (imported by those modules)."""

from __future__ import annotations

import os
import socket
from contextlib import contextmanager

import kombu.pools
import pytest
from rest_framework.test import APIClient

from verify.broker import is_folder_broker, transport, transport_options


@pytest.fixture
def open_round(db, personas):
    from results.models import Round
    from results.services.rounds import ensure_round

    # The tests upload real sample folders (Fujitsu's) as Alpha: Alpha records that spelling, so
    # the packages speak for their uploader and are not held for a chair (ingest.services).
    personas["alpha"].aliases = ["Fujitsu"]
    personas["alpha"].save()
    round_ = ensure_round("training-v1.0")
    Round.objects.filter(pk=round_.pk).update(state="open", submission_deadline=None)
    round_.refresh_from_db()
    return round_


@pytest.fixture
def unthrottled(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"uploads": "100000/hour"},
    }


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def post_upload(client: APIClient, path, round_slug: str = "training-v1.0", **extra):
    with open(path, "rb") as handle:
        return client.post(
            "/api/v1/submissions/", {"round": round_slug, "file": handle, **extra}, format="multipart"
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def celery_broker(url: str):
    """Point this process's Celery app at `url` (and back afterwards): tests never send to the
    shared broker, where somebody else's worker could pick their jobs up."""
    from config.celery import app

    def reset_pools():
        # app.pool is kombu's registry entry for the broker (kombu.pools.connections): closed but
        # left there, the next send to that broker would get it back ("Acquire on closed pool").
        # reset() closes every registered pool and empties the registries.
        kombu.pools.reset()
        app._pool = None
        app.amqp._producer_pool = None

    # Celery prefers the CELERY_BROKER_URL environment variable to its configuration: set both.
    previous_env = os.environ.get("CELERY_BROKER_URL")
    previous = app.conf.broker_url, app.conf.broker_transport, app.conf.broker_transport_options
    reset_pools()
    os.environ["CELERY_BROKER_URL"] = url
    app.conf.broker_url = url
    app.conf.broker_transport = transport(url)
    app.conf.broker_transport_options = transport_options(url, visibility_timeout=3600)
    if not is_folder_broker(url):
        assert app.connection_for_write().port == int(url.rsplit(":", 1)[1].split("/")[0])
    try:
        yield
    finally:
        reset_pools()
        app.conf.broker_url, app.conf.broker_transport, app.conf.broker_transport_options = previous
        if previous_env is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = previous_env


@pytest.fixture
def dead_broker():
    """A broker URL nothing listens on: every upload stays pending."""
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):
        yield


@pytest.fixture
def worker(tmp_path):
    """A real Celery ingestion worker: a subprocess on the test database, with its own Redis."""
    from ingest.tests.processes import RedisServer, Worker, database_url_of_test_db

    redis = RedisServer(tmp_path)
    redis.start()
    with celery_broker(redis.url):
        process = Worker(tmp_path, redis.url, database_url_of_test_db())
        process.start()
        yield process
        process.stop()
    redis.stop()
