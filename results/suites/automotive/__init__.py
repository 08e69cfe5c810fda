"""MLPerf Automotive in the results database: LoadGen results under
<division>/<submitter>/results/<system>/<model>/<scenario>/ (SingleStream, ConstantStream), checked
by the automotive pipeline (mlperf_check/automotive/) against a round's rules ("automotive-0.5")
and stored as inference results are (results/services/inference_import.py: the same LoadGen
figures, the round's own model names); a round's benchmarks are its models, each figure a latency
in ms, lower is better. Its results keep no Run rows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from mlperf_check.automotive.rules import rules_for
from mlperf_check.errors import PackageUnreadable
from mlperf_check.inference.detect import submitter_roots
from mlperf_check.inference.discovery import read_system_descriptions

from ...constants import MetricDirection, Suite
from ...models import Benchmark, Organization, Round, Submission
from ...services.inference_import import InferenceFolder, import_inference_report, write_inference_report
from ...services.versions import ImportOutcome
from ..shared import Checked, CheckerRules, PackageRefused, Submitter

# The day MLCommons published each round's results (v0.5: the results commit of
# automotive_results_v0.5 and its summary_results.json, ../shared/corpus/automotive/MANIFEST.md).
PUBLISHED: dict[str, date] = {"0.5": date(2025, 8, 25)}


class AutomotiveResults(CheckerRules):
    name = Suite.AUTOMOTIVE
    published = PUBLISHED
    keeps_runs = False
    submitter_layout = "<division>/<submitter>/results/ folders"

    def fill_benchmarks(self, round_: Round, ruleset: str) -> int:
        """One Benchmark per model of the round's rules (data): its accuracy target, its figure a
        latency (lower is better)."""
        table = rules_for(ruleset).table
        for model in table["models"]:
            kind, target = table["accuracy_targets"][model]
            Benchmark.objects.update_or_create(
                round=round_,
                name=model,
                defaults={
                    "area": "automotive",
                    "quality_metric": kind,
                    "metric_direction": MetricDirection.LOWER,
                    "quality_target": target,
                    "required_runs": 1,
                    "olympic_drop": 0,
                },
            )
        return len(table["models"])

    def submitters(self, root: Path) -> list[Submitter]:
        """The submitter folders of a round, division or submitter folder, those of one
        organization (by slug) together: its divisions are one version."""
        groups: dict[str, list[tuple[Path, str]]] = {}
        for division, folder, _ in submitter_roots(root):
            if (folder / "results").is_dir():
                groups.setdefault(Submitter((folder,)).slug, []).append((folder, division))
        return [Submitter(tuple(f for f, _ in group), tuple(d for _, d in group)) for group in groups.values()]

    def check(self, submitter: Submitter, *, round_: Round, bypasses: frozenset) -> Checked:
        """Each of its folders checked with the round's rules; one that cannot be is left out."""
        folders, errors = [], []
        for root, division in zip(submitter.folders, submitter.divisions, strict=True):
            try:
                report = self.checker.check_package(root, ruleset=round_.ruleset_version or round_.version)
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
            official_entries=official_entries, aliases=self._aliases(round_),
        )

    def check_upload(
        self, root: Path, *, name: str, round_: Round, organization: Organization, bypasses: frozenset, progress
    ) -> Checked:
        """An automotive submitter folder, checked with the round's rules."""
        try:
            report = self.checker.check_package(root, ruleset=round_.ruleset_version or round_.version)
        except PackageUnreadable as exc:
            raise PackageRefused(str(exc)) from exc
        if not report.results:
            raise PackageRefused(f"{name}: no results/<system>/<model>/<scenario>/ folder of an automotive model")
        return Checked([InferenceFolder("", report, read_system_descriptions(root))])

    def write_checked(
        self, checked: Checked, *, submission: Submission, read_file: Callable[[str], bytes | None]
    ) -> ImportOutcome:
        return write_inference_report(checked.package, submission=submission, aliases=self._aliases(submission.round))

    def _aliases(self, round_: Round) -> dict[str, str]:
        """The round's own folder names of its models ("BEVFORMER" -> "bevformer")."""
        return rules_for(round_.ruleset_version or round_.version).table["model_mapping"]


AUTOMOTIVE = AutomotiveResults()
