"""Public pages. Thin: every query starts from `visible_to(request.user)` (results/querysets.py),
tables come from results/tables.py and figures from results/charts.py. Each page runs a fixed
number of queries, whatever the size of the database."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from urllib.parse import quote

from django.conf import settings
from django.core.files.storage import default_storage
from django.db.models import Count, Q
from django.http import FileResponse, Http404, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe

from mlperf_check.checkers.shipped_factors import FACTOR_TOLERANCE
from mlperf_check.rules.rcp import SAMPLE_UNIT_BENCHMARKS, SAMPLES_BENCHMARKS
from review.summary import review_summary

from . import charts, inference_views, logs
from .caching import cache_public_page
from .constants import FactorSource, RoundState, Severity, Suite, WaiverKind
from .exports import summary_rows
from .inference_tables import inference_export_rows
from .models import Benchmark, Finding, Result, Round, Run, System, Waiver, version_order
from .querysets import RoundSlugError, is_privileged
from .tables import (
    CATEGORIES,
    CATEGORY_LABELS,
    CATEGORY_ORDER,
    DECIDED,
    DIVISION_ORDER,
    FACTOR_VIEWS,
    accelerator_choices,
    accelerator_key,
    category_of,
    round_table,
    rows_to_csv,
)
from .templatetags.numbers import format_quantity

FIXED_SCALE = 8  # accelerators; the round-over-round speedup compares the best entries at this scale
SEARCH_LIMIT = 200


# --- helpers ----------------------------------------------------------------------------------


def round_or_404(user, slug: str) -> Round:
    """The round `user` may see (results and review pages alike), else 404."""
    try:
        round_ = Round.objects.visible_to(user).with_slug(slug).first()
    except RoundSlugError as exc:
        raise Http404(str(exc)) from exc
    if round_ is None:
        raise Http404("no such round")
    return round_


def convergence_unit(benchmark: str) -> str:
    """What the benchmark's convergence point counts, as its RCP rules measure it (never guessed
    from the size of the numbers: BERT counts samples, some logs still say epoch 1)."""
    return "samples" if benchmark in SAMPLE_UNIT_BENCHMARKS else "epochs"


def natural_key(text: str) -> list:
    """result_2 before result_10."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", text)]


