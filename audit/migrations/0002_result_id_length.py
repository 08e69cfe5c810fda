"""Citable result ids now name their suite, entry, benchmark and scenario (results 0006): up to 96
characters."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("audit", "0001_auditevent_from_review"),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditevent",
            name="result_id",
            field=models.CharField(blank=True, db_index=True, help_text="Citable result id", max_length=96),
        ),
    ]
