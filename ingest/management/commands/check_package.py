"""`manage.py check_package`: the `mlperf-check` command (mlperf_check/cli.py) under the name other
tools call, with the same options and exit status."""

from django.core.management.base import BaseCommand, CommandError

from mlperf_check import cli


class Command(BaseCommand):
    help = cli.DESCRIPTION
    requires_system_checks: list = []

    def add_arguments(self, parser):
        cli.add_arguments(parser)

    def handle(self, *args, path, ruleset, format, jobs, waivers, **options):
        status = cli.run(
            path, ruleset=ruleset, output_format=format, jobs=jobs, waivers_file=waivers, stdout=self.stdout,
            stderr=self.stderr,
        )
        if status == cli.USAGE_ERROR:
            raise CommandError("bad usage", returncode=cli.USAGE_ERROR)
        if status:
            raise SystemExit(status)
