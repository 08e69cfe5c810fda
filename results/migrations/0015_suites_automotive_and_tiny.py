"""MLPerf Automotive and MLPerf Tiny rounds (issue 37), and Automotive's ConstantStream scenario."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0014_result_status_on_citable_id"),
    ]

    operations = [
        migrations.AlterField(
            model_name="round",
            name="suite",
            field=models.CharField(
                choices=[("training", "Training"), ("inference", "Inference"), ("hpc", "HPC"),
                         ("automotive", "Automotive"), ("tiny", "Tiny")],
                default="training", max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="result",
            name="scenario",
            field=models.CharField(
                blank=True,
                choices=[("SingleStream", "Single-stream"), ("MultiStream", "Multi-stream"), ("Server", "Server"),
                         ("Offline", "Offline"), ("Interactive", "Interactive"),
                         ("ConstantStream", "Constant-stream")],
                help_text="Inference only", max_length=16,
            ),
        ),
    ]
