"""MLPerf Automotive: LoadGen results of the automotive models (bevformer, deeplabv3plus, ssd) under
<division>/<submitter>/results/<system>/<model>/<scenario>/, checked by the automotive pipeline
(mlperf_check/automotive/pipeline.py) against a round's rules ("automotive-0.5"). Before inference
in SUITES: the layout is LoadGen's, told apart by the models of an automotive round (its rule table)."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from mlperf_check.inference.detect import subdirs, submitter_roots


class AutomotiveSuite:
    name = "automotive"  # as mlperf_check.automotive.pipeline.NAME
    label = "Automotive"
    output_formats = ("text", "json", "github", "summary-json")
    takes_waivers = False

    def recognizes(self, path: Path) -> bool:
        if path.is_file():
            return _archive_is_automotive(path)
        if not path.is_dir():
            return False
        for _, submitter, _ in submitter_roots(path)[:3]:
            for system in subdirs(submitter / "results"):
                for model in subdirs(system):
                    if _is_automotive(model.name, [s.name for s in subdirs(model)]):
                        return True
        return False

    def rulesets(self) -> tuple[str, ...]:
        from mlperf_check.automotive.rules import rulesets

        return rulesets()

    def ruleset_name(self, text: str) -> str:
        from mlperf_check.automotive.rules import rules_for

        return rules_for(text).ruleset

    def check_package(self, path: Path, *, ruleset=None, jobs=1, bypasses=frozenset(), progress=None):
        from mlperf_check.automotive.pipeline import check_automotive_package

        return check_automotive_package(path, ruleset=ruleset)

    def submitter_folders(self, path: Path) -> list[Path]:
        return [folder for _, folder, rel in submitter_roots(path) if rel] if path.is_dir() else []

    def report_text(self, report) -> str:
        from mlperf_check.automotive.cli import format_report

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
        from mlperf_check.automotive import cli

        return cli.run(path, ruleset=ruleset, output_format=output_format, stdout=stdout, stderr=stderr)


def _is_automotive(model: str, scenarios: list[str]) -> bool:
    """A model folder of some automotive round (its rule table) holding a scenario folder that round
    names. A ConstantStream folder alone is not enough: an inference package with such a folder
    is inference's to report as an unknown scenario, not automotive's to judge."""
    names = {s.lower() for s in scenarios}
    if not names:  # training's ssd/ holds result files, no scenario folder
        return False
    from mlperf_check.automotive.official_rules_data import OFFICIAL_RULES_DATA

    return any(model.lower() in table["models"] and names & set(table["scenario_mapping"])
               for table in OFFICIAL_RULES_DATA.values())


def _archive_is_automotive(path: Path) -> bool:
    """Reads member names until the first results/<system>/<model>/<scenario>/ path says which."""
    from mlperf_check.safety import decided_by_result_paths

    return decided_by_result_paths(path, lambda below: _is_automotive(below[1], [below[2]]) if len(below) >= 4 else None)


AUTOMOTIVE = AutomotiveSuite()
