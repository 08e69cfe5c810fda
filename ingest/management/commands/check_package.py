"""Offline check of one submitter folder or archive; see mlperf_check/cli.py (manage.py runs that
directly, before Django starts). This command is the same check for call_command()."""

from django.core.management.base import BaseCommand, CommandError

from mlperf_check import cli


class Command(BaseCommand):
    help = cli.DESCRIPTION
    requires_system_checks: list = []

    def add_arguments(self, parser):
        cli.add_arguments(parser)

    def handle(self, *args, path, ruleset, json: bool, **options):
        status = cli.run(path, ruleset=ruleset, as_json=json, stdout=self.stdout, stderr=self.stderr)
        if status == cli.USAGE_ERROR:
            raise CommandError("bad usage", returncode=cli.USAGE_ERROR)
        if status:
            raise SystemExit(status)
