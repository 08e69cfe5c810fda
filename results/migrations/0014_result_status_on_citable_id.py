"""Withdrawn and removed are states of the citable result, not of one version's row (issue 34): a
later version written as a new row came back active and public. The status moves to CitableId;
a held version's results wait for their id (Result.citable null, result_id "") until a chair
releases the version."""

import django.db.models.deletion
from django.db import migrations, models


def status_to_citable_id(apps, schema_editor):
    """A citable id takes the status any of its versions had: withdrawals and removals were written
    to every version at once, so a version still active is one written after them (the defect)."""
    CitableId = apps.get_model("results", "CitableId")
    Result = apps.get_model("results", "Result")
    for status in ("withdrawn", "removed"):  # removed last: a review decision outranks a withdrawal
        CitableId.objects.filter(pk__in=Result.objects.filter(status=status).values("citable")).update(status=status)


def status_to_results(apps, schema_editor):
    CitableId = apps.get_model("results", "CitableId")
    Result = apps.get_model("results", "Result")
    for status in ("withdrawn", "removed"):
        Result.objects.filter(citable__in=CitableId.objects.filter(status=status)).update(status=status)


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0013_inference_two_verdicts"),
    ]

    operations = [
        migrations.AddField(
            model_name="citableid",
            name="status",
            field=models.CharField(
                choices=[("active", "Active"), ("withdrawn", "Withdrawn"), ("removed", "Removed by review")],
                default="active", editable=False, max_length=16,
                help_text="Withdrawn or removed: the result in every version; only results.services.lifecycle changes it",
            ),
        ),
        migrations.RunPython(status_to_citable_id, status_to_results),
        migrations.RemoveField(model_name="result", name="status"),
        migrations.AlterField(
            model_name="result",
            name="citable",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="results",
                to="results.citableid",
            ),
        ),
        migrations.AlterField(
            model_name="result",
            name="result_id",
            field=models.CharField(
                blank=True, db_index=True, help_text="Citable id, e.g. training:4.1-0012:resnet", max_length=96
            ),
        ),
    ]
