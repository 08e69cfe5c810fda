"""The `reviewers` and `chairs` groups exist from the first migrate (audit.roles and
review.services read them by name)."""

from django.db import migrations

GROUPS = ("reviewers", "chairs")


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in GROUPS:
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("review", "0004_borrowing_outcomes_withdrawal_requests"),
    ]

    operations = [migrations.RunPython(create_groups, migrations.RunPython.noop)]
