"""A system's page: its description and its results across rounds."""

from __future__ import annotations

import json

from django.http import Http404
from django.shortcuts import render

from pages import suites
from pages.caching import cache_public_page
from pages.system_groups import CATEGORY_LABELS, category_of
from results.models import Result, System, version_order
from results.paging import page_of


def _system_results(user, organization: str, system_id: str, suite: str):
    """The system's results in rounds of `suite` (an inference system id is not a training one)."""
    return (
        Result.objects.visible_to(user).current()
        .filter(submission__organization__slug=organization, system__system_id=system_id,
                submission__round__suite=suite)
        .with_related()
        .order_by(version_order("submission__round__version").desc(), "benchmark__name", "result_id")
    )


@cache_public_page
def system_detail(request, organization: str, system_id: str):
    system = (
        System.objects.visible_to(request.user)
        .filter(submission__organization__slug=organization, system_id=system_id)
        .select_related("submission__round", "submission__organization")
        .order_by(version_order("submission__round__version").desc(), "-submission__is_current", "-submission__version")
        .first()
    )
    if system is None:
        raise Http404("no such system")
    suite = suites.of_round(system.submission.round)
    # An open-division system can have hundreds of results (Krai's: 565 in inference v2.1).
    page = page_of(_system_results(request.user, organization, system_id, system.submission.round.suite),
                   request.GET, anchor="results")
    description = sorted(system.description.items()) if isinstance(system.description, dict) else []
    return render(request, "results/system.html", {
        "system": system,
        "organization": system.submission.organization,
        "description": [(key, json.dumps(value) if isinstance(value, dict | list) else value)
                        for key, value in description],
        "results": page.rows,
        "page": page,
        "results_template": suite.SYSTEM_RESULTS_TEMPLATE,
        "system_type": suite.system_type(system),
        "category": CATEGORY_LABELS[category_of(system.availability, system.deployment)],
        "official": suite.official_links(system.submission, system.system_id, system.division),
    })
