"""Every result has its registered citable id (0006 registered the existing ones)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0008_result_ids"),
    ]

    operations = [
        migrations.AlterField(
            model_name="result",
            name="citable",
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="results", to="results.citableid"),
        ),
    ]
