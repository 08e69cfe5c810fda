"""What the page families share: CSV and chart downloads, official links, sorting and units."""

from __future__ import annotations

from urllib.parse import quote

from django.http import HttpResponse, JsonResponse
from django.urls import reverse

from mlperf_check.rules.rcp import SAMPLE_UNIT_BENCHMARKS
from pages.charts import Chart
from pages.tables import rows_to_csv
from pages.views.embed import embed_response
from results.constants import Suite
from results.models import Result


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
    """The chart as "csv", "json" or "embed" (its embed page: pages/views/embed.py)."""
    if fmt == "embed":
        return embed_response(chart)
    if fmt == "csv":
        return csv_response(chart.columns, chart.rows, f"{stem}-{chart.name}.csv")
    return JsonResponse({"name": chart.name, "columns": chart.columns, "rows": chart.rows, "figure": chart.figure})


def result_versions(user, result) -> dict:
    """The versions of `result`'s citable id that `user` may see, each with its address, for the
    list on every result page; and the address of the shown one (its charts live below it)."""
    def address(version: int, current: bool) -> str:
        if current:
            return reverse("pages:result", args=[result.result_id])
        return reverse("pages:result-version", args=[result.result_id, version])

    rows = [
        {"version": version, "current": current, "url": address(version, current),
         "shown": version == result.submission.version}
        for version, current in Result.objects.visible_to(user).filter(result_id=result.result_id)
        .order_by("submission__version").values_list("submission__version", "submission__is_current")
    ]
    return {
        "rows": rows,
        "page_url": address(result.submission.version, result.submission.is_current),
        "current": next((row for row in rows if row["current"]), None),
    }
