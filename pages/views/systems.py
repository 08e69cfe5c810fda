"""A system's page: its description and its results across rounds."""

from __future__ import annotations

import json

from django.http import Http404
from django.shortcuts import render

from pages.caching import cache_public_page
from pages.tables import CATEGORY_LABELS, category_of
from pages.views.common import official_links
from results.constants import Suite
from results.models import Result, System, version_order


def _system_results(user, organization: str, system_id: str, suite: str):
    """The system's results in rounds of `suite` (an inference system id is not a training one)."""
    return (
        Result.objects.visible_to(user).current()
        .filter(submission__organization__slug=organization, system__system_id=system_id,
                submission__round__suite=suite)
        .with_related()
        .order_by(version_order("submission__round__version").desc(), "benchmark__name")
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
    suite = system.submission.round.suite
    results = list(_system_results(request.user, organization, system_id, suite))
    description = sorted(system.description.items()) if isinstance(system.description, dict) else []
    return render(request, "results/system.html", {
        "system": system,
        "organization": system.submission.organization,
        "description": [(key, json.dumps(value) if isinstance(value, dict | list) else value)
                        for key, value in description],
        "results": results,
        "inference": suite == Suite.INFERENCE,
        # Inference v2.1+: datacenter, edge, or both ("datacenter,edge").
        "system_type": str((system.description or {}).get("system_type") or "").replace(",", " and ")
        if suite == Suite.INFERENCE and isinstance(system.description, dict) else "",
        "category": CATEGORY_LABELS[category_of(system.availability, system.deployment)],
        "official": official_links(system.submission, system.system_id, system.division),
    })
