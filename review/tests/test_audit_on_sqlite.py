"""`make run`'s database: SQLite keeps the audit log append-only after every migration.

SQLite rebuilds a table to change a column, and the rebuild drops the table's triggers: audit
migration 0002 did, silently, until 0003 created them again (the suite's other tests run on
PostgreSQL and never saw it)."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_a_fresh_sqlite_database_refuses_to_edit_or_delete_audit_events(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "DJANGO_ENV": "development"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True)
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from audit.models import AuditEvent; AuditEvent.objects.create(kind='test.sqlite', actor_name='system')"],
        cwd=REPO, env=env, check=True,
    )
    connection = sqlite3.connect(database)
    created_at, public_id = connection.execute(
        "SELECT created_at, public_id FROM review_auditevent WHERE kind = 'test.sqlite'"
    ).fetchone()
    assert created_at.startswith("20") and len(public_id) == 32  # dated by the database, named at random
    for statement in ("UPDATE review_auditevent SET reason = 'rewritten'", "DELETE FROM review_auditevent"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute(statement)
    connection.close()
