"""What the training and MLPerf HPC suites share: their packages are checked by the checker's
package pipeline (mlperf_check/suites/package_pipeline.py) into one PackageReport, stored by
results/services/training_import.py (HPC scores: hpc_import.py), and their rounds take the
benchmarks of the ruleset catalog. Not a suite: training/ and hpc/ say what differs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from mlperf_check.errors import PackageUnreadable
from mlperf_check.package import looks_like_submitter_folder
from mlperf_check.rules import catalog
from mlperf_check.rules.display import closed_hyperparameter_rules
from mlperf_check.rules.facts import is_hpc

from ..constants import MetricDirection
from ..models import Benchmark, Organization, Round, Submission
from ..services.training_import import import_report, write_report
from ..services.versions import ImportOutcome
from .shared import Checked, CheckerRules, PackageRefused, Submitter

# What a package is, by the ruleset the pipeline checked it against (is_hpc): the refusal of a
# package uploaded to a round of the other suite says it.
PACKAGE_LAYOUTS = {
    False: "a training package (results/<system>/<benchmark>/)",
    True: "an MLPerf HPC package (results/<system>/{strong,weak}/<benchmark>/)",
}


class PackagePipelineSuite(CheckerRules):
    """The results side of a suite whose packages the package pipeline checks."""

    name: str
    published: dict[str, date]
    hpc_packages: bool  # whether its packages are MLPerf HPC ones (is_hpc of their ruleset)
    keeps_runs = True
    submitter_layout = "submitter folders (systems/ and results/)"

    def fill_benchmarks(self, round_: Round, ruleset: str) -> int:
        """One Benchmark per benchmark of the catalog's ruleset."""
        spec = catalog.get_ruleset(ruleset)
        for bench in spec.benchmarks.values():
            Benchmark.objects.update_or_create(
                round=round_,
                name=bench.name,
                defaults={
                    "area": bench.area,
                    "model": bench.model,
                    "dataset": bench.dataset,
                    "quality_metric": bench.metric,
                    "metric_direction": MetricDirection(bench.direction),
                    "quality_target": bench.target,
                    "quality_targets": bench.targets,
                    "quality_rule": bench.quality_rule,
                    "closed_hyperparameter_rules": closed_hyperparameter_rules(spec.version, bench.name)
                    if spec.config_dir
                    else [],
                    "required_runs": bench.required_runs,
                    "olympic_drop": bench.olympic_drop,
                    "init_time_limit_closed_s": spec.init_limit_closed_s,
                    "init_time_limit_open_s": spec.init_limit_open_s,
                },
            )
        return len(spec.benchmarks)

    def submitters(self, root: Path) -> list[Submitter]:
        """`root` itself when it is a submitter folder, else its submitter folders in name order."""
        folders = [root] if looks_like_submitter_folder(root) else self.checker.submitter_folders(root)
        return [Submitter((folder,)) for folder in folders]

    def check(self, submitter: Submitter, *, round_: Round, bypasses: frozenset) -> Checked:
        (folder,) = submitter.folders
        try:
            return Checked(self.checker.check_package(folder, ruleset=round_.ruleset_version, bypasses=bypasses))
        except PackageUnreadable as exc:
            return Checked(None, (f"{folder}: {exc}",))

    def import_checked(
        self, submitter: Submitter, checked: Checked, *, round_: Round, publish: bool, published_factors_by,
        official_entries: dict[str, str],
    ) -> ImportOutcome:
        (folder,) = submitter.folders
        return import_report(
            checked.package,
            round_=round_,
            source=submitter.source,
            publish=publish,
            store_logs=lambda run: (folder / run.file).read_bytes(),
            published_factors_by=published_factors_by,
            official_entries=official_entries,
        )

    def check_upload(
        self, root: Path, *, name: str, round_: Round, organization: Organization, bypasses: frozenset, progress
    ) -> Checked:
        """The package checked with the round's ruleset (the package's own when the round names
        none) and the uploading organization's name; PackageRefused when it cannot be checked, is
        the other suite's, or holds no benchmark of the round."""
        from mlperf_check.checkers.uploader import check_uploader

        try:
            report = self.checker.check_package(
                root, ruleset=round_.ruleset_version or None, bypasses=bypasses, progress=progress
            )
        except PackageUnreadable as exc:
            raise PackageRefused(str(exc)) from exc
        if is_hpc(report.ruleset) != self.hpc_packages:
            # The checker reads a bare round version as the HPC ruleset of an HPC package: the
            # round's suite, not the package, says what may be stored in it.
            raise PackageRefused(f"{name} is {PACKAGE_LAYOUTS[is_hpc(report.ruleset)]}; {round_.slug} is a "
                                 f"{round_.get_suite_display()} round: upload it to a round of its suite")
        refuse_unmatched_benchmarks(round_, report)
        check_uploader(report, organization.name, [organization.slug, *organization.aliases])
        return Checked(report)

    def write_checked(
        self, checked: Checked, *, submission: Submission, read_file: Callable[[str], bytes | None]
    ) -> ImportOutcome:
        return write_report(checked.package, submission=submission, store_logs=lambda run: read_file(run.file))


def refuse_unmatched_benchmarks(round_: Round, report) -> None:
    """A package is never stored silently emptied: PackageRefused when none of its result folders
    is a benchmark of the round, or when a benchmark of the round's ruleset is missing from the
    round (a round whose benchmarks were never filled). A folder the ruleset does not know keeps
    its layout finding."""
    in_package = sorted({result.benchmark for result in report.results})
    in_round = set(round_.benchmarks.values_list("name", flat=True))
    if not in_package:
        return
    try:
        ruleset = set(catalog.get_ruleset(round_.ruleset_version or round_.version).benchmarks)
    except catalog.UnknownRuleset:
        ruleset = set()
    missing = [name for name in in_package if name not in in_round and (name in ruleset or not in_round)]
    if missing or not in_round.intersection(in_package):
        known = ", ".join(sorted(in_round)) or "none (a chair sets its ruleset first)"
        raise PackageRefused(
            f"{round_} has no benchmark {', '.join(missing or in_package)} (its benchmarks: {known}); "
            "nothing of this package was stored"
        )
