"""MLPerf Inference: LoadGen logs under results/<system>/<model>/<scenario>/ of a submitter
folder, a division or a round folder (closed/, open/, network/), checked by the inference pipeline
(mlperf_check/inference/pipeline.py) against a round's rules ("v4.1")."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from mlperf_check.inference.detect import looks_like_inference, submitter_roots


class InferenceSuite:
    name = "inference"
    label = "inference"
    # text and json; github prints the text; summary-json / summary-csv: MLCommons' summary_results shape.
    output_formats = ("text", "json", "github", "summary-json", "summary-csv")
    takes_waivers = False

    def recognizes(self, path: Path) -> bool:
        return path.exists() and looks_like_inference(path)

    def rulesets(self) -> tuple[str, ...]:
        from mlperf_check.inference.rules import ROUNDS
        from mlperf_check.rules.facts import version_key

        return tuple(sorted(ROUNDS, key=version_key))

    def ruleset_name(self, text: str) -> str:
        from mlperf_check.inference.rules import rules_for

        return rules_for(text)[0].version

    def check_package(self, path: Path, *, ruleset=None, jobs=1, bypasses=frozenset(), progress=None):
        from mlperf_check.inference.pipeline import check_inference_package

        return check_inference_package(path, round_version=ruleset)

    def submitter_folders(self, path: Path) -> list[Path]:
        return [folder for _, folder, rel in submitter_roots(path) if rel] if path.is_dir() else []

    def report_text(self, report) -> str:
        from mlperf_check.inference.cli import format_report

        return format_report(report)

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
        from mlperf_check.inference import cli

        return cli.run(path, round_version=ruleset, output_format=output_format, stdout=stdout, stderr=stderr)


INFERENCE = InferenceSuite()
