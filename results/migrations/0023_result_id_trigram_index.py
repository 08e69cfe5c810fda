"""A trigram index on the results' ids for the admin's result search (results/admin.py), PostgreSQL
only, as 0019 made for the systems: a part of an id (Django's icontains, UPPER(result_id) LIKE
UPPER('%text%')) was found by reading every result. SQLite (make run's embedded default) keeps
reading them all."""

from django.db import migrations


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute("CREATE INDEX IF NOT EXISTS result_result_id_trgm ON results_result "
                          "USING gin (upper(result_id::text) gin_trgm_ops)")


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS result_result_id_trgm")


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0022_citable_id_entry_index"),
    ]

    operations = [migrations.RunPython(create_index, drop_index)]
