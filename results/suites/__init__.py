"""The suites the results database holds, one package each, registered in SUITES by their
`Suite` value (results/constants.py): what the round services (results/services/rounds.py),
`import_results` and ingestion (ingest/services.py) ask of a round's suite, so that none of them
tests which suite it is.

A suite is one object satisfying ResultsSuite: the rulesets its rounds take and the benchmarks a
ruleset gives a round, the days MLCommons published its rounds, the submitters of a folder given
to import_results, how a package is checked (through its checker suite, mlperf_check/suites/)
and how a checked package is stored as a submission version (the version machinery of
results/services/versions.py and lifecycle.py, which every suite shares).

Adding a suite: a package here holding one object that satisfies ResultsSuite, and one line in
SUITES. Suite packages import none of each other (an import-linter contract, pyproject.toml);
what two suites share lives beside them (package_pipeline.py: training and HPC; shared.py: what
every suite shares).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Protocol

from ..constants import Suite
from ..models import Organization, Round, Submission
from ..services.versions import ImportOutcome
from .automotive import AUTOMOTIVE
from .hpc import HPC
from .inference import INFERENCE
from .shared import Checked, PackageRefused, Submitter
from .tiny import TINY
from .training import TRAINING

__all__ = ["SUITES", "Checked", "PackageRefused", "ResultsSuite", "Submitter", "of"]


class ResultsSuite(Protocol):
    """One MLPerf suite, as the results database stores it."""

    name: str  # its Suite value: "training", "inference", "hpc" (the checker's suite of that name checks it)
    published: Mapping[str, date]  # round version -> the day MLCommons published that round's results
    # Whether its results are made of Run rows, each benchmark training a model to a quality target
    # in several runs (training, HPC), or are each one run of a model against an accuracy target
    # (inference): import_results counts the runs, a chair's round page shows models and runs.
    keeps_runs: bool
    submitter_layout: str  # what import_results looks for in a folder ("submitter folders (systems/ and results/)")

    def rulesets(self) -> tuple[str, ...]:
        """The names of the rulesets its rounds may take, oldest first."""

    def ruleset_name(self, text: str) -> str:
        """The name in rulesets() that `text` names as a chair types it ("2.0", "v5.0");
        mlperf_check.errors.UnknownRules when it names none."""

    def claims(self, text: str) -> bool:
        """Whether `text` is spelled as one of its rulesets: what tells a chair who typed another
        suite's ruleset which suite it is."""

    def fill_benchmarks(self, round_: Round, ruleset: str) -> int:
        """Create or update the round's benchmarks from the ruleset; returns how many."""

    def submitters(self, root: Path) -> list[Submitter]:
        """The submitters of a round, division or submitter folder, in order; [] when none."""

    def check(self, submitter: Submitter, *, round_: Round, bypasses: frozenset) -> Checked:
        """Check a submitter's folders with the round's rules and the review's bypass decisions.
        Reads no database: import_results runs it in worker processes."""

    def import_checked(
        self, submitter: Submitter, checked: Checked, *, round_: Round, publish: bool, published_factors_by,
        official_entries: dict[str, str],
    ) -> ImportOutcome:
        """Store a checked submitter as a new version of its submission (unless its newest holds
        the same content). `published_factors_by`: the chair recording the package's shipped scaling
        factors as decisions (import_results --published-factors; suites without factors ignore it)."""

    def check_upload(
        self, root: Path, *, name: str, round_: Round, organization: Organization, bypasses: frozenset,
        progress: Callable[[str, int, int], None] | None,
    ) -> Checked:
        """Check an uploaded package (extracted at `root`, uploaded as `name`) for the round and
        the uploading organization; PackageRefused when it may not be stored."""

    def write_checked(
        self, checked: Checked, *, submission: Submission, read_file: Callable[[str], bytes | None]
    ) -> ImportOutcome:
        """Write a checked upload into its (empty) submission version; `read_file(path in the
        package)` gives a file's bytes for the stored log copies."""


SUITES: dict[str, ResultsSuite] = {
    Suite.TRAINING: TRAINING,
    Suite.INFERENCE: INFERENCE,
    Suite.HPC: HPC,
    Suite.AUTOMOTIVE: AUTOMOTIVE,
    Suite.TINY: TINY,
}


def of(round_) -> ResultsSuite:
    """The suite of a round."""
    return SUITES[round_.suite]
