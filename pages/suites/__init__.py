"""The suites the public pages show, one package each, registered in SUITES.

A suite package holds its tables (tables.py), its Plotly builders (charts.py) and, in views.py,
the functions the page families call for a round or result of that suite (`of_round`):

    round_page(request, round_)                              the round's page
    round_export(request, round_, fmt)                       its table as "csv" or "json"
    round_chart(request, round_, chart, fmt)                 one of the round page's charts
    summary_rows(round_, user=None, query=None, factors=None) -> (columns, rows): the summary
    benchmark_page(request, round_, benchmark)               a benchmark (model) of the round
    benchmark_chart(request, round_, benchmark, chart, fmt)  one of its charts
    result_page(request, result)                             a result's page
    result_chart(request, result, chart, fmt)                one of its charts

Each returns a response (Http404 where the suite has no such page or chart). The shared pages
(home, progress, compare) speak of the suite in its own words and pictures, never by testing
which suite it is:

    HOME_TAGLINE                                             the home page's line under its heading
    PROGRESS_NOTE                                            what its progress page compares
    progress_charts(user) -> [Chart]                         its progress across rounds
    home_charts(user) -> [{"chart", "caption"}]              what the home page plots of it
    compare_rows() -> [(label, figure of a result)]          its rows of the compare page's scores

A new suite is a new package with these and one line below; the views, URLs and API stay as
they are.
"""

from __future__ import annotations

from types import ModuleType

from results.constants import Suite

from .hpc import views as hpc
from .inference import views as inference
from .training import views as training

SUITES: dict[str, ModuleType] = {
    Suite.TRAINING: training,
    Suite.INFERENCE: inference,
    Suite.HPC: hpc,
}


def of_round(round_) -> ModuleType:
    """The page functions of the round's suite."""
    return SUITES[round_.suite]
