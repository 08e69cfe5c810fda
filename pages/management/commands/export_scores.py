"""Print a round's official-style summary: one row per system, one column per benchmark (minutes)."""

import json

from django.core.management.base import BaseCommand, CommandError

from pages import suites
from pages.csv_rows import rows_to_csv
from pages.normalised import DECIDED, FACTOR_VIEWS
from results.models import Round
from results.querysets import RoundNotFound


class Command(BaseCommand):
    help = "Export a round's scores (every imported result, published or not) as CSV or JSON."

    def add_arguments(self, parser):
        parser.add_argument("--round", required=True, help="e.g. training-v1.0")
        parser.add_argument("--format", choices=["csv", "json"], default="csv")
        parser.add_argument(
            "--factors",
            choices=FACTOR_VIEWS,
            default=DECIDED,
            help="decided: scores with the recorded scaling-factor decisions (what the pages show); "
            "computed: every score with the factor the logs give",
        )

    def handle(self, *args, round, format, factors, **options):
        try:
            round_ = Round.objects.named(round)
        except RoundNotFound as exc:
            raise CommandError(str(exc), returncode=2) from exc
        columns, rows = suites.of_round(round_).summary_rows(round_, user=_EveryResult(), factors=factors)
        if format == "json":
            document = {"round": round_.slug, "factors": factors, "columns": columns, "rows": rows}
            self.stdout.write(json.dumps(document, indent=2))
        else:
            self.stdout.write(rows_to_csv(columns, rows), ending="")


class _EveryResult:
    """The operator running the command sees every result, as a chair does."""

    is_authenticated = True
    is_staff = True
    is_superuser = True
