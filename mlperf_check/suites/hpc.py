"""MLPerf HPC: results/<system>/{strong,weak}/<benchmark>/result_*.txt, checked by the package
pipeline (as training packages are) against an HPC ruleset ("hpc-1.0.0"; a bare version names
the HPC ruleset of that round)."""

from __future__ import annotations

from pathlib import Path

from mlperf_check.suites.package_pipeline import PackagePipelineSuite


class HpcSuite(PackagePipelineSuite):
    name = "hpc"
    label = "HPC"

    def recognizes(self, path: Path) -> bool:
        """A submitter folder with a results/<system>/strong or /weak folder, a round folder that
        holds such a submitter folder, or an archive whose first result file sits in one."""
        from mlperf_check.package import is_hpc_package, looks_like_submitter_folder

        if path.is_file():
            return _archive_is_hpc(path)
        if not path.is_dir():
            return False
        if looks_like_submitter_folder(path):
            return is_hpc_package(path)
        try:
            children = sorted(path.iterdir())
        except OSError:
            return False  # the package pipeline says why it cannot read the folder
        return any(looks_like_submitter_folder(child) and is_hpc_package(child) for child in children)

    def rulesets(self) -> tuple[str, ...]:
        from mlperf_check.rules.catalog import known_hpc_rulesets

        return known_hpc_rulesets()

    def ruleset_name(self, text: str) -> str:
        from mlperf_check.rules.catalog import get_ruleset
        from mlperf_check.rules.facts import HPC_PREFIX

        text = text.strip()
        return get_ruleset(text if text.lower().startswith("hpc") else HPC_PREFIX + text).version


def _archive_is_hpc(path: Path) -> bool:
    """Reads member names until the first result file says which layout: results/<system>/
    <strong|weak>/<benchmark>/result_* (HPC) or results/<system>/<benchmark>/result_*."""
    from mlperf_check.package import HPC_SCALINGS
    from mlperf_check.safety import decided_by_result_paths

    def decide(below: list[str]) -> bool | None:
        if not below or not below[-1].startswith("result_"):
            return None
        return len(below) == 4 and below[1] in HPC_SCALINGS

    return decided_by_result_paths(path, decide)


HPC = HpcSuite()
