from django.db import migrations


class Migration(migrations.Migration):
    """Joins the results migrations of work done side by side (review, scaling, inference)."""

    dependencies = [
        ("results", "0003_inference_result_metric"),
        ("results", "0003_review_lifecycle_versions"),
        ("results", "0003_scaling_published_factors"),
    ]
    operations = []
