# ruff: noqa: F811 - the acl_redis fixture is imported, and redefined as an argument
"""What a process holding only Redis (the broker) or the application's database role can do:
not run code in the web app through the cache, not touch nor list the cache's keys as a worker,
not edit or erase the audit log."""

from __future__ import annotations

import os
import pickle
import shutil

import pytest
from django.conf import settings

from verify.tests.test_broker_secrets import acl_redis  # noqa: F401 - a Redis with scripts/services.sh's ACL

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="REDIS_URL is not set (scripts/test.sh sets it)")


class Exploit:
    """Unpickling this runs a shell command."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@needs_redis
def test_the_cache_never_unpickles_nor_trusts_a_value_it_did_not_sign(tmp_path):
    import redis
    from django.core.cache import cache

    raw = redis.Redis.from_url(settings.REDIS_URL)
    key = cache.make_and_validate_key("page:forged")
    marker = tmp_path / "code-ran"
    raw.set(key, pickle.dumps(Exploit(marker)))
    assert cache.get("page:forged") is None and not marker.exists()
    raw.set(key, b"0" * 64 + b'.{"headers":[],"gzip":{"__bytes__":"AA=="}}')  # JSON, forged signature
    assert cache.get("page:forged") is None
    page = {"headers": [["Content-Type", "text/html"]], "gzip": b"\x1f\x8b\x00 binary"}
    cache.set("page:forged", page)
    assert cache.get("page:forged") == page
    assert raw.get(key).split(b".", 1)[1].startswith(b"{")  # stored as signed JSON, not a pickle
    cache.set("counter", 3)
    assert cache.incr("counter") == 4


@needs_redis
def test_the_cache_reuses_one_client_per_connection_pool():
    from django.core.cache import caches

    pages = caches["pages"]
    pages.set("reused", b"value")
    client = pages._cache.get_client(write=True)
    assert pages._cache.get_client() is client and pages.get("reused") == b"value"
    client.connection_pool.disconnect()  # as after a Redis restart: the pool connects again
    assert pages.get("reused") == b"value" and pages._cache.get_client() is client


@pytest.mark.skipif(not os.environ.get("WORKER_BROKER_URL"), reason="WORKER_BROKER_URL is not set (scripts/services.sh env)")
def test_redis_wants_a_password_and_the_workers_user_cannot_touch_the_cache():
    import redis

    host, port = settings.CELERY_BROKER_URL.rsplit("@", 1)[1].split("/")[0].split(":")
    with pytest.raises(redis.exceptions.AuthenticationError):
        redis.Redis(host=host, port=int(port)).ping()
    worker = redis.Redis.from_url(os.environ["WORKER_BROKER_URL"])
    assert worker.ping()
    worker.lpush("ingest-acl-probe", b"x")  # the queues are the workers'
    worker.delete("ingest-acl-probe")
    for command in (lambda: worker.set("cache:1:page:forged", b"x"), lambda: worker.get("cache:1:anything"),
                    lambda: worker.config_get("*"), lambda: worker.flushall()):
        with pytest.raises(redis.exceptions.NoPermissionError):
            command()


@pytest.mark.skipif(not os.environ.get("APP_DATABASE_URL"), reason="APP_DATABASE_URL is not set (scripts/services.sh env)")
@pytest.mark.django_db(transaction=True)
def test_the_application_role_can_add_audit_rows_but_not_edit_erase_or_truncate_them():
    import dj_database_url
    import psycopg2
    from django.core.management import call_command
    from django.db import connection
    from psycopg2 import errors

    from audit.management.commands.grant_app_role import audit_table
    from audit.models import AuditEvent

    AuditEvent.objects.create(kind="test.before", actor_name="system", reason="written by the owner")
    call_command("grant_app_role", "mlperf_app")
    app = dj_database_url.parse(os.environ["APP_DATABASE_URL"])
    table = audit_table()
    conn = psycopg2.connect(host=app["HOST"], port=app["PORT"], user=app["USER"], password=app["PASSWORD"] or None,
                            dbname=connection.settings_dict["NAME"])
    conn.autocommit = True
    try:
        cursor = conn.cursor()

        def one(sql):
            cursor.execute(sql)
            return cursor.fetchone()

        assert one("SELECT rolsuper FROM pg_roles WHERE rolname = current_user") == (False,)
        # The database dates the row, whatever time the INSERT names (issue 36, item 11).
        cursor.execute(f"INSERT INTO {table} (created_at, kind, reason, subject, result_id, actor_name, data) "
                       "VALUES ('2001-01-01', 'test.app', 'added by the app role', '', '', '', '{}')")
        assert one(f"SELECT count(*) FROM {table}")[0] == 2
        assert one(f"SELECT now() - created_at < interval '1 minute' FROM {table} WHERE kind = 'test.app'") == (True,)
        for statement in (f"UPDATE {table} SET reason = 'rewritten'", f"DELETE FROM {table}", f"TRUNCATE {table}",
                          f"ALTER TABLE {table} DISABLE TRIGGER ALL"):
            with pytest.raises((errors.InsufficientPrivilege, errors.lookup("42501"))):
                cursor.execute(statement)
        assert one("SELECT count(*) FROM django_migrations")[0] > 0  # the rest it may read
    finally:
        conn.close()
    with pytest.raises(Exception, match="superuser or the owner"):
        call_command("grant_app_role", connection.settings_dict["USER"])


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
@pytest.mark.django_db(transaction=True)
def test_the_workers_user_cannot_list_the_cache_keys_and_celery_workers_still_run_as_it(acl_redis, tmp_path):
    """Issue 36, item 11: key patterns keep the worker from reading `cache:*` keys, but not from
    listing their names (SCAN, RANDOMKEY), in the broker's database or the cache's (1): page
    addresses of unpublished rounds, sessions' keys. Celery's Redis transport needs neither."""
    import redis

    from config.celery import app
    from ingest.tests.processes import Worker, database_url_of_test_db, wait_for
    from ingest.tests.upload_fixtures import celery_broker

    def on_database(url: str, number: int) -> str:
        return url.rsplit("/", 1)[0] + f"/{number}"

    cache = redis.Redis.from_url(on_database(acl_redis["web"], 1))
    cache.set("cache:1:page:/rounds/training-v9.0/", b"unpublished")
    assert cache.scan()[1] and cache.randomkey()  # the web app's user may
    for number in (0, 1):
        worker = redis.Redis.from_url(on_database(acl_redis["worker"], number))
        for command in (["SCAN", 0], ["RANDOMKEY"], ["KEYS", "*"]):
            with pytest.raises(redis.exceptions.NoPermissionError):
                worker.execute_command(*command)
    # A real worker as that user takes a task the web app's user sent, runs it and acknowledges it.
    process = Worker(tmp_path, acl_redis["worker"], database_url_of_test_db())
    process.start()
    try:
        with celery_broker(acl_redis["web"]):
            sent = app.send_task("ingest.sweep_pending", queue="ingest")
        wait_for(lambda: f"Task ingest.sweep_pending[{sent.id}] succeeded" in process.text(), 60, "the task to run")
    finally:
        process.stop()
    assert "NOPERM" not in process.text()
