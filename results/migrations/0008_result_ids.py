"""Citable result ids unique across suites and rounds (issue 24).

Both suites used to number `<version>-NNNN` in import order, so training and inference results of
the same version shared ids. Every existing result is registered in CitableId: the first result (by
row) to hold an id keeps it; any other (round, organization, system, benchmark, scenario) holding
the same id gets a new local id `<suite>:<version>-NNNN:<benchmark>[:<scenario>]`. Every version
of a result keeps sharing one id. No row is deleted."""

import django.db.models.deletion
from django.db import migrations, models


def register_ids(apps, schema_editor):
    Result = apps.get_model("results", "Result")
    Round = apps.get_model("results", "Round")
    CitableId = apps.get_model("results", "CitableId")
    by_key: dict[tuple, object] = {}
    taken: set[str] = set()
    next_number = {r.pk: r.next_result_number for r in Round.objects.all()}
    rows = Result.objects.select_related("submission__round", "system", "benchmark").order_by("pk")
    for result in rows.iterator():
        round_ = result.submission.round
        scenario = result.scenario or result.scaling  # HPC: strong and weak are two results
        key = (round_.pk, result.submission.organization_id, result.system.system_id, result.benchmark.name, scenario)
        citable = by_key.get(key)
        if citable is None:
            if result.result_id not in taken:
                result_id, entry = result.result_id, ""
            else:
                number = next_number[round_.pk]
                next_number[round_.pk] = number + 1
                entry = f"{round_.version}-{number:04d}"
                result_id = ":".join(p for p in (round_.suite, entry, result.benchmark.name, scenario) if p)
            citable = CitableId.objects.create(
                result_id=result_id, round_id=round_.pk, organization_id=result.submission.organization_id,
                system_id=result.system.system_id, benchmark=result.benchmark.name, scenario=scenario,
                entry=entry, local=True,
            )
            taken.add(result_id)
            by_key[key] = citable
        Result.objects.filter(pk=result.pk).update(citable=citable, result_id=citable.result_id)
    for pk, number in next_number.items():
        Round.objects.filter(pk=pk).update(next_result_number=number)


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0007_waiver_false_positive_held_version"),
    ]

    operations = [
        migrations.CreateModel(
            name="CitableId",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("result_id", models.CharField(max_length=96, unique=True)),
                ("system_id", models.CharField(max_length=255)),
                ("benchmark", models.CharField(max_length=64)),
                ("scenario", models.CharField(blank=True, max_length=16)),
                ("entry", models.CharField(blank=True, help_text="The system's entry in the round, e.g. 4.1-0012", max_length=32)),
                ("local", models.BooleanField(default=True, help_text="Numbered here, not an id MLCommons published")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("organization", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="citable_ids", to="results.organization")),
                ("round", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="citable_ids", to="results.round")),
            ],
            options={
                "ordering": ["round", "result_id"],
                "constraints": [models.UniqueConstraint(fields=("round", "organization", "system_id", "benchmark", "scenario"), name="citable_id_unique_result")],
            },
        ),
        migrations.AlterField(
            model_name="result",
            name="result_id",
            field=models.CharField(db_index=True, help_text="Citable id, e.g. training:4.1-0012:resnet", max_length=96),
        ),
        migrations.AddField(
            model_name="result",
            name="citable",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name="results", to="results.citableid"),
        ),
        migrations.RunPython(register_ids, migrations.RunPython.noop),
    ]