def _csv_response(columns: list[str], rows: list[dict], filename: str) -> HttpResponse:
    response = HttpResponse(rows_to_csv(columns, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


OFFICIAL_REPOSITORY = "https://github.com/mlcommons/{suite}_results_v{version}"


def official_links(submission, system_id: str) -> dict[str, str]:
    """The system description and code of an imported result in the round's public MLCommons
    repository, built as the official result summarizer builds its details_url and code_url.
    Empty for uploads (not published there under this name) and unpublished rounds."""
    if submission.source.startswith("upload:") or not submission.source or not submission.round.is_published:
        return {}
    folder = submission.source.rstrip("/").rsplit("/", 1)[-1]
    base = OFFICIAL_REPOSITORY.format(suite=submission.round.suite, version=submission.round.version)
    return {"details_url": f"{base}/blob/main/{quote(folder)}/systems/{quote(system_id)}.json",
            "code_url": f"{base}/blob/master/{quote(folder)}/benchmarks"}


def _draws(built: list[charts.Chart]) -> bool:
    """Whether a page plots anything: Plotly is loaded only then."""
    return any(not chart.empty for chart in built)


def _chart_response(chart: charts.Chart, fmt: str, stem: str) -> HttpResponse:
    if fmt == "csv":
        return _csv_response(chart.columns, chart.rows, f"{stem}-{chart.name}.csv")
    return JsonResponse({"name": chart.name, "columns": chart.columns, "rows": chart.rows, "figure": chart.figure})


def _point(result: Result) -> dict:
    """A result as the chart builders and ranked tables take it."""
    system = result.system
    return {
        "result_id": result.result_id,
        "division": result.division or system.division,
        "category": CATEGORY_LABELS[category_of(system.availability, system.deployment)],
        "category_key": category_of(system.availability, system.deployment),
        "submitter": system.submitter or result.submission.organization.name,
        "organization": result.submission.organization.slug,
        "system": system.name,
        "system_id": system.system_id,
        "accelerator": system.accelerator_model_name,
        "accelerators": system.accelerators_count,
        "framework": system.framework,
        "minutes": result.score_minutes,
        "note": result.score_note,
        "batch_size": result.global_batch_size,
        "converge": result.converge_mean,
        "rcp_status": result.get_rcp_status_display(),
    }


# --- home, round, benchmark -------------------------------------------------------------------


@cache_public_page
def home(request):
    rounds = list(Round.objects.visible_to(request.user))
    counts = {
        row["submission__round"]: row
        for row in Result.objects.visible_to(request.user).current()
        .values("submission__round")
        .annotate(results=Count("pk", distinct=True), systems=Count("system", distinct=True),
                  submitters=Count("submission__organization", distinct=True))
        .order_by()
    }
    benchmarks = dict(
        Benchmark.objects.filter(round__in=[r.pk for r in rounds]).values("round")
        .annotate(n=Count("pk")).order_by().values_list("round", "n")
    )
    suites = []
    for suite in Suite:
        mine = [r for r in rounds if r.suite == suite.value]
        # Latest published first; rounds still in review (visible to their submitters) after them.
        mine.sort(key=lambda r: (r.state != RoundState.PUBLISHED, tuple(-p for p in charts.version_key(r.version))))
        for round_ in mine:
            round_.counts = counts.get(round_.pk, {"results": 0, "systems": 0, "submitters": 0})
            round_.benchmark_count = benchmarks.get(round_.pk, 0)
        if mine:
            suites.append({"label": suite.label, "value": suite.value, "rounds": mine})
    # Pictures first: the best time per benchmark across rounds, and the newest round against the one before.
    progress_charts = {chart.name: chart for chart in _progress_charts(request.user, Suite.TRAINING)}
    return render(request, "results/home.html", {
        "suites": suites, "best_time": progress_charts["best-time"], "headlines": progress_charts["headlines"],
        "draws_charts": not progress_charts["headlines"].empty,
    })


@cache_public_page
def round_detail(request, slug: str):
    round_ = round_or_404(request.user, slug)
    if round_.suite == Suite.INFERENCE:
        return inference_views.round_page(request, round_)
    table = round_table(round_, request.user, request.GET)
    # Built with string formatting rather than {% url %} per cell: 500 rows x 10 cells add up.
    result_url = reverse("results:result", args=["RID"])
    system_url = reverse("results:system", args=["ORG", "SID"])
    for row in table.rows:
        row["url"] = system_url.replace("ORG", quote(row["organization"])).replace("SID", quote(row["system_id"]))
        for cell in row["cell_list"]:
            if cell:
                cell["url"] = result_url.replace("RID", quote(cell["result_id"]))
    query = request.GET.copy()
    query.pop("sort", None)
    context = {
        "round": round_,
        "table": table,
        "decided_cells": any(cell and cell["factor_source"] == FactorSource.DECISION
                             for row in table.rows for cell in row["cell_list"]),
        "groups": table.groups(),
        "colspan": 8 + len(table.benchmarks),
        "sort_base": query.urlencode(),
        "export_query": request.GET.urlencode(),
        "benchmark_rows": round_.benchmarks.order_by("name"),
        # Benchmarks nobody entered are named, not linked: their page would be empty.
        "benchmarks_with_results": set(
            Result.objects.visible_to(request.user).current().for_round(round_)
            .values_list("benchmark__name", flat=True).distinct()
        ),
    }
    return render(request, "results/round.html", context)


@cache_public_page
def round_export(request, slug: str, fmt: str):
    round_ = round_or_404(request.user, slug)
    if round_.suite == Suite.INFERENCE:
        columns, rows = inference_export_rows(request.user, round_, request.GET)
        if fmt == "csv":
            return _csv_response(columns, rows, f"{round_.slug}-results.csv")
        return JsonResponse({"round": round_.slug, "columns": columns, "rows": rows})
    factors = _factor_view(request)
    table = round_table(round_, request.user, request.GET, factors=factors)
    if fmt == "csv":
        return _csv_response(table.columns, table.export_rows(), f"{round_.slug}-results.csv")
    return JsonResponse(
        {"round": round_.slug, "factors": factors, "columns": table.columns, "rows": table.export_rows()}
    )


@cache_public_page
def round_summary(request, slug: str):
    """The official-style summary (results/exports.py), visible results only."""
    round_ = round_or_404(request.user, slug)
    columns, rows = summary_rows(round_, user=request.user, factors=_factor_view(request))
    return _csv_response(columns, rows, f"{round_.slug}-summary.csv")


def _factor_view(request) -> str:
    """?factors=computed exports every score with the factor the logs give; anything else, the decided scores."""
    factors = request.GET.get("factors", DECIDED)
    return factors if factors in FACTOR_VIEWS else DECIDED


def _benchmark_or_404(request, slug: str, name: str) -> tuple[Round, Benchmark]:
    round_ = round_or_404(request.user, slug)
    benchmark = round_.benchmarks.filter(name=name).first()
    if benchmark is None:
        raise Http404("no such benchmark in this round")
    return round_, benchmark


def _benchmark_points(user, round_: Round, benchmark: Benchmark) -> list[dict]:
    results = (
        Result.objects.visible_to(user).current().for_round(round_).filter(benchmark=benchmark)
        .select_related("system", "submission__organization")
    )
    return [_point(result) for result in results]


def _benchmark_charts(points: list[dict], benchmark: Benchmark, colour_by: str) -> list[charts.Chart]:
    unit = convergence_unit(benchmark.name)
    return [
        charts.time_to_train(points, benchmark.name, category_order=[label for _, label in CATEGORIES]),
        charts.scaling(points, benchmark.name, colour_by=colour_by),
        charts.batch_size(points, benchmark.name, unit=unit),
        charts.pareto(points, benchmark.name),
    ]


@cache_public_page
def benchmark_detail(request, slug: str, name: str):
    round_, benchmark = _benchmark_or_404(request, slug, name)
    if round_.suite == Suite.INFERENCE:  # a model's results are the round's leaderboards of that model
        return redirect(f"{reverse('results:round', args=[round_.slug])}?model={quote(benchmark.name)}")
    points = _benchmark_points(request.user, round_, benchmark)
    colour_by = "submitter" if request.GET.get("colour") == "submitter" else "accelerator"
    ranked = sorted(
        points,
        key=lambda p: (DIVISION_ORDER.get(p["division"], 9), CATEGORY_ORDER[p["category_key"]],
                       p["minutes"] is None, p["minutes"] or 0),
    )
    # A ranked result with checker errors nobody waived carries a marker (one query for all).
    error_counts = dict(
        Result.objects.visible_to(request.user).current().for_round(round_).filter(benchmark=benchmark)
        .with_unwaived_errors().filter(unwaived_errors__gt=0).values_list("result_id", "unwaived_errors")
    )
    groups: list[dict] = []
    for point in ranked:
        point["errors"] = error_counts.get(point["result_id"], 0)
        key = (point["division"], point["category"])
        if not groups or groups[-1]["key"] != key:
            groups.append({"key": key, "division": point["division"], "category": point["category"], "rows": []})
        rows = groups[-1]["rows"]
        # Ranked rows come first in each group, so the rank is the row's position.
        point["rank"] = len(rows) + 1 if point["minutes"] is not None else None
        rows.append(point)
    built = _benchmark_charts(points, benchmark, colour_by)
    scaling_families = [p for p in built[1].rows if p["speedup"] is not None]
    context = {
        "round": round_,
        "benchmark": benchmark,
        "groups": groups,
        "charts": built,
        "colour_by": colour_by,
        "scaling_families": sorted(scaling_families, key=lambda p: (p["submitter"], p["accelerator"],
                                                                    p["accelerators"])),
        "targets": benchmark.quality_targets,
        "unit": convergence_unit(benchmark.name),
        "draws_charts": _draws(built),
    }
    return render(request, "results/benchmark.html", context)


@cache_public_page
def benchmark_chart(request, slug: str, name: str, chart: str, fmt: str):
    round_, benchmark = _benchmark_or_404(request, slug, name)
    colour_by = "submitter" if request.GET.get("colour") == "submitter" else "accelerator"
    for built in _benchmark_charts(_benchmark_points(request.user, round_, benchmark), benchmark, colour_by):
        if built.name == chart:
            return _chart_response(built, fmt, f"{round_.slug}-{benchmark.name}")
    raise Http404("no such chart")


# --- round over round -------------------------------------------------------------------------


def _progress_charts(user, suite: str) -> list[charts.Chart]:
    rounds = Round.objects.visible_to(user).filter(suite=suite)
    entries = [
        {"round": row["submission__round__version"], "benchmark": row["benchmark__name"],
         "minutes": row["score_minutes"], "accelerators": row["system__accelerators_count"],
         "system": row["system__name"], "submitter": row["submission__organization__name"],
         "result_id": row["result_id"]}
        for row in Result.objects.visible_to(user).current()
        .filter(submission__round__suite=suite, division="closed", score_minutes__isnull=False)
        .values("submission__round__version", "benchmark__name", "score_minutes", "system__accelerators_count",
                "system__name", "submission__organization__name", "result_id")
    ]
    targets = [
        {"round": b["round__version"], "benchmark": b["name"], "target": b["quality_target"]}
        for b in Benchmark.objects.filter(round__in=rounds).values("round__version", "name", "quality_target")
    ]
    return [*charts.round_over_round(entries, targets, FIXED_SCALE), charts.headlines(entries, targets)]


@cache_public_page
def progress(request, suite: str = Suite.TRAINING):
    if suite not in Suite.values:
        raise Http404("no such suite")
    built = _progress_charts(request.user, suite)
    return render(request, "results/progress.html", {
        "suite": Suite(suite), "charts": built, "fixed_scale": FIXED_SCALE, "draws_charts": _draws(built),
    })


@cache_public_page
def progress_chart(request, suite: str, chart: str, fmt: str):
    if suite not in Suite.values:
        raise Http404("no such suite")
    for built in _progress_charts(request.user, suite):
        if built.name == chart:
            return _chart_response(built, fmt, f"{suite}-progress")
    raise Http404("no such chart")


# --- result, runs, logs -----------------------------------------------------------------------


def result_or_404(user, result_id: str) -> Result:
    """The result `user` may see, by its citable id, else 404."""
    result = Result.objects.visible_to(user).citable(result_id).with_related().first()
    if result is None:
        raise Http404("no such result")
    return result


def _run_label(run: Run) -> str:
    return run.file.rsplit("/", 1)[-1]


def _runs_in_order(result: Result) -> list[Run]:
    return sorted(result.runs.all(), key=lambda run: natural_key(run.file))


def _run_convergence(run: Run, benchmark: str) -> float | None:
    """The run's convergence point in the benchmark's unit, or None when its log does not give one.

    Sample-counting benchmarks: the evaluation's samples_count; for BERT, whose logs from some code
    bases put the sample count in epoch_num and others log epoch_num 1 throughout, the epoch_num
    only when it can be a sample count (at least one global batch, as the RCP check decides)."""
    if convergence_unit(benchmark) == "epochs":
        return run.epochs_to_target
    if run.samples_to_target is not None or benchmark in SAMPLES_BENCHMARKS:
        return run.samples_to_target
    epoch = run.epochs_to_target
    if epoch is not None and run.global_batch_size and epoch >= run.global_batch_size:
        return epoch
    return None


def _result_charts(result: Result, runs: list[Run]) -> list[charts.Chart]:
    benchmark = result.benchmark
    targets = dict(benchmark.quality_targets) if benchmark.quality_targets else {"": benchmark.quality_target}
    run_values = [{"run": _run_label(r), "scoring": r.scoring, "curve": r.eval_curve or [],
                   "minutes": r.time_to_train_minutes, "reason": r.scoring_reason} for r in runs]
    return [
        charts.convergence(run_values, metric=benchmark.quality_metric, targets=targets,
                           higher_is_better=benchmark.metric_direction == "higher"),
        charts.run_times(run_values),
    ]


def _hyperparameter_rows(runs: list[Run]) -> list[dict]:
    keys = sorted({key for run in runs for key in (run.hyperparameters or {})})
    rows = []
    for key in keys:
        values = [(run.hyperparameters or {}).get(key) for run in runs]
        shown = [json.dumps(v) if isinstance(v, dict | list) else ("" if v is None else str(v)) for v in values]
        rows.append({"key": key, "values": shown, "same": len(set(shown)) == 1})
    return rows


def findings_with_log_urls(result: Result, runs: list[Run]) -> list[Finding]:
    """The result's findings, each with `log_url`: the log line it cites (or ""), and `waiver`:
    the decision that waived it (or None)."""
    findings = list(Finding.objects.with_waiver().filter(result=result).order_by("file", "line", "pk"))
    waivers = Waiver.objects.in_bulk({f.waiver_id for f in findings if f.waiver_id})
    log_of_file = {run.file: run for run in runs if run.log_name}
    for finding in findings:
        finding.waiver = waivers.get(finding.waiver_id)
        run = log_of_file.get(finding.file)
        finding.log_url = log_line_url(run.sha256, finding.line) if run and finding.line else ""
    return findings


@cache_public_page
def result_detail(request, result_id: str):
    result = result_or_404(request.user, result_id)
    if result.scenario:
        return inference_views.result_page(request, result)
    runs = _runs_in_order(result)
    unit = convergence_unit(result.benchmark.name)
    for run in runs:
        run.convergence = _run_convergence(run, result.benchmark.name)
    result_charts = _result_charts(result, runs)
    findings = findings_with_log_urls(result, runs)
    by_severity = [
        {"severity": label, "key": value, "findings": [f for f in findings if f.severity == value]}
        for value, label in Severity.choices
    ]
    versions = list(
        Result.objects.visible_to(request.user).filter(result_id=result.result_id)
        .values_list("submission__version", flat=True).order_by("submission__version")
    )
    review = review_summary(result, request.user)
    context = {
        "result": result,
        "system": result.system,
        "round": result.submission.round,
        "benchmark": result.benchmark,
        "runs": runs,
        "findings": by_severity,
        "finding_count": len(findings),
        "error_count": sum(1 for f in findings if f.severity == Severity.ERROR and f.waiver is None),
        "hyperparameters": _hyperparameter_rows(runs),
        "run_labels": [_run_label(r) for r in runs],
        "charts": result_charts,
        "draws_charts": _draws(result_charts),
        "versions": versions,
        "category": CATEGORY_LABELS[category_of(result.system.availability, result.system.deployment)],
        # The published_factor decision on the result's system and benchmark (accepted or rejected).
        "factor_decision": next((w for w in review["waivers"] if w.kind == WaiverKind.PUBLISHED_FACTOR), None),
        "shipped_factor_differs": result.shipped_scaling_factor is not None
        and abs(result.shipped_scaling_factor - result.computed_scaling_factor) > FACTOR_TOLERANCE,
        "show_decider": is_privileged(request.user),
        "unit": unit,
        "official": official_links(result.submission, result.system.system_id),
        "review": review,
    }
    return render(request, "results/result.html", context)


@cache_public_page
def result_chart(request, result_id: str, chart: str, fmt: str):
    result = result_or_404(request.user, result_id)
    if result.scenario:
        built = inference_views.result_chart(result, chart)
        if built is None:
            raise Http404("no such chart")
        return _chart_response(built, fmt, result.result_id)
    for built in _result_charts(result, _runs_in_order(result)):
        if built.name == chart:
            return _chart_response(built, fmt, result.result_id)
    raise Http404("no such chart")


def _log_run_or_404(user, sha256: str) -> Run:
    """The newest visible run with this log. Visible only with a visible run."""
    run = (
        Run.objects.visible_to(user).filter(sha256=sha256).exclude(log_name="")
        .select_related("result__benchmark", "result__submission__round")
        .order_by("-result__submission__is_current", "-result__submission__version")
        .first()
    )
    if run is None or not default_storage.exists(run.log_name):
        raise Http404("no such log")
    return run


def log_line_url(sha256: str, line: int) -> str:
    """A link to one line of a log, on whichever page holds it."""
    return f"{reverse('results:log', args=[sha256])}?page={logs.page_of_line(line)}#L{line}"


@cache_public_page
def run_log(request, sha256: str):
    """One page of a stored log copy as HTML, one anchor per line (#L123, numbered across pages);
    `?line=N` opens the page holding line N. Memory stays bounded whatever the log (results/logs.py)."""
    run = _log_run_or_404(request.user, sha256)
    try:
        line = int(request.GET.get("line", 0))
        number = logs.page_of_line(line) if line > 0 else int(request.GET.get("page", 1))
    except ValueError:
        raise Http404("page and line are numbers") from None
    with default_storage.open(run.log_name, "rb") as handle:
        page = logs.read_page(handle, number)
    if page is None:
        raise Http404("the log has no such page")
    body = "".join(
        f'<a class="ln" id="L{n}" href="#L{n}">{n}</a><span class="code">{escape(text)}</span>\n'
        for n, text in enumerate(page.lines, start=page.first_line)
    )
    base = reverse("results:log", args=[sha256])
    return render(request, "results/log.html", {
        "run": run, "result": run.result, "body": mark_safe(body), "page": page,
        "previous_url": f"{base}?page={page.number - 1}" if page.number > 1 else "",
        "next_url": f"{base}?page={page.number + 1}" if page.number < page.page_count else "",
        "start_url": log_line_url(sha256, run.run_start_line) if run.run_start_line else "",
        "stop_url": log_line_url(sha256, run.run_stop_line) if run.run_stop_line else "",
    })


def run_log_raw(request, sha256: str):
    """The stored log as it was uploaded, streamed from storage as plain text."""
    run = _log_run_or_404(request.user, sha256)
    response = FileResponse(
        default_storage.open(run.log_name, "rb"), as_attachment=True, filename=run.file.rsplit("/", 1)[-1]
    )
    response["Content-Type"] = "text/plain; charset=utf-8"
    return response


# --- systems, compare, search -----------------------------------------------------------------


def _system_results(user, organization: str, system_id: str):
    return (
        Result.objects.visible_to(user).current()
        .filter(submission__organization__slug=organization, system__system_id=system_id)
        .with_related()
        .order_by(version_order("submission__round__version").desc(), "benchmark__name")
    )


@cache_public_page
def system_detail(request, organization: str, system_id: str):
    results = list(_system_results(request.user, organization, system_id))
    system = (
        System.objects.visible_to(request.user)
        .filter(submission__organization__slug=organization, system_id=system_id)
        .select_related("submission__round", "submission__organization")
        .order_by(version_order("submission__round__version").desc(), "-submission__is_current", "-submission__version")
        .first()
    )
    if system is None:
        raise Http404("no such system")
    description = sorted(system.description.items()) if isinstance(system.description, dict) else []
    return render(request, "results/system.html", {
        "system": system,
        "organization": system.submission.organization,
        "description": [(key, json.dumps(value) if isinstance(value, dict | list) else value)
                        for key, value in description],
        "results": results,
        "category": CATEGORY_LABELS[category_of(system.availability, system.deployment)],
        "official": official_links(system.submission, system.system_id),
    })


SYSTEM_FIELDS = [
    ("submitter", "Submitter"), ("name", "System"), ("division", "Division"), ("availability", "Availability"),
    ("deployment", "Deployment"), ("number_of_nodes", "Nodes"), ("host_processor_model_name", "Host processor"),
    ("host_processors_count", "Host processors"), ("accelerator_model_name", "Accelerator"),
    ("accelerators_count", "Accelerators"), ("framework", "Framework"), ("notes", "Notes"),
]


def _compare_rows(sections: list[tuple[str, list[tuple[str, list]]]]) -> list[dict]:
    out = []
    for section, rows in sections:
        out.append({"section": section})
        for label, values in rows:
            shown = ["" if v is None else str(v) for v in values]
            out.append({"label": label, "values": shown, "differs": len(set(shown)) > 1})
    return out


@cache_public_page
def compare(request):
    result_ids = [r for r in request.GET.getlist("result") if r.strip()][:8]
    system_keys = [s for s in request.GET.getlist("system") if "/" in s][:8]
    columns: list[dict] = []
    sections: list[tuple[str, list]] = []
    missing: list[str] = []
    if result_ids:
        found = {}
        candidates = (
            Result.objects.visible_to(request.user).filter(result_id__in=result_ids).with_related()
            .order_by("-submission__is_current", "-submission__version")
        )
        for result in candidates:
            found.setdefault(result.result_id, result)
        results = [found[r] for r in result_ids if r in found]
        missing = [r for r in result_ids if r not in found]
        first_runs: dict[int, Run] = {}
        for run in Run.objects.filter(result__in=results).order_by("result", "file"):
            first_runs.setdefault(run.result_id, run)
        columns = [{"label": r.result_id, "url": reverse("results:result", args=[r.result_id]),
                    "sub": f"{r.system.name} · {r.benchmark.name}", "key": r.result_id} for r in results]
        hyper_keys = sorted({k for run in first_runs.values() for k in (run.hyperparameters or {})})
        sections = [
            ("Score", [
                ("Round", [r.submission.round.slug for r in results]),
                ("Benchmark", [r.benchmark.name for r in results]),
                ("Time to train (min)", [f"{r.score_minutes:.2f}" if r.score_minutes else r.score_note
                                         for r in results]),
                ("Olympic mean before RCP factor", [f"{r.mean_minutes:.2f}" if r.mean_minutes else ""
                                                    for r in results]),
                ("RCP status", [r.get_rcp_status_display() for r in results]),
                ("Global batch size", [r.global_batch_size for r in results]),
                ("To converge (olympic mean)", [format_quantity(r.converge_mean, convergence_unit(r.benchmark.name))
                                                if r.converge_mean is not None else None for r in results]),
            ]),
            ("System", [(label, [getattr(r.system, key) for r in results]) for key, label in SYSTEM_FIELDS]),
            ("Hyperparameters (first run)", [
                (key, [(first_runs[r.pk].hyperparameters or {}).get(key) if r.pk in first_runs else None
                       for r in results]) for key in hyper_keys
            ]),
        ]
    elif system_keys:
        wanted = [tuple(key.split("/", 1)) for key in system_keys]
        rule = Q()
        for org, system_id in wanted:
            rule |= Q(submission__organization__slug=org, system_id=system_id)
        found = {}
        for system in (System.objects.visible_to(request.user).filter(rule)
                       .select_related("submission__organization", "submission__round")
                       .order_by(version_order("submission__round__version").desc(), "-submission__version")):
            found.setdefault((system.submission.organization.slug, system.system_id), system)
        systems = [found[key] for key in wanted if key in found]
        missing = [f"{org}/{system_id}" for org, system_id in wanted if (org, system_id) not in found]
        columns = [{"label": s.name, "sub": f"{s.submission.organization.name} · {s.submission.round.slug}",
                    "url": reverse("results:system", args=[s.submission.organization.slug, s.system_id]),
                    "key": f"{s.submission.organization.slug}/{s.system_id}"}
                   for s in systems]
        description_keys = sorted({k for s in systems for k in (s.description or {})})
        sections = [
            ("System", [(label, [getattr(s, key) for s in systems]) for key, label in SYSTEM_FIELDS]),
            ("System description (as submitted)", [
                (key, [(s.description or {}).get(key) for s in systems]) for key in description_keys
            ]),
        ]
    # Each column's "remove" link: this comparison without it.
    parameter = "result" if result_ids else "system"
    for column in columns:
        others = [c["key"] for c in columns if c is not column]
        column["remove_url"] = "?" + "&".join(f"{parameter}={quote(key, safe='/')}" for key in others)
    return render(request, "results/compare.html", {
        "columns": columns, "rows": _compare_rows(sections), "missing": missing,
        "result_ids": " ".join(result_ids), "system_keys": " ".join(system_keys),
    })


@cache_public_page
def search(request):
    """Systems with a visible result, one entry per system (its rounds listed, with what tells it
    apart from same-named systems), submitters, and accelerators grouped across spellings."""
    query = request.GET.get("q", "").strip()
    systems, submitters, accelerators = [], [], []
    if query:
        visible = Result.objects.visible_to(request.user).current()
        matching = visible.filter(
            Q(system__name__icontains=query) | Q(system__system_id__icontains=query)
            | Q(system__submitter__icontains=query) | Q(submission__organization__name__icontains=query)
            | Q(system__accelerator_model_name__icontains=query) | Q(system__host_processor_model_name__icontains=query)
            | Q(system__framework__icontains=query)
        )
        rows = (
            matching.values("submission__organization__slug", "submission__organization__name", "system__system_id",
                            "system__name", "system__accelerator_model_name", "system__accelerators_count",
                            "system__framework", "system__division", "submission__round__version",
                            "submission__round__suite")
            .annotate(results=Count("pk"))
            .order_by("submission__organization__name", "system__name", "system__system_id")
        )
        by_system: dict[tuple, dict] = {}
        for row in rows:
            key = (row["submission__organization__slug"], row["system__system_id"])
            entry = by_system.setdefault(key, {
                "organization": row["submission__organization__slug"],
                "organization_name": row["submission__organization__name"],
                "system_id": row["system__system_id"], "name": row["system__name"],
                "accelerator": row["system__accelerator_model_name"], "accelerators": row["system__accelerators_count"],
                "framework": row["system__framework"], "division": row["system__division"], "rounds": {},
            })
            slug = f"{row['submission__round__suite']}-v{row['submission__round__version']}"
            entry["rounds"][slug] = entry["rounds"].get(slug, 0) + row["results"]
        systems = list(by_system.values())[:SEARCH_LIMIT]
        for entry in systems:
            entry["rounds"] = sorted(entry["rounds"].items(), key=lambda item: charts.version_key(item[0].rsplit("-v", 1)[1]))
        # Same-named systems are told apart by what differs between them.
        names = defaultdict(list)
        for entry in systems:
            names[entry["name"]].append(entry)
        for entry in systems:
            entry["ambiguous"] = len(names[entry["name"]]) > 1
        submitters = list(
            visible.filter(Q(system__submitter__icontains=query) | Q(submission__organization__name__icontains=query))
            .values("submission__organization__slug", "submission__organization__name")
            .annotate(systems=Count("system__system_id", distinct=True), rounds=Count("submission__round", distinct=True))
            .order_by("submission__organization__name")[:SEARCH_LIMIT]
        )
        counts: dict[str, dict] = {}
        for name, systems_count, rounds in (
            visible.filter(system__accelerator_model_name__icontains=query)
            .values_list("system__accelerator_model_name")
            .annotate(Count("system__system_id", distinct=True), Count("submission__round", distinct=True))
            .order_by()
        ):
            entry = counts.setdefault(accelerator_key(name), {"spellings": [], "systems": 0, "rounds": 0})
            entry["spellings"].append(name)
            entry["systems"] += systems_count
            entry["rounds"] = max(entry["rounds"], rounds)
        labels = dict(accelerator_choices(n for entry in counts.values() for n in entry["spellings"]))
        accelerators = sorted(({"key": key, "label": labels[key], **entry} for key, entry in counts.items()),
                              key=lambda entry: entry["label"].lower())
    return render(request, "results/search.html", {
        "query": query, "systems": systems, "submitters": submitters, "accelerators": accelerators,
    })


# --- sitemap ----------------------------------------------------------------------------------


@cache_public_page
def sitemap(request):
    """Public pages only: built for an anonymous visitor whoever asks. The URLs start with
    SITE_URL, never with the request's Host header: the answer is cached and served to everyone."""
    base = settings.SITE_URL.rstrip("/")
    urls = [reverse("results:home"), reverse("results:progress", args=["training"])]
    rounds = Round.objects.visible_to(None)
    for round_ in rounds:
        urls.append(reverse("results:round", args=[round_.slug]))
    public = Result.objects.visible_to(None).current()
    for version, suite, name in public.values_list(
        "submission__round__version", "submission__round__suite", "benchmark__name"
    ).distinct():
        urls.append(reverse("results:benchmark", args=[f"{suite}-v{version}", name]))
    urls += [reverse("results:result", args=[rid]) for rid in public.values_list("result_id", flat=True).distinct()]
    systems = defaultdict(set)
    for org, system_id in public.values_list("submission__organization__slug", "system__system_id").distinct():
        systems[org].add(system_id)
    urls += [reverse("results:system", args=[org, sid]) for org, ids in sorted(systems.items()) for sid in sorted(ids)]
    body = "".join(f"<url><loc>{escape(base + url)}</loc></url>" for url in urls)
    xml = f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'
    return HttpResponse(xml, content_type="application/xml")


# --- small files browsers and crawlers ask for ----------------------------------------------


def favicon(request):
    return HttpResponsePermanentRedirect(static("favicon.ico"))


def robots_txt(request):
    sitemap_url = request.build_absolute_uri(reverse("results:sitemap"))
    return render(request, "robots.txt", {"sitemap_url": sitemap_url}, content_type="text/plain; charset=utf-8")


@cache_public_page
def round_chart(request, slug: str, chart: str, fmt: str):
    """Inference round charts (server/offline ratio, relative performance, coverage) as CSV or JSON."""
    round_ = round_or_404(request.user, slug)
    built = inference_views.round_chart(request.user, round_, request.GET, chart) if round_.suite == Suite.INFERENCE else None
    if built is None:
        raise Http404("no such chart")
    return _chart_response(built, fmt, round_.slug)
