"""A job's worker token, derived so that the task message carries nothing usable (issue 36).

The web side sends `verify.run_job(job_id, nonce)`; the token that opens the job on the internal
API is HMAC-SHA256(VERIFY_WORKER_KEY, "verify-job:<job_id>:<nonce>"). Only the web app and the GPU
workers hold the key: whoever else reads the `gpu` queue (every holder of the `worker` Redis user:
ingest workers, beat) sees the job id and the nonce and cannot act as the job's worker. The server
stores only the token's SHA-256.

The key: VERIFY_WORKER_KEY_FILE (a file holding it) or VERIFY_WORKER_KEY. Where neither is set, a
machine-local key under the local state folder (LOCAL_STATE_DIR, default var/): `make run` and
`make services` start the web app and the verification worker from one checkout, so both find the
same file. The web app uses that fallback only in development (verify.services.worker_key).
No Django here: the GPU worker imports this.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from .broker import local_state_dir

LOCAL_KEY_FILE = "verify-worker.key"
MIN_KEY_LENGTH = 32


class MissingWorkerKey(Exception):
    """No usable VERIFY_WORKER_KEY: no job token can be derived."""


def configured_key(environ=os.environ) -> str:
    """VERIFY_WORKER_KEY_FILE's contents, else VERIFY_WORKER_KEY, else ""."""
    path = environ.get("VERIFY_WORKER_KEY_FILE")
    if path:
        return Path(path).read_text().strip()
    return environ.get("VERIFY_WORKER_KEY", "").strip()


def local_key(environ=os.environ) -> str:
    """The machine-local key (made on first use, readable by its owner only)."""
    path = local_state_dir(environ) / LOCAL_KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first
            pass
        else:
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_urlsafe(48))
    return path.read_text().strip()


def worker_key(environ=os.environ) -> str:
    """The GPU worker's key: the configured one, else the machine-local one."""
    key = configured_key(environ) or local_key(environ)
    check_key(key)
    return key


def check_key(key: str) -> None:
    if len(key) < MIN_KEY_LENGTH:
        raise MissingWorkerKey(
            f"VERIFY_WORKER_KEY must be at least {MIN_KEY_LENGTH} characters (make one with "
            "`python -c 'import secrets; print(secrets.token_urlsafe(48))'`), the same on the web app and the GPU workers"
        )


def new_nonce() -> str:
    return secrets.token_urlsafe(16)


def job_token(key: str, job_id: int, nonce: str) -> str:
    """The bearer token of job `job_id` for the message carrying `nonce`."""
    return hmac.new(key.encode(), f"verify-job:{job_id}:{nonce}".encode(), hashlib.sha256).hexdigest()
