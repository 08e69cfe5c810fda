"""MLPerf Tiny in the results database: the benchmark runner's results under
<division>/<submitter>/results/<system>/<benchmark>/, checked by the Tiny pipeline against a
round's rules ("tiny-1.3") and stored by results/services/tiny_import.py; a round's benchmarks are
its five (ad, ic, kws, vww, sww). Its results keep no Run rows (a result's windows are in its
figures)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path

from mlperf_check.errors import PackageUnreadable
from mlperf_check.tiny.detect import submitter_roots
from mlperf_check.tiny.rules import ACCURACY_NAMES, rules_for

from ...constants import MetricDirection, Suite
from ...models import Benchmark, Organization, Round, Submission
from ...services.tiny_import import TinyFolders, import_tiny_report, write_tiny_report
from ...services.versions import ImportOutcome
from ..shared import Checked, CheckerRules, PackageRefused, Submitter

# The days MLCommons published each Tiny round's results (v1.3: the results repository's
# "Commit results" of 2025-09-15, ../shared/corpus/tiny/MANIFEST.md).
PUBLISHED: dict[str, date] = {
    "1.3": date(2025, 9, 15),
}
# What each benchmark is (the Tiny benchmark suite's own words).
TASKS = {
    "ad": ("anomaly detection", "Deep AutoEncoder", "ToyADMOS"),
    "ic": ("image classification", "ResNet-8", "CIFAR-10"),
    "kws": ("keyword spotting", "DS-CNN", "Speech Commands"),
    "vww": ("visual wake words", "MobileNetV1 0.25x", "Visual Wake Words"),
    "sww": ("streaming wakeword", "1D DS-CNN", "Speech Commands + MUSAN"),
}


def read_systems(folder: Path) -> dict[str, dict]:
    """systems/<id>.json of a submitter folder (one that cannot be read: left out; the check says why)."""
    systems = {}
    for path in sorted((folder / "systems").glob("*.json")):
        try:
            document = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(document, dict):
            systems[path.stem] = document
    return systems


class TinyResults(CheckerRules):
    name = Suite.TINY
    published = PUBLISHED
    keeps_runs = False
    submitter_layout = "<division>/<submitter>/results/ folders"

    def fill_benchmarks(self, round_: Round, ruleset: str) -> int:
        """One Benchmark per benchmark of the round's rules: ranked by median throughput."""
        rules = rules_for(ruleset)
        for model in rules.models:
            task, network, dataset = TASKS.get(model, ("", "", ""))
            target = rules.accuracy_target(model)
            Benchmark.objects.update_or_create(
                round=round_,
                name=model,
                defaults={
                    "area": task,
                    "model": network,
                    "dataset": dataset,
                    "quality_metric": ACCURACY_NAMES[rules.accuracy_kind(model)],
                    "metric_direction": MetricDirection.HIGHER,
                    "quality_target": target if isinstance(target, int | float) else None,
                    "quality_rule": (f"at most {target[0]} false positives and {target[1]} false negatives"
                                     if isinstance(target, list) else f"at least {target}"),
                    "required_runs": 1,
                    "olympic_drop": 0,
                },
            )
        return len(rules.models)

    def submitters(self, root: Path) -> list[Submitter]:
        """Each organization's folders (closed/, open/) together: both divisions are one version."""
        groups: dict[str, list[tuple[str, Path]]] = {}
        for division, folder in submitter_roots(root):
            groups.setdefault(Submitter((folder,)).slug, []).append((division, folder))
        return [Submitter(tuple(f for _, f in group), tuple(d for d, _ in group)) for group in groups.values()]

    def check(self, submitter: Submitter, *, round_: Round, bypasses: frozenset) -> Checked:
        reports, errors, systems = [], [], {}
        for folder in submitter.folders:
            try:
                reports.append(self.checker.check_package(folder, ruleset=round_.ruleset_version or round_.version))
            except PackageUnreadable as exc:
                errors.append(f"{folder}: {exc}")
                continue
            systems.update(read_systems(folder))
        return Checked(TinyFolders(reports, systems) if reports else None, tuple(errors))

    def import_checked(
        self, submitter: Submitter, checked: Checked, *, round_: Round, publish: bool, published_factors_by,
        official_entries: dict[str, str],
    ) -> ImportOutcome:
        return import_tiny_report(checked.package, round_=round_, submitter=submitter.name,
                                  source=submitter.source, publish=publish)

    def check_upload(
        self, root: Path, *, name: str, round_: Round, organization: Organization, bypasses: frozenset, progress
    ) -> Checked:
        """A Tiny submitter folder (or a division or round folder holding one), checked with the round's rules."""
        if not self.checker.recognizes(root):
            raise PackageRefused(f"{name} holds no MLPerf Tiny results (<submitter>/results/<system>/<benchmark>/"
                                 "{accuracy,performance,energy}/results.txt)")
        try:
            report = self.checker.check_package(root, ruleset=round_.ruleset_version or round_.version)
        except PackageUnreadable as exc:
            raise PackageRefused(str(exc)) from exc
        systems = {}
        for _, folder in submitter_roots(root):
            systems.update(read_systems(folder))
        return Checked(TinyFolders([report], systems))

    def write_checked(
        self, checked: Checked, *, submission: Submission, read_file: Callable[[str], bytes | None]
    ) -> ImportOutcome:
        return write_tiny_report(checked.package, submission=submission)


TINY = TinyResults()
