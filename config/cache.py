"""The Redis cache: Django's, with signed JSON values (never pickle) and one client per connection pool;
and the key function of the page cache, which keys what it keeps on the code that kept it.

Django's RedisCache unpickles what it reads by default, and anyone who can write to Redis (any
holder of a broker password, the GPU worker included) could then run code in the web app. Values
here are JSON (bytes as base64), and each carries an HMAC of the web app's SECRET_KEY: a value the
web app did not write, or one changed since, is ignored (a cache miss, logged), so Redis access
gives neither code execution nor a forged page. Integers stay bare, as Django keeps them, for
atomic incr()/decr().
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import logging

from django.conf import settings
from django.core.cache.backends import redis

log = logging.getLogger(__name__)

BYTES = "__bytes__"


def _encode(value):
    if isinstance(value, bytes | bytearray):
        return {BYTES: base64.b64encode(value).decode("ascii")}
    raise TypeError(f"the cache stores JSON values and bytes, not {type(value).__name__}")


def _decode(obj: dict):
    return base64.b64decode(obj[BYTES]) if obj.keys() == {BYTES} else obj


class SignedJsonSerializer:
    def __init__(self) -> None:
        self.key = hashlib.sha256(b"mlperf-dashboard cache values:" + settings.SECRET_KEY.encode()).digest()

    def _signature(self, payload: bytes) -> bytes:
        return hmac.new(self.key, payload, hashlib.sha256).hexdigest().encode("ascii")

    def dumps(self, value):
        if type(value) is int:
            return value
        payload = json.dumps(value, default=_encode, separators=(",", ":")).encode()
        return self._signature(payload) + b"." + payload

    def loads(self, data: bytes):
        try:
            return int(data)
        except ValueError:
            pass
        signature, _, payload = data.partition(b".")
        if not hmac.compare_digest(signature, self._signature(payload)):
            log.warning("ignored a cache value with a wrong signature (%d bytes): written by another process?", len(data))
            return None
        return json.loads(payload, object_hook=_decode)


class ReusingRedisCacheClient(redis.RedisCacheClient):
    """Django builds a redis.Redis for every cache operation, and redis-py fills its table of reply
    callbacks for each: 0.2 ms of CPU, half of a small read's. One client per connection pool (a
    Redis client is safe to share; Django's caches are per thread anyway)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient


# What pages.caching keeps (pages, and the rows and figures of rounds) has the shape and markup that
# the code which built it gave it: a deploy that changes them must not read what the code before
# wrote (a kept round's figures live a day), nor the two versions of a rolling deploy each other's.
# So each version of the code keeps its own, keyed on a digest of the folders that build them.
CODE_FOLDERS = ("audit", "results", "review", "ingest", "verify", "pages", "config", "templates", "static")


@functools.cache
def code_version() -> str:
    """A digest of every file of CODE_FOLDERS but the tests (some 360 files: 16 ms, once per process)."""
    digest = hashlib.sha1()
    for folder in CODE_FOLDERS:
        for path in sorted((settings.BASE_DIR / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and "tests" not in path.parts:
                digest.update(str(path.relative_to(settings.BASE_DIR)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def code_versioned_key(key: str, key_prefix: str, version) -> str:
    """Django's cache key (django.core.cache.backends.base.default_key_func) with code_version()."""
    return f"{key_prefix}:{code_version()}:{version}:{key}"
