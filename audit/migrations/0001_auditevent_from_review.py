"""The audit log moves from the review app to the audit app: only Django's model state moves.
The table keeps its name (review_auditevent), its rows and its append-only triggers (review 0001)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def _relabel(apps, schema_editor, old: str, new: str) -> None:
    """Keep the content type (and so permissions and admin history) of the moved model."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.using(schema_editor.connection.alias).filter(app_label=old, model="auditevent").update(app_label=new)


def forwards(apps, schema_editor):
    _relabel(apps, schema_editor, "review", "audit")


def backwards(apps, schema_editor):
    _relabel(apps, schema_editor, "audit", "review")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("review", "0001_review_initial"),
        ("results", "0005_core_version_order"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ("kind", models.CharField(db_index=True, help_text="e.g. objection.filed, round.published", max_length=48)),
                        ("actor_name", models.CharField(blank=True, help_text="'system' when no person acted", max_length=150)),
                        ("result_id", models.CharField(blank=True, db_index=True, help_text="Citable result id", max_length=32)),
                        ("subject", models.CharField(blank=True, help_text="e.g. objection 12", max_length=64)),
                        ("reason", models.TextField(blank=True)),
                        ("data", models.JSONField(blank=True, default=dict)),
                        ("actor", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("organization", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="results.organization")),
                        ("round", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="results.round")),
                        ("submission", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="results.submission")),
                    ],
                    options={
                        "db_table": "review_auditevent",
                        "ordering": ["created_at", "pk"],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
