"""Results or systems side by side."""

from __future__ import annotations

from urllib.parse import quote

from django.db.models import Q
from django.shortcuts import render
from django.urls import reverse

from pages.caching import cache_public_page
from pages.normalised import mixing_warning
from pages.suites import SUITES
from pages.system_groups import category_of
from results.models import Result, Run, System, version_order

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


def _score_rows(results: list[Result]) -> list[tuple[str, list]]:
    """The figures each compared result is judged by, in its own suite's words (each suite's
    compare_rows, pages/suites/): a row of one suite is blank in the columns of another (a
    training time is not an inference throughput); a label two suites share is one row."""
    rows: dict[str, list] = {"Round": [r.submission.round.slug for r in results]}
    for suite in dict.fromkeys(r.submission.round.suite for r in results):
        for label, figure in SUITES[suite].compare_rows():
            values = rows.setdefault(label, [None] * len(results))
            for index, result in enumerate(results):
                if result.submission.round.suite == suite:
                    values[index] = figure(result)
    return [(label, values) for label, values in rows.items() if any(v not in (None, "") for v in values)]


@cache_public_page
def compare(request):
    result_ids = [r for r in request.GET.getlist("result") if r.strip()][:8]
    system_keys = [s for s in request.GET.getlist("system") if "/" in s][:8]
    columns: list[dict] = []
    sections: list[tuple[str, list]] = []
    missing: list[str] = []
    compared: list[dict] = []  # division, availability and round of each column, for the warning
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
        compared = [{"division": r.division or r.system.division, "round": r.submission.round.slug,
                     "category": category_of(r.system.availability, r.system.deployment)} for r in results]
        first_runs: dict[int, Run] = {}
        for run in Run.objects.filter(result__in=results).order_by("result", "file"):
            first_runs.setdefault(run.result_id, run)
        columns = [{"label": r.result_id, "url": reverse("pages:result", args=[r.result_id]),
                    "sub": f"{r.system.name} · {r.benchmark.name}", "key": r.result_id} for r in results]
        hyper_keys = sorted({k for run in first_runs.values() for k in (run.hyperparameters or {})})
        sections = [
            ("Score", _score_rows(results)),
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
        compared = [{"division": s.division, "round": s.submission.round.slug,
                     "category": category_of(s.availability, s.deployment)} for s in systems]
        columns = [{"label": s.name, "sub": f"{s.submission.organization.name} · {s.submission.round.slug}",
                    "url": reverse("pages:system", args=[s.submission.organization.slug, s.system_id]),
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
        "mixing_warning": mixing_warning(compared, rounds=True),
        "result_ids": " ".join(result_ids), "system_keys": " ".join(system_keys),
    })
