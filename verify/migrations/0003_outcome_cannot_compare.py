"""A finished verification whose claim has no score to compare with says so ("cannot compare"),
instead of "not reproduced"."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("verify", "0002_log_chunks"),
    ]

    operations = [
        migrations.AlterField(
            model_name="verificationjob",
            name="outcome",
            field=models.CharField(blank=True, choices=[
                ("reproduced", "Reproduced"), ("not_reproduced", "Not reproduced"), ("cannot_compare", "Cannot compare"),
                ("failed", "Failed"), ("timed_out", "Timed out"), ("out_of_memory", "Out of memory"),
                ("sandbox_violation", "Sandbox violation"), ("worker_lost", "Worker lost"),
            ], max_length=24),
        ),
    ]
