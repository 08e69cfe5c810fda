"""MLPerf Training: results/<system>/<benchmark>/result_*.txt (v0.5: an entry folder per
system), checked by the package pipeline against a training ruleset ("1.0.0"). The last suite of
the registry: it takes every path no other suite recognizes."""

from __future__ import annotations

from pathlib import Path

from mlperf_check.suites.package_pipeline import PackagePipelineSuite


class TrainingSuite(PackagePipelineSuite):
    name = "training"
    label = "training"

    def recognizes(self, path: Path) -> bool:
        return True  # the default suite (mlperf_check.suites.SUITES): what no other suite takes

    def rulesets(self) -> tuple[str, ...]:
        from mlperf_check.rules.catalog import known_rulesets

        return known_rulesets()

    def ruleset_name(self, text: str) -> str:
        from mlperf_check.rules.catalog import UnknownRuleset, get_ruleset

        spec = get_ruleset(text)
        if spec.is_hpc:
            raise UnknownRuleset(f"{text} is an HPC ruleset; training rulesets: {', '.join(self.rulesets())}")
        return spec.version


TRAINING = TrainingSuite()
