"""Issue 36, item 11: the database, not the client, dates an audit event, and the public API names
events by a random `public_id`, so that gaps in the numbering reveal nothing about hidden events.

PostgreSQL: a BEFORE INSERT trigger sets `created_at` to the statement's time whatever the INSERT
says (the application role may add rows, and could otherwise date them as it liked); existing rows
get their `public_id` from the column's default, one random value each, without an UPDATE (which
the append-only trigger refuses). SQLite (`make run` only): `created_at` comes from the column's
default; changing a column rebuilds the table there, which drops its triggers, so the append-only
triggers are created again (0002's rebuild had already dropped them)."""

import uuid

from django.db import migrations, models
from django.db.models.functions import Now

POSTGRESQL_FORWARD = """
ALTER TABLE review_auditevent ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE review_auditevent ADD CONSTRAINT review_auditevent_public_id_key UNIQUE (public_id);
CREATE FUNCTION review_auditevent_dated_by_database() RETURNS trigger AS $$
BEGIN
    NEW.created_at := statement_timestamp();  -- as the column default, Now()
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER review_auditevent_dated_by_database BEFORE INSERT ON review_auditevent
    FOR EACH ROW EXECUTE FUNCTION review_auditevent_dated_by_database();
"""
POSTGRESQL_BACKWARD = """
DROP TRIGGER review_auditevent_dated_by_database ON review_auditevent;
DROP FUNCTION review_auditevent_dated_by_database();
ALTER TABLE review_auditevent DROP COLUMN public_id;
"""
SQLITE_APPEND_ONLY = [
    f"""CREATE TRIGGER IF NOT EXISTS review_auditevent_no_{op.lower()} BEFORE {op} ON review_auditevent
    BEGIN SELECT RAISE(ABORT, 'audit events are append-only ({op} refused)'); END;"""
    for op in ("UPDATE", "DELETE")
]


def add_public_id(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRESQL_FORWARD, params=None)  # no %-interpolation
        return
    # SQLite: a nullable column, one random value per existing row, then the unique index.
    schema_editor.execute("ALTER TABLE review_auditevent ADD COLUMN public_id char(32) NULL")
    schema_editor.execute("DROP TRIGGER IF EXISTS review_auditevent_no_update")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT id FROM review_auditevent")
        for (pk,) in cursor.fetchall():
            cursor.execute("UPDATE review_auditevent SET public_id = %s WHERE id = %s", [uuid.uuid4().hex, pk])
    schema_editor.execute(
        "CREATE UNIQUE INDEX review_auditevent_public_id_key ON review_auditevent (public_id)"
    )


def remove_public_id(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRESQL_BACKWARD)
    else:
        schema_editor.execute("DROP INDEX review_auditevent_public_id_key")
        schema_editor.execute("ALTER TABLE review_auditevent DROP COLUMN public_id")


def append_only_again(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in SQLITE_APPEND_ONLY:
            schema_editor.execute(statement)


class Migration(migrations.Migration):

    dependencies = [
        ("audit", "0002_result_id_length"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add_public_id, remove_public_id)],
            state_operations=[
                migrations.AddField(
                    model_name="auditevent",
                    name="public_id",
                    field=models.UUIDField(default=uuid.uuid4, editable=False, unique=True),
                ),
            ],
        ),
        migrations.AlterField(
            model_name="auditevent",
            name="created_at",
            field=models.DateTimeField(db_default=Now(), db_index=True),
        ),
        migrations.RunPython(append_only_again, migrations.RunPython.noop),
    ]
