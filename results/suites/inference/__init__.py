"""MLPerf Inference in the results database: LoadGen results under
<division>/<submitter>/results/<system>/<model>/<scenario>/, checked by the inference pipeline
against a round's rules ("v4.1") and stored by results/services/inference_import.py; a round's
benchmarks are its models. Its results keep no Run rows (a result's LoadGen runs are in
Result.inference)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from mlperf_check.errors import PackageUnreadable
from mlperf_check.inference.discovery import find_submitters, read_system_descriptions
from mlperf_check.inference.rules import rules_for

from ...constants import MetricDirection, Suite
from ...models import Benchmark, Organization, Round, Submission
from ...services.inference_import import InferenceFolder, import_inference_report, write_inference_report
from ...services.versions import ImportOutcome
from ..shared import Checked, CheckerRules, PackageRefused, Submitter

# The days MLCommons published each inference round's results (the press release announcing them;
# v4.1: the day inference_results_v4.1 was published, ../shared/corpus/inference/reference/README.md).
PUBLISHED: dict[str, date] = {
    "0.5": date(2019, 11, 6),
    "0.7": date(2020, 10, 21),
    "1.0": date(2021, 4, 21),
    "1.1": date(2021, 9, 22),
    "2.0": date(2022, 4, 6),
    "2.1": date(2022, 9, 8),
    "3.0": date(2023, 4, 5),
    "3.1": date(2023, 9, 11),
    "4.0": date(2024, 3, 27),
    "4.1": date(2024, 8, 28),
    "5.0": date(2025, 4, 2),
    "5.1": date(2025, 9, 9),
    "6.0": date(2026, 4, 1),
}


class InferenceResults(CheckerRules):
    name = Suite.INFERENCE
    published = PUBLISHED
    keeps_runs = False
    submitter_layout = "<division>/<submitter>/results/ folders"

    def fill_benchmarks(self, round_: Round, ruleset: str) -> int:
        """One Benchmark per model of the round's rules (data)."""
        rules, _note = rules_for(ruleset)
        for model in rules.models.values():
            Benchmark.objects.update_or_create(
                round=round_,
                name=model.name,
                defaults={
                    "area": "inference",
                    "quality_metric": model.accuracy.kind,
                    "metric_direction": MetricDirection.HIGHER,
                    "quality_target": model.accuracy.target,
                    "required_runs": 1,
                    "olympic_drop": 0,
                },
            )
        return len(rules.models)

    def submitters(self, root: Path) -> list[Submitter]:
        """The submitter folders of a round (`closed/`, `open/`), division or submitter folder,
        those of one organization (by slug) together: both divisions are one version."""
        groups: dict[str, list] = {}
        for folder in find_submitters(root):
            groups.setdefault(Submitter((folder.root,)).slug, []).append(folder)
        return [Submitter(tuple(f.root for f in group), tuple(f.division for f in group)) for group in groups.values()]

    def check(self, submitter: Submitter, *, round_: Round, bypasses: frozenset) -> Checked:
        """Each of its folders checked with the round's rules; one that cannot be is left out."""
        folders, errors = [], []
        for root, division in zip(submitter.folders, submitter.divisions, strict=True):
            try:
                report = self.checker.check_package(root, ruleset=round_.version)
            except PackageUnreadable as exc:
                errors.append(f"{root}: {exc}")
                continue
            folders.append(InferenceFolder(division, report, read_system_descriptions(root)))
        return Checked(folders or None, tuple(errors))

    def import_checked(
        self, submitter: Submitter, checked: Checked, *, round_: Round, publish: bool, published_factors_by,
        official_entries: dict[str, str],
    ) -> ImportOutcome:
        return import_inference_report(
            checked.package, round_=round_, submitter=submitter.name, source=submitter.source, publish=publish,
            official_entries=official_entries,
        )

    def check_upload(
        self, root: Path, *, name: str, round_: Round, organization: Organization, bypasses: frozenset, progress
    ) -> Checked:
        """An inference submitter folder, checked with the round's rules."""
        try:
            report = self.checker.check_package(root, ruleset=round_.ruleset_version or round_.version)
        except PackageUnreadable as exc:
            raise PackageRefused(str(exc)) from exc
        return Checked([InferenceFolder("", report, read_system_descriptions(root))])

    def write_checked(
        self, checked: Checked, *, submission: Submission, read_file: Callable[[str], bytes | None]
    ) -> ImportOutcome:
        return write_inference_report(checked.package, submission=submission)


INFERENCE = InferenceResults()
