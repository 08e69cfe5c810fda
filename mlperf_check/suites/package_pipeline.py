"""What the training and MLPerf HPC suites share: both are checked by the package pipeline
(mlperf_check/pipeline.py; its layout step tells an HPC package from a training one) and its
command (mlperf_check/training_cli.py). Not a suite: the two suites differ in the layout they
recognize and the rulesets they take (training.py, hpc.py). The pipeline is imported only when a
package of theirs is checked."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

# The formats the package pipeline's command prints (mlperf_check.output.FORMATS).
PACKAGE_FORMATS = ("text", "json", "github")


class PackagePipelineSuite:
    output_formats = PACKAGE_FORMATS
    takes_waivers = True

    def check_package(self, path: Path, *, ruleset=None, jobs=1, bypasses=frozenset(), progress=None):
        from mlperf_check.pipeline import check_package

        return check_package(path, ruleset=ruleset, jobs=jobs, waivers=bypasses, progress=progress)

    def submitter_folders(self, path: Path) -> list[Path]:
        from mlperf_check.pipeline import submitter_folders

        return submitter_folders(path) if path.is_dir() else []

    def report_text(self, report) -> str:
        from mlperf_check.output import format_text

        return format_text(report)

    def run_command(
        self,
        path: str,
        *,
        ruleset: str | None,
        output_format: str,
        jobs: int,
        waivers: list | None,
        stdout: TextIO,
        stderr: TextIO,
    ) -> int:
        from mlperf_check import training_cli

        return training_cli.run(
            path,
            ruleset=ruleset,
            output_format=output_format,
            jobs=jobs,
            waivers=waivers,
            stdout=stdout,
            stderr=stderr,
        )
