"""Import a whole round (`<round>/<submitter>/...`) or one submitter folder into the database.

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
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, date, datetime
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify
from tqdm import tqdm

from mlperf_check.inference import InferencePackageError, check_inference_package
from mlperf_check.inference.discovery import find_submitters, read_system_descriptions
from mlperf_check.package import looks_like_submitter_folder
from mlperf_check.pipeline import PackageError, check_package
from results.constants import Suite
from results.querysets import RoundSlugError
from results.services.citable import IdMappingError, read_id_mapping
from results.services.factors import DecisionRefused
from results.services.inference_import import InferenceFolder, import_inference_report
from results.services.rounds import ensure_round, publication_date, publish_round
from results.services.training_import import import_report, waivers_for


def _check(folder: str, ruleset: str, waivers: frozenset):
    try:
        return folder, check_package(folder, ruleset=ruleset, waivers=waivers), ""
    except PackageError as exc:
        return folder, None, str(exc)


def _midnight(day: date | None) -> datetime | None:
    return datetime(day.year, day.month, day.day, tzinfo=UTC) if day else None


def _entries_of(official: dict[tuple[str, str], str], *submitters: str) -> dict[str, str]:
    """The official entries of one submitter's systems, by system id."""
    return {system_id: entry for (submitter, system_id), entry in official.items() if submitter in submitters}


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
        except (RoundSlugError, ValueError) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        published_at = published_at or publication_date(round_)
        if publish and published_at is None:
            raise CommandError(f"{round_.slug}: no known publication date: give it with --published-at YYYY-MM-DD",
                               returncode=2)
        if round_.suite == Suite.INFERENCE:
            return self._import_inference(root, round_, publish, published_at, official)
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
                    try:
                        outcome = import_report(
                            report,
                            round_=round_,
                            source=str(base.resolve()),
                            publish=publish,
                            store_logs=lambda run, base=base: (base / run.file).read_bytes(),
                            published_factors_by=decided_by,
                            official_entries=_entries_of(official, base.name),
                        )
                    except DecisionRefused as exc:
                        raise CommandError(str(exc), returncode=2) from exc
                    counts = f" ({outcome.results} results, {outcome.runs} runs)" if outcome.status != "unchanged" else ""
                    if outcome.decisions:
                        counts += f"; {outcome.decisions} published scaling factor decision(s) recorded"
                    self.stdout.write(f"{report.submitter}: {outcome.status}{counts}")
                progress.update()
        progress.close()
        if publish:
            publish_round(round_, published_at=_midnight(published_at))
        if failures:
            raise CommandError(f"{failures} submitter folder(s) could not be imported")

    def _import_inference(self, root: Path, round_, publish: bool, published_at: date | None, official: dict) -> None:
        """An inference round (`closed/`, `open/`), division or submitter folder: each submitter's
        folders (both divisions) checked with the round's rules and stored in one transaction."""
        submitters = find_submitters(root)
        if not submitters:
            raise CommandError(f"{root}: no <division>/<submitter>/results/ folders found", returncode=2)
        by_organization: dict[str, list] = {}
        for submitter in submitters:
            by_organization.setdefault(slugify(submitter.name), []).append(submitter)
        for group in by_organization.values():
            folders = []
            for submitter in group:
                try:
                    report = check_inference_package(submitter.root, round_version=round_.version)
                except InferencePackageError as exc:
                    self.stderr.write(f"{submitter.root}: {exc}")
                    continue
                systems = read_system_descriptions(submitter.root)
                folders.append(InferenceFolder(submitter.division, report, systems))
            if not folders:
                continue
            outcome = import_inference_report(
                folders,
                round_=round_,
                submitter=group[0].name,
                source=", ".join(str(s.root.resolve()) for s in group),
                publish=publish,
                official_entries=_entries_of(official, *(s.name for s in group)),
            )
            counts = f" ({outcome.results} results)" if outcome.status != "unchanged" else ""
            self.stdout.write(f"{group[0].name}: {outcome.status}{counts}")
        if publish:
            publish_round(round_, published_at=_midnight(published_at))
