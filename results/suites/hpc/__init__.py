"""MLPerf HPC in the results database: packages of results/<system>/{strong,weak}/<benchmark>/
result files, checked by the package pipeline against an HPC ruleset ("hpc-1.0.0"; a bare
version names the HPC ruleset of that round) and stored as training ones, with `Result.scaling`
in their identity and weak scaling's own figures (results/services/hpc_import.py)."""

from mlperf_check.rules import catalog

from ...constants import Suite
from ..package_pipeline import PackagePipelineSuite


class HpcResults(PackagePipelineSuite):
    name = Suite.HPC
    published = catalog.HPC_ROUND_PUBLISHED
    hpc_packages = True

    def claims(self, text: str) -> bool:
        # Any name spelled as an HPC ruleset is this suite's, known or not ("hpc-9.0.0").
        return text in self.rulesets() or text.lower().startswith("hpc")


HPC = HpcResults()
