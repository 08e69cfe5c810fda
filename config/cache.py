"""The Redis cache: Django's, with signed JSON values (never pickle) and one client per connection pool.

Django's RedisCache unpickles what it reads by default, and anyone who can write to Redis (any
holder of a broker password, the GPU worker included) could then run code in the web app. Values
here are JSON (bytes as base64), and each carries an HMAC of the web app's SECRET_KEY: a value the
web app did not write, or one changed since, is ignored (a cache miss, logged), so Redis access
gives neither code execution nor a forged page. Integers stay bare, as Django keeps them, for
atomic incr()/decr().
"""

from __future__ import annotations

import base64
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
