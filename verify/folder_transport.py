"""The folder broker's kombu transport (verify/broker.py names it by path, so that kombu, which
imports part of Django where Django is installed, is loaded only by the processes that use it)."""

from __future__ import annotations

import fcntl
import os
import uuid
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps, loads


class AtomicFolderChannel(filesystem.Channel):
    """kombu's filesystem channel (5.7) creates its files under their final names and writes them
    after, so a reader in between reads an empty file and stops on the JSONDecodeError:
    - a message file: a reader listing the folder took it before its writer wrote it (it happened
      under `make run`);
    - an exchange table (control/<exchange>.exchange): a process declaring its queues read the table
      another had just created and not yet filled (it happened when the suite's machine was loaded).
    Here both are written under a name no reader opens, then renamed into place: readers only ever
    see whole files. The tables' read-modify-write is serialized by a lock file of their own."""

    def _put(self, queue, payload, **kwargs):
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"  # kombu's naming and order
        write_whole(os.path.join(self.data_folder_out, name), str_to_bytes(dumps(payload)))

    def get_table(self, exchange):
        try:
            table = loads(self._exchange_file(exchange).read_bytes())
        except FileNotFoundError:
            return []
        return [filesystem.exchange_queue_t(*row) for row in table]

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        row = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._change_table(exchange, lambda table: table if row in table else [row, *table])

    def _delete(self, queue, exchange, routing_key, pattern, *args, **kwargs):
        # The virtual channel's own deletion, not kombu's filesystem one: that rewrites the table in place.
        super(filesystem.Channel, self)._delete(queue, exchange, routing_key, pattern, *args, **kwargs)
        row = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._change_table(exchange, lambda table: [kept for kept in table if kept != row])

    def _change_table(self, exchange, change) -> None:
        file = self._exchange_file(exchange)
        self.control_folder.mkdir(exist_ok=True)
        with open(self.control_folder / ".tables.lock", "ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
            table = self.get_table(exchange)
            changed = change(table)
            if changed != table:
                write_whole(str(file), str_to_bytes(dumps(changed)))


def write_whole(path: str, content: bytes) -> None:
    """`content` at `path`, appearing there whole: written beside it first (`.part`, a name readers skip)."""
    with open(path + ".part", "wb") as partial:
        partial.write(content)
    os.rename(path + ".part", path)


class AtomicFolderTransport(filesystem.Transport):
    Channel = AtomicFolderChannel
