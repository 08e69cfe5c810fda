"""Trigram indexes for the search page's system lookup (pages/views/search.py), PostgreSQL only.

The search matches its text anywhere in six columns of every system (Django's icontains:
UPPER(column::text) LIKE UPPER('%text%')), which no B-tree index serves: at 32,869 systems each
search read them all (69 ms of SQL on the bench database, per distinct search, uncached). A GIN
index of each column's trigrams, on the same expression, finds a text of three characters or more
in under a millisecond. pg_trgm is a trusted extension: the database's owner (mlperf_owner, who
migrates) may create it. SQLite (make run's embedded default) keeps reading every system."""

from django.db import migrations

SEARCHED_COLUMNS = ("name", "system_id", "submitter", "accelerator_model_name", "host_processor_model_name",
                    "framework")


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for column in SEARCHED_COLUMNS:
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS system_{column}_trgm ON results_system "
                              f"USING gin (upper({column}::text) gin_trgm_ops)")


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for column in SEARCHED_COLUMNS:
        schema_editor.execute(f"DROP INDEX IF EXISTS system_{column}_trgm")


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0018_run_result_id_index"),
    ]

    operations = [migrations.RunPython(create_indexes, drop_indexes)]
