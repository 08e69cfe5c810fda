"""MLPerf Tiny: the benchmark runner's results under <division>/<submitter>/results/<system>/
<benchmark>/{accuracy,performance,energy}/results.txt (no LoadGen, no scenarios), checked by the
Tiny pipeline (mlperf_check/tiny/pipeline.py) against a round's rules ("tiny-1.3")."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from mlperf_check.tiny.detect import looks_like_tiny, submitter_roots


class TinySuite:
    name = "tiny"
    label = "Tiny"
    # text and json (github prints the text); the round's published tables: summary-csv (the
    # official checker's --csv), final-report-csv (generate_final_report.py's closed sheet).
    output_formats = ("text", "json", "github", "summary-csv", "final-report-csv")
    takes_waivers = False

    def recognizes(self, path: Path) -> bool:
        return looks_like_tiny(path)

    def rulesets(self) -> tuple[str, ...]:
        from mlperf_check.tiny.rules import PREFIX, rounds

        return tuple(PREFIX + version for version in rounds())

    def ruleset_name(self, text: str) -> str:
        from mlperf_check.tiny.rules import rules_for

        return rules_for(text).name

    def check_package(self, path: Path, *, ruleset=None, jobs=1, bypasses=frozenset(), progress=None):
        from mlperf_check.tiny.pipeline import check_tiny_package

        return check_tiny_package(path, ruleset=ruleset)

    def submitter_folders(self, path: Path) -> list[Path]:
        if not path.is_dir() or (path / "results").is_dir():
            return []
        return [folder for _, folder in submitter_roots(path)]

    def report_text(self, report) -> str:
        from mlperf_check.tiny.cli import format_report

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
        from mlperf_check.tiny import cli

        return cli.run(path, ruleset=ruleset, output_format=output_format, stdout=stdout, stderr=stderr)


TINY = TinySuite()
