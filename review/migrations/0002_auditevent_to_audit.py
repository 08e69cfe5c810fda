"""The audit log moves to the audit app (audit 0001): the review app forgets the model; the table,
its rows and its triggers stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0001_review_initial"),
        ("audit", "0001_auditevent_from_review"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
