"""The suites the public pages show, one package each, registered in SUITES by their `Suite`
value (results/constants.py): everything the shared views, the API and the snapshots ask of a
round's, result's or system's suite, so that none of them tests which suite it is.

A suite package holds its rows (leaderboards.py, or training's round_table.py), its Plotly
builders (charts.py) and, in views.py, the module that satisfies PageSuite: the page functions
the page families call for a round, benchmark or result of the suite (`of_round`), and how the
shared pages (home, progress, compare, a system's page, snapshots) speak of it in its own words
and pictures. Each page function returns a response, Http404 where the suite has no such page or
chart (always with the same message, whichever suite lacks it).

Adding a suite: a package here whose views.py satisfies PageSuite (tests/test_suite_seam.py
checks every member), its templates under templates/results/, and one line in SUITES. Suite
packages import none of each other (import-linter, pyproject.toml): what two suites share lives
beside them (time_to_train/: training and HPC) or in pages/ (system_groups.py, normalised.py,
charts.py, common.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from django.http import HttpResponse

from pages.charts import Chart
from results.constants import Suite
from results.models import Benchmark, Result, Round, Submission, System

from .automotive import views as automotive
from .hpc import views as hpc
from .inference import views as inference
from .tiny import views as tiny
from .training import views as training

Table = tuple[list[str], list[dict]]  # (columns, rows): a download, a summary, a snapshot table


class PageSuite(Protocol):
    """One MLPerf suite, as the public pages show it."""

    HOME_TAGLINE: str  # the home page's line under the suite's heading
    PROGRESS_NOTE: str  # what its progress page compares
    SYSTEM_RESULTS_TEMPLATE: str  # the system page's table of a system's results in its rounds
    SNAPSHOT_TABLES: dict[str, str]  # its snapshot tables ("results" first), each with what the README says of it

    # A round.
    def round_page(self, request, round_: Round) -> HttpResponse: ...

    def round_export(self, request, round_: Round, fmt: str) -> HttpResponse:
        """Its table as "csv" or "json"."""

    def round_chart(self, request, round_: Round, chart: str, fmt: str) -> HttpResponse:
        """One of the round page's charts."""

    def round_tables_csv(self, request, round_: Round) -> HttpResponse:
        """Its results tables (a row per system, a column per model and scenario) as one CSV."""

    def summary_rows(self, round_: Round, user=None, query=None, factors: str | None = None) -> Table:
        """The official-style summary of the results `user` may see (None: the public ones)."""

    def summary_results(self, user, round_: Round) -> Table:
        """MLCommons' summary_results.json of the round: its columns and records."""

    # A benchmark (a model) of a round, and a result.
    def benchmark_page(self, request, round_: Round, benchmark: Benchmark) -> HttpResponse: ...

    def benchmark_chart(self, request, round_: Round, benchmark: Benchmark, chart: str, fmt: str) -> HttpResponse: ...

    def result_page(self, request, result: Result) -> HttpResponse: ...

    def result_chart(self, request, result: Result, chart: str, fmt: str) -> HttpResponse: ...

    # The shared pages.
    def progress_charts(self, user) -> list[Chart]:
        """Its progress across rounds (its progress page)."""

    def home_charts(self, user) -> list[dict]:
        """What the home page plots of it: [{"chart", "caption"}]."""

    def compare_rows(self) -> list[tuple[str, Callable[[Result], object]]]:
        """Its rows of the compare page's scores: (label, the figure of a result)."""

    def official_links(self, submission: Submission, system_id: str, division: str = "") -> dict[str, str]:
        """A system's description and code in the round's published MLCommons repository
        ({"details_url", "code_url"}), or {} where the package is not published there."""

    def system_type(self, system: System) -> str:
        """Where the system runs, as its description says ("datacenter and edge"), or ""."""

    def snapshot_tables(self, round_: Round) -> dict[str, Table]:
        """A published round's snapshot tables, as SNAPSHOT_TABLES names them (pages/snapshots.py
        adds the systems after the results)."""


SUITES: dict[str, PageSuite] = {
    Suite.TRAINING: training,
    Suite.INFERENCE: inference,
    Suite.HPC: hpc,
    Suite.AUTOMOTIVE: automotive,
    Suite.TINY: tiny,
}


def of_round(round_: Round) -> PageSuite:
    """The pages of the round's suite."""
    return SUITES[round_.suite]
