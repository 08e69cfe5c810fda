"""The folder broker of `make run` (verify/broker.py) under a writer and a reader at once: every
message arrives whole. kombu's own filesystem channel let a reader take a message file before its
writer had written it, and the worker stopped on the empty file (JSONDecodeError)."""

from __future__ import annotations

import multiprocessing

from kombu import Connection

from verify.broker import folder_broker_url, transport, transport_options

MESSAGES = 400


def connection(url: str) -> Connection:
    return Connection(url, transport=transport(url), transport_options=transport_options(url, 3600))


def write(url: str) -> None:
    with connection(url) as conn:
        queue = conn.SimpleQueue("ingest")
        for number in range(MESSAGES):
            queue.put({"number": number, "padding": "x" * 20_000})  # a write long enough to be caught halfway
        queue.close()


def test_a_reader_beside_a_writer_gets_every_message_whole(tmp_path):
    url = folder_broker_url(tmp_path / "broker")
    writer = multiprocessing.get_context("fork").Process(target=write, args=(url,))
    writer.start()
    received = []
    with connection(url) as conn:
        queue = conn.SimpleQueue("ingest")
        while len(received) < MESSAGES:
            message = queue.get(timeout=30)
            received.append(message.payload["number"])
            message.ack()
        queue.close()
    writer.join(10)
    assert sorted(received) == list(range(MESSAGES))
    assert not list((tmp_path / "broker" / "messages").iterdir())  # nothing half-written left behind
