"""The tests' broker switch (upload_fixtures.celery_broker) leaves this process able to send to the
broker it switched back to: a module that ran after a worker test once had every task refused
("Acquire on closed pool") and its page warms never sent."""

from __future__ import annotations

from config.celery import app
from ingest.tests.upload_fixtures import celery_broker, free_port


def test_the_broker_switched_back_to_gives_connections_again():
    app.pool.acquire().release()  # this broker's pool in use, as after any send
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):
        app.pool.acquire().release()
    app.pool.acquire().release()
    with app.producer_or_acquire() as producer:
        assert producer.connection.as_uri() == app.connection_for_write().as_uri()
