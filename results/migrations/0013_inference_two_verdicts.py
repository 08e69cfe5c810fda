from django.db import migrations, models
from django.db.models import F


def official_as_stored(apps, schema_editor):
    """Rows checked before there were two verdicts carry one: keep it as the official one too, so
    that no stored result shows a difference nobody computed (a re-import computes both)."""
    Result = apps.get_model("results", "Result")
    Result.objects.update(official_valid=F("valid"))


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0012_network_division"),
    ]

    operations = [
        migrations.AlterField(
            model_name="result",
            name="valid",
            field=models.BooleanField(default=True, help_text="Our verdict: no error finding (inference)"),
        ),
        migrations.AddField(
            model_name="result",
            name="official_valid",
            field=models.BooleanField(
                default=True,
                help_text="The round's official checker's verdict, its leniencies included (inference)",
            ),
        ),
        migrations.AddField(
            model_name="result",
            name="stricter_rules",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Codes of our rules beyond the official checker that fired (inference)",
            ),
        ),
        migrations.RunPython(official_as_stored, migrations.RunPython.noop),
    ]
