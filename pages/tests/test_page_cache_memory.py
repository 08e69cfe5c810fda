"""The page cache is bounded in memory: a client asking for ever new addresses evicts old pages
from the page cache's own Redis (docker-compose.yml's `cache`, settings.CACHES["pages"]) and never
grows the Redis that holds the broker's messages and the rate limits (settings.CACHES["default"]).
Before, both caches were one, on the broker's server, with no memory bound."""

from __future__ import annotations

import os
import secrets
import subprocess

import pytest
import redis
import yaml
from django.conf import settings
from django.core.cache import caches
from django.test import override_settings

from ingest.tests.processes import wait_for
from ingest.tests.upload_fixtures import free_port

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOUND = 1536 * 1024  # an empty Redis holds about 0.9 MB itself; a page of an empty site about 2.4 KB

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="REDIS_URL is not set (scripts/test.sh sets it)")


@pytest.fixture
def page_cache_server(tmp_path):
    """docker-compose.yml's `cache` server, run as its command says (only its memory bound smaller),
    on a free port. Yields the web user's URL."""
    with open(os.path.join(REPO, "docker-compose.yml")) as compose:
        command = yaml.safe_load(compose)["services"]["cache"]["command"]
    assert command[:2] == ["sh", "-c"]
    password = secrets.token_hex(16)
    port = free_port()
    # Compose writes $$ for the shell's $; ${PAGE_CACHE_MAXMEMORY:-512mb} the shell expands alike.
    script = command[2].replace("$$", "$") + f" --port {port} --bind 127.0.0.1"
    server = subprocess.Popen(
        ["sh", "-c", script],
        env={"PATH": os.environ["PATH"], "REDIS_WEB_PASSWORD": password, "PAGE_CACHE_MAXMEMORY": str(BOUND)},
        stdout=(tmp_path / "redis.log").open("ab"), stderr=subprocess.STDOUT, cwd=tmp_path,
    )
    url = f"redis://web:{password}@127.0.0.1:{port}/0"

    def answers() -> bool:
        try:
            return redis.Redis.from_url(url).ping()
        except redis.exceptions.ConnectionError:
            return False

    try:
        wait_for(answers, 10, "the page cache's redis to start")
        yield url
    finally:
        server.terminate()
        server.wait(10)


@needs_redis
@pytest.mark.django_db
def test_new_addresses_evict_old_pages_within_the_bound_and_never_touch_the_rate_limits(client, page_cache_server,
                                                                                        monkeypatch):
    from pages import caching

    monkeypatch.setattr(caching, "LOCAL_PAGES", 0)  # every hit from Redis, none from this process's copies
    broker_side = redis.Redis.from_url(settings.REDIS_URL)
    pages_side = redis.Redis.from_url(page_cache_server)
    with pytest.raises(redis.exceptions.AuthenticationError):
        redis.Redis.from_url(page_cache_server.replace("web:", "default:", 1)).ping()
    memory = pages_side.info("memory")
    assert (memory["maxmemory"], memory["maxmemory_policy"]) == (BOUND, "allkeys-lru")
    assert pages_side.info("persistence")["aof_enabled"] == 0

    caches_as_deployed = {**settings.CACHES, "pages": {**settings.CACHES["pages"], "LOCATION": page_cache_server}}
    with override_settings(CACHES=caches_as_deployed):
        rate_limit = caches["default"]
        rate_limit.set("throttle_uploads_org-7", [1.0, 2.0, 3.0], 3600)  # what DRF's throttle keeps
        visits = 500
        for visit in range(visits):  # each a new address, so a new page to store
            assert client.get(f"/?from=link-{visit}").status_code == 200
        stats = pages_side.info("stats") | pages_side.info("memory")

        # The newest page is served from the cache, the oldest has been evicted to make room.
        assert stats["evicted_keys"] > 0
        assert stats["used_memory"] <= BOUND * 1.05
        assert pages_side.dbsize() < visits
        assert client.get(f"/?from=link-{visits - 1}").status_code == 200
        assert pages_side.info("stats")["keyspace_hits"] > stats["keyspace_hits"]
        # Nothing of the pages went to the broker's server (other test workers share it: only this
        # test's keys are looked for), and the rate limit is still there.
        assert not list(broker_side.scan_iter(match=f"*:{caching.KEY_PREFIX}:*"))
        assert list(pages_side.scan_iter(match=f"*:{caching.KEY_PREFIX}:*"))
        assert rate_limit.get("throttle_uploads_org-7") == [1.0, 2.0, 3.0]
