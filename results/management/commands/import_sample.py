"""manage.py import_sample: the bundled real sample (sample_data/, README there) imported and
published, every round of it, in one process: `make sample`, which `make run` runs on a fresh
machine. One process rather than an `import_results` per round: each start of Django costs about a
CPU-second. Idempotent as import_results is: a second run changes nothing."""

from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

SAMPLE = Path(settings.BASE_DIR) / "sample_data"
# (the folder, which is the round's name; MLCommons' official ids of its results, where they were given)
SAMPLE_ROUNDS = [
    ("training-v0.7", None),
    ("training-v1.0", None),
    ("training-v3.0", None),
    ("inference-v0.7", None),
    ("training-v4.0", None),
    ("hpc-v1.0", None),
    ("inference-v4.1", "inference-v4.1-ids.json"),
    ("automotive-v0.5", "automotive-v0.5-ids.json"),
    ("tiny-v1.3", None),
]


class Command(BaseCommand):
    help = "Import and publish every round of the bundled sample (sample_data/)."

    def handle(self, *args, **options):
        for slug, ids in SAMPLE_ROUNDS:
            arguments = [str(SAMPLE / slug), "--round", slug, "--publish"]
            if ids:
                arguments += ["--ids", str(SAMPLE / ids)]
            self.stdout.write(f"{slug} (sample_data/{slug}):")  # import_results names the submitters only
            call_command("import_results", *arguments, stdout=self.stdout, stderr=self.stderr)
