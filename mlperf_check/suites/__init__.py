"""The suites the checker knows, one module each, and the ordered registry that the command
(`mlperf-check`, `mlperf-check submit`) and the results server ask.

A suite is one object that satisfies CheckerSuite: its name, whether a path holds its layout, its
rulesets, how it checks a package, and how the command checks a path of it. `mlperf-check PATH`
checks PATH with the first suite of SUITES that recognizes it; the last suite takes every path.

Adding a suite: a module here that defines one object satisfying CheckerSuite (importing its
pipeline only inside its methods, so that a check imports no other suite's pipeline), and one line
in SUITES. Suite modules import none of each other (an import-linter contract, pyproject.toml);
what two suites share lives outside them (the training and HPC suites: package_pipeline.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TextIO

from mlperf_check.suites.automotive import AUTOMOTIVE
from mlperf_check.suites.hpc import HPC
from mlperf_check.suites.inference import INFERENCE
from mlperf_check.suites.tiny import TINY
from mlperf_check.suites.training import TRAINING

# progress(stage, done, total): after every result file ("parsing") and every package checker
# ("checking"), for a live status page.
Progress = Callable[[str, int, int], None]
# (system, benchmark, kind): the review's bypass decisions that the checks themselves take
# (mlperf_check.waivers.check_bypasses).
Bypasses = frozenset[tuple[str, str, str]]


class SuiteReport(Protocol):
    """What the report of every suite offers (mlperf_check.report.PackageReport,
    mlperf_check.inference.report.InferenceReport); the rest is the suite's own."""

    @property
    def has_errors(self) -> bool: ...

    def to_json(self) -> dict[str, Any]: ...


class CheckerSuite(Protocol):
    """One MLPerf suite, as the checking core knows it."""

    name: str  # "inference", "hpc", "training": the suite's name in every layer (results.constants.Suite)
    label: str  # how messages name it: "inference", "HPC", "training"
    output_formats: tuple[str, ...]  # the `--format` values its command prints
    takes_waivers: bool  # whether `--waivers FILE` (a results server's decisions) applies to its packages

    def recognizes(self, path: Path) -> bool:
        """Whether `path` (a folder or an archive, which may not exist) holds this suite's layout.
        Reads folder entries or archive member names only: asked of every path the command gets."""

    def rulesets(self) -> tuple[str, ...]:
        """The names of the rulesets (rounds) it has rules for, oldest first."""

    def ruleset_name(self, text: str) -> str:
        """The name in rulesets() of the ruleset `text` names, as a user types it ("1.0",
        "hpc-1.0.0", "v4.1"); mlperf_check.errors.UnknownRules when it has none such."""

    def check_package(
        self,
        path: Path,
        *,
        ruleset: str | None = None,
        jobs: int = 1,
        bypasses: Bypasses = frozenset(),
        progress: Progress | None = None,
    ) -> SuiteReport:
        """Check a submitter folder (or an archive of one) with the suite's pipeline: `ruleset` as
        ruleset_name() takes it (None: the suite tells it from the package). A suite without
        bypasses or stages ignores those. Raises mlperf_check.errors.PackageUnreadable when the
        path cannot be checked at all, UnknownRules for a ruleset it has no rules for."""

    def submitter_folders(self, path: Path) -> list[Path]:
        """The submitter folders of a round (or division) folder, in order; [] when `path` is one
        submitter folder itself, an archive, or holds none."""

    def report_text(self, report: Any) -> str:
        """One of its reports as the command's text format prints it."""

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
        """`mlperf-check PATH` on a path of this suite: the report on `stdout` in `output_format`
        (one of output_formats), usage errors on `stderr`; `waivers` the decisions of a --waivers
        file (None: none given; only for a suite that takes_waivers). Returns the exit status:
        0 no errors, 1 errors, 2 the path cannot be checked."""


SUITES: dict[str, CheckerSuite] = {
    "tiny": TINY,  # results/<system>/<benchmark>/<test>/results.txt: no LoadGen folder of another suite
    "automotive": AUTOMOTIVE,  # before inference: the same LoadGen layout, told by its models and scenarios
    "inference": INFERENCE,
    "hpc": HPC,
    "training": TRAINING,  # the last: takes every path no suite before it recognizes
}


def suite_for(path: Path) -> CheckerSuite:
    """The suite that checks `path`: the first of SUITES that recognizes it."""
    return next(suite for suite in SUITES.values() if suite.recognizes(path))
