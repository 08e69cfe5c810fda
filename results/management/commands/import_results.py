"""Import a whole round (`<round>/<submitter>/...`, an inference round's `<division>/<submitter>/...`)
or one submitter folder into the database. What a folder holds, how a submitter is checked and how
it is stored are the round's suite's (results/suites/).

Idempotent: importing the same files twice changes nothing; changed files make a new version
of the submission (result ids are kept; earlier versions are never rewritten). Each submitter is imported in its own transaction.
Packages are checked in parallel worker processes; rows are written by this process.

Scores use the factor the logs give. `--published-factors --chair NAME` reproduces a published
round: wherever the factor the official summarizer used (the folder's scaling.json, 1.0 where
there is none) differs from it, the chair's decision to use that factor is recorded (a Waiver of
kind published_factor) and the score rests on it; the result pages say so.

`--ids FILE` gives results MLCommons' official entry ids (summary_results.json of an inference
round, or {"<submitter folder>/<system id>": "4.1-0012"}); results it does not name are numbered
in the same scheme and marked local. A result keeps the id it was first given.
"""

import os
import sys
from contextlib import closing
from datetime import UTC, date, datetime
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from results import suites
from results.querysets import RoundSlugError
from results.services.citable import IdMappingError, read_id_mapping, reserve_official_entries
from results.services.factors import DecisionRefused
from results.services.record_import import checked_in_order, official_entries_of
from results.services.rounds import ensure_round, publication_date, publish_round
from results.services.training_import import waivers_for


def _midnight(day: date | None) -> datetime | None:
    return datetime(day.year, day.month, day.day, tzinfo=UTC) if day else None


class Command(BaseCommand):
    help = "Import MLPerf results: a round folder of submitter folders, or one submitter folder."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--round", required=True, help="e.g. training-v1.0, hpc-v1.0")
        parser.add_argument("--publish", action="store_true", help="publish the round and the imported results")
        parser.add_argument(
            "--published-at", type=date.fromisoformat, metavar="YYYY-MM-DD",
            help="with --publish: the round's publication date (default: the day MLCommons published it, "
            "results.services.rounds.publication_date; a round without one needs this)",
        )
        parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
        parser.add_argument(
            "--published-factors",
            action="store_true",
            help="record the scaling factors the packages ship (1.0 where none) as decisions where they "
            "differ from the logs, so that scores are the published ones (needs --chair)",
        )
        parser.add_argument("--chair", help="user name of the chair recording the --published-factors decisions")
        parser.add_argument(
            "--ids", metavar="FILE",
            help="official entry ids: summary_results.json, or a JSON object {\"<submitter>/<system id>\": \"4.1-0012\"}",
        )

    def handle(self, *args, path, round, publish, jobs, published_factors, chair, published_at=None, ids=None, **options):
        root = Path(path)
        if not root.is_dir():
            raise CommandError(f"{path}: not a folder", returncode=2)
        decided_by = None
        if published_factors:
            if not chair:
                raise CommandError("--published-factors records decisions: name the chair with --chair", returncode=2)
            decided_by = get_user_model().objects.filter(username=chair).first()
            if decided_by is None:
                raise CommandError(f"--chair {chair}: no such user", returncode=2)
        try:
            official = read_id_mapping(ids) if ids else {}
        except IdMappingError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        try:
            round_ = ensure_round(round)
            reserve_official_entries(round_, official.values())
        except (RoundSlugError, ValueError) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        published_at = published_at or publication_date(round_)
        if publish and published_at is None:
            raise CommandError(f"{round_.slug}: no known publication date: give it with --published-at YYYY-MM-DD",
                               returncode=2)
        suite = suites.of(round_)
        submitters = suite.submitters(root)
        if not submitters:
            raise CommandError(f"{path}: no {suite.submitter_layout} found", returncode=2)

        failures = 0
        progress = tqdm(total=len(submitters), unit="submitter", disable=not sys.stderr.isatty())
        # Checked in worker processes (no database there), stored by this one in order.
        pending = [(submitter, waivers_for(round_, submitter.slug)) for submitter in submitters]
        with closing(checked_in_order(suite.name, pending, round_, max(1, jobs))) as checks:
            for submitter, checked in zip(submitters, checks, strict=True):
                progress.set_description(submitter.name)
                for error in checked.errors:
                    self.stderr.write(error)
                if checked.package is None:
                    failures += 1
                else:
                    try:
                        outcome = suite.import_checked(
                            submitter, checked, round_=round_, publish=publish, published_factors_by=decided_by,
                            official_entries=official_entries_of(official, submitter),
                        )
                    except DecisionRefused as exc:
                        raise CommandError(str(exc), returncode=2) from exc
                    counts = ""
                    if outcome.status != "unchanged":
                        counts = f" ({outcome.results} results, {outcome.runs} runs)" if suite.keeps_runs \
                            else f" ({outcome.results} results)"
                    if outcome.decisions:
                        counts += f"; {outcome.decisions} published scaling factor decision(s) recorded"
                    self.stdout.write(f"{submitter.name}: {outcome.status}{counts}")
                progress.update()
        progress.close()
        if publish:
            publish_round(round_, published_at=_midnight(published_at))
        if failures:
            raise CommandError(f"{failures} submitter folder(s) could not be imported")
