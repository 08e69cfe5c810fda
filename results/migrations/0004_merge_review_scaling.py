from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("results", "0003_review_lifecycle_versions"),
        ("results", "0003_scaling_published_factors"),
    ]
    operations = []
