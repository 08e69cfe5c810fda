"""Resubmission windows belong to the round lifecycle: the model moves from ingest to review.
Only Django's model state moves; the table keeps its name (ingest_resubmissionwindow) and rows."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _relabel(apps, schema_editor, old: str, new: str) -> None:
    """Keep the content type (and so permissions and admin history) of the moved model."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.using(schema_editor.connection.alias).filter(app_label=old, model="resubmissionwindow").update(app_label=new)


def forwards(apps, schema_editor):
    _relabel(apps, schema_editor, "ingest", "review")


def backwards(apps, schema_editor):
    _relabel(apps, schema_editor, "review", "ingest")


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0002_auditevent_to_audit"),
        ("ingest", "0002_hardening_job_error_count"),
        ("results", "0005_core_version_order"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ResubmissionWindow",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("closes_at", models.DateTimeField()),
                        ("reason", models.TextField(blank=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("granted_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("organization", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="resubmission_windows", to="results.organization")),
                        ("round", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="resubmission_windows", to="results.round")),
                    ],
                    options={
                        "db_table": "ingest_resubmissionwindow",
                        "ordering": ["-closes_at"],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
