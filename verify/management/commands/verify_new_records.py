"""Queue a verification of every new record of a round (the rule "verify every new record")."""

from django.core.management.base import BaseCommand, CommandError

from results.models import Round
from results.querysets import RoundNotFound
from verify.services import request_for_new_records


class Command(BaseCommand):
    help = "Queue a verification of each benchmark's new record (per division) in a round, once."

    def add_arguments(self, parser):
        parser.add_argument("--round", required=True, help="e.g. training-v5.0")
        parser.add_argument("--runs", type=int, default=None, help="re-runs per result [the benchmark's required count]")

    def handle(self, *args, round, runs, **options):
        try:
            round_ = Round.objects.named(round)
        except RoundNotFound as exc:
            raise CommandError(str(exc), returncode=2) from exc
        jobs = request_for_new_records(round_, runs=runs)
        for job in jobs:
            self.stdout.write(f"queued verification {job.pk} of {job.result.result_id} ({job.result.benchmark.name})")
        self.stdout.write(f"{len(jobs)} new record(s) queued for verification")
