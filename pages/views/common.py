"""What the page families share: CSV and chart downloads, official links, sorting and units."""

from __future__ import annotations

from urllib.parse import quote

from django.http import HttpResponse, JsonResponse

from mlperf_check.rules.rcp import SAMPLE_UNIT_BENCHMARKS
from pages.charts import Chart
from pages.tables import rows_to_csv
from results.constants import Suite


def convergence_unit(benchmark: str) -> str:
    """What the benchmark's convergence point counts, as its RCP rules measure it (never guessed
    from the size of the numbers: BERT counts samples, some logs still say epoch 1)."""
    return "samples" if benchmark in SAMPLE_UNIT_BENCHMARKS else "epochs"




def csv_response(columns: list[str], rows: list[dict], filename: str) -> HttpResponse:
    response = HttpResponse(rows_to_csv(columns, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


OFFICIAL_REPOSITORY = "https://github.com/mlcommons/{suite}_results_v{version}"


def official_links(submission, system_id: str, division: str = "") -> dict[str, str]:
    """The system description and code of an imported result in the round's public MLCommons
    repository, built as the official result summarizer builds its details_url and code_url
    (inference: generate_final_report.py's `<division>/<submitter>/systems/` and `.../code/`).
    Empty for uploads (not published there under this name) and unpublished rounds."""
    if submission.source.startswith("upload:") or not submission.source or not submission.round.is_published:
        return {}
    # An inference import names each division's submitter folder, comma-separated.
    folder = submission.source.split(", ")[0].rstrip("/").rsplit("/", 1)[-1]
    base = OFFICIAL_REPOSITORY.format(suite=submission.round.suite, version=submission.round.version)
    if submission.round.suite == Suite.INFERENCE:
        place = f"{base}/tree/main/{quote(division or 'closed')}/{quote(folder)}"
        platform = system_id.removesuffix(".open")  # the open-division row of a system in both divisions
        return {"details_url": f"{place}/systems/{quote(platform)}.json", "code_url": f"{place}/code"}
    return {"details_url": f"{base}/blob/main/{quote(folder)}/systems/{quote(system_id)}.json",
            "code_url": f"{base}/blob/master/{quote(folder)}/benchmarks"}


def draws(built: list[Chart]) -> bool:
    """Whether a page plots anything: Plotly is loaded only then."""
    return any(not chart.empty for chart in built)


def chart_response(chart: Chart, fmt: str, stem: str) -> HttpResponse:
    if fmt == "csv":
        return csv_response(chart.columns, chart.rows, f"{stem}-{chart.name}.csv")
    return JsonResponse({"name": chart.name, "columns": chart.columns, "rows": chart.rows, "figure": chart.figure})
