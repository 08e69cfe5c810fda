"""How both Celery apps (the web project's, config/celery.py, and the GPU worker's, gpu_worker.py)
reach their broker: the one place that reads a broker URL into kombu's transport options.

Two kinds of broker: Redis (production, `make services`, the tests) and, with no CELERY_BROKER_URL,
a folder of message files (`filesystem:///<folder>`, kombu's filesystem transport): the embedded
default of `make run`, a real broker that needs no server, shared by the web server, the worker and
beat that `make run` starts, and readable by the GPU worker that it starts beside them.
No Django here: the GPU worker imports this.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

FOLDER_SCHEME = "filesystem"
REPOSITORY = Path(__file__).resolve().parent.parent


def local_state_dir(environ=os.environ) -> Path:
    """Where the embedded default keeps its state beside the SQLite file (LOCAL_STATE_DIR, default var/)."""
    return Path(environ.get("LOCAL_STATE_DIR") or REPOSITORY / "var").resolve()


def broker_url(environ=os.environ) -> str:
    """CELERY_BROKER_URL, or else the embedded default: the folder broker under the local state folder."""
    return environ.get("CELERY_BROKER_URL") or folder_broker_url(local_state_dir(environ) / "broker")


def folder_broker_url(folder: Path) -> str:
    return f"{FOLDER_SCHEME}://localhost{Path(folder).resolve()}"  # a host, or kombu warns that none was given


def is_folder_broker(broker_url: str) -> bool:
    return urlsplit(broker_url).scheme == FOLDER_SCHEME


def transport_options(broker_url: str, visibility_timeout: int) -> dict:
    """kombu's transport options for `broker_url`. A folder broker keeps its messages under
    <folder>/messages (written and read by every process alike) and its exchange tables under
    <folder>/control; both are made here, since kombu refuses a missing folder."""
    options: dict = {"visibility_timeout": visibility_timeout}
    if not is_folder_broker(broker_url):
        return options
    folder = Path(urlsplit(broker_url).path)
    if not folder.is_absolute():
        raise ValueError(f"a folder broker needs an absolute path (filesystem:///path), not {broker_url!r}")
    messages, control = folder / "messages", folder / "control"
    for path in (messages, control):
        path.mkdir(parents=True, exist_ok=True)
    options.update(data_folder_in=str(messages), data_folder_out=str(messages), control_folder=str(control))
    return options


def transport(broker_url: str) -> str | None:
    """The kombu transport for `broker_url` (Celery's broker_transport): the folder broker's own class
    (verify/folder_transport.py, imported by kombu only when used); None lets the URL's scheme choose."""
    return "verify.folder_transport:AtomicFolderTransport" if is_folder_broker(broker_url) else None
