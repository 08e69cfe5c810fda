"""The folder broker of `make run` (verify/broker.py) under a writer and a reader at once: every
message arrives whole. kombu's own filesystem channel let a reader take a message file before its
writer had written it, and the worker stopped on the empty file (JSONDecodeError)."""

from __future__ import annotations

import multiprocessing

from kombu import Connection, Exchange, Queue

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


PROCESSES, EXCHANGES = 8, 30


def bind_queues(url: str, number: int, start_together, errors) -> None:
    try:
        with connection(url) as conn:
            for exchange in range(EXCHANGES):
                start_together.wait(30)  # the race is at a table's creation: every process at once
                Queue(f"queue-{number}", Exchange(f"exchange-{exchange}"), routing_key=f"queue-{number}")(
                    conn.default_channel).declare()
    except Exception as error:  # reported to the test, which fails with it
        errors.put(repr(error))


def test_processes_declaring_queues_at_once_each_read_the_exchange_table_whole_and_keep_every_binding(tmp_path):
    """The web server, the worker and beat declare their queues on one exchange as they start: kombu's
    own channel let one read the table file another had just created, still empty (JSONDecodeError),
    or write over another's binding."""
    url = folder_broker_url(tmp_path / "broker")
    context = multiprocessing.get_context("fork")
    start_together, errors = context.Barrier(PROCESSES), context.Queue()
    declaring = [context.Process(target=bind_queues, args=(url, number, start_together, errors))
                 for number in range(PROCESSES)]
    for process in declaring:
        process.start()
    for process in declaring:
        process.join(60)
    assert errors.empty(), errors.get()
    with connection(url) as conn:
        for exchange in range(EXCHANGES):
            bound = {row.queue for row in conn.default_channel.get_table(f"exchange-{exchange}")}
            assert bound == {f"queue-{number}" for number in range(PROCESSES)}, exchange
