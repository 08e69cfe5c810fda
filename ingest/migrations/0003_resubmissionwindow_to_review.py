"""Resubmission windows move to the review app (review 0003): ingest forgets the model; the
table and its rows stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("ingest", "0002_hardening_job_error_count"),
        ("review", "0003_resubmissionwindow_from_ingest"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ResubmissionWindow")],
            database_operations=[],
        ),
    ]
