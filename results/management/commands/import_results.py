"""Import a whole round (`<round>/<submitter>/...`) or one submitter folder into the database.

Idempotent: importing the same files twice changes nothing; changed files make a new version
of the submission (result ids are kept; earlier versions are never rewritten). Each submitter is imported in its own transaction.
Packages are checked in parallel worker processes; rows are written by this process.
"""

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify
from tqdm import tqdm

from mlperf_check.package import looks_like_submitter_folder
from mlperf_check.pipeline import PackageError, check_package
from results.querysets import RoundSlugError
from results.services import ensure_round, import_report, publish_round, waivers_for


def _check(folder: str, ruleset: str, waivers: frozenset):
    try:
        return folder, check_package(folder, ruleset=ruleset, waivers=waivers), ""
    except PackageError as exc:
        return folder, None, str(exc)


class Command(BaseCommand):
    help = "Import MLPerf results: a round folder of submitter folders, or one submitter folder."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--round", required=True, help="e.g. training-v1.0")
        parser.add_argument("--publish", action="store_true", help="publish the round and the imported results")
        parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))

    def handle(self, *args, path, round, publish, jobs, **options):
        root = Path(path)
        if not root.is_dir():
            raise CommandError(f"{path}: not a folder", returncode=2)
        try:
            round_ = ensure_round(round)
        except (RoundSlugError, ValueError) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        if looks_like_submitter_folder(root):
            folders = [root]
        else:
            folders = sorted(p for p in root.iterdir() if p.is_dir() and looks_like_submitter_folder(p))
        if not folders:
            raise CommandError(f"{path}: no submitter folders (systems/ and results/) found", returncode=2)

        failures = 0
        ruleset = round_.ruleset_version
        progress = tqdm(total=len(folders), unit="submitter", disable=not sys.stderr.isatty())
        with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [
                pool.submit(_check, str(folder), ruleset, waivers_for(round_, slugify(folder.name)))
                for folder in folders
            ]
            for future in futures:
                folder, report, error = future.result()
                progress.set_description(Path(folder).name)
                if report is None:
                    failures += 1
                    self.stderr.write(f"{folder}: {error}")
                else:
                    base = Path(folder)
                    outcome = import_report(
                        report,
                        round_=round_,
                        source=str(base.resolve()),
                        publish=publish,
                        store_logs=lambda run, base=base: (base / run.file).read_bytes(),
                    )
                    counts = f" ({outcome.results} results, {outcome.runs} runs)" if outcome.status != "unchanged" else ""
                    self.stdout.write(f"{report.submitter}: {outcome.status}{counts}")
                progress.update()
        progress.close()
        if publish:
            publish_round(round_)
        if failures:
            raise CommandError(f"{failures} submitter folder(s) could not be imported")
