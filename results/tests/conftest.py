import uuid

import pytest


@pytest.fixture(autouse=True)
def fresh_page_cache(monkeypatch):
    """Anonymous pages are cached (results/caching.py), possibly in a Redis shared with other
    test runs: give each test its own key space rather than clearing the cache."""
    monkeypatch.setattr("results.caching.KEY_PREFIX", f"test-{uuid.uuid4().hex}")
