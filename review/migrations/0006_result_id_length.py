"""Citable result ids now name their suite, entry, benchmark and scenario (results 0006): up to 96
characters."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0005_role_groups"),
    ]

    operations = [
        migrations.AlterField(
            model_name="borrowingdeclaration",
            name="result_id",
            field=models.CharField(help_text="The borrower's citable result id", max_length=96),
        ),
    ]
