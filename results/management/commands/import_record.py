"""Import the public record: one or more results checkouts as MLCommons publishes them
(training_results_v4.0, inference_results_v4.1, hpc_results_v2.0, or the corpus's round folders),
each recognized by its suite and round (results/services/record_import.py does the work).

    python manage.py import_record ../training_results_v4.0 ../inference_results_v4.1 --jobs 4 --publish

Resumable and idempotent: each submitter unit is stored in its own transaction with a progress
row, so an interrupted import continues with the units it had not finished, and a second import
of unchanged folders checks and changes nothing (`--recheck` checks every unit again). A progress
bar on a terminal, a line per unit otherwise; a summary per round at the end (units, results,
verdicts, differences from the published figures, time).
"""

import os
import sys
import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from results.services.factors import DecisionRefused
from results.services.record_import import (
    CheckoutError,
    RoundSummary,
    UnitOutcome,
    import_checkout,
    publication_day,
    recognize_checkout,
    refresh_planner_statistics,
)

STATUSES = ("created", "updated", "unchanged", "skipped", "failed")
SHOWN_DIFFERENCES = 20


class UnitProgress:
    """A progress bar on a terminal; a line per submitter unit otherwise (logs, CI)."""

    def __init__(self, round_slug: str, stdout, stderr):
        self.round_slug, self.stdout, self.stderr = round_slug, stdout, stderr
        self.bar = None
        self.interactive = sys.stderr.isatty()

    def unit_done(self, unit: UnitOutcome, done: int, total: int) -> None:
        if self.interactive:
            if self.bar is None:
                self.bar = tqdm(total=total, unit="submitter", desc=self.round_slug)
            self.bar.set_postfix_str(unit.name)
            self.bar.update()
        else:
            counts = ""
            if unit.results:
                counts = f" ({unit.results} results, {unit.runs} runs)" if unit.runs else f" ({unit.results} results)"
            self.stdout.write(f"{self.round_slug} [{done}/{total}] {unit.name}: {unit.status}{counts}")
        if unit.status != "skipped":  # a skipped unit's errors were shown when it was imported
            for error in unit.errors:
                (tqdm.write if self.interactive else self.stderr.write)(f"  {error}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Command(BaseCommand):
    help = "Import results checkouts (training_results_vX.Y, inference_results_vX.Y, hpc_results_vX.Y), resumably."

    def add_arguments(self, parser):
        parser.add_argument("checkouts", nargs="+", metavar="checkout")
        parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1),
                            help="worker processes checking submitter folders (default: up to 4)")
        parser.add_argument("--publish", action="store_true",
                            help="publish each round on the day MLCommons published it, with its results")
        parser.add_argument("--recheck", action="store_true",
                            help="check every submitter folder again, even those an earlier import finished")
        parser.add_argument("--published-factors", action="store_true",
                            help="record the scaling factors the packages ship as decisions (as import_results; "
                            "needs --chair)")
        parser.add_argument("--chair", help="user name of the chair recording the --published-factors decisions")

    def handle(self, *args, checkouts, jobs, publish, recheck, published_factors, chair, **options):
        decided_by = None
        if published_factors:
            decided_by = get_user_model().objects.filter(username=chair or "").first()
            if decided_by is None:
                raise CommandError("--published-factors records decisions: name an existing chair with --chair",
                                   returncode=2)
        try:  # every checkout recognized (and dated, to be published) before any is imported
            recognized = [recognize_checkout(path) for path in checkouts]
            if publish:
                for checkout in recognized:
                    publication_day(checkout)
        except CheckoutError as exc:
            raise CommandError(str(exc), returncode=2) from exc

        started = time.monotonic()
        summaries = []
        for checkout in recognized:
            progress = UnitProgress(checkout.round_slug, self.stdout, self.stderr)
            try:
                summaries.append(import_checkout(checkout, jobs=max(1, jobs), publish=publish,
                                                 published_factors_by=decided_by, recheck=recheck,
                                                 on_unit=progress.unit_done))
            except (CheckoutError, DecisionRefused) as exc:
                raise CommandError(str(exc), returncode=2) from exc
            finally:
                progress.close()
        refresh_planner_statistics()
        for summary in summaries:
            self._summarize(summary)
        failed = sum(unit.failed for summary in summaries for unit in summary.units)
        rounds = {summary.round_.pk: summary.results for summary in summaries}  # a round's last count is its total
        self.stdout.write(f"{sum(rounds.values())} results in {len(rounds)} round(s) from {len(summaries)} "
                          f"checkout(s), {time.monotonic() - started:.1f} s")
        if failed:
            raise CommandError(f"{failed} submitter folder(s) could not be imported (see above)")

    def _summarize(self, summary: RoundSummary) -> None:
        units = ", ".join(f"{summary.count(status)} {status}" for status in STATUSES if summary.count(status))
        failed_earlier = sum(unit.status == "skipped" and unit.failed for unit in summary.units)
        if failed_earlier:
            units += f" ({failed_earlier} of them failed when first imported)"
        self.stdout.write(
            f"{summary.round_.slug} from {summary.checkout.path}: {len(summary.units)} submitter folder(s): {units}; "
            f"{summary.results} results, official verdict {summary.official_valid} valid and "
            f"{summary.official_invalid} invalid (ours: {summary.valid} valid); {summary.seconds:.1f} s"
        )
        if not summary.checkout.ids:
            self.stdout.write("  official ids: none published in the checkout (numbered here, marked local)")
        elif not summary.published_figures:
            self.stdout.write(f"  official ids from {summary.checkout.ids} (an id mapping: no published figures)")
        else:
            differ = len(summary.differences)
            self.stdout.write(f"  published figures ({summary.checkout.ids}): {summary.published_figures} compared, "
                              f"{differ} differ from those stored")
            for line in summary.differences[:SHOWN_DIFFERENCES]:
                self.stdout.write(f"    {line}")
            if differ > SHOWN_DIFFERENCES:
                self.stdout.write(f"    ... and {differ - SHOWN_DIFFERENCES} more")
