"""The folder broker's kombu transport (verify/broker.py names it by path, so that kombu, which
imports part of Django where Django is installed, is loaded only by the processes that use it)."""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class AtomicFolderChannel(filesystem.Channel):
    """kombu's filesystem channel (5.7) creates a message file under its final name and writes it
    after: a reader listing the folder in between moves and reads an empty file, and the worker
    stops on the JSONDecodeError (it happened under `make run`). Here a message is written under a
    name no reader takes (`.part`), then renamed into place: readers only ever see whole messages."""

    def _put(self, queue, payload, **kwargs):
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"  # kombu's naming and order
        final = os.path.join(self.data_folder_out, name)
        with open(final + ".part", "wb") as partial:
            partial.write(str_to_bytes(dumps(payload)))
        os.rename(final + ".part", final)


class AtomicFolderTransport(filesystem.Transport):
    Channel = AtomicFolderChannel
