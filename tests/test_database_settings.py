"""The PostgreSQL connection's settings (config/settings.py)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_queries_run_without_the_jit():
    """A round page's query spent ~1 s compiling in LLVM to run for 0.15 s (bench/RESULTS.md)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def test_options_given_in_the_database_url_are_kept_beside_it():
    url = os.environ["DATABASE_URL"] + "?options=-c%20statement_timeout%3D5000"
    done = subprocess.run(
        [sys.executable, "-c", "from config import settings; print(settings.DATABASES['default']['OPTIONS'])"],
        cwd=REPO, env={"PATH": os.environ["PATH"], "DJANGO_ENV": "development", "DATABASE_URL": url},
        capture_output=True, text=True, timeout=60,
    )
    assert done.stdout.strip() == "{'options': '-c statement_timeout=5000 -c jit=off'}", done.stderr



def wsgi_get(path: str) -> str:
    """GET `path` through Django's own WSGI handler, as gunicorn calls it: unlike the test client,
    it sends the request signals that check the kept connection (close_old_connections)."""
    from django.core.handlers.wsgi import WSGIHandler

    status = []
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "SERVER_NAME": "testserver", "SERVER_PORT": "80",
               "HTTP_HOST": "testserver", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO()}
    response = WSGIHandler()(environ, lambda line, headers: status.append(line))
    b"".join(response)
    response.close()  # request_finished: the connection is kept or closed here
    return status[0]


@pytest.mark.django_db(transaction=True)
def test_a_kept_connection_the_server_dropped_is_replaced_before_a_request_uses_it(monkeypatch):
    """Production keeps each process's connection (DB_CONN_MAX_AGE, docker-compose.yml). When the
    server drops it (a restart, an administrator), the next request checks it first and connects
    again, instead of failing with a 503."""
    import psycopg2

    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    assert wsgi_get("/") == "200 OK"
    assert connection.connection is not None  # kept after the request
    backend = connection.connection.get_backend_pid()
    other = psycopg2.connect(**connection.get_connection_params())
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [backend])
    finally:
        other.close()
    assert wsgi_get("/") == "200 OK"
    assert connection.connection.get_backend_pid() != backend
