"""Frozen, numbered snapshots of published rounds (issue 24)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0009_result_citable_required"),
    ]

    operations = [
        migrations.CreateModel(
            name="Snapshot",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("covers_event", models.BigIntegerField(help_text="The newest public audit event (change) it includes")),
                ("files", models.JSONField(default=list, help_text='[{"name", "sha256", "bytes"}], SHA256SUMS last')),
                ("round", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="snapshots", to="results.round")),
            ],
            options={
                "ordering": ["round", "-number"],
                "constraints": [models.UniqueConstraint(fields=("round", "number"), name="snapshot_unique_number")],
            },
        ),
    ]
