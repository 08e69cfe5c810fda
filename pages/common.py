"""What the suites' pages (pages/suites/) and the page families (pages/views/) share: CSV and
chart downloads and a chart's embed page, a result's versions, where a package is published.
Outside pages/views/, which imports the suites: the suites import this, never the views."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from urllib.parse import quote

from django.http import HttpResponse, JsonResponse
from django.template.response import SimpleTemplateResponse
from django.urls import reverse
from django.utils.http import RFC3986_SUBDELIMS

from pages.caching import rows_seen_by, view_name
from pages.charts import Chart
from pages.csv_rows import rows_to_csv
from results.models import Finding, Result
from results.paging import page_of
from results.states import publication_state
from review.findings import read_finding_counts, severity_groups, with_waivers

# What reverse() leaves unquoted in a path: RFC 3986's sub-delims and the rest of `pchar`.
PATH_SAFE = RFC3986_SUBDELIMS + "/~:@"


def addresses_of(name: str, rows: list[tuple[str, ...]]) -> list[str]:
    """`reverse(name, args=row)` of each row, as reverse() builds and quotes it, with the URL pattern
    looked up once: a part of the sitemap is 50,000 addresses (a reverse() of each was 1.3 s of its
    1.6-2.0 s), a page of a table a hundred rows of links. A value the pattern's `<str:...>` would
    refuse (empty, or with a slash) goes through reverse(), which raises."""
    if not rows:
        return []
    # The address of a row of slots, cut at each slot: ["/systems/", 0, "/", 1, "/"].
    slotted = reverse(name, args=[f"address-slot-{number}-" for number in range(len(rows[0]))])
    pieces = [int(piece) if odd else piece
              for odd, piece in zip(itertools.cycle((False, True)), re.split(r"address-slot-(\d+)-", slotted))]
    addresses = []
    for row in rows:
        if not all(value and "/" not in value for value in row):
            addresses.append(reverse(name, args=row))
            continue
        addresses.append("".join(quote(row[piece], safe=PATH_SAFE) if isinstance(piece, int) else piece
                                 for piece in pieces))
    return addresses


def link(rows: list[dict], key: str, name: str, *fields: str) -> None:
    """Each row's `key` set to the address of page `name` with the row's `fields` as its arguments,
    as {% url %} writes it (addresses_of)."""
    for row, address in zip(rows, addresses_of(name, [tuple(row[field] for field in fields) for row in rows]),
                            strict=True):
        row[key] = address


def csv_response(columns: list[str], rows: list[dict], filename: str) -> HttpResponse:
    response = HttpResponse(rows_to_csv(columns, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


OFFICIAL_REPOSITORY = "https://github.com/mlcommons/{suite}_results_v{version}"


def published_package(submission) -> tuple[str, str] | None:
    """Where an imported result's package is published: the round's public MLCommons repository
    and the submitter's folder in it (an import names each folder it read, comma-separated: the
    first). None for uploads (not published there under this name) and unpublished rounds. Each
    suite builds its links into it (official_links: the official summarizers' details and code
    URLs)."""
    if submission.source.startswith("upload:") or not submission.source or not submission.round.is_published:
        return None
    folder = submission.source.split(", ")[0].rstrip("/").rsplit("/", 1)[-1]
    return OFFICIAL_REPOSITORY.format(suite=submission.round.suite, version=submission.round.version), folder


def chart_outlines(user, round_, view: list, builders: dict[str, Callable[[], Chart]]) -> list[dict]:
    """The outlines of the charts `builders` build (Chart.outline), for a page that fetches their
    figures when they are drawn. Kept for the views many users share (pages.caching.rows_seen_by)
    under the round's version and `view` (everything the charts show besides the round's results,
    as JSON: the page, the filters, the figure): another page of the page's tables, or any other
    address of the same view, does not build them again (a large round's charts are a few hundred
    ms). `builders` draw the results `user` sees, which are the kept view's."""
    return rows_seen_by(user, round_, view_name("chart-outlines", view),
                        lambda _viewer: [build_chart().outline() for build_chart in builders.values()])


def shown_charts(user, round_, view: list, builders: dict[str, Callable[[], Chart]], *, lazy: bool) -> tuple[list, bool]:
    """The charts as a page shows them, and whether it draws any (Plotly is loaded only then):
    their outlines where the page fetches the figures when drawn (`lazy`: beyond a page of
    results), else the charts with their figures."""
    if lazy:
        outlines = chart_outlines(user, round_, view, builders)
        return outlines, any(not outline["empty"] for outline in outlines)
    built = [build_chart() for build_chart in builders.values()]
    return built, draws(built)


def draws(built: list[Chart]) -> bool:
    """Whether a page plots anything: Plotly is loaded only then."""
    return any(not chart.empty for chart in built)


def embed_response(chart: Chart) -> SimpleTemplateResponse:
    """The chart's embed page (chart_response's "embed" format): rendered after
    pages.views.embed.embeddable adds the page it comes from."""
    return SimpleTemplateResponse("results/embed.html", {"chart": chart})


def chart_response(chart: Chart, fmt: str, stem: str) -> HttpResponse:
    """The chart as "csv", "json" (its rows and figure), "figure.json" (the figure alone: what a
    page fetches to draw it, a third of a large round's JSON) or "embed" (its embed page:
    embed_response, pages/views/embed.py)."""
    if fmt == "embed":
        return embed_response(chart)
    if fmt == "csv":
        return csv_response(chart.columns, chart.rows, f"{stem}-{chart.name}.csv")
    if fmt == "figure.json":
        return JsonResponse(chart.figure)
    return JsonResponse({"name": chart.name, "columns": chart.columns, "rows": chart.rows, "figure": chart.figure})


def result_page_context(request, result: Result, findings: list[Finding]) -> dict:
    """What every suite's result page shows alike: the result, its publication state and versions,
    its system, round and benchmark, and `findings` (the suite's list of them, waivers applied)
    grouped by severity with the counts of what no decision waived, each group paged in the URL
    (`error_findings_page`, ...: a result of the record has 1,172 findings of one code).
    Raises BadPage for a malformed page number."""
    counts = read_finding_counts(findings)
    groups = severity_groups(findings, counts)
    for group in groups:
        group["page"] = page_of(group["findings"], request.GET, f"{group['key']}_findings_page",
                                anchor=f"findings-{group['key']}")
    return {
        "result": result,
        "state": publication_state(result),
        "versions": result_versions(request.user, result),
        "system": result.system,
        "round": result.submission.round,
        "benchmark": result.benchmark,
        "findings": groups,
        "finding_counts": counts,
        "finding_total": len(findings),
    }


def waived_findings(result: Result) -> list[Finding]:
    """A result's findings in file and line order, each with the decision that waived it, if any."""
    return with_waivers(Finding.objects.with_waiver().filter(result=result).order_by("file", "line", "pk"))


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
