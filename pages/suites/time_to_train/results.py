"""A training or HPC result's page and its charts: the runs with their convergence, the
hyperparameters, the findings with links to the log lines they cite, the scaling-factor decision
and the energy to train; and the links into the round's published MLCommons repository."""

from __future__ import annotations

import json
from urllib.parse import quote

from django.http import Http404
from django.shortcuts import render

from audit.roles import is_privileged
from mlperf_check.package import natural_key
from mlperf_check.rules.rcp import SAMPLE_UNIT_BENCHMARKS, SAMPLES_BENCHMARKS
from pages.charts import Chart
from pages.common import chart_response, draws, published_package, result_page_context
from pages.system_groups import CATEGORY_LABELS, category_of
from results.constants import WaiverKind
from results.models import Result, Run
from results.paging import page_of
from review.findings import findings_with_log_urls
from review.summary import review_summary

from . import charts

# More runs than a benchmark's usual 5-10: the result's charts are fetched when drawn.
LAZY_CHART_RUNS = 10


def convergence_unit(benchmark: str) -> str:
    """What the benchmark's convergence point counts, as its RCP rules measure it (never guessed
    from the size of the numbers: BERT counts samples, some logs still say epoch 1)."""
    return "samples" if benchmark in SAMPLE_UNIT_BENCHMARKS else "epochs"


def official_links(submission, system_id: str, division: str = "") -> dict[str, str]:
    """The system description and code of an imported result in the round's public MLCommons
    repository, built as the official result summarizer builds its details_url and code_url;
    empty where the package is not published there (common.published_package)."""
    package = published_package(submission)
    if package is None:
        return {}
    base, folder = package
    return {"details_url": f"{base}/blob/main/{quote(folder)}/systems/{quote(system_id)}.json",
            "code_url": f"{base}/blob/master/{quote(folder)}/benchmarks"}


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


def _result_charts(result: Result, runs: list[Run]) -> list[Chart]:
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


def result_page(request, result: Result):
    """Raises BadPage for a malformed page number (the runs and each findings group are paged:
    an HPC weak-scaling result of the record has 637 runs)."""
    runs = _runs_in_order(result)
    unit = convergence_unit(result.benchmark.name)
    for run in runs:
        run.convergence = _run_convergence(run, result.benchmark.name)
    result_charts = _result_charts(result, runs)
    findings = findings_with_log_urls(result, runs)
    review = review_summary(result, request.user)
    runs_page = page_of(runs, request.GET, "runs_page", anchor="runs")
    # A hyperparameter differs when any two runs disagree, whichever page they are on.
    hyperparameters = _hyperparameter_rows(runs)
    for row in hyperparameters:
        row["values"] = row["values"][runs_page.first - 1:runs_page.last]
    context = {
        **result_page_context(request, result, findings),
        "runs": runs,
        "runs_page": runs_page,
        "hyperparameters": hyperparameters,
        "run_labels": [_run_label(r) for r in runs_page.rows],
        "charts": result_charts,
        "draws_charts": draws(result_charts),
        # Every run's curve is the convergence chart's data: fetched when drawn where they are many
        # (40 unet3d runs are 100-130 KB of figure, 637 HPC weak-scaling runs 620 KB).
        "lazy_charts": len(runs) > LAZY_CHART_RUNS,
        "category": CATEGORY_LABELS[category_of(result.system.availability, result.system.deployment)],
        # The published_factor decision on the result's system and benchmark (accepted or rejected).
        "factor_decision": next((w for w in review["waivers"] if w.kind == WaiverKind.PUBLISHED_FACTOR), None),
        "shipped_factor_differs": result.shipped_factor_differs,
        "show_decider": is_privileged(request.user),
        "unit": unit,
        "official": official_links(result.submission, result.system.system_id),
        "review": review,
        "has_energy": any(run.energy_joules is not None for run in runs),
    }
    return render(request, "results/result.html", context)


def result_chart(request, result: Result, chart: str, fmt: str):
    for built in _result_charts(result, _runs_in_order(result)):
        if built.name == chart:
            return chart_response(built, fmt, result.result_id)
    raise Http404("no such chart")
