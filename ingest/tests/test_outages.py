# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""Outages say so, never a bare 500 (issue 14): with Redis down the upload answers 503 with
Retry-After; with PostgreSQL unreachable the status API does too. Real outages: the clients
connect to ports nothing listens on."""

from __future__ import annotations

import pytest
from django.db import connection

from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import client_for, free_port, open_round, post_upload  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_down(settings):
    down = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": f"redis://127.0.0.1:{free_port()}/0"}
    # Django's setting_changed handler rebuilds the cache objects (and again on restore).
    settings.CACHES = {"default": down, "pages": down}


def test_an_upload_with_redis_down_answers_503_with_retry_after_not_500(personas, open_round, tmp_path, redis_down):
    from django.core.cache import cache

    with pytest.raises(Exception):  # noqa: B017 - proof that the cache really is down
        cache.get("anything")
    response = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path))
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "Redis" in response.json()["detail"]


def test_a_public_page_with_redis_down_is_built_from_the_database_not_500(client, redis_down):
    # The page cache is an optimisation (results/caching.py): without Redis the page is built.
    response = client.get("/")
    assert response.status_code == 200 and b"MLPerf results" in response.content


def test_the_status_api_during_a_database_outage_answers_503_not_500(personas, open_round):
    client = client_for(personas["owner"])
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["PORT"] = str(free_port())
    connection.settings_dict["HOST"] = "127.0.0.1"
    try:
        response = client.get("/api/v1/uploads/1/")
    finally:
        connection.close()
        connection.settings_dict.update(saved)
    assert response.status_code == 503
    assert "database" in response.json()["detail"]
    assert int(response["Retry-After"]) > 0
